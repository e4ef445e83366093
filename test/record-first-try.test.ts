/**
 * Record on the first try (issue 42): docs/honest.md's Record block, run as written against an
 * upstream with its own key, records; in shared mode a forwarded answer is recorded whatever key
 * the call came with; under --isolate a call the sandbox holds no data for says why in its
 * terminal line the first time of each cause, and in the journal every time; and the banner's
 * Try line works against an upstream that judges the caller's key, or names the key to use.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createSandboxClient } from '../src/client.js'
import type { Pet } from '../src/index.js'
import { startServer, type RunningServer } from '../src/server.js'
import { BIN, spawnCli, spawnNode, waitFor, type Cli } from './support/spawn-cli.js'

const SANDBOX_KEY = 'petstore-sandbox-key'
const STAGING_KEY = 'staging-own-key-7'
const STAGING_PETS: Pet[] = [
  { id: 7, name: 'Staging Seven', categoryId: 2, status: 'sold' },
  { id: 120, name: 'Staging Rex', categoryId: 1, status: 'available' },
  { id: 121, name: 'Staging Mia', categoryId: 3 },
]

const running: Cli[] = []
const folders: string[] = []

afterEach(async () => {
  for (const cli of running.splice(0)) {
    cli.child.kill('SIGTERM')
    await cli.exited
  }
})
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true })
})

function folder(): string {
  const made = mkdtempSync(join(tmpdir(), 'petstore-first-try-'))
  folders.push(made)
  return made
}

/** A sandbox standing in for staging, as a process: its own key and its own pets. */
async function startStaging(): Promise<string> {
  const fixtures = join(folder(), 'staging.json')
  writeFileSync(fixtures, JSON.stringify(STAGING_PETS))
  const cli = spawnCli(['--port', '0', '--quiet', '--api-key', STAGING_KEY, '--fixtures', fixtures])
  running.push(cli)
  const [, apiUrl = ''] = await waitFor(cli, /listening on (http:\/\/\S+\/v1)/)
  return apiUrl
}

/**
 * A command line split as a POSIX shell splits it, for the lines the docs and the banner print:
 * single quotes literal, double quotes and bare words with `$NAME` read from `env`.
 */
function words(line: string, env: Readonly<Record<string, string>> = {}): string[] {
  const out: string[] = []
  const expand = (text: string) =>
    text.replace(/\$([A-Za-z_]\w*)/g, (_whole, name: string) => {
      const value = env[name]
      if (value === undefined) throw new Error(`$${name} is not set for: ${line}`)
      return value
    })
  for (const match of line.matchAll(/(?:'([^']*)'|"([^"]*)"|([^\s'"]+))+/g)) {
    let word = ''
    for (const part of match[0].matchAll(/'([^']*)'|"([^"]*)"|([^\s'"]+)/g)) {
      word += part[1] ?? expand(part[2] ?? part[3] ?? '')
    }
    out.push(word)
  }
  return out
}

/** Runs a printed `curl` line (-H, -X, -d and the URL) with fetch: its status and its JSON. */
async function curl(argv: readonly string[]): Promise<{ status: number; body: unknown }> {
  expect(argv[0]).toBe('curl')
  const headers: Record<string, string> = {}
  let method: string | undefined
  let data: string | undefined
  let url: string | undefined
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index] ?? ''
    if (word === '-H') {
      const [name = '', ...value] = (argv[++index] ?? '').split(':')
      headers[name.trim()] = value.join(':').trim()
    } else if (word === '-X') method = argv[++index]
    else if (word === '-d') data = argv[++index]
    else if (word.startsWith('-')) throw new Error(`this runner does not know curl's ${word}`)
    else url = word
  }
  if (url === undefined) throw new Error(`no URL in ${argv.join(' ')}`)
  const response = await fetch(url, {
    method: method ?? (data === undefined ? 'GET' : 'POST'),
    headers,
    ...(data !== undefined && { body: data }),
  })
  const text = await response.text()
  return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) }
}

/** The first shell block under a heading of a docs page, one command a line. */
function shellBlockUnder(page: string, heading: string): string[] {
  const text = readFileSync(fileURLToPath(new URL(`../${page}`, import.meta.url)), 'utf8')
  const section = text.slice(text.indexOf(`\n${heading}\n`))
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1]
  if (block === undefined) throw new Error(`no sh block under ${heading} in ${page}`)
  return block.split('\n').filter((line) => line.trim() !== '')
}

const onlyIds = (body: unknown) => (body as Pet[]).map((pet) => pet.id)

