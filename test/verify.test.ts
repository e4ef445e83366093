/**
 * `petstore-sandbox verify` as a user runs it: against the sandbox's own CLI (no difference),
 * against drifted servers that each change one thing (each named, exit 1), a lenient server that
 * would store what it is sent (sent no write by default), a base URL that is not the API, a closed
 * port and bad usage (exit 2, one line).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { once } from 'node:events'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '../src/server.js'
import { cases, sendsOf } from '../src/core/verify/cases.js'
import { REPORT_LINES, type JsonReport } from '../src/core/verify/report.js'
import { NOT_SENT } from '../src/core/verify/run.js'
import { DEFAULT_API_KEY } from '../src/core/api/auth.js'
import { refusal, runToExit } from './support/cli-in-process.js'
import { spawnCli, waitFor, type Cli } from './support/spawn-cli.js'
import { startDriftProxy, type Drift } from './support/drift-proxy.js'

type Report = JsonReport

interface Run {
  code: number | null | undefined
  cli: { stdout: () => string; stderr: () => string }
}

/** verify in a real process, as a shell runs it: its exit code and its output through pipes. */
async function verifyProcess(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const cli = spawnCli(['verify', ...args], env)
  return { code: await cli.exited, cli }
}

/**
 * verify through the CLI's own run() in this process (support/cli-in-process.ts): the same code,
 * arguments and environment, without a Node start-up per case (about 0.3 CPU-s each, 23 of them).
 * The cases that are about the process (exit codes in a shell, a long report through a pipe, a
 * usage error) run verifyProcess.
 */
async function verify(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const { code, stdout, stderr } = await runToExit(['verify', ...args], env)
  return { code, cli: { stdout: () => stdout, stderr: () => stderr } }
}

async function verifyJson(url: string, extra: string[] = []): Promise<Report & { code: Run['code'] }> {
  const { code, cli } = await verify([url, '--json', ...extra])
  return { ...(JSON.parse(cli.stdout()) as Report), code }
}

const readsOnly = cases.filter((row) => sendsOf(row) === 'read').length
const refusedWrites = cases.filter((row) => sendsOf(row) === 'refused-write').length
const writes = cases.filter((row) => sendsOf(row) === 'write').length

/** The first line of the text report: the verdict, the counts and the exit code. */
const verdictLine = (url: string, verdict: string, counts: string, code: number) =>
  `${verdict} at ${url} (${cases.length} cases: ${counts}; exit ${code}).`

