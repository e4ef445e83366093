/**
 * `petstore-sandbox/playwright` under Playwright's own runner, against real sandbox processes: a
 * project per kind of server the fixture can meet (isolated, shared, nothing there, not a sandbox,
 * isolated with a pattern that leaves the workers' keys out), each with the message it must give.
 * The spec loads the CommonJS build of the fixture (dist/cjs/playwright.js, which the global setup
 * rebuilds from src/ when stale) and needs no browser: its tests use the `sandbox` fixture only.
 * The examples' own run, with pages in Chromium, is the consumer jobs' (scripts/consumer/playwright*.sh).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnCli, spawnNode, waitFor, type Cli } from './support/spawn-cli.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const FIXTURE = join(root, 'dist/cjs/playwright.js')
const RUNNER = join(root, 'node_modules/@playwright/test/cli.js')

const CONFIG = `module.exports = {
  testDir: __dirname,
  workers: 1,
  retries: 0,
  reporter: [['json', { outputFile: ${JSON.stringify('results.json')} }]],
  // Past the isolated sandbox, the first test alone: a failed test restarts the worker.
  projects: JSON.parse(process.env.FIXTURE_PROJECTS).map(([name, url]) => ({
    name,
    use: { baseURL: url },
    ...(name === 'isolated' ? {} : { grep: /first/ }),
  })),
}
`
// Two tests: the second shows that a worker which found the sandbox isolated goes on using it.
const SPEC = `const { expect, test } = require(${JSON.stringify(FIXTURE)})
for (const name of ['first', 'second']) {
  test(name, async ({ sandbox, request }) => {
    expect((await request.get('/v1/pets?limit=100')).status()).toBe(200)
    expect(await sandbox.requests({ operation: 'listPets' })).toHaveLength(1)
  })
}
`

interface Result {
  readonly status: string
  readonly errors: readonly { readonly message?: string }[]
}
interface Suite {
  readonly specs?: readonly {
    readonly title: string
    readonly tests: readonly { readonly projectName: string; readonly results: readonly Result[] }[]
  }[]
  readonly suites?: readonly Suite[]
}

const started: Cli[] = []
async function sandbox(args: string[]): Promise<string> {
  const cli = spawnCli(['--port', '0', '--quiet', ...args])
  started.push(cli)
  const [, url = ''] = await waitFor(cli, /listening on (http:\/\/\S+)\/v1 with/)
  return url
}

async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('the Playwright fixture', () => {
  const directory = mkdtempSync(join(tmpdir(), 'petstore-fixture-'))
  const servers: Server[] = []
  let urls: Record<string, string>
  // Each project's results, in the spec's order, as Playwright's JSON report has them.
  const results = new Map<string, Result[]>()
  let output = ''

  beforeAll(async () => {
    // An app's dev server, say, that answers every path with HTML: not a sandbox.
    const app = createServer((_, response) =>
      response.writeHead(404, { 'Content-Type': 'text/html' }).end('<h1>Not Found</h1>'),
    )
    // A port with nothing listening: one that was free a moment ago.
    const closed = createServer()
    servers.push(app)
    const [isolated, shared, patterned, appUrl, nothing] = await Promise.all([
      sandbox(['--isolate']),
      sandbox([]),
      sandbox(['--isolate', '--api-key-pattern', 'team-[0-9]+']),
      listening(app),
      listening(closed).then(async (url) => {
        await new Promise((resolve) => closed.close(resolve))
        return url
      }),
    ])
    urls = { isolated, shared, patterned, app: appUrl, nothing }
    writeFileSync(join(directory, 'playwright.config.cjs'), CONFIG)
    writeFileSync(join(directory, 'fixture.spec.cjs'), SPEC)
    const run = spawnNode(
      [RUNNER, 'test', '-c', 'playwright.config.cjs'],
      {
        FIXTURE_PROJECTS: JSON.stringify(Object.entries(urls)),
        CI: '1',
      },
      directory,
    )
    await run.exited
    output = run.stdout() + run.stderr()
    const report = JSON.parse(readFileSync(join(directory, 'results.json'), 'utf8')) as { suites: Suite[] }
    const walk = (suite: Suite) => {
      for (const spec of suite.specs ?? []) {
        for (const test of spec.tests)
          results.set(test.projectName, [...(results.get(test.projectName) ?? []), ...test.results])
      }
      for (const child of suite.suites ?? []) walk(child)
    }
    report.suites.forEach(walk)
  }, 180_000)

  afterAll(async () => {
    for (const cli of started) cli.child.kill()
    await Promise.all(started.map((cli) => cli.exited))
    for (const server of servers) server.close()
    rmSync(directory, { recursive: true, force: true })
  })

  const messages = (project: string) =>
    (results.get(project) ?? []).map((result) => result.errors.map((error) => error.message ?? '').join('\n'))

  it('runs every test against a sandbox started with --isolate', () => {
    expect(
      results.get('isolated')?.map((result) => result.status),
      output,
    ).toEqual(['passed', 'passed'])
  })

  it('names --isolate and the command when the sandbox runs without it', () => {
    expect(
      results.get('shared')?.map((result) => result.status),
      output,
    ).toEqual(['failed'])
    const port = new URL(urls.shared ?? '').port
    for (const message of messages('shared')) {
      expect(message).toContain(`the sandbox at ${urls.shared} runs in shared mode (started without --isolate)`)
      expect(message).toContain(`\`npx petstore-sandbox --isolate --port ${port}\``)
      // The 401 the worker's key would have got says nothing of --isolate: the check comes first.
      expect(message).not.toContain('API key is not valid')
    }
  })

  it('names the URL and the command when nothing answers there', () => {
    expect(
      results.get('nothing')?.map((result) => result.status),
      output,
    ).toEqual(['failed'])
    const port = new URL(urls.nothing ?? '').port
    for (const message of messages('nothing')) {
      expect(message).toContain(`nothing answers at ${urls.nothing}.`)
      expect(message).toContain(`\`npx petstore-sandbox --isolate --port ${port}\``)
    }
  })

  it('says when the URL is not a sandbox (baseURL is the app)', () => {
    expect(
      results.get('app')?.map((result) => result.status),
      output,
    ).toEqual(['failed'])
    for (const message of messages('app')) {
      expect(message).toContain(
        `the server at ${urls.app} is not a petstore sandbox (GET /__sandbox/health answered 404)`,
      )
      expect(message).toContain('set use.sandboxUrl to the sandbox')
    }
  })

  it("says when an isolated sandbox's --api-key-pattern leaves the workers' keys out", () => {
    expect(
      results.get('patterned')?.map((result) => result.status),
      output,
    ).toEqual(['failed'])
    for (const message of messages('patterned')) {
      expect(message).toContain("runs with --isolate but refused this worker's key (API key is not valid)")
      expect(message).toContain('--api-key-pattern must admit')
    }
  })
})
