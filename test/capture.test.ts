/**
 * `petstore-sandbox capture`, as users run it (the built CLI, against real servers): a file that
 * `--fixtures` serves unchanged, bad pets left out with exit 1, and exit 2 for usage errors and a
 * server out of reach, with no URL quoted back whole.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Pet } from '../src/index.js'
import { startServer, type RunningServer } from '../src/server.js'
import { refusal, runToExit } from './support/cli-in-process.js'
import { spawnCli, waitFor, type Cli } from './support/spawn-cli.js'

const KEY = 'capture-key-1'
const folder = mkdtempSync(join(tmpdir(), 'petstore-capture-'))
afterAll(() => {
  rmSync(folder, { recursive: true, force: true })
})

/** capture in a real process, as a shell runs it: its exit code and its output through pipes. */
async function capture(args: string[]): Promise<{ code: number | null | undefined; stdout: string; stderr: string }> {
  const cli = spawnCli(['capture', ...args])
  const code = await cli.exited
  return { code, stdout: cli.stdout(), stderr: cli.stderr() }
}

/**
 * capture through the CLI's own run() in this process (support/cli-in-process.ts): the same code
 * without a Node start-up per case; the file's first and last cases run a real process.
 */
const captureHere = (args: string[]) => runToExit(['capture', ...args])

const SOURCE: Pet[] = [
  { id: 3, name: 'Three', categoryId: 1, status: 'available' },
  { id: 10, name: 'Ten', categoryId: 2, status: 'pending' },
  { id: 11, name: 'Eleven', categoryId: 3, status: 'sold' },
  { id: 40, name: 'No status', categoryId: 1 },
]

describe('capture against a running sandbox', () => {
  let source: RunningServer
  beforeAll(async () => {
    source = await startServer({ port: 0, fixtures: SOURCE, apiKeys: [KEY] })
  })
  afterAll(async () => {
    await source.close()
  })

  it('writes a file sorted by id that --fixtures serves unchanged, by reads only', async () => {
    const file = join(folder, 'pets.json')
    const run = await capture([source.apiUrl, '-k', KEY, '-o', file])
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('')
    expect(run.stderr).toBe(`petstore-sandbox capture: wrote 4 pets from ${source.apiUrl} to ${file}\n`)
    // No status filter sees a pet without a status; the file keeps it as it was.
    const written = JSON.parse(readFileSync(file, 'utf8')) as Pet[]
    expect(written).toEqual(SOURCE)
    // Reads only: the source's journal has GETs, and its data is as it was.
    expect(new Set(source.sandbox.requests.all().map((entry) => entry.method))).toEqual(new Set(['GET']))
    expect(await source.sandbox.pets.count()).toBe(4)

    const served: Cli = spawnCli(['--port', '0', '--quiet', '--fixtures', file])
    try {
      const [, url = ''] = await waitFor(served, /listening on (http:\/\/\S+)\/v1/)
      const response = await fetch(`${url}/v1/pets?limit=100`, {
        headers: { Authorization: 'Bearer petstore-sandbox-key' },
      })
      expect(await response.json()).toEqual(SOURCE)
    } finally {
      served.child.kill('SIGTERM')
      await served.exited
    }
  })

  it('writes to stdout without -o, reads --ids one by one, and says when a list came back full', async () => {
    const many = await startServer({ port: 0, generate: 150, randomSeed: 7 })
    try {
      const whole = await captureHere([many.apiUrl, '--ids', '1-150'])
      expect(whole.code).toBe(0)
      const pets = JSON.parse(whole.stdout) as Pet[]
      expect(pets).toHaveLength(150)
      expect(pets.map((pet) => pet.id)).toEqual(Array.from({ length: 150 }, (_, index) => index + 1))
      expect(whole.stderr).toContain('note: listPets came back full (100 pets, its most)')
      const lists = await captureHere([many.apiUrl])
      expect(lists.stderr).toContain('there may be more; --ids reads them one by one')
    } finally {
      await many.close()
    }
  })

  it('stops with exit 2 when the key is refused', async () => {
    const run = await captureHere([source.apiUrl, '-k', 'not-the-key'])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('refused the key (401)')
    expect(run.stderr).not.toContain('not-the-key')
  })
})

describe('capture against a drifting server', () => {
  let drifting: Server
  let url: string
  beforeAll(async () => {
    drifting = createServer((request, response) => {
      response.setHeader('Content-Type', 'application/json')
      if (request.url?.startsWith('/v1/pets/') === true) {
        response.statusCode = 404
        response.end('{"code":"pet_not_found","message":"no","status":404}')
        return
      }
      response.end(
        JSON.stringify([
          { id: 1, name: 'Good', categoryId: 1 },
          { id: 2, name: '   ', categoryId: 1 },
          { id: 'three', name: 'String id', categoryId: 1 },
          { id: 4, name: 'Bad status', categoryId: 1, status: 'adopted' },
        ]),
      )
    })
    await new Promise<void>((resolve) => drifting.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(drifting.address() as { port: number }).port}/v1`
  })
  afterAll(async () => {
    await new Promise((resolve) => drifting.close(resolve))
  })

  it('leaves the bad pets out, names each, and exits 1', async () => {
    const file = join(folder, 'drift.json')
    const run = await captureHere([url, '-o', file, '--ids', '1-3'])
    expect(run.code).toBe(1)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual([{ id: 1, name: 'Good', categoryId: 1 }])
    expect(run.stderr).toMatch(/listPets: pet 2 left out: .*name/)
    expect(run.stderr).toMatch(/listPets: item 2 left out: .*id/)
    expect(run.stderr).toMatch(/listPets: pet 4 left out: .*status/)
    expect(run.stderr).toMatch(/wrote 1 pet from .* to .*drift\.json; \d+ left out \(above\)/)
  })
})

describe('capture usage errors', () => {
  it.each([
    ['a URL with credentials', ['http://user:s3cret-pass@127.0.0.1:1/v1'], /must not carry credentials/, 's3cret-pass'],
    ['a URL with a query', ['http://127.0.0.1:1/v1?token=s3cret-token'], /must not have a query/, 's3cret-token'],
    ['an --ids that is no range', ['http://127.0.0.1:1/v1', '--ids', '9-2'], /--ids must be a range/, undefined],
  ])('exits 2 for %s, in one line, never quoting a secret', async (_, args, message, secret) => {
    const run = await refusal(['capture', ...args])
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toMatch(message)
    expect(run.stderr.trim().split('\n').length).toBeLessThanOrEqual(2)
    if (secret !== undefined) expect(run.stderr).not.toContain(secret)
  })

  it('exits 2 for a server that cannot be reached, in a real process, in one line', async () => {
    const run = await capture(['http://127.0.0.1:1/v1'])
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toMatch(/^petstore-sandbox capture: cannot reach http:\/\/127\.0\.0\.1:1\/v1: /)
    expect(run.stderr.trim().split('\n').length).toBeLessThanOrEqual(2)
  })
})
