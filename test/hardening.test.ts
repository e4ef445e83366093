/**
 * What a web page, a hostile request or a shutdown must not break: the Host allowlist, CORS for
 * local origins, tenants and their caps, the id space, and every refusal as a JSON Error.
 */
import { getResponse } from 'msw'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createSandbox } from '../src/index.js'
import { startServer, type RunningServer } from '../src/server.js'
import { checkedFetch } from './support/openapi-check.js'
import { sendTo } from './support/in-process.js'
import { rawRequest } from './support/raw-http.js'

const KEY = 'petstore-sandbox-key'
const AUTH = { Authorization: `Bearer ${KEY}` }
const JSON_TYPE = { 'Content-Type': 'application/json' }
// Waits for an event, not a pause: the bound only turns a hang into a failure with a message.
const PATIENCE = { timeout: 10_000, interval: 20 }
const raw = (server: RunningServer, lines: string[], body = '') =>
  rawRequest(server.url, `${lines.join('\r\n')}\r\nConnection: close\r\n\r\n${body}`)

describe('the Host allowlist', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0, allowedHosts: ['mybox.lan', '.corp.example'] })
  })
  afterAll(() => server.close())

  it.each([
    'localhost',
    'localhost:3210',
    'app.localhost:3210',
    '127.0.0.1',
    '127.9.9.9:80',
    '[::1]:3210',
    '10.0.0.7:3210',
    '[fe80::1]',
  ])('answers Host %s: local names and IP literals need no flag', async (host) => {
    const answer = await raw(server, ['GET /v1/pets?limit=1 HTTP/1.1', `Host: ${host}`, `Authorization: Bearer ${KEY}`])
    expect(answer.status).toBe(200)
  })

  it.each(['mybox.lan:3210', 'MyBox.LAN', 'corp.example', 'api.corp.example:8080'])(
    'answers Host %s, allowed with --allowed-host',
    async (host) => {
      const answer = await raw(server, [
        'GET /v1/pets?limit=1 HTTP/1.1',
        `Host: ${host}`,
        `Authorization: Bearer ${KEY}`,
      ])
      expect(answer.status).toBe(200)
    },
  )

  it.each(['evil.test', 'rebind.example:3210', 'mybox.lan.evil.test', 'xcorp.example', 'localhost.evil.test'])(
    'refuses Host %s with a JSON 403 naming the flag, on the API and the admin routes alike, changing nothing',
    async (host) => {
      await server.sandbox.pets.create({ name: 'Stays', categoryId: 1 })
      for (const line of ['POST /__sandbox/reset HTTP/1.1', 'GET / HTTP/1.1', 'GET /v1/pets HTTP/1.1']) {
        const answer = await raw(server, [
          line,
          `Host: ${host}`,
          `Authorization: Bearer ${KEY}`,
          `Origin: http://${host}`,
        ])
        expect(answer.status, line).toBe(403)
        expect(answer.head).toMatch(/^Content-Type: application\/json/im)
        const body = JSON.parse(answer.body) as { code: string; message: string; status: number }
        expect(body).toMatchObject({ code: 'forbidden', status: 403 })
        expect(body.message).toContain('--allowed-host')
        expect(answer.body).not.toContain(KEY)
      }
      expect(await server.sandbox.pets.count()).toBe(33)
      await server.sandbox.reset()
    },
  )

  it('lets an HTTP/1.0 request without Host through (a load balancer health check)', async () => {
    const answer = await raw(server, ['GET /__sandbox/health HTTP/1.0'])
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body)).toMatchObject({ status: 'ok' })
  })

  it('answers an HTTP/1.1 request without Host with a JSON 400', async () => {
    const answer = await raw(server, ['GET /v1/pets HTTP/1.1', `Authorization: Bearer ${KEY}`])
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toEqual({
      code: 'bad_request',
      message: 'An HTTP/1.1 request must carry a Host header (RFC 9112)',
      status: 400,
    })
  })

  it('turns the check off with all', async () => {
    const open = await startServer({ port: 0, allowedHosts: 'all' })
    try {
      const answer = await raw(open, [
        'GET /v1/pets?limit=1 HTTP/1.1',
        'Host: anything.example',
        `Authorization: Bearer ${KEY}`,
      ])
      expect(answer.status).toBe(200)
    } finally {
      await open.close()
    }
  })
})

