/**
 * `--upstream` (issue 20): a sandbox stands in for a real API and steps aside per operation. The
 * forwarded operations go to the upstream (another sandbox, or a small node:http server that
 * drifts from the contract, never answers, or answers too much), with the scenarios and delays in
 * front; the answers come back checked against the interface, counted in a header, recorded in the
 * journal and shown on the dashboard (Chromium); a failed upstream is a JSON 502 or 504. The
 * upstream's URL and key never show beyond its origin. Forwarded requests are bounded: called off
 * when their client leaves, at most upstreamRequests at once (which also ends a sandbox forwarding
 * to itself through a proxy), their bodies relayed byte for byte and never with a content coding.
 */
import { EventEmitter, once } from 'node:events'
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import { connect, createServer as createNetServer, type Socket } from 'node:net'
import { gzipSync } from 'node:zlib'
import type { AddressInfo } from 'node:net'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Route } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { needs } from './support/programs.js'
import { createSandboxClient, SandboxClientError, type JournalEntry } from '../src/client.js'
import type { Pet } from '../src/index.js'
import { startServer, type RunningServer, type ServerOptions } from '../src/server.js'
import { LIMITS } from '../src/index.js'
import { closeSharedContexts, sharedChromium } from './support/chromium.js'
import { refusal } from './support/cli-in-process.js'
import { eventText } from './support/event-stream.js'
import { spawnCli, waitFor, type Cli } from './support/spawn-cli.js'

const B_KEY = 'petstore-sandbox-key'
const auth = (key: string) => ({ Authorization: `Bearer ${key}` })
const JSON_TYPE = { 'Content-Type': 'application/json' }
const VIOLATIONS = 'sandbox-contract-violations'
const OPERATIONS = ['listPets', 'createPet', 'getPet']
/** How long the dashboard may take to show what the sandbox did (live events, polled health). */
const LIVE = { timeout: 10_000, interval: 50 }
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** A's own data: nothing like the bundled seed B answers from. */
const A_PETS: Pet[] = [
  { id: 1, name: 'Upstream Una', categoryId: 9, status: 'sold' },
  { id: 2, name: 'Upstream Ugo', categoryId: 9 },
]

const servers: RunningServer[] = []
const closers: (() => Promise<unknown>)[] = []

async function sandbox(options: ServerOptions = {}): Promise<RunningServer> {
  const server = await startServer({ port: 0, ...options })
  servers.push(server)
  return server
}

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()))
  await Promise.all(closers.map((close) => close()))
})

const journal = async (server: RunningServer): Promise<JournalEntry[]> =>
  (await (await fetch(`${server.url}/__sandbox/requests`)).json()) as JournalEntry[]

const putForwarding = (server: RunningServer, body: string) =>
  fetch(`${server.url}/__sandbox/forwarding`, { method: 'PUT', headers: JSON_TYPE, body })