describe("docs/honest.md's Record example", () => {
  it('records, run as written against an upstream that has its own key', async () => {
    const staging = await startStaging()
    const [serve = '', ...calls] = shellBlockUnder('docs/honest.md', '## Record and replay')
    // The one change to the sandbox's command: where staging is. PORT=0 keeps its words as they are.
    expect(serve).toMatch(/^npx petstore-sandbox /)
    expect(serve).toContain('https://staging.example.com/v1')
    expect(serve).not.toContain('--upstream-key')
    const cwd = folder()
    const argv = words(serve.replace('https://staging.example.com/v1', staging)).slice(2)
    // In a folder of its own: the block's state file is a relative path.
    const cli = spawnNode([BIN, ...argv], { PORT: '0' }, cwd)
    running.push(cli)
    const [, origin = ''] = await waitFor(cli, /listening on (http:\/\/[^/\s]+)\/v1/)
    await waitFor(cli, /Press Ctrl-C to stop\./)
    const admin = createSandboxClient({ baseUrl: origin })
    expect((await admin.health()).upstream).toMatchObject({ record: true, recorded: 0 })
    const before = (await admin.health()).pets

    // The calls as the block prints them, with staging's key in $STAGING_KEY, on this port.
    expect(calls.length).toBeGreaterThanOrEqual(3)
    const results = []
    for (const call of calls) {
      results.push(await curl(words(call.replace('http://localhost:3210', origin), { STAGING_KEY })))
    }
    expect(results.map((result) => result.status)).toEqual(calls.map(() => 200))
    // The first goes to staging with staging's key: staging's pets, and they are recorded.
    expect(results[0]?.body).toEqual(STAGING_PETS)
    const [listed] = await admin.requests({ operation: 'listPets' })
    expect(listed).toMatchObject({ forwarded: true, recorded: { pets: 3, refused: [] } })
    const health = await admin.health()
    expect(health.upstream).toMatchObject({ forward: [], recorded: 3 })
    // Id 7 replaced in place, 120 and 121 added: two pets more in the one data set.
    expect(health.pets).toBe(before + 2)
    // The last, forwarding off, with the sandbox's own key: the recorded pets are served.
    const served = results.at(-1)?.body as Pet[]
    expect(onlyIds(served)).toEqual(expect.arrayContaining([7, 120, 121]))
    expect(served.find((pet) => pet.id === 7)).toEqual(STAGING_PETS[0])
    expect(served.find((pet) => pet.id === 121)).toEqual(STAGING_PETS[2])
    // The block's state file, in its folder, keeps them for the next start.
    await expect
      .poll(() => readFileSync(join(cwd, 'demo.json'), 'utf8').includes('Staging Mia'), {
        timeout: 10_000,
        interval: 25,
      })
      .toBe(true)
  })
})

/** A server that answers every list with the same pets, whatever the key: an upstream with no gate. */
async function openUpstream(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((_request, response) => {
    response.setHeader('Content-Type', 'application/json')
    response.end(JSON.stringify(STAGING_PETS))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve()
        })
      }),
  }
}

/** A recording sandbox in this process, its access log kept line by line. */
async function recorder(
  upstream: string,
  more: Parameters<typeof startServer>[0] = {},
): Promise<{ server: RunningServer; lines: string[] }> {
  const lines: string[] = []
  const server = await startServer({
    port: 0,
    upstream,
    forward: ['listPets'],
    record: true,
    log: (line) => lines.push(line),
    ...more,
  })
  return { server, lines }
}

/** Lists through the sandbox, then waits for the request's access log line (written once the answer is out). */
async function listThrough(
  sandbox: { server: RunningServer; lines: string[] },
  headers: Record<string, string>,
): Promise<{ status: number; line: string }> {
  const count = sandbox.lines.length
  const response = await fetch(`${sandbox.server.apiUrl}/pets?limit=100`, { headers })
  await response.arrayBuffer()
  await expect.poll(() => sandbox.lines.length, { timeout: 10_000, interval: 10 }).toBeGreaterThan(count)
  return { status: response.status, line: sandbox.lines[count] ?? '' }
}