describe('CORS', () => {
  let server: RunningServer
  let widened: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0 })
    widened = await startServer({ port: 0, corsOrigins: ['https://app.example.com'] })
  })
  afterAll(async () => {
    await server.close()
    await widened.close()
  })

  const get = (target: RunningServer, path: string, origin: string) =>
    checkedFetch(`${target.url}${path}`, { headers: { ...AUTH, Origin: origin } })

  it.each(['http://localhost:5173', 'http://127.0.0.1:8080', 'http://app.localhost:3000', 'http://[::1]:4200'])(
    'answers the API, the admin routes and the page to %s, a local origin, with no flag',
    async (origin) => {
      for (const path of ['/v1/pets?limit=1', '/__sandbox/health', '/openapi.json']) {
        const response = await get(server, path, origin)
        expect(response.status, path).toBe(200)
        expect(response.headers.get('access-control-allow-origin'), path).toBe(origin)
      }
    },
  )

  it('grants no CORS to another site by default', async () => {
    for (const path of ['/v1/pets?limit=1', '/__sandbox/health', '/']) {
      const response = await get(server, path, 'https://evil.example')
      expect(response.headers.get('access-control-allow-origin'), path).toBeNull()
    }
  })

  it('refuses a preflight from another site with 403', async () => {
    const response = await fetch(`${server.apiUrl}/pets`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    })
    expect(response.status).toBe(403)
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
    expect(((await response.json()) as { message: string }).message).toContain('--cors-origin')
  })

  it('widens the API, and only the API, to the origins given with --cors-origin', async () => {
    const api = await get(widened, '/v1/pets?limit=1', 'https://app.example.com')
    expect(api.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    const preflight = await fetch(`${widened.apiUrl}/pets`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'POST' },
    })
    expect(preflight.status).toBe(204)
    for (const path of ['/', '/openapi.json', '/__sandbox/health']) {
      const response = await get(widened, path, 'https://app.example.com')
      expect(response.headers.get('access-control-allow-origin'), path).toBeNull()
    }
  })

  it('keeps the admin routes local even with --cors-origin *', async () => {
    const any = await startServer({ port: 0, corsOrigins: ['*'] })
    try {
      // `*` is answered `*`, never an echo of the origin: only named origins are echoed.
      expect((await get(any, '/v1/pets?limit=1', 'https://x.example')).headers.get('access-control-allow-origin')).toBe(
        '*',
      )
      const reset = await fetch(`${any.url}/__sandbox/reset`, {
        method: 'POST',
        headers: { Origin: 'https://x.example' },
      })
      expect(reset.status).toBe(403)
      expect((await get(any, '/', 'https://x.example')).headers.get('access-control-allow-origin')).toBeNull()
    } finally {
      await any.close()
    }
  })
})

describe("the admin routes' one Origin rule, for the sandbox's own origin under a name", () => {
  // A name that is no local name: only the own-origin case of the rule lets its pages in. A
  // browser sends no CORS for a same-origin request, so the answers themselves are looked at.
  let server: RunningServer
  let host: string
  beforeAll(async () => {
    server = await startServer({ port: 0, allowedHosts: ['sandbox.test'] })
    host = `sandbox.test:${new URL(server.url).port}`
  })
  afterAll(() => server.close())

  const fromPage = (origin: string, line: string) =>
    raw(server, [line, `Host: ${host}`, `Origin: ${origin}`, 'Content-Length: 0'])

  it('lets a page of its own origin reset the data and read the admin routes, with CORS for it', async () => {
    await server.sandbox.pets.create({ name: 'Undone by the reset', categoryId: 1 })
    const reset = await fromPage(`http://${host}`, 'POST /__sandbox/reset HTTP/1.1')
    expect(reset.status).toBe(204)
    expect(await server.sandbox.pets.count()).toBe(32)
    const health = await fromPage(`http://${host}`, 'GET /__sandbox/health HTTP/1.1')
    expect(health.status).toBe(200)
    expect(health.head).toMatch(
      new RegExp(`\r\nAccess-Control-Allow-Origin: http://${host.replace('.', '\\.')}\r\n`, 'i'),
    )
  })

  it('refuses the same page under another name, and grants it no CORS', async () => {
    await server.sandbox.pets.create({ name: 'Kept', categoryId: 1 })
    const reset = await fromPage(`http://other.test:${new URL(server.url).port}`, 'POST /__sandbox/reset HTTP/1.1')
    expect(reset.status).toBe(403)
    expect(await server.sandbox.pets.count()).toBe(33)
    const health = await fromPage(`http://other.test:${new URL(server.url).port}`, 'GET /__sandbox/health HTTP/1.1')
    expect(health.head).not.toMatch(/Access-Control-Allow-Origin/i)
    await server.sandbox.reset()
  })
})