interface Seen {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

/** A node:http server of the test's own, answering by `answer`, and every request it saw. */
async function upstreamServer(
  answer: (request: Seen) => {
    status: number
    type?: string
    body: string | Buffer
    headers?: Record<string, string>
  },
): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = []
  const server: Server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
    request.on('end', () => {
      const got = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body }
      seen.push(got)
      const { status, type = 'application/json', body: text, headers = {} } = answer(got)
      response.writeHead(status, {
        'Content-Type': type,
        'Set-Cookie': 'upstream=1',
        'X-Upstream-Only': 'yes',
        ...headers,
      })
      response.end(text)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  closers.push(async () => {
    server.closeAllConnections()
    server.close()
    await once(server, 'close')
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

/**
 * An upstream that answers nothing until `release()`: each request waits in `held`. `arrivals(n)`
 * resolves once n requests came; `closed()` once a connection to it closes.
 */
async function holdingUpstream() {
  const events = new EventEmitter()
  const held: ServerResponse[] = []
  const server = createServer((request, response) => {
    request.resume()
    request.socket.once('close', () => events.emit('closed'))
    held.push(response)
    events.emit('request')
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  closers.push(async () => {
    server.closeAllConnections()
    server.close()
    await once(server, 'close')
  })
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held,
    async arrivals(count: number) {
      while (held.length < count) await once(events, 'request')
    },
    closed: () => once(events, 'closed'),
    release() {
      for (const response of held.splice(0)) {
        response.writeHead(200, { 'Content-Type': 'application/json' })
        response.end('[]')
      }
    },
  }
}

/** What health says of the upstreamRequests budget now. */
async function upstreamRequests(server: RunningServer): Promise<{ budget: number; used: number | null }> {
  const health = (await (await fetch(`${server.url}/__sandbox/health`)).json()) as {
    limits: { upstreamRequests: { budget: number; used: number | null } }
  }
  const { budget, used } = health.limits.upstreamRequests
  return { budget, used }
}

describe('sandbox B forwarding listPets to sandbox A', () => {
  let a: RunningServer
  let b: RunningServer

  beforeAll(async () => {
    a = await sandbox({ fixtures: A_PETS })
    b = await sandbox({ upstream: a.apiUrl, forward: ['listPets'] })
  })

  it("lists A's pets, while getPet and createPet answer from B's own data", async () => {
    const listed = await fetch(`${b.apiUrl}/pets?limit=5`, { headers: auth(B_KEY) })
    expect(listed.status).toBe(200)
    expect(listed.headers.get(VIOLATIONS)).toBe('0')
    expect(await listed.json()).toEqual(A_PETS)

    const one = await fetch(`${b.apiUrl}/pets/1`, { headers: auth(B_KEY) })
    expect(one.status).toBe(200)
    expect(one.headers.get(VIOLATIONS)).toBeNull()
    expect(one.headers.get('deprecation')).toBe('@1767225600')
    expect(await one.json()).toEqual({ id: 1, name: 'Biscuit', categoryId: 1, status: 'available' })

    const created = await fetch(`${b.apiUrl}/pets`, {
      method: 'POST',
      headers: { ...auth(B_KEY), ...JSON_TYPE },
      body: '{"name":"Made in B","categoryId":1}',
    })
    expect(created.status).toBe(201)
    expect(((await created.json()) as { id: number }).id).toBe(33)
    expect(await a.sandbox.pets.count()).toBe(2)
    expect(await b.sandbox.pets.count()).toBe(33)

    const entries = await journal(b)
    expect(
      entries.map(({ operation, status, forwarded, violations }) => [operation, status, forwarded, violations]),
    ).toEqual([
      ['listPets', 200, true, []],
      ['getPet', 200, false, []],
      ['createPet', 201, false, []],
    ])
    // A saw the list, the query as sent and the base path its own; the sandbox's Prefer never goes there.
    const seenByA = await journal(a)
    expect(
      seenByA.map((entry) => `${entry.method} ${new URL(entry.url).pathname}${new URL(entry.url).search}`),
    ).toEqual(['GET /v1/pets?limit=5'])
    expect(seenByA[0]?.headers['accept-encoding']).toBe('identity')
    await Promise.all([a.sandbox.reset(), b.sandbox.reset()])
  })

  it('switches getPet on and off at run time, over HTTP and with the admin client', async () => {
    const client = createSandboxClient({ baseUrl: b.url })
    expect(await client.forwarding.get()).toEqual({
      upstream: a.url,
      forward: ['listPets'],
      operations: OPERATIONS,
      record: false,
      recorded: 0,
    })

    expect(await client.forwarding.set(['getPet', 'listPets'])).toEqual({
      upstream: a.url,
      forward: ['listPets', 'getPet'],
      operations: OPERATIONS,
      record: false,
      recorded: 0,
    })
    const forwarded = await fetch(`${b.apiUrl}/pets/1`, { headers: auth(B_KEY) })
    expect(await forwarded.json()).toEqual(A_PETS[0])
    expect(forwarded.headers.get(VIOLATIONS)).toBe('0')
    // A's own getPet headers, relayed: the sandbox adds none of its own to an upstream's answer.
    expect(forwarded.headers.get('deprecation')).toBe('@1767225600')
    expect((await client.health()).upstream).toEqual({
      label: a.url,
      forward: ['listPets', 'getPet'],
      record: false,
      recorded: 0,
    })

    const off = await putForwarding(b, '{"forward":["listPets"]}')
    expect(off.status).toBe(200)
    expect(await off.json()).toEqual({
      upstream: a.url,
      forward: ['listPets'],
      operations: OPERATIONS,
      record: false,
      recorded: 0,
    })
    expect(await (await fetch(`${b.apiUrl}/pets/1`, { headers: auth(B_KEY) })).json()).toMatchObject({
      name: 'Biscuit',
    })

    expect((await client.forwarding.set('all')).forward).toEqual(OPERATIONS)
    expect((await client.forwarding.set([])).forward).toEqual([])
    expect(await (await fetch(`${b.apiUrl}/pets?limit=1`, { headers: auth(B_KEY) })).json()).toEqual([
      { id: 1, name: 'Biscuit', categoryId: 1, status: 'available' },
    ])
    // A reset restores data, not how the sandbox is deployed.
    await client.forwarding.set(['listPets'])
    await client.reset()
    expect((await client.forwarding.get()).forward).toEqual(['listPets'])
  })

  it('tells event stream readers when what is forwarded or recorded is switched, and nothing for a refused switch or one that changes nothing', async () => {
    const response = await fetch(`${b.url}/__sandbox/events`)
    expect(response.status).toBe(200)
    const events = eventText(response)
    const { until } = events
    try {
      await until(/: connected\n\n/)
      expect((await putForwarding(b, '{"forward":["nope"]}')).status).toBe(400)
      expect((await putForwarding(b, '{"forward":["getPet"]}')).status).toBe(200)
      await until(/event: forwarding\n/)
      expect(events.text()).toMatch(/^event: forwarding\ndata: \{"tenant":null\}\n\n/m)
      expect((await putForwarding(b, '{"record":true}')).status).toBe(200)
      await until(/(event: forwarding\n[\s\S]*){2}/)
      // A switch to what is already so says nothing either; the next real one does.
      expect((await putForwarding(b, '{"forward":["getPet"],"record":true}')).status).toBe(200)
      expect((await putForwarding(b, '{"forward":["createPet"]}')).status).toBe(200)
      // A reset's change event comes after every event before it: then the count is final.
      expect((await fetch(`${b.url}/__sandbox/reset`, { method: 'POST' })).status).toBe(204)
      await until(/event: change\n/)
      // The refused switch and the one that changed nothing said nothing: three switches, three events.
      expect(events.text().match(/^event: forwarding$/gm)).toHaveLength(3)
    } finally {
      await events.cancel()
      expect((await putForwarding(b, '{"forward":["listPets"],"record":false}')).status).toBe(200)
    }
  })

  it('refuses unknown operation names with a 400 naming them, and changes nothing', async () => {
    const refused = await putForwarding(b, '{"forward":["listPets","fetchPets","getPets"]}')
    expect(refused.status).toBe(400)
    const body = (await refused.json()) as { code: string; message: string; status: number }
    expect(body).toMatchObject({ code: 'invalid_body', status: 400 })
    expect(body.message).toContain('"fetchPets", "getPets"')
    expect(body.message).toContain('listPets, createPet, getPet')
    for (const bad of ['{"forward":"some"}', '{"forward":[1]}', '{"only":[]}', '[]']) {
      expect((await putForwarding(b, bad)).status, bad).toBe(400)
    }
    const error = await createSandboxClient({ baseUrl: b.url })
      .forwarding.set(['listPets', 'nope'] as never)
      .catch((reason: unknown) => reason)
    expect(error).toBeInstanceOf(SandboxClientError)
    expect((error as SandboxClientError).status).toBe(400)
    expect((await createSandboxClient({ baseUrl: b.url }).forwarding.get()).forward).toEqual(['listPets'])
  })

  it('names each unknown name once, ten at most, then how many more', async () => {
    const unknown = Array.from({ length: 14 }, (_, index) => `nope${index}`)
    // Each twice, and a known one among them: 14 unknown names, not 28.
    const refused = await putForwarding(b, JSON.stringify({ forward: ['listPets', ...unknown, ...unknown] }))
    expect(refused.status).toBe(400)
    const { message } = (await refused.json()) as { message: string }
    const named = unknown
      .slice(0, 10)
      .map((name) => `"${name}"`)
      .join(', ')
    expect(message).toBe(
      `forward names ${named} and 4 more, which are not operations; the operations are listPets, createPet, getPet`,
    )
    const repeated = await putForwarding(b, '{"forward":["nope","nope","nope"]}')
    expect(((await repeated.json()) as { message: string }).message).toMatch(
      /^forward names "nope", which is not an operation;/,
    )
    expect((await createSandboxClient({ baseUrl: b.url }).forwarding.get()).forward).toEqual(['listPets'])
  })

  it('answers 409 conflict to forwarding asked of a sandbox without an upstream', async () => {
    const refused = await putForwarding(a, '{"forward":["listPets"]}')
    expect(refused.status).toBe(409)
    const body = (await refused.json()) as { code: string; message: string; status: number }
    expect(body).toMatchObject({ code: 'conflict', status: 409 })
    expect(body.message).toContain('--upstream <api-url>')
    const client = createSandboxClient({ baseUrl: a.url })
    expect(await client.forwarding.get()).toEqual({
      upstream: null,
      forward: [],
      operations: OPERATIONS,
      record: false,
      recorded: 0,
    })
    // Forwarding nothing is no conflict.
    expect((await client.forwarding.set([])).forward).toEqual([])
    const error = await client.forwarding.set('all').catch((reason: unknown) => reason)
    expect((error as SandboxClientError).code).toBe('conflict')
    expect((await client.health()).upstream).toBeNull()
  })
})

describe("the upstream's key", () => {
  let a: RunningServer
  const lines: string[] = []

  beforeAll(async () => {
    a = await sandbox({ fixtures: A_PETS, apiKeys: ['real-key'] })
  })

  it("with --upstream-key, B checks its own key first and A gets B's key for it", async () => {
    const b = await sandbox({
      upstream: a.apiUrl,
      forward: 'all',
      upstreamKey: 'real-key',
      log: (line) => lines.push(line),
    })
    const answered = await fetch(`${b.apiUrl}/pets`, { headers: auth(B_KEY) })
    expect(answered.status).toBe(200)
    expect(await answered.json()).toEqual(A_PETS)

    // Without a key, or with A's key (which B does not accept), B answers 401 itself: A sees nothing.
    for (const headers of [{}, auth('real-key')]) {
      const refused = await fetch(`${b.apiUrl}/pets`, { headers })
      expect(refused.status).toBe(401)
      expect(refused.headers.get(VIOLATIONS)).toBeNull()
      expect(await refused.json()).toMatchObject({ code: 'unauthorized', status: 401 })
    }
    expect(await journal(a)).toHaveLength(1)
    expect((await journal(a))[0]?.headers.authorization).toBe('Bearer [redacted]')
    expect((await journal(b)).map((entry) => [entry.status, entry.forwarded])).toEqual([
      [200, true],
      [401, false],
      [401, false],
    ])

    // The key shows nowhere: the journal, health, forwarding, the events' entries, the access log.
    await expect.poll(() => lines.length, LIVE).toBe(3)
    expect(lines[0]).toMatch(/^GET \/v1\/pets 200 [\d.]+ ms → upstream$/)
    for (const path of ['/requests', '/health', '/forwarding']) {
      expect(await (await fetch(`${b.url}/__sandbox${path}`)).text(), path).not.toContain('real-key')
    }
    expect(lines.join('\n')).not.toContain('real-key')
    expect(lines.join('\n')).not.toContain(a.apiUrl)
  })

  it("without --upstream-key, passes the client's Authorization on as it is: the upstream judges it", async () => {
    const b = await sandbox({ upstream: a.apiUrl, forward: ['listPets'] })
    // A's key, which B does not hold: A's pets.
    const listed = await fetch(`${b.apiUrl}/pets`, { headers: auth('real-key') })
    expect(listed.status).toBe(200)
    expect(await listed.json()).toEqual(A_PETS)
    // B's key, which A does not hold: A's 401, a status the interface lists.
    const refused = await fetch(`${b.apiUrl}/pets`, { headers: auth(B_KEY) })
    expect(refused.status).toBe(401)
    expect(refused.headers.get(VIOLATIONS)).toBe('0')
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer realm="petstore"/)
    // Not forwarded, getPet still wants one of B's keys.
    expect((await fetch(`${b.apiUrl}/pets/1`, { headers: auth('real-key') })).status).toBe(401)
    expect((await journal(b)).map((entry) => [entry.operation, entry.status, entry.forwarded])).toEqual([
      ['listPets', 200, true],
      ['listPets', 401, true],
      ['getPet', 401, false],
    ])
  })
})

describe('an upstream that drifts from the contract', () => {
  let drifted: Awaited<ReturnType<typeof upstreamServer>>
  let b: RunningServer
  beforeAll(async () => {
    drifted = await upstreamServer(({ method, url }) => {
      if (method === 'GET' && /^\/api\/v1\/pets(?:\?|$)/.test(url)) return { status: 200, body: '[{"name":"x"}]' }
      if (method === 'GET' && url === '/api/v1/pets/1')
        return { status: 418, type: 'text/plain', body: 'I am a teapot' }
      return { status: 400, body: '{"code":"bad","message":"no","status":422}' }
    })
    b = await sandbox({ upstream: `${drifted.url}/api/v1`, forward: 'all' })
  }, 60_000)

  afterAll(closeSharedContexts)

  it('counts the violations in Sandbox-Contract-Violations and records each in the journal', async () => {
    const listed = await fetch(`${b.apiUrl}/pets?limit=2`, { headers: auth(B_KEY) })
    expect(listed.status).toBe(200)
    expect(listed.headers.get(VIOLATIONS)).toBe('2')
    // The upstream's body and type as it sent them; its cookies and its other headers stay there.
    expect(await listed.text()).toBe('[{"name":"x"}]')
    expect(listed.headers.get('set-cookie')).toBeNull()
    expect(listed.headers.get('x-upstream-only')).toBeNull()

    const teapot = await fetch(`${b.apiUrl}/pets/1`, { headers: auth(B_KEY) })
    expect(teapot.status).toBe(418)
    expect(teapot.headers.get('content-type')).toBe('text/plain')
    expect(teapot.headers.get(VIOLATIONS)).toBe('2')
    expect(await teapot.text()).toBe('I am a teapot')

    const created = await fetch(`${b.apiUrl}/pets`, {
      method: 'POST',
      headers: { ...auth(B_KEY), ...JSON_TYPE, Prefer: 'return=minimal', Cookie: 'mine=1', Via: '1.0 fred' },
      body: '{"name":"Sent on","categoryId":2}',
    })
    expect(created.status).toBe(400)
    expect(created.headers.get(VIOLATIONS)).toBe('1')

    const entries = await journal(b)
    expect(entries.map((entry) => [entry.operation, entry.status, entry.forwarded, entry.violations.length])).toEqual([
      ['listPets', 200, true, 2],
      ['getPet', 418, true, 2],
      ['createPet', 400, true, 1],
    ])
    const [list, get, create] = entries
    expect(list?.violations.join('\n')).toMatch(/id/)
    expect(list?.violations.join('\n')).toMatch(/categoryId/)
    expect(get?.violations.join('\n')).toMatch(/418/)
    expect(get?.violations.join('\n')).toMatch(/text\/plain/)
    expect(create?.violations[0]).toMatch(/422.*400/)
    // The body as the client sent it, recorded; sent upstream as it came, with no Prefer and no Cookie.
    expect(create?.body).toEqual({ name: 'Sent on', categoryId: 2 })
    const sent = drifted.seen.find((request) => request.method === 'POST')
    expect(sent?.body).toBe('{"name":"Sent on","categoryId":2}')
    expect(sent?.url).toBe('/api/v1/pets')
    expect(sent?.headers.prefer).toBeUndefined()
    expect(sent?.headers.cookie).toBeUndefined()
    expect(sent?.headers.authorization).toBe(`Bearer ${B_KEY}`)
    expect(sent?.headers['content-type']).toBe('application/json')
    // An intermediary says so (RFC 9110 section 7.6.3), after the client's own entries.
    expect(sent?.headers.via).toBe('1.0 fred, 1.1 petstore-sandbox')
    expect(drifted.seen[0]?.headers.via).toBe('1.1 petstore-sandbox')
  })

  it('marks a forwarded request and its violations in the JSON access log, without the URL', async () => {
    const lines: string[] = []
    const logged = await sandbox({
      upstream: `${drifted.url}/api/v1?secret=1`,
      forward: ['listPets'],
      log: (line) => lines.push(line),
      logFormat: 'json',
    })
    expect((await fetch(`${logged.apiUrl}/pets`, { headers: auth(B_KEY) })).status).toBe(200)
    expect((await fetch(`${logged.apiUrl}/pets/1`, { headers: auth(B_KEY) })).status).toBe(200)
    await expect.poll(() => lines.length, LIVE).toBe(2)
    const [forwarded, answered] = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(forwarded).toMatchObject({ target: '/v1/pets', status: 200, upstream: true, violations: 2 })
    expect(answered).not.toHaveProperty('upstream')
    expect(lines.join('\n')).not.toContain('secret')
    expect(lines.join('\n')).not.toContain('/api/v1')
  })

  it.skipIf(!needs('chromium'))(
    'shows forwarded requests and their violations in the dashboard, and switches operations there',
    async () => {
      const browser = await sharedChromium()
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' })
      // The page's own clock, running as the real one until the test moves it on (below).
      await context.clock.install()
      const page = await context.newPage()
      await page.goto(`${b.url}/__sandbox/`)

      // The rows of the test above, and their violations, once the journal is read.
      const rows = page.locator('#journal button')
      await expect.poll(() => rows.count(), LIVE).toBe(3)
      const getRow = rows.filter({ hasText: 'getPet' })
      expect(await getRow.innerText()).toMatch(/418 I'm a Teapot[\s\S]*→ upstream[\s\S]*2 contract violations/)
      expect(await getRow.locator('.violations').getAttribute('title')).toMatch(/418[\s\S]*text\/plain/)
      await getRow.click()
      const details = page.locator('#request-details')
      expect(await details.innerText()).toContain('the upstream, breaking the contract 2 ways')
      expect(await details.locator('.violation-list li').allInnerTexts()).toEqual(
        (await journal(b)).find((entry) => entry.operation === 'getPet')?.violations,
      )

      // A request made now arrives live, once the event stream is open.
      await expect.poll(() => page.locator('#connection').innerText(), LIVE).toBe('Live updates: on')
      expect((await fetch(`${b.apiUrl}/pets`, { headers: auth(B_KEY) })).status).toBe(200)
      await expect.poll(() => rows.count(), LIVE).toBe(4)
      expect(await rows.first().innerText()).toMatch(/GET\s+\/v1\/pets[\s\S]*→ upstream[\s\S]*2 contract violations/)

      // The Traffic panel says it too: how many went upstream, how many broke the contract, and the
      // latest violations, newest first (the live listPets's two, then createPet's).
      const traffic = page.locator('#traffic-panel')
      await expect
        .poll(() => traffic.locator('#forwarded-summary').innerText(), LIVE)
        .toBe('Forwarded to the upstream: 4 requests, 4 with contract violations.')
      const shown = await traffic.locator('#forwarded-violations li').allInnerTexts()
      const newestFirst = (await journal(b)).toSorted((x, y) => y.id - x.id)
      expect(shown).toEqual(
        newestFirst
          .flatMap((entry) => entry.violations.map((violation) => `${entry.operation} ${entry.status}: ${violation}`))
          .slice(0, 5),
      )
      expect(shown[0]).toMatch(/^listPets 200: /)
      expect(await traffic.innerText()).toContain('createPet 400: ')

      // One box per operation, each as the server has it; unchecking one asks the server.
      const forwarding = page.getByRole('group', { name: 'Sent to the upstream' })
      await expect.poll(() => forwarding.isVisible(), LIVE).toBe(true)
      expect(await page.locator('#forwarding-upstream').innerText()).toBe(drifted.url)
      const getPet = forwarding.getByLabel('getPet')
      await expect.poll(() => getPet.isChecked(), LIVE).toBe(true)
      // The Data panel says whose pets it shows while pet operations go to the upstream.
      await expect
        .poll(() => page.locator('#data-source').innerText(), LIVE)
        .toBe(
          `listPets, createPet, getPet are forwarded to ${drifted.url}: API clients get its answers there. This panel shows the sandbox's own pets, which answer what is not forwarded.`,
        )
      await getPet.uncheck()
      await expect
        .poll(async () => (await createSandboxClient({ baseUrl: b.url }).forwarding.get()).forward, LIVE)
        .toEqual(['listPets', 'createPet'])
      await expect
        .poll(() => page.locator('#status').innerText(), LIVE)
        .toBe('getPet is answered by the sandbox again.')
      // Switched elsewhere: the page follows health.
      await createSandboxClient({ baseUrl: b.url }).forwarding.set('all')
      await expect.poll(() => getPet.isChecked(), LIVE).toBe(true)

      // A health answer asked before a switch and handled after it tells the state before it: it
      // must not tick the box back. The page's next health request is answered now (getPet
      // forwarded), held, and let go after the switch, marked by an uptime no other answer has;
      // the ones after it wait until the box is looked at, so that answer is the last shown. The
      // page's clock moves on 5 s, so its health poll (or any health request due by then) comes at
      // once, instead of up to 5 s later.
      let asked!: () => void
      let letGo!: () => void
      let looked!: () => void
      const held = new Promise<void>((resolve) => (asked = resolve))
      const released = new Promise<void>((resolve) => (letGo = resolve))
      const checked = new Promise<void>((resolve) => (looked = resolve))
      let first = true
      const stale = async (route: Route) => {
        if (!first) {
          await checked
          await route.continue().catch(() => undefined)
          return
        }
        first = false
        const response = await route.fetch()
        const json = { ...((await response.json()) as object), uptimeSeconds: 7 * 86_400 }
        asked()
        await released
        await route.fulfill({ response, json })
      }
      await page.route('**/__sandbox/health', stale)
      try {
        await page.clock.fastForward(5000)
        await held
        await getPet.uncheck()
        await expect
          .poll(async () => (await createSandboxClient({ baseUrl: b.url }).forwarding.get()).forward, LIVE)
          .toEqual(['listPets', 'createPet'])
        letGo()
        await expect.poll(() => page.locator('#health-uptime').innerText(), LIVE).toBe('7 d 0 h 0 min 0 s')
        expect(await getPet.isChecked()).toBe(false)
      } finally {
        letGo()
        looked()
        await page.unroute('**/__sandbox/health', stale)
      }
      await createSandboxClient({ baseUrl: b.url }).forwarding.set('all')
      await expect.poll(() => getPet.isChecked(), LIVE).toBe(true)

      // A table reloading (aria-busy) is rebuilt from its answer: axe runs once none is reloading.
      await page.waitForFunction(() => document.querySelector('[aria-busy="true"]') === null)
      await page.evaluate(AXE)
      const violations = await page.evaluate(async () => {
        const { axe } = window as unknown as {
          axe: { run(): Promise<{ violations: { id: string; impact?: string | null }[] }> }
        }
        return (await axe.run()).violations
      })
      expect(violations.filter((found) => found.impact === 'serious' || found.impact === 'critical')).toEqual([])
      expect(await page.content()).not.toContain('/api/v1')
      await context.close()
    },
  )
})

describe('scenarios and delays in front of the upstream', () => {
  it('answers a scenario 503 without asking the upstream, and waits out a delay before asking it', async () => {
    const counted = await upstreamServer(() => ({ status: 200, body: '[]' }))
    const b = await sandbox({ upstream: counted.url, forward: ['listPets'] })
    const client = createSandboxClient({ baseUrl: b.url })
    await client.scenarios.add({ operation: 'listPets', status: 503, times: 1 })
    const refused = await fetch(`${b.apiUrl}/pets`, { headers: auth(B_KEY) })
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(refused.headers.get(VIOLATIONS)).toBeNull()
    expect(await refused.json()).toMatchObject({ code: 'service_unavailable', status: 503 })
    expect(counted.seen).toHaveLength(0)

    const preferred = await fetch(`${b.apiUrl}/pets`, { headers: { ...auth(B_KEY), Prefer: 'code=429' } })
    expect(preferred.status).toBe(429)
    expect(counted.seen).toHaveLength(0)

    await client.scenarios.add({ operation: 'listPets', delayMs: 300, times: 1 })
    const slow = await fetch(`${b.apiUrl}/pets`, { headers: auth(B_KEY) })
    expect(slow.status).toBe(200)
    expect(slow.headers.get(VIOLATIONS)).toBe('0')
    expect(counted.seen).toHaveLength(1)
    const entries = await client.requests({ operation: 'listPets' })
    expect(entries.map((entry) => [entry.status, entry.forwarded])).toEqual([
      [503, false],
      [429, false],
      [200, true],
    ])
    expect(entries[2]?.durationMs).toBeGreaterThanOrEqual(300)
  })
})

describe('a failed upstream', () => {
  it('answers a 504 JSON Error once an upstream that never answers has had its budget', async () => {
    const held: Socket[] = []
    const silent = createNetServer((socket) => {
      socket.on('error', () => undefined)
      held.push(socket)
    })
    silent.listen(0, '127.0.0.1')
    await once(silent, 'listening')
    closers.push(async () => {
      for (const socket of held) socket.destroy()
      silent.close()
      await once(silent, 'close')
    })
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`
    const b = await sandbox({ upstream: url, forward: 'all', limits: { upstreamTimeoutMs: 200 } })
    const answer = await fetch(`${b.apiUrl}/pets/1`, { headers: auth(B_KEY) })
    expect(answer.status).toBe(504)
    const body = (await answer.json()) as { code: string; message: string; status: number }
    expect(body).toMatchObject({ code: 'gateway_timeout', status: 504 })
    expect(body.message).toBe(`The upstream ${url} did not answer getPet within 200 ms (the upstreamTimeoutMs limit)`)
    // The sandbox's own Error for getPet: its headers, and no count (nothing was relayed).
    expect(answer.headers.get('deprecation')).toBe('@1767225600')
    expect(answer.headers.get(VIOLATIONS)).toBeNull()
    expect((await journal(b)).map((entry) => [entry.status, entry.forwarded, entry.violations])).toEqual([
      [504, true, []],
    ])
  })

  it('answers 502 for an upstream that cannot be reached', async () => {
    const closed = createNetServer()
    closed.listen(0, '127.0.0.1')
    await once(closed, 'listening')
    const { port } = closed.address() as AddressInfo
    closed.close()
    await once(closed, 'close')
    const b = await sandbox({ upstream: `http://127.0.0.1:${port}/v1`, forward: ['listPets'] })
    const answer = await fetch(`${b.apiUrl}/pets`, { headers: auth(B_KEY) })
    expect(answer.status).toBe(502)
    const body = (await answer.json()) as { code: string; message: string; status: number }
    expect(body).toMatchObject({ code: 'bad_gateway', status: 502 })
    expect(body.message).toMatch(
      new RegExp(`^The sandbox could not reach the upstream http://127\\.0\\.0\\.1:${port} for listPets: `),
    )
  })

  it('answers 502 for an answer over upstreamBodyBytes', async () => {
    const big = await upstreamServer(() => ({
      status: 200,
      body: JSON.stringify([{ id: 1, name: 'x'.repeat(4000), categoryId: 1 }]),
    }))
    const b = await sandbox({ upstream: big.url, forward: ['listPets'], limits: { upstreamBodyBytes: 1024 } })
    const answer = await fetch(`${b.apiUrl}/pets`, { headers: auth(B_KEY) })
    expect(answer.status).toBe(502)
    expect(await answer.json()).toEqual({
      code: 'bad_gateway',
      message: `The upstream ${big.url} answered listPets with a body over 1024 bytes (the upstreamBodyBytes limit)`,
      status: 502,
    })
  })

  it('refuses to start on an upstream URL that is not one, without quoting it', async () => {
    for (const [upstream, problem] of [
      ['not-a-url', 'upstream is not an absolute URL'],
      ['ftp://user:secret@example.com/v1', 'upstream must be an http:// or https:// URL, got ftp://'],
      ['http://example.com/v1#secret', 'upstream must not have a #fragment'],
    ] as const) {
      const error = await startServer({ port: 0, upstream }).catch((reason: unknown) => reason)
      expect(error, upstream).toBeInstanceOf(TypeError)
      expect((error as Error).message).toContain(problem)
      expect((error as Error).message).not.toContain('secret')
    }
    await expect(startServer({ port: 0, forward: ['listPets'] })).rejects.toThrow('forward needs upstream')
    await expect(startServer({ port: 0, upstream: 'http://127.0.0.1:1', upstreamKey: 'has space' })).rejects.toThrow(
      'upstreamKey is not a valid bearer token',
    )
  })
})

describe('forwarded requests are bounded', () => {
  it('calls the exchange off when the client goes away, and gives its place back', async () => {
    const upstream = await holdingUpstream()
    const lines: string[] = []
    // No timeout can end the exchange during the test: only the client leaving can.
    const b = await sandbox({
      upstream: upstream.url,
      forward: ['listPets'],
      limits: { upstreamTimeoutMs: 600_000 },
      log: (line) => lines.push(line),
    })
    const client = new AbortController()
    const asked = fetch(`${b.apiUrl}/pets`, { headers: auth(B_KEY), signal: client.signal }).catch(
      (error: unknown) => error,
    )
    await upstream.arrivals(1)
    expect(await upstreamRequests(b)).toEqual({ budget: 64, used: 1 })
    const closed = upstream.closed()
    client.abort()
    expect(await asked).toMatchObject({ name: 'AbortError' })
    // The sandbox closed its connection to the upstream: the exchange ended with its client.
    await closed
    expect(await upstreamRequests(b)).toEqual({ budget: 64, used: 0 })
    await expect.poll(() => lines.length, LIVE).toBe(1)
    expect(lines[0]).toMatch(
      /^GET \/v1\/pets cut \(the connection closed before the answer went out\) [\d.]+ ms → upstream$/,
    )
    // The journal keeps it, as it keeps a body cut short: went upstream, no answer for anyone.
    expect((await journal(b)).map((entry) => [entry.status, entry.forwarded, entry.violations])).toEqual([
      [400, true, []],
    ])
    expect(upstream.held[0]?.destroyed).toBe(true)
  })

  it('sends nothing for a client that left during its delay', async () => {
    const counted = await upstreamServer(() => ({ status: 200, body: '[]' }))
    const b = await sandbox({ upstream: counted.url, forward: ['listPets'] })
    await createSandboxClient({ baseUrl: b.url }).scenarios.add({ operation: 'listPets', delayMs: 500, times: 1 })
    const client = new AbortController()
    const asked = fetch(`${b.apiUrl}/pets`, { headers: auth(B_KEY), signal: client.signal }).catch(
      (error: unknown) => error,
    )
    await expect.poll(() => b.inFlight(), LIVE).toBe(1)
    client.abort()
    expect(await asked).toMatchObject({ name: 'AbortError' })
    // Once the delay is out, the request is journaled as called off, and the upstream saw nothing.
    await expect.poll(async () => (await journal(b)).length, LIVE).toBe(1)
    expect((await journal(b)).map((entry) => [entry.status, entry.forwarded])).toEqual([[400, false]])
    expect(counted.seen).toHaveLength(0)
  })

  it('holds at most upstreamRequests exchanges at once: the next is a 503 with Retry-After, not sent', async () => {
    const upstream = await holdingUpstream()
    const b = await sandbox({ upstream: upstream.url, forward: ['listPets'], limits: { upstreamRequests: 2 } })
    const waiting = [1, 2].map(() => fetch(`${b.apiUrl}/pets`, { headers: auth(B_KEY) }))
    await upstream.arrivals(2)
    expect(await upstreamRequests(b)).toEqual({ budget: 2, used: 2 })
    const refused = await fetch(`${b.apiUrl}/pets`, { headers: auth(B_KEY) })
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(refused.headers.get(VIOLATIONS)).toBeNull()
    expect(await refused.json()).toEqual({
      code: 'service_unavailable',
      message:
        'The sandbox waits on at most 2 forwarded requests at once (the upstreamRequests limit); try again in a moment',
      status: 503,
    })
    expect(upstream.held).toHaveLength(2)
    upstream.release()
    for (const answer of await Promise.all(waiting)) expect(answer.status).toBe(200)
    expect(await upstreamRequests(b)).toEqual({ budget: 2, used: 0 })
    expect((await journal(b)).map((entry) => [entry.status, entry.forwarded])).toEqual([
      [503, false],
      [200, true],
      [200, true],
    ])
  })

  it('ends a sandbox forwarding to itself at upstreamRequests turns, with a JSON 503, and keeps answering', async () => {
    // A TCP proxy of the test's own: B's upstream is the proxy, and the proxy is B.
    let port = 0
    const sockets: Socket[] = []
    const proxy = createNetServer((socket) => {
      const onward = connect(port, '127.0.0.1')
      sockets.push(socket, onward)
      for (const [one, other] of [
        [socket, onward],
        [onward, socket],
      ] as const) {
        one.on('error', () => undefined)
        one.on('close', () => other.destroy())
      }
      socket.pipe(onward).pipe(socket)
    })
    proxy.listen(0, '127.0.0.1')
    await once(proxy, 'listening')
    closers.push(async () => {
      for (const socket of sockets) socket.destroy()
      proxy.close()
      await once(proxy, 'close')
    })
    const b = await sandbox({
      upstream: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`,
      forward: 'all',
    })
    port = Number(new URL(b.url).port)

    const started = performance.now()
    const answer = await fetch(`${b.apiUrl}/pets`, { headers: auth(B_KEY) })
    const took = performance.now() - started
    expect(answer.status).toBe(503)
    expect(await answer.json()).toMatchObject({ code: 'service_unavailable', status: 503 })
    // Each turn relays the one inside it, a status listPets does not list.
    expect(answer.headers.get(VIOLATIONS)).toBe('1')

    const entries = await journal(b)
    const turns = entries.filter((entry) => entry.forwarded).length
    expect(turns).toBe(LIMITS.upstreamRequests.value)
    // The innermost request, refused unsent, carries every turn's Via entry.
    const innermost = entries[0]
    expect(innermost?.forwarded).toBe(false)
    expect(String(innermost?.headers.via).split(', ')).toHaveLength(turns)
    console.log(`a forwarding loop: ${turns} nested forwards, the client answered in ${took.toFixed(0)} ms`)

    // Every place is given back, and the sandbox answers as before.
    expect(await upstreamRequests(b)).toEqual({ budget: LIMITS.upstreamRequests.value, used: 0 })
    await createSandboxClient({ baseUrl: b.url }).forwarding.set([])
    const own = await fetch(`${b.apiUrl}/pets?limit=1`, { headers: auth(B_KEY) })
    expect(own.status).toBe(200)
    expect(await own.json()).toEqual([{ id: 1, name: 'Biscuit', categoryId: 1, status: 'available' }])
  })
})

describe("the upstream's bodies", () => {
  it('relays the bytes as they came, not their UTF-8 reading', async () => {
    // Not UTF-8: decoded and encoded again, 0xff 0xfe would come back as two U+FFFD, 6 bytes.
    const bytes = Buffer.from([0x49, 0x20, 0xff, 0xfe, 0x0a])
    const raw = await upstreamServer(() => ({
      status: 200,
      type: 'application/octet-stream',
      body: bytes,
      headers: { 'Content-Encoding': 'identity' },
    }))
    const b = await sandbox({ upstream: raw.url, forward: ['getPet'] })
    const answer = await fetch(`${b.apiUrl}/pets/1`, { headers: auth(B_KEY) })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-length')).toBe('5')
    expect(Buffer.from(await answer.arrayBuffer())).toEqual(bytes)
    expect(answer.headers.get(VIOLATIONS)).toBe('1')
  })

  it('answers 502 to an answer with a content coding, which it asked not to get', async () => {
    const zipped = await upstreamServer(() => ({
      status: 200,
      body: gzipSync('[{"id":1,"name":"Zipped","categoryId":1}]'),
      headers: { 'Content-Encoding': 'gzip' },
    }))
    const b = await sandbox({ upstream: zipped.url, forward: ['listPets'] })
    const answer = await fetch(`${b.apiUrl}/pets`, { headers: { ...auth(B_KEY), 'Accept-Encoding': 'gzip' } })
    expect(answer.status).toBe(502)
    expect(answer.headers.get(VIOLATIONS)).toBeNull()
    expect(await answer.json()).toEqual({
      code: 'bad_gateway',
      message: `The upstream ${zipped.url} answered listPets with Content-Encoding gzip, though asked for identity`,
      status: 502,
    })
    expect(zipped.seen[0]?.headers['accept-encoding']).toBe('identity')
    expect((await journal(b)).map((entry) => [entry.status, entry.forwarded, entry.violations])).toEqual([
      [502, true, []],
    ])
  })
})

describe('the CLI', () => {
  const running: Cli[] = []
  afterAll(async () => {
    for (const cli of running) cli.child.kill('SIGTERM')
    await Promise.all(running.map((cli) => cli.exited))
  })

  it.each([
    [['--forward', 'listPets'], 'error: --forward needs --upstream <api-url>'],
    [['--upstream-key', 'k'], 'error: --upstream-key needs --upstream <api-url>'],
    [
      ['--upstream', 'http://127.0.0.1:1', '--forward', 'listPets,fetchPets'],
      'fetchPets is not an operation: use listPets, createPet, getPet, all or none.',
    ],
  ])('refuses %j with a usage error', async (args, message) => {
    const refused = await refusal(['--port', '0', ...args])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(message)
  })

  it('refuses an upstream that is not a URL with one line naming the option, in a real process', async () => {
    const cli = spawnCli(['--port', '0', '--upstream', 'not-a-url'])
    expect(await cli.exited).toBe(1)
    expect(cli.stderr()).toBe(
      "petstore-sandbox: Failed to start the server: upstream is not an absolute URL: give the API's base URL, e.g. https://staging.example.com/v1\n",
    )
  })

  it("shows the upstream's origin alone in the banner and the log, and sends its path and query", async () => {
    const recorded = await upstreamServer(() => ({ status: 200, body: '[]' }))
    const port = new URL(recorded.url).port
    const cli = spawnCli([
      '--port',
      '0',
      '--upstream',
      `http://user:secret@127.0.0.1:${port}/v1?token=abc`,
      '--forward',
      'listPets',
      '--forward',
      'getPet',
    ])
    running.push(cli)
    const [, apiUrl = ''] = await waitFor(cli, /listening on (http:\/\/\S+\/v1)/)
    await waitFor(cli, /Press Ctrl-C to stop\./)
    expect(cli.stdout()).toMatch(
      new RegExp(`^Upstream: +http://127\\.0\\.0\\.1:${port}, forwarding listPets, getPet$`, 'm'),
    )
    const answer = await fetch(`${apiUrl}/pets?limit=2`, { headers: auth(B_KEY) })
    expect(answer.status).toBe(200)
    await waitFor(cli, /GET \/v1\/pets\?limit=2 200 [\d.]+ ms → upstream/)
    expect(recorded.seen.map((request) => request.url)).toEqual(['/v1/pets?token=abc&limit=2'])
    // The URL's user and password are not sent: the Pet Store takes a bearer key (--upstream-key).
    expect(recorded.seen[0]?.headers.authorization).toBe(`Bearer ${B_KEY}`)
    for (const secret of ['secret', 'user:', 'token=abc', '/v1?']) expect(cli.stdout(), secret).not.toContain(secret)
    expect(cli.stderr()).toBe('')
  })

  it('takes --forward none as nothing forwarded, with an upstream or without, and refuses none beside an operation', async () => {
    const none = spawnCli(['--port', '0', '--upstream', 'https://staging.example.com/v1', '--forward', 'none'])
    running.push(none)
    await waitFor(none, /Press Ctrl-C to stop\./)
    expect(none.stdout()).toMatch(/^Upstream: +https:\/\/staging\.example\.com, forwarding nothing yet /m)
    // The default written out, in an env file say: no usage error, even without an upstream.
    const fromEnv = spawnCli(['--port', '0', '-q'], { PETSTORE_FORWARD: 'none' })
    running.push(fromEnv)
    await waitFor(fromEnv, /Press Ctrl-C to stop\./)
    expect(fromEnv.stdout()).not.toContain('Upstream:')
    expect(fromEnv.stderr()).toBe('')
    for (const args of [
      ['--forward', 'none,listPets'],
      ['--forward', 'none', '--forward', 'getPet'],
      ['--forward', 'getPet', '--forward', 'none'],
    ]) {
      const mixed = await refusal(['--port', '0', '--upstream', 'http://127.0.0.1:1', ...args])
      expect(mixed.code, args.join(' ')).toBe(1)
      expect(mixed.stderr).toContain('none forwards nothing: give it alone, or name the operations without it.')
    }
  })

  it('reads PETSTORE_UPSTREAM and says when nothing is forwarded yet', async () => {
    const cli = spawnCli(['--port', '0', '-q'], { PETSTORE_UPSTREAM: 'https://staging.example.com/api/v1' })
    running.push(cli)
    await waitFor(cli, /Press Ctrl-C to stop\./)
    expect(cli.stdout()).toMatch(
      /^Upstream: +https:\/\/staging\.example\.com, forwarding nothing yet \(PUT \/__sandbox\/forwarding\)$/m,
    )
  })
})