describe('shared mode records whatever key the call came with', () => {
  let open: Awaited<ReturnType<typeof openUpstream>>
  const servers: RunningServer[] = []
  beforeAll(async () => {
    open = await openUpstream()
  })
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()))
  })
  afterAll(async () => {
    await open.close()
  })

  it.each([
    ['a key the sandbox does not take', { Authorization: 'Bearer only-the-upstream-knows-me' }],
    ['no key at all', {}],
    ["the sandbox's own key", { Authorization: `Bearer ${SANDBOX_KEY}` }],
  ])('records a forwarded answer of a call with %s into the one data set', async (_name, headers) => {
    const sandbox = await recorder(open.url)
    servers.push(sandbox.server)
    const { status, line } = await listThrough(sandbox, headers)
    expect(status).toBe(200)
    expect(line).toMatch(/ → upstream$/)
    const admin = createSandboxClient({ baseUrl: sandbox.server.url })
    expect((await admin.requests())[0]?.recorded).toEqual({ pets: 3, refused: [] })
    // New or changed: id 7 replaced, 120 and 121 added.
    expect((await admin.forwarding.get()).recorded).toBe(3)
    await admin.forwarding.set([])
    const own = (await (
      await fetch(`${sandbox.server.apiUrl}/pets?limit=100`, { headers: { Authorization: `Bearer ${SANDBOX_KEY}` } })
    ).json()) as Pet[]
    expect(own.find((pet) => pet.id === 120)).toEqual(STAGING_PETS[1])
  })

  it('says a reached budget in the terminal line of the first answer it leaves unrecorded, and in every journal entry', async () => {
    const sandbox = await recorder(open.url, { limits: { createdPets: 0 } })
    servers.push(sandbox.server)
    const first = await listThrough(sandbox, { Authorization: `Bearer ${SANDBOX_KEY}` })
    const second = await listThrough(sandbox, { Authorization: `Bearer ${SANDBOX_KEY}` })
    expect(first.line).toMatch(
      / → upstream, nothing recorded: .*createdPets.*\(said once; the journal says it of each call\)$/,
    )
    expect(second.line).toMatch(/ → upstream$/)
    const entries = await createSandboxClient({ baseUrl: sandbox.server.url }).requests()
    expect(entries).toHaveLength(2)
    for (const entry of entries) expect(entry.recorded?.refused.at(-1)).toMatch(/^nothing recorded: .*createdPets/)
  })
})

describe('--record under --isolate, a call the sandbox holds no data for', () => {
  let open: Awaited<ReturnType<typeof openUpstream>>
  const servers: RunningServer[] = []
  beforeAll(async () => {
    open = await openUpstream()
  })
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()))
    await open.close()
  })

  const isolated = async () => {
    const sandbox = await recorder(open.url, { isolate: true, apiKeyPattern: /^[a-z-]+$/ })
    servers.push(sandbox.server)
    return sandbox
  }
  const REFUSED =
    /^nothing recorded: under --isolate a call records into its own key's data, and the sandbox itself refuses this call's key \(API key is not valid\)/
  const NO_KEY =
    "nothing recorded: the call came with no key, and under --isolate a call records into its own key's data"
  const TOLD = ' (said once; the journal says it of each call)'

  it("records into the caller's data, and says why not in the terminal once per cause, in the journal each time", async () => {
    const sandbox = await isolated()
    const lines: string[] = []
    for (const headers of [
      { Authorization: 'Bearer Outside_Pattern9' },
      { Authorization: 'Bearer Outside_Pattern9' },
      { Authorization: 'Bearer Another_Outside1' },
      {},
      {},
      { Authorization: 'Bearer alice-key' },
    ]) {
      const { status, line } = await listThrough(sandbox, headers)
      // The upstream answered each: the sandbox does not judge the key it passes on.
      expect(status).toBe(200)
      lines.push(line)
    }
    const [refusedFirst, refusedAgain, refusedOther, noKeyFirst, noKeyAgain, alice] = lines
    const told = (line: string | undefined) => line?.slice(line.indexOf(' → upstream, ') + ' → upstream, '.length)
    expect(refusedFirst).toContain(' → upstream, nothing recorded: ')
    expect(told(refusedFirst)).toMatch(REFUSED)
    expect(refusedFirst?.endsWith(TOLD)).toBe(true)
    expect(refusedAgain).toMatch(/ → upstream$/)
    expect(refusedOther).toMatch(/ → upstream$/)
    expect(told(noKeyFirst)).toBe(`${NO_KEY}${TOLD}`)
    expect(noKeyAgain).toMatch(/ → upstream$/)
    expect(alice).toMatch(/ → upstream \[al\*+y \(9 characters\)\]$/)

    const entries = await createSandboxClient({ baseUrl: sandbox.server.url }).requests()
    expect(entries).toHaveLength(6)
    for (const entry of entries.slice(0, 3)) {
      expect(entry.recorded?.pets).toBe(0)
      expect(entry.recorded?.refused).toHaveLength(1)
      expect(entry.recorded?.refused[0]).toMatch(REFUSED)
    }
    for (const entry of entries.slice(3, 5)) expect(entry.recorded).toEqual({ pets: 0, refused: [NO_KEY] })
    expect(entries[5]?.recorded).toEqual({ pets: 3, refused: [] })

    // Forwarding off: the pets are alice's, and only hers.
    const admin = createSandboxClient({ baseUrl: sandbox.server.url })
    await admin.forwarding.set([])
    const as = async (key: string) =>
      (await (
        await fetch(`${sandbox.server.apiUrl}/pets?limit=100`, { headers: { Authorization: `Bearer ${key}` } })
      ).json()) as Pet[]
    expect((await as('alice-key')).find((pet) => pet.id === 120)).toEqual(STAGING_PETS[1])
    expect((await as('bob-key')).find((pet) => pet.id === 120)).toBeUndefined()
    expect((await as(SANDBOX_KEY)).find((pet) => pet.id === 120)).toBeUndefined()
  })

  it('keeps what it told with the sandbox: another sandbox in the same process tells it again', async () => {
    const first = await isolated()
    const second = await isolated()
    const headers = { Authorization: 'Bearer Outside_Pattern9' }
    expect((await listThrough(first, headers)).line).toContain(TOLD)
    expect((await listThrough(first, headers)).line).not.toContain(TOLD)
    expect((await listThrough(second, headers)).line).toContain(TOLD)
  })

  it('writes the reason as a field of its JSON access log line, once', async () => {
    const sandbox = await recorder(open.url, { isolate: true, apiKeyPattern: /^[a-z-]+$/, logFormat: 'json' })
    servers.push(sandbox.server)
    const headers = { Authorization: 'Bearer Outside_Pattern9' }
    const first = JSON.parse((await listThrough(sandbox, headers)).line) as Record<string, unknown>
    const again = JSON.parse((await listThrough(sandbox, headers)).line) as Record<string, unknown>
    expect(first).toMatchObject({ status: 200, upstream: true })
    expect(String(first.unrecorded)).toMatch(REFUSED)
    expect(again).toMatchObject({ status: 200, upstream: true })
    expect(again).not.toHaveProperty('unrecorded')
  })
})

