/**
 * `petstore-sandbox verify` (the built command, bin/) against two real peers that are not the
 * sandbox: Prism's mock of openapi.json, stateless and lax about keys, and json-server serving
 * the seed pets, with no rules at all. Each must be found to drift, and the report must name
 * where and how, row by row; the JUnit file must say the same as the JSON.
 *
 * Neither peer is a dependency: each is installed on first use into a folder under the system's
 * temporary directory and reused after (scripts/install-on-demand.mjs), so the first run takes
 * the install's time and later ones do not.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonReport } from '../../src/core/verify/report.js'
import { spawnNode, waitFor, type Cli } from '../support/spawn-cli.js'

type Report = JsonReport
type ReportCase = JsonReport['cases'][number]
type Finding = ReportCase['findings'][number]

interface VerifyRun {
  code: number | null
  report: Report
  junit: string
  stderr: string
}

const BIN = fileURLToPath(new URL('../../bin/petstore-sandbox.js', import.meta.url))
const OPENAPI = fileURLToPath(new URL('../../openapi.json', import.meta.url))
const FIXTURES = fileURLToPath(new URL('../../fixtures/pets.json', import.meta.url))
const INSTALLER = new URL('../../scripts/install-on-demand.mjs', import.meta.url).href
const BENCH_SERVERS = new URL('../../bench/servers.mjs', import.meta.url).href

/** The latest Prism 5. It declares Node >= 24.18 but runs on 20: only its npm install warns, and quietly. */
const PRISM_VERSION = '5.16.0'
// The first run installs (npm, a minute or more on a slow network); verify against Prism then
// waits out, at its default 10 s each, the three requests with a malformed JSON body, which Prism
// never answers. Neither bound is a measure: each only turns a hang into a failure.
const INSTALL_AND_RUN_MS = 300_000
const STARTUP_MS = 60_000

const KEY_ROWS = [
  ['GET', '/pets', 200],
  ['POST', '/pets', 201],
  ['GET', '/pets/{petId}', 200],
] as const

/** Why verify sends no more POST /pets after a server stored one it should have refused. */
const STORED = 'the server stored a refused POST /pets earlier: no more are sent'

