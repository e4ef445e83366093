/**
 * The command as the README runs it: `npx petstore-sandbox` in a project that has the package
 * installed (here a temporary project whose node_modules links to this checkout, as npm links
 * it). npm 10/11 runs the bin as npx -> `sh -c` -> node, and what a shell sees depends on that sh:
 * dash (Debian's and Ubuntu's) stays between npx and the server, bash hands over to the server.
 * Each is run here as npm's `script-shell`. The server stops whenever npx is stopped, and npx's
 * own exit is the one docs/cli.md gives for that shell; --help's examples run as printed.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { needs } from './support/programs.js'
import { spawnCli, waitFor, type Cli } from './support/spawn-cli.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
// Waiting for npm's start-up and the server's, on a loaded machine: the bound only turns a hang
// into a failure with a message.
const PATIENCE_MS = 60_000
// Each test starts npm (about a second of CPU) once or three times, on a machine others share.
const SLOW = 180_000

let project = ''
beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'petstore-npx-'))
  writeFileSync(join(project, 'package.json'), '{"name":"npx-consumer","private":true}\n')
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true })
  symlinkSync(ROOT, join(project, 'node_modules', 'petstore-sandbox'), 'dir')
  symlinkSync('../petstore-sandbox/bin/petstore-sandbox.js', join(project, 'node_modules', '.bin', 'petstore-sandbox'))
})
afterAll(() => {
  if (project !== '') rmSync(project, { recursive: true, force: true })
})

interface Npx extends Cli {
  /** How npx itself ended: its exit code, or the signal that ended it (a shell shows 128 + its number). */
  npxExit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** Kills the whole group, server included: a failed test must not leave a server behind. */
