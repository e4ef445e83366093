/**
 * Issue 41: the `--state-file` lock across restarts and PID namespaces, with real processes.
 * A container is rehearsed with `unshare -p -f --mount-proc` (root): its sandbox is PID 1 in a PID
 * namespace of its own, every life, as in a container restarted after `kill -9` or the OOM killer.
 * - a crashed sandbox restarted in a new namespace, with the same pid, takes the lock over once
 *   the lock goes untouched for `stateLockStaleMs` (set small here), and has its data;
 * - a live sandbox in another namespace sharing the folder is never taken over: the second is
 *   refused, and the message says why;
 * - a lock naming this namespace's pid in an earlier life (a PID 1 of before) is taken at once.
 * Also a `--state-file` that is a dangling symbolic link: the file it names is made, and saves go
 * there. Without unshare (or without root) the namespace tests are skipped with the notice;
 * under CI=true the run fails instead.
 */
import { spawn } from 'node:child_process'
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readLock, thisProcess } from '../src/node/state-lock.js'
import { needs } from './support/programs.js'
import { BIN, spawnNode, waitFor, type Cli } from './support/spawn-cli.js'
import { scratch } from './support/scratch.js'

const unshare = needs('unshare')
const AUTH = { Authorization: 'Bearer petstore-sandbox-key' }
const STALE_MS = 600
const { folder, processes } = scratch('petstore-lock-')

const sandboxArgs = (file: string) => [
  BIN,
  '--port',
  '0',
  '--quiet',
  '--state-file',
  file,
  '--limit',
  `stateLockStaleMs=${STALE_MS}`,
  '--limit',
  'stateSaveIntervalMs=10',
]

/** The sandbox as PID 1 of a PID namespace of its own: a container. */
function inContainer(file: string): Cli {
  const child = spawn('unshare', ['-p', '-f', '--mount-proc', '--kill-child', process.execPath, ...sandboxArgs(file)], {
    stdio: 'pipe',
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => {
    child.once('close', (code) => {
      resolve(code)
    })
  })
  const cli = { child, stdout: () => stdout, stderr: () => stderr, exited }
  processes.push(cli)
  return cli
}

/** The node process unshare forked: PID 1 inside, this pid outside. Signals go to it: unshare's own end is no sandbox's. */
function innerPid(cli: Cli): number {
  const children = readFileSync(`/proc/${cli.child.pid}/task/${cli.child.pid}/children`, 'utf8').trim()
  return Number(children.split(' ')[0])
}

async function create(url: string, name: string): Promise<number> {
  const response = await fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, categoryId: 1 }),
  })
  return response.status
}

const names = async (url: string) =>
  ((await (await fetch(`${url}/v1/pets?limit=100`, { headers: AUTH })).json()) as { name: string }[]).map(
    (pet) => pet.name,
  )

/** Waits for the file itself to hold a pet of that name: the save, not a guess at its time. */
async function savedWith(file: string, name: string): Promise<void> {
  await expect
    .poll(() => (existsSync(file) ? readFileSync(file, 'utf8').includes(JSON.stringify(name)) : false), {
      timeout: 10_000,
      interval: 20,
    })
    .toBe(true)
}