describe('refusals are JSON Errors', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(() => server.close())
  beforeEach(() => server.sandbox.reset())

  it('answers a 20 KB request target with 414, not 431', async () => {
    const answer = await raw(server, [
      `GET /v1/pets?x=${'a'.repeat(20_000)} HTTP/1.1`,
      'Host: localhost',
      `Authorization: Bearer ${KEY}`,
    ])
    expect(answer.status).toBe(414)
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'uri_too_long', status: 414 })
  })

  it('answers a 9 KB request target, which Node parses, with 414 from the core', async () => {
    const answer = await raw(server, [
      `GET /v1/pets?x=${'a'.repeat(9_000)} HTTP/1.1`,
      'Host: localhost',
      `Authorization: Bearer ${KEY}`,
    ])
    expect(answer.status).toBe(414)
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'uri_too_long', status: 414 })
  })

  it('answers a short target with a long header after it with 431, not 414', async () => {
    const answer = await raw(server, [
      `GET /v1/pets?x=${'a'.repeat(8_000)} HTTP/1.1`,
      'Host: localhost',
      `X-Big: ${'x'.repeat(9_000)}`,
    ])
    expect(answer.status).toBe(431)
  })

  // The later packet may begin with a word in capitals and a space, as a request line does.
  it.each([
    ['a header', '', `X-Big: ${'x'.repeat(17_000)}\r\n\r\n`],
    ['the middle of a header value', 'X-Big: ', `AAAA ${'x'.repeat(17_000)}\r\n\r\n`],
  ])('answers headers that overflow in a later packet beginning with %s with 431', async (_, start, later) => {
    // Two packets for sure: the first holds a whole request and the start of a second one; the
    // rest of the second one's headers, past the limit, is sent only once the first request is
    // answered, so the server has read the first packet by then. The chunk where the parser hits
    // the limit then begins in the middle of the headers, not with a request line.
    const { connect } = await import('node:net')
    const { port } = new URL(server.url)
    const socket = connect(Number(port), '127.0.0.1')
    let received = ''
    let firstAnswered: () => void = () => undefined
    const first = new Promise<void>((resolve) => (firstAnswered = resolve))
    socket.setEncoding('latin1').on('data', (chunk: string) => {
      received += chunk
      if (endOfFirstAnswer(received) > 0) firstAnswered()
    })
    const closed = new Promise((resolve) => socket.once('close', resolve))
    socket.write(
      `GET /__sandbox/health HTTP/1.1\r\nHost: localhost\r\n\r\nGET /v1/pets HTTP/1.1\r\nHost: localhost\r\n${start}`,
    )
    await Promise.race([
      first,
      closed.then(() => {
        throw new Error(`closed before the first answer: ${received}`)
      }),
    ])
    expect(received).toMatch(/^HTTP\/1\.1 200 /)
    socket.write(later)
    await closed
    const second = received.slice(endOfFirstAnswer(received))
    expect(second).toMatch(/^HTTP\/1\.1 431 /)
    expect(JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4))).toMatchObject({
      code: 'headers_too_large',
      status: 431,
    })
  })

  it('still answers oversized headers with 431', async () => {
    const answer = await raw(server, ['GET /v1/pets HTTP/1.1', 'Host: localhost', `X-Big: ${'x'.repeat(20_000)}`])
    expect(answer.status).toBe(431)
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'headers_too_large', status: 431 })
  })

  it('never quotes a credential sent without a scheme', async () => {
    const response = await checkedFetch(`${server.apiUrl}/pets`, { headers: { Authorization: 'my-secret-key-123' } })
    expect(response.status).toBe(401)
    expect(await response.text()).not.toContain('my-secret-key-123')
    const journal = await (await fetch(`${server.url}/__sandbox/requests`)).text()
    expect(journal).not.toContain('my-secret-key-123')
  })

  it('applies a preference given twice once, and says so once', async () => {
    const response = await checkedFetch(`${server.apiUrl}/pets?limit=1`, {
      headers: [
        ['Authorization', `Bearer ${KEY}`],
        ['Prefer', 'delay=10'],
        ['Prefer', 'delay=20'],
      ],
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('preference-applied')).toBe('delay=10')
  })

  it('answers Prefer: code=418 on createPet with a 400 the document declares, storing nothing', async () => {
    const response = await checkedFetch(`${server.apiUrl}/pets`, {
      method: 'POST',
      headers: { ...AUTH, ...JSON_TYPE, Prefer: 'code=418' },
      body: '{"name":"Rex","categoryId":1}',
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({
      code: 'invalid_parameter',
      message: expect.stringContaining('code=418') as unknown,
    })
    expect(await server.sandbox.pets.count()).toBe(32)
  })

  it('quotes a limit as sent, not as a rounded number', async () => {
    const response = await checkedFetch(`${server.apiUrl}/pets?limit=9007199254740993`, { headers: AUTH })
    expect(response.status).toBe(400)
    const { message } = (await response.json()) as { message: string }
    expect(message).toContain('9007199254740993')
    expect(message).not.toContain('9007199254740992')
  })

  it('tells an empty body to an admin route what that route takes', async () => {
    const response = await checkedFetch(`${server.url}/__sandbox/scenarios`, {
      method: 'POST',
      headers: JSON_TYPE,
      body: '',
    })
    expect(response.status).toBe(400)
    const { message } = (await response.json()) as { message: string }
    expect(message).toContain('scenario')
    expect(message).not.toContain('categoryId')
  })

  it('logs a client gone mid-body as one line with no stack, and keeps serving', async () => {
    const warnings: unknown[][] = []
    const errors: unknown[][] = []
    const warn = vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warnings.push(args))
    const error = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void errors.push(args))
    try {
      const { connect } = await import('node:net')
      const { port } = new URL(server.url)
      const socket = connect(Number(port), '127.0.0.1')
      await new Promise((resolve) => socket.once('connect', resolve))
      // The server asks for the body (100 Continue) once the sandbox reads it: the request is
      // under way there, and the client goes in the middle of its body.
      const asked = new Promise((resolve) => socket.once('data', resolve))
      socket.write(
        `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n`,
      )
      expect(String(await asked)).toBe('HTTP/1.1 100 Continue\r\n\r\n')
      socket.write('{"name":')
      socket.destroy()
      await vi.waitFor(() => {
        expect(warnings).toHaveLength(1)
      }, PATIENCE)
      expect(warnings[0]).toHaveLength(1)
      expect(String(warnings[0]?.[0])).toMatch(/^petstore-sandbox: POST \/v1\/pets: the client closed the connection/)
      expect(errors).toHaveLength(0)
      expect((await fetch(`${server.apiUrl}/pets?limit=1`, { headers: AUTH })).status).toBe(200)
    } finally {
      warn.mockRestore()
      error.mockRestore()
    }
  })
})