describe('verify against the sandbox itself', () => {
  let cli: Cli
  let apiUrl: string

  beforeAll(async () => {
    cli = spawnCli(['--port', '0', '--quiet'])
    apiUrl = (await waitFor(cli, /listening on (http:\/\/\S+\/v1)/))[1] ?? ''
  })
  afterAll(async () => {
    cli.child.kill('SIGTERM')
    await cli.exited
  })

  it('passes with no difference: the verdict first, what next, and the writes not sent with their flags', async () => {
    const { code, cli: run } = await verifyProcess([apiUrl])
    expect(code).toBe(0)
    const lines = run.stdout().split('\n')
    expect(lines).toEqual([
      verdictLine(
        apiUrl,
        'No drift: no case breaks a rule of the interface',
        `${readsOnly} same, 0 drift, 0 notes, ${cases.length - readsOnly} skipped`,
        0,
      ),
      'Next: nothing. In every case sent, the server keeps the rules the sandbox keeps.',
      `Not sent: ${refusedWrites} writes the interface says must be refused (a create without a key, a bad body), which a lenient server may store: --refused-writes sends them; ${writes} writes that create data: --writes sends them, for staging only.`,
      '',
    ])
    expect(run.stderr()).toBe('')
  })

  it('--refused-writes sends the writes the interface refuses, and they are the same too', async () => {
    const report = await verifyJson(apiUrl, ['--refused-writes'])
    expect(report.code).toBe(0)
    expect(report.refusedWrites).toBe(true)
    expect(report.counts).toEqual({ same: readsOnly + refusedWrites, drift: 0, note: 0, skipped: writes })
    expect(report.cases.filter((row) => row.kind === 'skipped').every((row) => row.reason === NOT_SENT.write)).toBe(
      true,
    )
  })

  it('--writes creates, reads back and compares every row: all the same', async () => {
    const before = (await (
      await fetch(`${apiUrl}/pets?limit=100`, { headers: { Authorization: 'Bearer petstore-sandbox-key' } })
    ).json()) as unknown[]
    const report = await verifyJson(apiUrl, ['--writes'])
    expect(report.code).toBe(0)
    expect(report.counts).toEqual({ same: cases.length, drift: 0, note: 0, skipped: 0 })
    // It really created pets on the server: three creates, each read back.
    const after = (await (
      await fetch(`${apiUrl}/pets?limit=100`, { headers: { Authorization: 'Bearer petstore-sandbox-key' } })
    ).json()) as unknown[]
    expect(after.length).toBe(before.length + 3)
  })

  it('--json labels every row by its source, with the item of the silent section for choices', async () => {
    const report = await verifyJson(apiUrl)
    expect(report.cases).toHaveLength(cases.length)
    for (const row of report.cases) {
      expect(['interface', 'choice']).toContain(row.source)
      if (row.source === 'choice') expect(row.topic, row.name).toEqual(expect.any(String))
    }
    const limit101 = report.cases.find((row) => row.path === '/pets?limit=101')
    expect(limit101).toMatchObject({
      source: 'interface',
      kind: 'same',
      sandbox: '400 invalid_parameter',
      server: '400 invalid_parameter',
    })
    const orders = report.cases.find((row) => row.path === '/store/orders' && row.method === 'GET')
    expect(orders).toMatchObject({ source: 'choice', kind: 'same', server: '501 not_implemented' })
  })

  it('--junit writes one testcase per row, skipped writes marked skipped', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'verify-junit-'))
    try {
      const file = join(folder, 'report.xml')
      const { code } = await verify([apiUrl, '--junit', file])
      expect(code).toBe(0)
      const xml = readFileSync(file, 'utf8')
      expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites /)
      expect(xml.match(/<testcase /g)).toHaveLength(cases.length)
      expect(xml.match(/<skipped /g)).toHaveLength(cases.length - readsOnly)
      expect(xml).toContain(`<skipped message="${NOT_SENT.refusedWrite}"/>`)
      expect(xml).toMatch(/<testsuites [^>]*failures="0"/)
      expect(xml).not.toContain('<failure')
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })

  it('sends the key given by PETSTORE_VERIFY_KEY; a wrong key stops the run at its first read, exit 2, naming the flag', async () => {
    const { code, cli: run } = await verify([apiUrl, '--json'], { PETSTORE_VERIFY_KEY: 'not-the-key' })
    expect(code).toBe(2)
    // Nothing to compare: no report, one line saying what to do.
    expect(run.stdout()).toBe('')
    expect(run.stderr()).toBe(
      `petstore-sandbox verify: ${apiUrl} refused the key: GET /v1/pets?limit=1 answered 401 with the key given. No case was sent; give it one of its keys with --api-key or PETSTORE_VERIFY_KEY\n`,
    )
    // The key is never printed.
    expect(run.stdout() + run.stderr()).not.toContain('not-the-key')
    const right = await verify([apiUrl, '--json'], { PETSTORE_VERIFY_KEY: DEFAULT_API_KEY })
    expect(right.code).toBe(0)
  })

  it('stops at the first read when the base URL ends in /pets, saying to give it without', async () => {
    const { code, cli: run } = await verify([`${apiUrl}/pets`])
    expect(code).toBe(2)
    expect(run.stdout()).toBe('')
    expect(run.stderr()).toMatch(
      /^petstore-sandbox verify: \S+\/v1\/pets answers nothing like the Pet Store API: GET \/v1\/pets\/pets\?limit=1 answered 400 application\/json: the API never refuses this call, so this is not its base URL \(the base URL ends in \/pets: give it without\)\. No case was sent/,
    )
  })
})