const peers: Cli[] = []
const directories: string[] = []
afterAll(async () => {
  for (const peer of peers.splice(0)) {
    if (peer.child.exitCode === null && peer.child.signalCode === null) {
      peer.child.kill('SIGKILL')
      await peer.exited
    }
  }
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

function scratch(): string {
  const directory = mkdtempSync(join(tmpdir(), 'petstore-verify-peers-'))
  directories.push(directory)
  return directory
}

/**
 * Installs `name@version` unless it is there, and resolves with the path of its `command`. In a
 * child process: npm runs synchronously there, and would stall this test worker for its length.
 */
async function installed(name: string, version: string, command: string): Promise<string> {
  const script = [
    `import { installOnDemand } from ${JSON.stringify(INSTALLER)}`,
    'const [name, version, command] = process.argv.slice(1)',
    'process.stdout.write(installOnDemand(name, version, { quiet: true }).bin(command))',
  ].join('\n')
  const child = spawnNode(['--input-type=module', '--eval', script, name, version, command])
  const code = await child.exited
  if (code !== 0) throw new Error(`installing ${name}@${version} failed (${code}): ${child.stderr()}`)
  return child.stdout()
}

function startPeer(args: string[], cwd?: string): Cli {
  const peer = spawnNode(args, {}, cwd)
  peers.push(peer)
  return peer
}

/** A port free right now, for a peer that cannot be told to pick one, as bench/processes.mjs finds it. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port)
        else reject(new Error(`no port: ${String(address)}`))
      })
    })
  })
}

/** `petstore-sandbox verify <apiUrl> --json --junit FILE [extra]`, run to its end. */
async function verify(apiUrl: string, extra: string[] = []): Promise<VerifyRun> {
  const junitPath = join(scratch(), 'verify.xml')
  const cli = spawnNode([BIN, 'verify', apiUrl, '--json', '--junit', junitPath, ...extra])
  const code = await cli.exited
  let report: Report
  try {
    report = JSON.parse(cli.stdout()) as Report
  } catch {
    throw new Error(`verify wrote no JSON report (exit ${code}); stdout: ${cli.stdout()} stderr: ${cli.stderr()}`)
  }
  return { code, report, junit: readFileSync(junitPath, 'utf8'), stderr: cli.stderr() }
}

function row(run: VerifyRun, name: string): ReportCase {
  const found = run.report.cases.find((each) => each.name === name)
  if (found === undefined) throw new Error(`no case named ${JSON.stringify(name)} in the report`)
  return found
}

const drift = (message: string): Finding => ({ source: 'interface', message })

/** What holds of every run that finds drift: the exit code, the counts, the summary line, and the JUnit file. */
function expectDriftReport(run: VerifyRun): void {
  const { report } = run
  expect(run.code).toBe(1)
  expect(report.exitCode).toBe(1)
  const counted = { same: 0, drift: 0, note: 0, skipped: 0 }
  for (const each of report.cases) counted[each.kind]++
  expect(report.counts).toEqual(counted)
  expect(report.counts.drift).toBeGreaterThan(0)
  // Every drifting row says why, under the interface's rule.
  for (const each of report.cases.filter((one) => one.kind === 'drift')) {
    expect(
      each.findings.some((finding) => finding.source === 'interface'),
      each.name,
    ).toBe(true)
  }
  // stderr holds the verdict line and nothing else: no warning, no stack trace.
  expect(run.stderr).toMatch(
    new RegExp(
      `^Drift: \\d+ cases? breaks? a rule of the interface at http://127\\.0\\.0\\.1:\\d+ \\(${report.cases.length} cases: [^\\n]*; exit 1\\)\\.\\n$`,
    ),
  )
  expect(run.stderr).toContain(`${report.counts.drift} drift`)

  // The JUnit file: one testcase per case, and as many failures as drifting cases.
  expect(run.junit.match(/<testcase /g)?.length).toBe(report.cases.length)
  const suites = /<testsuites\b[^>]*>/.exec(run.junit)?.[0] ?? ''
  expect(/\btests="(\d+)"/.exec(suites)?.[1]).toBe(String(report.cases.length))
  expect(/\bfailures="(\d+)"/.exec(suites)?.[1]).toBe(String(report.counts.drift))
  expect(run.junit.match(/<failure /g)?.length).toBe(report.counts.drift)
}

describe('verify against Prism 5 mocking openapi.json', () => {
  let run: VerifyRun

  beforeAll(async () => {
    const prism = startPeer([
      await installed('@stoplight/prism-cli', PRISM_VERSION, 'prism'),
      'mock',
      OPENAPI,
      '--host',
      '127.0.0.1',
      '--port',
      '0',
    ])
    // The address is the port bound, not the 0 asked for.
    const [, origin = ''] = await waitFor(prism, /Prism is listening on (http:\/\/127\.0\.0\.1:\d+)/, STARTUP_MS)
    // Prism mocks each path at its root: the document's `/v1` server is relative, and Prism does
    // not serve under it (GET /v1/pets is a 404 there). So the base URL is the bare origin. Prism
    // stores nothing, so the writes the interface refuses are sent too.
    run = await verify(origin, ['--refused-writes'])
  }, INSTALL_AND_RUN_MS)

  it('exits 1, its JSON and JUnit reports agreeing', () => {
    expectDriftReport(run)
  })

  it('finds that Prism takes any key: unknown keys answer 2xx where the sandbox answers 401', () => {
    // The first refused POST /pets it answers 2xx may have stored a record: verify sends no
    // more of them (each waited out a timeout or created a pet before), and says so.
    const posts = run.report.cases.filter((each) => each.method === 'POST' && each.path.startsWith('/pets'))
    const first = posts.findIndex((each) => /^2\d\d\b/.test(each.server ?? ''))
    expect(first).toBeGreaterThanOrEqual(0)
    expect(run.report.stored).toMatchObject({ count: 1, kinds: ['POST /pets'] })
    for (const later of posts.slice(first + 1)) {
      // Creates wait for --writes as before; every other POST /pets is no longer sent.
      expect(later.kind).toBe('skipped')
      expect([STORED, 'creates data: --writes sends it']).toContain(later.reason)
    }
    for (const [method, path, status] of KEY_ROWS.filter(([method]) => method === 'GET')) {
      const unknown = row(run, `${method} ${path} with an unknown key answers 401`)
      expect(unknown).toMatchObject({ kind: 'drift', sandbox: '401 unauthorized' })
      expect(unknown.server).toMatch(new RegExp(`^${status}, `))
      expect(unknown.findings).toEqual([drift(`status ${status}, where the sandbox answers 401`)])
      // Whether a key matches in any case is the sandbox's choice: a note. Its POST sends a body
      // the interface refuses, so a server that takes the key creates nothing.
      const otherCase = row(run, `${method} ${path} with the key in another case answers 401`)
      expect(otherCase).toMatchObject({ kind: 'note', source: 'choice', topic: 'Authentication details' })
      expect(otherCase.findings[0]).toEqual({
        source: 'choice',
        topic: 'Authentication details',
        message: expect.stringMatching(/^status (200|4\d\d), where the sandbox answers 401$/) as unknown,
      })
    }
  })

  it('finds that Prism holds no pets: a missing pet answers 200, and the status filter is not applied', () => {
    for (const name of ['GET /pets/{missingId} answers 404, deprecated', 'GET /pets/0 answers 404']) {
      const found = row(run, name)
      expect(found).toMatchObject({ kind: 'drift', sandbox: '404 pet_not_found' })
      expect(found.server).toMatch(/^200, pet \d+$/)
      expect(found.findings).toEqual([drift('status 200, where the sandbox answers 404')])
    }
    expect(row(run, 'GET /pets/{missingId} answers 404, deprecated').path).toBe(`/pets/${Number.MAX_SAFE_INTEGER}`)
    // Its one example pet is available, whatever the filter asks for.
    for (const status of ['pending', 'sold']) {
      const found = row(run, `GET /pets?status=${status} answers only ${status} pets`)
      expect(found.kind).toBe('drift')
      expect(found.findings).toHaveLength(1)
      expect(found.findings[0]?.message).toMatch(new RegExp(`^1 pet not ${status} \\(first: pet \\d+\\)$`))
    }
    expect(row(run, 'GET /pets?status=available answers only available pets').kind).toBe('same')
  })

  it('sends Prism no POST whose JSON is malformed once it has taken a refused one', () => {
    // Prism 5 never answers those (each waited out its timeout before); they are not sent now.
    for (const name of ['malformed JSON is refused', 'a body of only white space is refused']) {
      expect(row(run, name)).toMatchObject({ kind: 'skipped', reason: STORED })
    }
  })

  it('finds that Prism does check for the header: 401 without one, differing only in choices', () => {
    // Not `same`: Prism's WWW-Authenticate is its example of the header's schema, the word
    // "string", which the sandbox's choice (a Bearer challenge) notes.
    for (const [method, path] of KEY_ROWS.filter(([method]) => method === 'GET')) {
      const found = row(run, `${method} ${path} without an Authorization header answers 401`)
      expect(found).toMatchObject({ kind: 'note', sandbox: '401 unauthorized', server: '401 unauthorized' })
      expect(found.findings.filter((finding) => finding.source === 'interface')).toEqual([])
      expect(found.findings).toContainEqual({
        source: 'choice',
        topic: 'Authentication details',
        message: 'WWW-Authenticate is string; the sandbox sends Bearer realm="petstore"',
      })
    }
    const same = run.report.cases.filter((each) => each.kind === 'same').map((each) => each.name)
    expect(same).toEqual(expect.arrayContaining(['GET /pets answers 200 with at most 20 pets']))
  })

  it('reports the request that brings Prism down as no answer', () => {
    // Prism 5 throws on a malformed percent-escape in the path (URIError) and its process exits.
    const found = row(run, 'GET /pets/%E0%A4%A is refused')
    expect(found).toMatchObject({ kind: 'note', sandbox: '400 invalid_parameter', server: 'no answer' })
    expect(found.findings).toEqual([
      {
        source: 'choice',
        topic: 'int64 fields',
        message: expect.stringMatching(
          /^no answer: 127\.0\.0\.1:\d+ closed the connection without an answer$/,
        ) as unknown,
      },
    ])
  })
})

describe('verify against json-server serving the seed pets', () => {
  /** By default, and with --refused-writes. */
  let run: VerifyRun
  let withRefused: VerifyRun
  let stored: { before: number; byDefault: number; withRefused: number }

  beforeAll(async () => {
    const { JSON_SERVER_VERSION } = (await import(BENCH_SERVERS)) as { JSON_SERVER_VERSION: string }
    const bin = await installed('json-server', JSON_SERVER_VERSION, 'json-server')
    // As bench/servers.mjs starts it: the pets as its `pets` collection, in a db.json of its own
    // (it writes to it), on a free port (its banner shows the port asked for, not the one it got).
    const directory = scratch()
    writeFileSync(
      join(directory, 'db.json'),
      JSON.stringify({ pets: JSON.parse(readFileSync(FIXTURES, 'utf8')) as unknown }),
    )
    const port = await freePort()
    const server = startPeer([bin, '--port', String(port), 'db.json'], directory)
    await waitFor(server, /started on PORT :\d+/, STARTUP_MS)
    // json-server's routes are at its root. It stores what it is sent: count its pets around each run.
    const pets = async () => ((await (await fetch(`http://127.0.0.1:${port}/pets`)).json()) as unknown[]).length
    const before = await pets()
    run = await verify(`http://127.0.0.1:${port}`)
    const byDefault = await pets()
    withRefused = await verify(`http://127.0.0.1:${port}`, ['--refused-writes'])
    stored = { before, byDefault, withRefused: await pets() }
  }, INSTALL_AND_RUN_MS)

  it('stores nothing on json-server by default: the writes it could store are not sent, and the report says so', () => {
    expect(stored.before).toBeGreaterThan(0)
    expect(stored.byDefault).toBe(stored.before)
    expect(run.report.stored).toBeUndefined()
    expect(run.report.refusedWrites).toBe(false)
    const notSent = run.report.cases.filter((each) => each.method !== 'GET' && each.method !== 'HEAD')
    expect(notSent.length).toBeGreaterThan(0)
    for (const each of notSent) expect(each.kind, each.name).toBe('skipped')
  })

  it('exits 1, its JSON and JUnit reports agreeing', () => {
    expectDriftReport(run)
  })

  it('finds that json-server has no authentication: every request without a key is answered', () => {
    const list = row(run, 'GET /pets without an Authorization header answers 401')
    expect(list).toMatchObject({ kind: 'drift', sandbox: '401 unauthorized' })
    expect(list.server).toMatch(/^200, \d+ pets$/)
    expect(list.findings[0]).toEqual(drift('status 200, where the sandbox answers 401'))
    // And its ids are strings: json-server 1.0 stores every id as one.
    expect(list.findings).toContainEqual(drift('the body is not a list of Pets: body.0.id must be an integer, got "1"'))

    const create = row(withRefused, 'POST /pets without an Authorization header answers 401')
    expect(create).toMatchObject({ kind: 'drift', sandbox: '401 unauthorized', server: '201' })
    expect(create.findings[0]).toEqual(drift('status 201, where the sandbox answers 401'))
  })

  it('finds that json-server refuses no query: GET /pets?limit=101 is answered', () => {
    for (const query of ['limit=101', 'limit=0', 'status=adopted']) {
      const found = row(run, `GET /pets?${query} is refused`)
      expect(found).toMatchObject({ kind: 'drift', sandbox: '400 invalid_parameter' })
      expect(found.server).toMatch(/^200, \d+ pets?$/)
      expect(found.findings).toEqual([drift('status 200, where the sandbox answers 400')])
    }
  })

  it('with --refused-writes, stops sending json-server the bodies the interface refuses once it has stored one, and counts it', () => {
    // The create without a key was stored (above): one record, and no other POST /pets is sent.
    expectDriftReport(withRefused)
    expect(withRefused.report.stored).toMatchObject({ count: 1, kinds: ['POST /pets'] })
    expect(withRefused.report.stored?.skipped).toBeGreaterThan(5)
    expect(stored.withRefused).toBe(stored.before + 1)
    for (const name of ['a missing name is refused', 'a form-encoded body is refused']) {
      expect(row(withRefused, name)).toMatchObject({ kind: 'skipped', reason: STORED })
    }
  })

  it('finds that json-server answers a missing pet 404 without the Error body or getPet deprecation headers', () => {
    const found = row(run, 'GET /pets/{missingId} answers 404, deprecated')
    expect(found).toMatchObject({ kind: 'drift', sandbox: '404 pet_not_found', server: '404' })
    expect(found.findings).toEqual(
      expect.arrayContaining([
        drift('no Deprecation header; the sandbox sends @1767225600'),
        drift('no Sunset header; the sandbox sends Thu, 05 Dec 2030 00:00:00 GMT'),
        drift('the body is not an Error: body.code is required'),
      ]),
    )
  })
})