describe('tenants', () => {
  it('are made only by reading or writing pets, not by 404s or reading scenarios', async () => {
    const server = await startServer({ port: 0, isolate: true })
    try {
      await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          fetch(`${server.apiUrl}/nothing`, { headers: { Authorization: `Bearer drive-by-${i}` } }).then(
            (r) => r.status,
          ),
        ),
      ).then((statuses) => {
        expect(new Set(statuses)).toEqual(new Set([404]))
      })
      await fetch(`${server.url}/__sandbox/scenarios`, { headers: { Authorization: 'Bearer reader' } })
      await fetch(`${server.url}/__sandbox/state`, { headers: { Authorization: 'Bearer exporter' } })
      expect((await server.sandbox.health()).tenants).toBe(1)
      await fetch(`${server.apiUrl}/pets`, { headers: { Authorization: 'Bearer worker-1' } })
      expect((await server.sandbox.health()).tenants).toBe(2)
    } finally {
      await server.close()
    }
  })

  it('evict the least recently used past the cap, with a notice and a count in health', async () => {
    const notices: string[] = []
    const warn = vi.spyOn(console, 'warn').mockImplementation((line: unknown) => void notices.push(String(line)))
    const sandbox = createSandbox({ isolate: true, maxTenants: 3 })
    try {
      for (const key of ['one-key', 'two-key', 'three-key'])
        await send(sandbox, key, 'POST', '/v1/pets', '{"name":"A","categoryId":1}')
      expect((await sandbox.health()).tenants).toBe(3)
      expect(notices).toHaveLength(1)
      expect(notices[0]).toMatch(/^petstore-sandbox: evicted the data of key on\*+y \(7 characters\)/)
      expect(notices[0]).not.toContain('one-key')
      expect(await sandbox.health()).toMatchObject({ tenants: 3, evictions: 1 })
      // An evicted key starts again from the seed.
      expect((await send(sandbox, 'one-key', 'GET', '/v1/pets/33')).status).toBe(404)
    } finally {
      warn.mockRestore()
    }
  })

  // The delays below are a minute long and end when the test cuts them (cutDelays): a request
  // stays in its delay, holding its tenant, until then, however slow the machine.
  it('are never evicted with a request in flight: ids never repeat', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const sandbox = createSandbox({ isolate: true, maxTenants: 2 })
    try {
      const first = await send(sandbox, 'slow-key', 'POST', '/v1/pets', '{"name":"A","categoryId":1}')
      expect(((await first.json()) as { id: number }).id).toBe(33)
      const slow = await inDelay(() =>
        send(sandbox, 'slow-key', 'GET', '/v1/pets', undefined, { Prefer: `delay=${MINUTE}` }),
      )
      // Two more keys arrive while slow-key's request waits: the default key stays, so one must go.
      await send(sandbox, 'other-1', 'GET', '/v1/pets')
      await send(sandbox, 'other-2', 'GET', '/v1/pets')
      sandbox.cutDelays()
      expect((await slow.answer).status).toBe(200)
      const next = await send(sandbox, 'slow-key', 'POST', '/v1/pets', '{"name":"B","categoryId":1}')
      expect(((await next.json()) as { id: number }).id).toBe(34)
    } finally {
      warn.mockRestore()
    }
  })

  it('are held through the run-wide --delay too', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const sandbox = createSandbox({ isolate: true, maxTenants: 2, delay: MINUTE })
    try {
      const created = await inDelay(() => send(sandbox, 'key-a', 'POST', '/v1/pets', '{"name":"A","categoryId":1}'))
      sandbox.cutDelays()
      expect((await created.answer).status).toBe(201)
      const waiting = await inDelay(() => send(sandbox, 'key-a', 'GET', '/v1/pets/33'))
      // key-b needs a tenant now, while key-a's request waits: the admin routes wait out no
      // delay, and a scenario of its own makes key-b one. key-a's tenant is held, so there is
      // none to evict.
      const other = await send(sandbox, 'key-b', 'POST', '/__sandbox/scenarios', '{"status":500}')
      expect(other.status).toBe(503)
      expect(await sandbox.health()).toMatchObject({ tenants: 2, evictions: 0 })
      sandbox.cutDelays()
      const answer = await waiting.answer
      expect(answer.status).toBe(200)
      expect(await answer.json()).toMatchObject({ id: 33, name: 'A' })
    } finally {
      warn.mockRestore()
    }
  })

  it('come back under the cap once the busy tenants are idle', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const sandbox = createSandbox({ isolate: true, maxTenants: 2 })
    try {
      const slow = await inDelay(() =>
        send(sandbox, 'busy-key', 'GET', '/v1/pets', undefined, { Prefer: `delay=${MINUTE}` }),
      )
      // The default key's tenant and busy-key's are not evictable, and the cap is hard: new-key is
      // told to come back, and nothing is made for it.
      const busy = await send(sandbox, 'new-key', 'GET', '/v1/pets')
      expect(busy.status).toBe(503)
      expect(busy.headers.get('retry-after')).toBe('1')
      expect(await busy.json()).toMatchObject({ code: 'service_unavailable', status: 503 })
      expect(await sandbox.health()).toMatchObject({ tenants: 2, evictions: 0 })
      sandbox.cutDelays()
      expect((await slow.answer).status).toBe(200)
      // Once busy-key is idle, it is the one evicted for new-key.
      expect((await send(sandbox, 'new-key', 'GET', '/v1/pets')).status).toBe(200)
      expect(await sandbox.health()).toMatchObject({ tenants: 2, evictions: 1 })
    } finally {
      warn.mockRestore()
    }
  })

  it('hold at most maxCreatedPets pets created since a reset: then 507', async () => {
    const sandbox = createSandbox({ maxCreatedPets: 2 })
    for (const id of [33, 34]) {
      const response = await send(sandbox, KEY, 'POST', '/v1/pets', '{"name":"A","categoryId":1}')
      expect(((await response.json()) as { id: number }).id).toBe(id)
    }
    const refused = await send(sandbox, KEY, 'POST', '/v1/pets', '{"name":"A","categoryId":1}')
    expect(refused.status).toBe(507)
    expect(await refused.json()).toMatchObject({ code: 'insufficient_storage', status: 507 })
    expect(await sandbox.pets.count()).toBe(34)
    await sandbox.reset()
    expect((await send(sandbox, KEY, 'POST', '/v1/pets', '{"name":"A","categoryId":1}')).status).toBe(201)
  })

  it('refuses a state import with more pets beyond the seed than maxCreatedPets, with 507, changing nothing', async () => {
    const sandbox = createSandbox({ maxCreatedPets: 2 })
    const { pets } = await sandbox.snapshot()
    const extra = [100, 101, 102].map((id) => ({ id, name: `Extra ${id}`, categoryId: 1 }))
    const refused = await send(
      sandbox,
      KEY,
      'PUT',
      '/__sandbox/state',
      JSON.stringify({ pets: [...pets, ...extra], nextId: 103 }),
    )
    expect(refused.status).toBe(507)
    expect(((await refused.json()) as { message: string }).message).toContain('createdPetsPerTenant limit, 2')
    expect(await sandbox.pets.count()).toBe(32)
    const kept = await send(
      sandbox,
      KEY,
      'PUT',
      '/__sandbox/state',
      JSON.stringify({ pets: [...pets, ...extra.slice(0, 2)], nextId: 103 }),
    )
    expect(kept.status).toBe(204)
    expect(await sandbox.pets.count()).toBe(34)
    // Imported pets beyond the seed count as created ones do: a key's data holds 2 at most.
    const create = await send(sandbox, KEY, 'POST', '/v1/pets', '{"name":"A","categoryId":1}')
    expect(create.status).toBe(507)
    expect(await sandbox.pets.count()).toBe(34)
  })
})