describe("the banner's Try line in front of an upstream", () => {
  let staging: RunningServer
  beforeAll(async () => {
    staging = await startServer({ port: 0, fixtures: STAGING_PETS, apiKeys: [STAGING_KEY] })
  })
  afterAll(async () => {
    await staging.close()
  })

  /** Starts the CLI and answers the banner's Try line, and the line under it. */
  async function tryLine(args: string[]): Promise<{ command: string; next: string }> {
    const cli = spawnCli(['--port', '0', '--quiet', ...args])
    running.push(cli)
    await waitFor(cli, /Press Ctrl-C to stop\./)
    const banner = cli.stdout().split('\n')
    const at = banner.findIndex((line) => line.startsWith('Try:'))
    expect(at).toBeGreaterThan(0)
    return { command: (banner[at] ?? '').replace(/^Try: +/, ''), next: banner[at + 1] ?? '' }
  }

  it("names the upstream's key when listPets goes there with the caller's key, and works with it", async () => {
    const { command, next } = await tryLine(['--upstream', staging.apiUrl, '--forward', 'listPets', '--record'])
    const placeholder = `<your key for ${staging.url}>`
    expect(command).toContain(`'Authorization: Bearer ${placeholder}'`)
    expect(next).toMatch(
      new RegExp(`^ +\\(listPets goes to ${staging.url.replace(/\./g, '\\.')} with the caller's key`),
    )
    const argv = words(command)
    // As printed, with the upstream's key in its place: staging's pets.
    const answered = await curl(argv.map((word) => word.replace(placeholder, STAGING_KEY)))
    expect(answered.status).toBe(200)
    expect(answered.body).toEqual(STAGING_PETS)
    // The sandbox's own key, what the line printed before, is the upstream's 401.
    expect((await curl(argv.map((word) => word.replace(placeholder, SANDBOX_KEY)))).status).toBe(401)
  })

  it.each([
    ['with --upstream-key', ['--forward', 'listPets', '--upstream-key', STAGING_KEY], STAGING_PETS.length],
    ['when listPets is not forwarded', ['--forward', 'getPet'], 3],
  ])("prints the sandbox's own key %s, and works as printed", async (_name, args, count) => {
    const { command, next } = await tryLine(['--upstream', staging.apiUrl, ...args])
    expect(command).toContain(`'Authorization: Bearer ${SANDBOX_KEY}'`)
    expect(next).toMatch(/^Docs: /)
    const answered = await curl(words(command))
    expect(answered.status).toBe(200)
    expect(answered.body).toHaveLength(count)
  })
})