async function kill(npx: Npx): Promise<void> {
  if (npx.child.pid !== undefined) {
    try {
      process.kill(-npx.child.pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
  await npx.exited
}

/**
 * `npx --no-install petstore-sandbox ...args` in the project, through `shell`, in a process group
 * of its own, as a terminal's foreground job is: a signal to the group is Ctrl-C's.
 */
function npx(args: string[], shell: string, onTestFinished: (cleanup: () => Promise<void>) => void): Npx {
  const child = spawn('npx', ['--no-install', 'petstore-sandbox', ...args], {
    cwd: project,
    env: { ...process.env, npm_config_script_shell: shell, npm_config_update_notifier: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const npxExit = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }))
  // 'close' comes once every process holding the pipes has closed them: npx, and the server,
  // which writes to the same pipes. So it means the server is gone too.
  const exited = once(child, 'close').then(([code]) => code as number | null)
  const started = { child, stdout: () => stdout, stderr: () => stderr, exited, npxExit }
  // The test's own hook, not afterEach: the tests run beside each other, each with its own npx.
  onTestFinished(() => kill(started))
  return started
}

async function listening(cli: Cli): Promise<string> {
  const [, apiUrl = ''] = await waitFor(cli, /listening on (http:\/\/\S+\/v1) with \d+ pets?\n/, PATIENCE_MS)
  // The server answers: it is up, and it is what npx started. (Not listPets: an --upstream
  // example sends it to a staging server that does not exist.)
  const response = await fetch(`${apiUrl.replace(/\/v1$/, '')}/__sandbox/health`)
  expect(response.status).toBe(200)
  return apiUrl
}

/**
 * Waits for the server's last line, then for every holder of the pipes (the server too) to close
 * them. npx may be gone long before: a server left running fails here, with what it printed.
 */
async function stopped(cli: Npx): Promise<void> {
  await vi.waitFor(
    () => {
      expect(cli.stdout()).toMatch(/^Stopped \(/m)
    },
    { timeout: PATIENCE_MS, interval: 50 },
  )
  await cli.exited
}

/** The code of the error a fetch to a closed port fails with. */
async function refused(apiUrl: string): Promise<string> {
  return fetch(`${apiUrl}/pets`).then(
    (response) => `answered ${response.status}`,
    (error: unknown) => (error as { cause?: { code?: string } }).cause?.code ?? String(error),
  )
}

/**
 * What each shell makes of it, as docs/cli.md's Stopping section says: through dash, npx ends
 * with the signal that stopped the shell (Ctrl-C 130, SIGTERM 143); through bash, with the
 * server's own exit code.
 */
const SHELLS = [
  {
    shell: 'dash',
    ctrlC: { code: null, signal: 'SIGINT' },
    sigterm: { code: null, signal: 'SIGTERM' },
    // dash dies of SIGTERM without passing it on: the server stops because npx is gone.
    sigtermStopped: 'Stopped (npx is gone).',
  },
  {
    shell: 'bash',
    ctrlC: { code: 0, signal: null },
    sigterm: { code: 0, signal: null },
    // npx forwards SIGTERM to its child, which under bash is the server.
    sigtermStopped: 'Stopped (SIGTERM).',
  },
] as const

// Every test starts npx processes of its own, in process groups of their own, on ports from 0: the
// tests run beside each other (most of each is waiting for a process to start or end).
describe.concurrent.each(SHELLS)(
  "started through npx, with $shell as npm's sh",
  ({ shell, ctrlC, sigterm, sigtermStopped }) => {
    const can = needs(shell === 'dash' ? 'dash' : 'bash')

    it.skipIf(!can)(
      'stops on SIGTERM to npx alone, and npx ends as the docs say',
      async ({ expect, onTestFinished }) => {
        const started = npx(['--port', '0', '--quiet'], shell, onTestFinished)
        const apiUrl = await listening(started)
        process.kill(started.child.pid ?? 0, 'SIGTERM')
        expect(await started.npxExit).toEqual(sigterm)
        await stopped(started)
        expect(started.stdout()).toContain(sigtermStopped)
        expect(await refused(apiUrl)).toBe('ECONNREFUSED')
      },
      SLOW,
    )

    it.skipIf(!can)(
      'stops when npx is killed with SIGKILL: it notices npx is gone',
      async ({ expect, onTestFinished }) => {
        const started = npx(['--port', '0', '--quiet'], shell, onTestFinished)
        const apiUrl = await listening(started)
        process.kill(started.child.pid ?? 0, 'SIGKILL')
        expect(await started.npxExit).toEqual({ code: null, signal: 'SIGKILL' })
        await stopped(started)
        expect(started.stdout()).toMatch(/^Stopping \(npx is gone\)\.\nStopped \(npx is gone\)\.$/m)
        expect(await refused(apiUrl)).toBe('ECONNREFUSED')
      },
      SLOW,
    )

    it.skipIf(!can)(
      'stops gracefully on Ctrl-C (SIGINT to the group), and npx ends as the docs say',
      async ({ expect, onTestFinished }) => {
        const started = npx(['--port', '0', '--quiet'], shell, onTestFinished)
        const apiUrl = await listening(started)
        process.kill(-(started.child.pid ?? 0), 'SIGINT')
        expect(await started.npxExit).toEqual(ctrlC)
        await stopped(started)
        expect(started.stdout()).toMatch(/^Stopping \(SIGINT\)\.\nStopped \(SIGINT\)\.$/m)
        expect(started.stderr()).not.toContain('again')
        expect(await refused(apiUrl)).toBe('ECONNREFUSED')
      },
      SLOW,
    )
  },
)

describe.concurrent('--help', () => {
  // One --help for both tests: what it prints does not change between them.
  let printed: Promise<{ code: number | null; lines: string[] }> | undefined
  async function help(): Promise<string[]> {
    printed ??= (async () => {
      const cli = spawnCli(['--help'])
      const code = await cli.exited
      return { code, lines: cli.stdout().trimEnd().split('\n') }
    })()
    const { code, lines } = await printed
    expect(code).toBe(0)
    return lines
  }

  it(
    'ends with three examples, then the URLs of the dashboard, the API reference and the docs',
    async ({ expect }) => {
      const lines = await help()
      const examples = lines.slice(lines.indexOf('Examples:') + 1)
      expect(examples.filter((line) => line.startsWith('  npx petstore-sandbox'))).toEqual([
        '  npx petstore-sandbox',
        '  npx petstore-sandbox --isolate --port 0',
        '  npx petstore-sandbox --upstream https://staging.example.com/v1 --forward listPets --record',
      ])
      expect(lines.slice(-3)).toEqual([
        'Dashboard:      http://127.0.0.1:3210/__sandbox/',
        'API reference:  http://127.0.0.1:3210/',
        'Docs:           https://www.npmjs.com/package/petstore-sandbox (and docs/*.md in the package)',
      ])
      // Shorter than the 101 lines it was; docs.test.ts holds each option it prints against docs/cli.md.
      expect(lines.length).toBeLessThan(101)
    },
    SLOW,
  )

  it.skipIf(!needs('dash'))(
    'its examples run as printed through npx, and its URLs are pages the server serves',
    async ({ expect, onTestFinished }) => {
      const lines = await help()
      const examples = lines.filter((line) => line.startsWith('  npx petstore-sandbox'))
      expect(examples).toHaveLength(3)
      const pages = lines.slice(-3, -1).map((line) => new URL(line.replace(/^[^:]+: +/, '')).pathname)
      expect(pages).toEqual(['/__sandbox/', '/'])
      // The examples side by side, each on a port of its own.
      await Promise.all(
        examples.map(async (example) => {
          // A free port in place of 3210, which may be taken: a later --port wins.
          const args = example.trim().split(/ +/).slice(2)
          const started = npx([...args, '--port', '0', '--quiet'], 'dash', onTestFinished)
          const apiUrl = await listening(started)
          const origin = apiUrl.replace(/\/v1$/, '')
          for (const page of pages) {
            const response = await fetch(`${origin}${page}`)
            expect([example, page, response.status, response.headers.get('content-type')]).toEqual([
              example,
              page,
              200,
              'text/html; charset=utf-8',
            ])
          }
          process.kill(-(started.child.pid ?? 0), 'SIGINT')
          await stopped(started)
          expect(started.stdout()).toContain('Stopped (SIGINT).')
        }),
      )
    },
    SLOW,
  )
})