describe('the id space', () => {
  it('runs out with 507 and no stack, and the exhausted state exports and imports back', async () => {
    const errors = vi.spyOn(console, 'error')
    const server = await startServer({ port: 0 })
    try {
      const put = await fetch(`${server.url}/__sandbox/state`, {
        method: 'PUT',
        headers: JSON_TYPE,
        body: `{"pets":[],"nextId":${Number.MAX_SAFE_INTEGER}}`,
      })
      expect(put.status).toBe(204)
      const create = () =>
        checkedFetch(`${server.apiUrl}/pets`, {
          method: 'POST',
          headers: { ...AUTH, ...JSON_TYPE },
          body: '{"name":"Last","categoryId":1}',
        })
      const last = await create()
      expect(last.status).toBe(201)
      expect(((await last.json()) as { id: number }).id).toBe(Number.MAX_SAFE_INTEGER)
      const none = await create()
      expect(none.status).toBe(507)
      expect(await none.json()).toMatchObject({ code: 'insufficient_storage', status: 507 })
      const exported = await (await fetch(`${server.url}/__sandbox/state`)).text()
      // The state document, one field a line.
      expect(exported).toContain(`"nextId": ${Number.MAX_SAFE_INTEGER + 1},`)
      const back = await fetch(`${server.url}/__sandbox/state`, { method: 'PUT', headers: JSON_TYPE, body: exported })
      expect(back.status).toBe(204)
      expect((await create()).status).toBe(507)
      expect(errors).not.toHaveBeenCalled()
    } finally {
      errors.mockRestore()
      await server.close()
    }
  })
})