describe.skipIf(!unshare)('the state file lock in containers (PID namespaces, as unshare -p rehearses them)', () => {
  it('after kill -9, a restart in a new namespace with the same pid takes the lock over and has the data', async () => {
    const file = join(folder(), 'demo.json')
    const first = inContainer(file)
    const [, url = ''] = await waitFor(first, /listening on (http:\/\/\S+)\/v1/)
    expect(await create(url, 'Before the crash')).toBe(201)
    await savedWith(file, 'Before the crash')
    // The lock names PID 1 of the first namespace.
    const held = readLock(`${file}.lock`)
    expect(held?.pid).toBe(1)
    expect(held?.pidns).not.toBe(thisProcess().pidns)
    process.kill(innerPid(first), 'SIGKILL')
    await first.exited
    expect(existsSync(`${file}.lock`)).toBe(true)
    const second = inContainer(file)
    const [, again = ''] = await waitFor(second, /listening on (http:\/\/\S+)\/v1/, 15_000)
    expect(await names(again)).toContain('Before the crash')
    // PID 1 again, of a new life: its start time is not the first one's. (The kernel may give the
    // new namespace the number the dead one had: a namespace's inode is reused once it is gone.)
    expect(readLock(`${file}.lock`)).toMatchObject({ pid: 1 })
    expect(readLock(`${file}.lock`)?.start).not.toBe(held?.start)
    process.kill(innerPid(second), 'SIGTERM')
    expect(await second.exited).toBe(0)
    expect(existsSync(`${file}.lock`)).toBe(false)
  })

  it('never takes over a live sandbox in another namespace: the second is refused, saying why', async () => {
    const file = join(folder(), 'shared.json')
    const first = inContainer(file)
    const [, url = ''] = await waitFor(first, /listening on (http:\/\/\S+)\/v1/)
    const second = inContainer(file)
    expect(await second.exited).toBe(1)
    expect(second.stderr()).toMatch(
      /is in use by process 1 of another PID namespace \(another container sharing this folder\?\).*stop that sandbox first/,
    )
    // Nor from the host's own namespace.
    const host = spawnNode(sandboxArgs(file))
    processes.push(host)
    expect(await host.exited).toBe(1)
    expect(host.stderr()).toMatch(/another PID namespace/)
    // The first still owns its file.
    expect(await create(url, 'Still mine')).toBe(201)
    await savedWith(file, 'Still mine')
    process.kill(innerPid(first), 'SIGTERM')
    expect(await first.exited).toBe(0)
  })
})

describe('the state file lock in one namespace', () => {
  it('takes over at once a lock of an earlier life of its own pid (a PID 1 of before)', async () => {
    const file = join(folder(), 'earlier.json')
    const me = thisProcess()
    // A shell that execs the sandbox once told to: the pid is known before the sandbox runs, and
    // the lock names it, in this namespace and boot, with a start time of another life.
    const child = spawn('sh', ['-c', 'read go; exec "$0" "$@"', process.execPath, ...sandboxArgs(file)], {
      stdio: 'pipe',
    })
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    const exited = new Promise<number | null>((resolve) => {
      child.once('close', (code) => {
        resolve(code)
      })
    })
    const cli: Cli = { child, stdout: () => stdout, stderr: () => '', exited }
    processes.push(cli)
    const pid = child.pid ?? 0
    writeFileSync(`${file}.lock`, `${JSON.stringify({ pid, pidns: me.pidns, boot: me.boot, start: 1 })}\n`)
    child.stdin.write('go\n')
    const [, url = ''] = await waitFor(cli, /listening on (http:\/\/\S+)\/v1/)
    expect(await create(url, 'Mine now')).toBe(201)
    expect(readLock(`${file}.lock`)).toMatchObject({ pid, pidns: me.pidns })
    expect(readLock(`${file}.lock`)?.start).not.toBe(1)
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
  })

  it('refuses a live holder of this namespace, named by its pid, and takes a 0.12.5 lock (a pid alone) whose process is gone', async () => {
    const file = join(folder(), 'old.json')
    // A pid that runs: this test runner, in a lock written as 0.12.5 wrote them.
    writeFileSync(`${file}.lock`, `${process.pid}\n`)
    const refused = spawnNode(sandboxArgs(file))
    processes.push(refused)
    expect(await refused.exited).toBe(1)
    expect(refused.stderr()).toContain(`is in use by process ${process.pid}`)
    // A pid that does not run: taken over.
    const gone = spawnNode(['-e', '0'])
    await gone.exited
    writeFileSync(`${file}.lock`, `${gone.child.pid}\n`)
    const taker = spawnNode(sandboxArgs(file))
    processes.push(taker)
    await waitFor(taker, /listening on/)
    taker.child.kill('SIGTERM')
    expect(await taker.exited).toBe(0)
  })
})