describe('verify against a drifted server', () => {
  let sandbox: RunningServer

  beforeAll(async () => {
    sandbox = await startServer({ port: 0 })
  })
  afterAll(async () => {
    await sandbox.close()
  })

  /** Runs verify through a proxy that drifts one way; the sandbox behind it starts from the seed. */
  async function through(drift: Drift, extra: string[] = []): Promise<Report & { code: Run['code'] }> {
    await sandbox.sandbox.reset()
    const proxy = await startDriftProxy(new URL(sandbox.url).origin, drift)
    try {
      return await verifyJson(proxy.apiUrl, extra)
    } finally {
      await proxy.close()
    }
  }

  const drifted = (report: Report) => report.cases.filter((row) => row.kind === 'drift')
  const driftMessages = (report: Report) =>
    report.cases.flatMap((row) =>
      row.findings.filter((finding) => finding.source === 'interface').map((finding) => finding.message),
    )

  it('names a dropped Deprecation header on every getPet answer, and nothing else', async () => {
    const report = await through({
      answer: (answer) => {
        const { deprecation: _, ...headers } = answer.headers
        return { ...answer, headers }
      },
    })
    expect(report.code).toBe(1)
    const rows = drifted(report)
    expect(rows.length).toBeGreaterThanOrEqual(3)
    for (const row of rows) expect(row.path, row.name).toMatch(/^\/pets\/[^/]+$/)
    expect(new Set(driftMessages(report))).toEqual(new Set(['no Deprecation header; the sandbox sends @1767225600']))
    expect(report.counts.note).toBe(0)
  })

  it('names a limit of 101 answered 200, and nothing else', async () => {
    const report = await through({ target: (target) => target.replace('limit=101', 'limit=100') })
    expect(report.code).toBe(1)
    expect(drifted(report).map((row) => row.path)).toEqual(['/pets?limit=101'])
    expect(driftMessages(report)).toEqual(['status 200, where the sandbox answers 400'])
    expect(report.counts.note).toBe(0)
  })

  it("names a 422 whose Error body says 400, on every refused body; other refusals' 422 is a note", async () => {
    const report = await through(
      { answer: (answer) => (answer.status === 400 ? { ...answer, status: 422 } : answer) },
      ['--refused-writes'],
    )
    expect(report.code).toBe(1)
    const messages = new Set(driftMessages(report))
    expect(messages).toEqual(
      new Set(["the Error's status is 400, not the HTTP status 422", 'status 422, where the sandbox answers 400']),
    )
    const body = report.cases.find((row) => row.name === 'a missing name is refused')
    expect(body?.findings).toEqual([
      { source: 'interface', message: 'status 422, where the sandbox answers 400' },
      { source: 'interface', message: "the Error's status is 400, not the HTTP status 422" },
    ])
    // The document demands a refusal of limit=0 but not which one: the 422 itself is a note.
    const limit0 = report.cases.find((row) => row.name === 'GET /pets?limit=0 is refused')
    expect(limit0?.findings).toContainEqual({
      source: 'choice',
      topic: 'Invalid query parameters',
      message: 'status 422, where the sandbox answers 400',
    })
  })

  it('names a list sorted by name: not the same list under another limit', async () => {
    const report = await through({
      answer: (answer) => {
        if (!answer.headers['content-type']?.startsWith('application/json') || answer.body === '') return answer
        const body: unknown = JSON.parse(answer.body)
        if (!Array.isArray(body)) return answer
        const sorted = [...(body as { name: string }[])].sort((a, b) => a.name.localeCompare(b.name))
        return { ...answer, body: JSON.stringify(sorted) }
      },
    })
    expect(report.code).toBe(1)
    for (const message of driftMessages(report)) expect(message).toMatch(/^not the same list as GET \/pets/)
    expect(drifted(report).map((row) => row.path)).toContain('/pets?limit=7')
    const notes = report.cases.flatMap((row) => row.findings.filter((finding) => finding.source === 'choice'))
    expect(notes.length).toBeGreaterThan(0)
    // The order itself is a choice; a page that is not the start of the longer list is drift.
    for (const note of notes) {
      expect(note.message).toMatch(
        note.topic === 'Order and pagination' ? /^not ordered by id/ : /^not the same list as GET/,
      )
    }
  })

  it('stops at a server that goes away mid-run: the report so far, the rest skipped, exit 2 and one line', async () => {
    await sandbox.sandbox.reset()
    let closing: Promise<void> | undefined
    const proxy = await startDriftProxy(new URL(sandbox.url).origin, {
      answer: (answer, _method, target) => {
        if (target === '/v1/store/orders') closing ??= proxy.close()
        return answer
      },
    })
    const { code, cli } = await verify([proxy.apiUrl, '--json'])
    await closing
    expect(code).toBe(2)
    const report = JSON.parse(cli.stdout()) as Report
    const at = report.cases.findIndex((row) => row.path === '/store/orders')
    expect(at).toBeGreaterThan(0)
    expect(report.cases.slice(0, at).every((row) => row.kind === 'same' || row.kind === 'skipped')).toBe(true)
    // The closing proxy may still get that answer out, or cut it; a request or two more may meet the
    // closing socket. From the first refused connection on, every row is skipped.
    expect(['no answer', '501 not_implemented']).toContain(report.cases[at]?.server)
    const first = report.cases.findIndex((row) => row.reason === 'the server stopped answering')
    expect(first).toBeGreaterThan(at)
    // Between the two, each row met the closing server, or was one it never sends (a write, skipped as such).
    const between = report.cases.slice(at + 1, first)
    expect(
      between.every(
        (row) => row.server === 'no answer' || row.reason === NOT_SENT.write || row.reason === NOT_SENT.refusedWrite,
      ),
    ).toBe(true)
    expect(report.cases.slice(first).every((row) => row.reason === 'the server stopped answering')).toBe(true)
    expect(report.exitCode).toBe(2)
    expect(cli.stderr()).toMatch(
      new RegExp(
        `^petstore-sandbox verify: ${proxy.apiUrl.replace(/[.]/g, '\\.')}: the server stopped answering at ".+": nothing listens at 127\\.0\\.0\\.1:\\d+ \\(connection refused\\)\n$`,
      ),
    )
  })

  it('--verbose says of a same case whose data differ that its rule held', async () => {
    await sandbox.sandbox.reset()
    const apiUrl = `${new URL(sandbox.url).origin}/v1`
    const created = await fetch(`${apiUrl}/pets`, {
      method: 'POST',
      headers: { Authorization: 'Bearer petstore-sandbox-key', 'Content-Type': 'application/json' },
      body: '{"name":"Extra","categoryId":1,"status":"pending"}',
    })
    expect(created.status).toBe(201)
    const { code, cli } = await verify([apiUrl, '--verbose'])
    expect(code).toBe(0)
    const lines = cli.stdout().split('\n')
    const pending = lines.find((line) => line.includes('GET /pets?status=pending answers only pending pets'))
    expect(pending).toMatch(
      /^same +interface +200, 8 pets +200, 9 pets +GET \/pets\?status=pending answers only pending pets \(the rule held; the data differ: each side has pets of its own\)$/,
    )
    // A case whose answers are alike says nothing more.
    const sold = lines.find((line) => line.includes('GET /pets?status=sold answers only sold pets'))
    expect(sold).toMatch(/ GET \/pets\?status=sold answers only sold pets$/)
  })

  it('counts a choice that differs as a note: exit 0, and exit 1 with --strict', async () => {
    const renamed: Drift = {
      answer: (answer) =>
        answer.status === 501 ? { ...answer, body: answer.body.replace('"not_implemented"', '"unsupported"') } : answer,
    }
    const report = await through(renamed)
    expect(report.code).toBe(0)
    expect(report.counts.drift).toBe(0)
    // GET /store/orders and GET /experimental/pets; POST /beta/anything is a write, skipped.
    expect(report.counts.note).toBe(2)
    const orders = report.cases.find((row) => row.path === '/store/orders' && row.method === 'GET')
    expect(orders).toMatchObject({
      kind: 'note',
      findings: [
        {
          source: 'choice',
          topic: 'Error code values',
          message: 'code "unsupported", where the sandbox answers "not_implemented"',
        },
      ],
    })
    expect((await through(renamed, ['--strict'])).code).toBe(1)
  })
})