describe('close()', () => {
  it('stops accepting, lets a delayed request in flight finish, then resolves', async () => {
    // A bound of ten minutes: only the request's end can end close()'s wait.
    const server = await startServer({ port: 0, shutdownTimeoutMs: 600_000 })
    // In a delay of a minute: the request is still in flight when close() is called, however
    // slow the machine, and its delay ends when the test says so (cutDelays).
    const { answer } = await inDelay(() =>
      fetch(`${server.apiUrl}/pets/1`, { headers: { ...AUTH, Prefer: `delay=${MINUTE}` } }),
    )
    expect(server.inFlight()).toBe(1)
    let closing = true
    const closed = server.close().then(() => {
      closing = false
    })
    expect(server.close()).toBe(server.close())
    // Not accepting any more: a new connection is refused while the old request still runs.
    await expect(fetch(`${server.apiUrl}/pets/1`, { headers: { ...AUTH, Connection: 'close' } })).rejects.toThrow()
    expect(closing).toBe(true)
    server.sandbox.cutDelays()
    const response = await answer
    expect(response.status).toBe(200)
    expect(response.headers.get('connection')).toBe('close')
    expect(await response.json()).toMatchObject({ id: 1 })
    await closed
    expect(server.inFlight()).toBe(0)
  })
})