describe('a holder killed and not yet reaped (a zombie)', () => {
  it('is no holder: a restart at once after kill -9 takes the file, while the parent that does not reap it lives', async () => {
    const file = join(folder(), 'zombie.json')
    const log = join(folder(), 'first.log')
    // The sandbox in the background of a shell that then becomes `sleep`, which never waits for
    // its children: killed, the sandbox stays a zombie (state Z) until the sleep ends.
    const parent = spawn(
      'sh',
      ['-c', '"$0" "$@" >"$LOG" 2>&1 & echo $!; exec sleep 60', process.execPath, ...sandboxArgs(file)],
      { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, LOG: log } },
    )
    const parentExited = new Promise<void>((resolve) =>
      parent.once('close', () => {
        resolve()
      }),
    )
    let pidText = ''
    parent.stdout.setEncoding('utf8').on('data', (chunk: string) => (pidText += chunk))
    try {
      while (!pidText.includes('\n') || !existsSync(log) || !readFileSync(log, 'utf8').includes('listening on')) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      const pid = Number(pidText.trim())
      expect(readLock(`${file}.lock`)?.pid).toBe(pid)
      process.kill(pid, 'SIGKILL')
      // Until the kernel shows it dead: Z, as the parent does not reap it.
      const state = () => /\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1]
      while (state() !== 'Z') await new Promise((resolve) => setTimeout(resolve, 10))
      const restarted = spawnNode(sandboxArgs(file))
      processes.push(restarted)
      await waitFor(restarted, /listening on/)
      expect(state()).toBe('Z')
      restarted.child.kill('SIGTERM')
      expect(await restarted.exited).toBe(0)
    } finally {
      parent.kill('SIGKILL')
      await parentExited
    }
  })
})

describe('a --state-file that is a dangling symbolic link', () => {
  it('makes the file the link names, saves there, and the link stays a link', async () => {
    const place = folder()
    mkdirSync(join(place, 'real'))
    const target = join(place, 'real', 'demo.json')
    const link = join(place, 'link.json')
    symlinkSync(target, link)
    const cli = spawnNode(sandboxArgs(link))
    processes.push(cli)
    const [, url = ''] = await waitFor(cli, /listening on (http:\/\/\S+)\/v1/)
    expect(await create(url, 'Through a dangling link')).toBe(201)
    await savedWith(target, 'Through a dangling link')
    cli.child.kill('SIGTERM')
    expect(await cli.exited).toBe(0)
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(readlinkSync(link)).toBe(target)
    const saved = JSON.parse(readFileSync(target, 'utf8')) as { pets: { name: string }[] }
    expect(saved.pets.map((pet) => pet.name)).toContain('Through a dangling link')
    // Started again through the link, it reads what it saved.
    const again = spawnNode(sandboxArgs(link))
    processes.push(again)
    const [, url2 = ''] = await waitFor(again, /listening on (http:\/\/\S+)\/v1/)
    expect(await names(url2)).toContain('Through a dangling link')
    again.child.kill('SIGTERM')
    await again.exited
  })

  it('follows a relative dangling link, and a chain of two, to a folder that is made', async () => {
    const place = folder()
    symlinkSync('second.json', join(place, 'first.json'))
    symlinkSync(join('made', 'later', 'demo.json'), join(place, 'second.json'))
    const cli = spawnNode(sandboxArgs(join(place, 'first.json')))
    processes.push(cli)
    const [, url = ''] = await waitFor(cli, /listening on (http:\/\/\S+)\/v1/)
    expect(await create(url, 'Down the chain')).toBe(201)
    await savedWith(join(place, 'made', 'later', 'demo.json'), 'Down the chain')
    cli.child.kill('SIGTERM')
    expect(await cli.exited).toBe(0)
    expect(lstatSync(join(place, 'first.json')).isSymbolicLink()).toBe(true)
    expect(lstatSync(join(place, 'second.json')).isSymbolicLink()).toBe(true)
    expect(readFileSync(join(place, 'made', 'later', 'demo.json'), 'utf8')).toContain('Down the chain')
  })
})