describe('verify against servers that answer badly', () => {
  /** A server of a few lines; every request is counted, and its method kept. */
  async function fake(answer: (request: IncomingMessage, response: ServerResponse, count: number) => void) {
    let count = 0
    const methods: string[] = []
    const server = createHttpServer((request, response) => {
      request.resume()
      methods.push(request.method ?? '')
      answer(request, response, count++)
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as { port: number }
    return {
      url: `http://127.0.0.1:${port}/v1`,
      /** The methods of the requests it got, in order. */
      methods,
      close: async () => {
        server.closeAllConnections()
        server.close()
        await once(server, 'close')
      },
    }
  }

  it.each([
    [
      'a 404 page of HTML',
      404,
      'text/html',
      '<!doctype html><h1>Not Found</h1>',
      '404 text/html: there is no listPets at this base URL',
    ],
    [
      'a 404 Error in JSON',
      404,
      'application/json',
      '{"code":"not_found","message":"no","status":404}',
      '404 application/json: there is no listPets at this base URL',
    ],
    [
      'a welcome page',
      200,
      'text/html',
      '<!doctype html><h1>Welcome</h1>',
      '200 text/html, not JSON: neither a list of pets nor an Error',
    ],
    [
      'a JSON object that is no Error',
      200,
      'application/json',
      '{"hello":"world"}',
      '200 application/json: neither a list of pets nor an Error',
    ],
    ['a proxy down', 502, 'text/plain', 'Bad Gateway', '502 text/plain, not JSON: neither a list of pets nor an Error'],
  ])(
    'stops at a base URL that answers nothing like the API (%s): one finding, one request, exit 2',
    async (_name, status, type, body, finding) => {
      const server = await fake((_request, response) => {
        response.writeHead(status, { 'Content-Type': type }).end(body)
      })
      try {
        const { code, cli } = await verify([server.url, '--writes'])
        expect(code).toBe(2)
        expect(cli.stdout()).toBe('')
        expect(cli.stderr()).toBe(
          `petstore-sandbox verify: ${server.url} answers nothing like the Pet Store API: GET /v1/pets?limit=1 answered ${finding}. No case was sent; give the API's base URL, with its version segment (e.g. https://staging.example.com/v1)\n`,
        )
        // Only the first probe went out, even with --writes.
        expect(server.methods).toEqual(['GET'])
      } finally {
        await server.close()
      }
    },
  )

  it('names a page of HTML on every request after a first list as drift, without a stack trace', async () => {
    const server = await fake((_request, response, count) => {
      if (count === 0) response.writeHead(200, { 'Content-Type': 'application/json' }).end('[]')
      else response.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><h1>Welcome</h1>')
    })
    try {
      const { code, cli } = await verify([server.url, '--verbose'])
      expect(code).toBe(1)
      expect(cli.stdout()).toMatch(/drift \(the interface\): Content-Type is "text\/html", not application\/json/)
      expect(cli.stderr()).toBe('')
      expect(cli.stdout()).not.toMatch(/\n\s+at /)
    } finally {
      await server.close()
    }
  })

  /** Like json-server over the fixtures: every pet, ids as strings, no limit, no key; a POST stores. */
  async function lenient() {
    const pets = Array.from({ length: 37 }, (_, index) => ({
      id: String(index + 1),
      name: `Pet ${index + 1}`,
      categoryId: 1,
    }))
    return fake((request, response) => {
      const status = request.method === 'POST' ? 201 : 200
      const body = request.method === 'POST' ? pets[0] : /\/pets\/[^/?]+/.test(request.url ?? '') ? pets[0] : pets
      response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body))
    })
  }

  it('sends a lenient server nothing it could store by default, and says what it did not send and which flag sends it', async () => {
    const server = await lenient()
    try {
      const { code, cli } = await verify([server.url])
      expect(code).toBe(1)
      // Reads only: no POST, PUT or DELETE reached it.
      expect(server.methods.length).toBeGreaterThan(readsOnly)
      expect(new Set(server.methods)).toEqual(new Set(['GET', 'HEAD']))
      const out = cli.stdout()
      // Its ids are strings: no pet to read one by, and the rows that would are named too.
      expect(out).toContain(
        `Not sent: ${refusedWrites} writes the interface says must be refused (a create without a key, a bad body), which a lenient server may store: --refused-writes sends them; ${writes} writes that create data: --writes sends them, for staging only; 6 cases because GET /pets?limit=1 listed no pet with an integer id to read.`,
      )
      expect(out).not.toContain('may have stored')
    } finally {
      await server.close()
    }
  })

  it('sends the refused writes with --refused-writes: the one stored is counted, and no more of its kind sent', async () => {
    const server = await lenient()
    try {
      const { cli } = await verify([server.url, '--refused-writes'])
      expect(server.methods.filter((method) => method === 'POST')).toHaveLength(1)
      expect(server.methods.filter((method) => method !== 'GET' && method !== 'HEAD')).toEqual(['POST'])
      const out = cli.stdout()
      expect(out).toMatch(
        /^Stored: the server answered 2xx to 1 write the interface says it must refuse \(POST \/pets\): it may have stored 1 record\. No more writes of that kind were sent \(\d+ rows? skipped\)\.$/m,
      )
      expect(out).not.toContain('--refused-writes sends them')
    } finally {
      await server.close()
    }
  })

  it('opens with the verdict and what to do next, then one line per difference by rule, in at most about 40 lines', async () => {
    const server = await lenient()
    try {
      const { code, cli } = await verify([server.url])
      expect(code).toBe(1)
      const out = cli.stdout()
      const lines = out.split('\n')
      expect(lines[0]).toMatch(
        new RegExp(
          `^Drift: \\d+ cases break a rule of the interface at ${server.url.replace(/\./g, '\\.')} \\(${cases.length} cases: \\d+ same, \\d+ drift, \\d+ notes?, \\d+ skipped; exit 1\\)\\.$`,
        ),
      )
      expect(lines[1]).toMatch(
        /^Next: the server breaks the rules of the interface document named below, .* --verbose lists every case/,
      )
      expect(lines.length).toBeLessThanOrEqual(REPORT_LINES)
      // The drift section, by the interface document's sections; then the notes, by item.
      const drift = lines.indexOf('Drift: rules of the interface document the server breaks')
      const notes = lines.indexOf('Notes: where the interface is silent, the server chose otherwise than the sandbox')
      expect(drift).toBeGreaterThan(1)
      expect(notes).toBeGreaterThan(drift)
      // Each rule: how many cases differ on it, and the first of them on the same line.
      expect(lines).toContain(
        '  Authentication (4 cases): GET /pets without an Authorization header answers 401: status 200, where the sandbox answers 401',
      )
      // A list's own rule leads its line; the string ids every list shares are said once.
      expect(lines).toContain(
        '  GET /pets (15 cases): GET /pets answers 200 with at most 20 pets: 37 pets where at most 20',
      )
      expect(out.match(/id must be an integer/g)).toHaveLength(1)
      expect(out).toContain('  in every case with pets: every pet: id must be an integer')
      // More differences than fit: the cut says how many, and where the rest are.
      expect(out).toMatch(/^ {4}and \d+ more \(--verbose lists them\)$/m)
      expect(out).not.toContain('Every case:')
    } finally {
      await server.close()
    }
  })

  it('--verbose shows every case and every difference, each labelled by its own rule', async () => {
    const server = await lenient()
    try {
      const { code, cli } = await verify([server.url, '--verbose'])
      expect(code).toBe(1)
      const out = cli.stdout()
      expect(out).not.toContain('more (--verbose lists them)')
      // A list is a list: the server's string ids are named as such, never "an empty list".
      expect(out).not.toContain('here an empty list')
      const table = out.slice(out.indexOf('\nEvery case:\n'))
      for (const row of cases) expect(table, row.name).toContain(row.name)
      // A choice row whose answer breaks the document drifts, and its lines say which rule each is.
      const trailing = table
        .split('\n')
        .findIndex((line) => line.endsWith('GET /pets/ with a trailing slash is the list'))
      const [row = '', ...findings] = table.split('\n').slice(trailing, trailing + 3)
      expect(row).toMatch(/^DRIFT +choice /)
      expect(findings).toEqual([
        '         note (Trailing slash): 37 pets where at most 20',
        expect.stringMatching(/^ {9}drift \(the interface\): the body is not a list of Pets: /) as unknown,
      ])
    } finally {
      await server.close()
    }
  })

  it('judges bodies nested 8,000 deep, numbers past int64 and statuses no HTTP answer has, without a stack trace', async () => {
    const deep = `[${'['.repeat(8000)}${']'.repeat(8000)}]`
    const server = await fake((request, response, count) => {
      if (count % 3 === 0) {
        response.writeHead(200, { 'Content-Type': 'application/json' }).end(deep)
      } else if (count % 3 === 1) {
        response
          .writeHead(200, { 'Content-Type': 'application/json' })
          .end('{"id":1e400,"name":"\\ud800","categoryId":123456789012345678901234567890}')
      } else {
        response.socket?.end('HTTP/1.1 000 Zero\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}')
      }
    })
    try {
      const { code, cli } = await verify([server.url, '--json'])
      expect(code).toBe(1)
      const report = JSON.parse(cli.stdout()) as Report
      const findings = report.cases.flatMap((row) => row.findings.map((finding) => finding.message))
      expect(findings).toContain(
        'the body is not a list of Pets: body.0 must be an object, got [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[...',
      )
      expect(findings).toContain('status 0, where the sandbox answers 200')
      // With --json the verdict goes to stderr: one line, no stack.
      expect(cli.stderr()).toMatch(
        new RegExp(
          `^Drift: \\d+ cases break a rule of the interface at http://127\\.0\\.0\\.1:\\d+/v1 \\(${cases.length} cases: .*; exit 1\\)\\.\n$`,
        ),
      )
      expect(cli.stderr()).not.toMatch(/\n\s+at /)
    } finally {
      await server.close()
    }
  })

  it('stops at a server that no longer answers: exit 2 after three timeouts in a row', async () => {
    const server = await fake((request, response, count) => {
      // The first read, which finds a pet; then nothing, ever.
      if (count === 0) response.writeHead(200, { 'Content-Type': 'application/json' }).end('[]')
    })
    try {
      const { code, cli } = await verify([server.url, '--timeout', '200', '--json'])
      expect(code).toBe(2)
      const report = JSON.parse(cli.stdout()) as Report
      expect(report.cases.filter((row) => row.server === 'no answer')).toHaveLength(2)
      expect(report.stopped).toMatch(/no whole answer within 200 ms, 3 times in a row$/)
      expect(cli.stderr()).toMatch(
        /^petstore-sandbox verify: http:\/\/127\.0\.0\.1:\d+\/v1: the server stopped answering at ".+": no whole answer within 200 ms, 3 times in a row\n$/,
      )
    } finally {
      await server.close()
    }
  })

  it("keeps a long report whole through a pipe, and a server's text out of the terminal's control", async () => {
    const code = `\u001b[2J${'x'.repeat(4000)}`
    const server = await fake((request, response) => {
      // A list at the first probe, so that the base URL is the API's; a 404 with a long code to the rest.
      if (request.url === '/v1/pets?limit=1') {
        response.writeHead(200, { 'Content-Type': 'application/json' }).end('[]')
        return
      }
      response
        .writeHead(404, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ code, message: 'no', status: 404 }))
    })
    try {
      const json = await verifyProcess([server.url, '--json'])
      expect(json.cli.stdout().length).toBeGreaterThan(128 * 1024)
      const report = JSON.parse(json.cli.stdout()) as Report
      expect(report.cases.length).toBe(cases.length)
      const table = await verifyProcess([server.url, '--verbose'])
      expect(table.cli.stdout()).not.toContain('\u001b')
      // A cell is cut at 40 characters and a finding's line at 300, whatever the server sends.
      for (const line of table.cli.stdout().split('\n')) expect(line.length).toBeLessThan(400)
      expect(table.cli.stdout()).not.toContain('x'.repeat(301))
      expect(table.cli.stdout()).toMatch(/^Drift: \d+ cases break a rule of the interface at /)
    } finally {
      await server.close()
    }
  })

  it('stops at once when the key is refused (401 or 403), with no report and one line', async () => {
    for (const status of [401, 403]) {
      let requests = 0
      const server = await fake((_request, response) => {
        requests++
        response
          .writeHead(status, { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer' })
          .end(JSON.stringify({ code: 'unauthorized', message: 'no', status }))
      })
      try {
        const { code, cli } = await verify([server.url])
        expect(code).toBe(2)
        expect(cli.stdout()).toBe('')
        expect(cli.stderr()).toBe(
          `petstore-sandbox verify: ${server.url} refused the key: GET /v1/pets?limit=1 answered ${status} with the key given. No case was sent; give it one of its keys with --api-key or PETSTORE_VERIFY_KEY\n`,
        )
        expect(requests).toBe(1)
      } finally {
        await server.close()
      }
    }
  })
})