describe('in-process admin failures', () => {
  it('answer an Error body, never msw’s default 500 with a stack', async () => {
    const sandbox = createSandbox()
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    Object.assign(sandbox.scenarios, {
      list: () => {
        throw new Error('disk on fire')
      },
    })
    try {
      const response = await getResponse([...sandbox.adminHandlers], new Request('https://a.test/__sandbox/scenarios'))
      expect(response?.status).toBe(500)
      expect(await response?.json()).toEqual({
        code: 'internal_error',
        message: 'The sandbox failed to handle this request; see its log',
        status: 500,
      })
    } finally {
      error.mockRestore()
    }
  })
})

const send = sendTo

/** The longest delay there is: a request in it answers when the test cuts the delays, not before. */
const MINUTE = 60_000

/**
 * Sends a request and resolves once the sandbox has begun its minute-long delay (a timer of that
 * length, which nothing else sets): the request is under way, its tenant held, until the test
 * calls cutDelays(). The answer is left in `answer`.
 */
async function inDelay(send: () => Promise<Response>): Promise<{ answer: Promise<Response> }> {
  const timers = vi.spyOn(globalThis, 'setTimeout')
  try {
    const answer = send()
    await vi.waitFor(() => {
      expect(timers.mock.calls.filter(([, ms]) => ms === MINUTE)).toHaveLength(1)
    }, PATIENCE)
    return { answer }
  } finally {
    timers.mockRestore()
  }
}

/** Where the first HTTP/1.1 answer in `text` ends, by its Content-Length; 0 while it is not whole. */
function endOfFirstAnswer(text: string): number {
  const head = text.indexOf('\r\n\r\n')
  const length = /^Content-Length: (\d+)\r$/im.exec(text.slice(0, head))?.[1]
  if (head < 0 || length === undefined) return 0
  const end = head + 4 + Number(length)
  return text.length >= end ? end : 0
}