describe('verify when it cannot run', () => {
  it('exits 2 with one line for a closed port', async () => {
    const holder = createServer()
    holder.listen(0, '127.0.0.1')
    await once(holder, 'listening')
    const { port } = holder.address() as { port: number }
    holder.close()
    await once(holder, 'close')
    const { code, cli } = await verify([`http://127.0.0.1:${port}/v1`])
    expect(code).toBe(2)
    expect(cli.stdout()).toBe('')
    expect(cli.stderr()).toBe(
      `petstore-sandbox verify: cannot reach http://127.0.0.1:${port}/v1: nothing listens at 127.0.0.1:${port} (connection refused)\n`,
    )
  })

  it.each([
    [['not a url'], /^petstore-sandbox verify: <api-url> is not a URL/],
    [['ftp://example.com/v1'], /<api-url> must be an http or https URL, not ftp/],
    [['http://user:secret@127.0.0.1:1/v1'], /must not carry credentials/],
    [['ftp://user:secret@127.0.0.1:1/v1'], /must not carry credentials/],
    [['https://staging.example/v1?api_key=secret'], /must not have a query or a fragment/],
    [['http://127.0.0.1:1/v1', '--api-key', 'a\nb'], /the API key must be one or more visible ASCII characters/],
    [['http://127.0.0.1:1/v1', '--api-key', ''], /the API key must be one or more visible ASCII characters/],
    [['http://127.0.0.1:1/v1', '--timeout', 'soon'], /--timeout.*whole number of milliseconds/],
    [['http://127.0.0.1:1/v1', '--bogus'], /unknown option '--bogus'/],
  ])('exits 2 on a usage error: %j', async (args, message) => {
    const { code, stderr } = await refusal(['verify', ...args])
    expect(code).toBe(2)
    expect(stderr).toMatch(message)
    expect(stderr).not.toMatch(/\n\s+at /)
    expect(stderr).not.toContain('secret')
  })

  it('exits 2 on a usage error in a real process: no <api-url>', async () => {
    const { code, cli } = await verifyProcess([])
    expect(code).toBe(2)
    expect(cli.stderr()).toMatch(/missing required argument 'api-url'/)
    expect(cli.stdout()).toBe('')
  })

  it('--help names the options, says --writes is for staging, and gives the exit codes', async () => {
    const { code, cli } = await verify(['--help'])
    expect(code).toBe(0)
    for (const option of [
      '--api-key',
      '--refused-writes',
      '--writes',
      '--verbose',
      '--json',
      '--junit',
      '--strict',
      '--timeout',
      'PETSTORE_VERIFY_KEY',
    ]) {
      expect(cli.stdout()).toContain(option)
    }
    expect(cli.stdout()).toMatch(/--writes[\s\S]*staging only/)
    expect(cli.stdout()).toMatch(/Exit codes: 0 .*; 1 drift; 2 /)
  })
})
