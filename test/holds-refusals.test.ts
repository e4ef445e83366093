/**
 * Issue 41: a hold catches only calls the sandbox would answer. Every refusal the request line and
 * headers decide is answered at once, with the hold set, and counts in no hold: 401, 404, 405, a
 * header given twice, 413 from Content-Length, 415 from Content-Type or Content-Encoding. A caught
 * call whose body then turns out refused (chunked past the cap, not JSON, not a pet) is answered
 * at once too, and the hold reads as if it had never caught it. Over HTTP (a real server, raw
 * bytes where fetch would not send them) and in-process (msw).
 *
 * "At once" holds without a clock: every refused request is awaited while its hold is still in
 * place, so a refusal caught by the hold would never answer and the test would fail on its timeout.
 */
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createSandboxClient } from '../src/client.js'
import { createSandbox, HoldError } from '../src/index.js'
import { startServer, type RunningServer } from '../src/server.js'
import { rawExchange, rawRequest } from './support/raw-http.js'

const KEY = 'petstore-sandbox-key'
const BODY_CAP = 16_384
const LIVE = { timeout: 10_000, interval: 20 }

/** One refusal: the request as raw HTTP/1.1 (Host and framing filled in), and what it must answer. */
interface Refusal {
  readonly name: string
  readonly operation: 'listPets' | 'createPet'
  readonly head: string
  readonly body?: string
  readonly status: number
  readonly code: string
  readonly message: RegExp
}

const big = JSON.stringify({ name: 'x'.repeat(20_000), categoryId: 1 })
const chunked = (text: string) => {
  const parts: string[] = []
  for (let start = 0; start < text.length; start += 4096) {
    const part = text.slice(start, start + 4096)
    parts.push(`${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`)
  }
  return `${parts.join('')}0\r\n\r\n`
}

/** Refusals the head decides: never caught. */
const HEAD_REFUSALS: readonly Refusal[] = [
  {
    name: 'a Content-Length over the cap (413, the body unread)',
    operation: 'createPet',
    head: `POST /v1/pets HTTP/1.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(big)}`,
    body: big,
    status: 413,
    code: 'payload_too_large',
    message: new RegExp(`body must be at most ${BODY_CAP} bytes`),
  },
  {
    name: 'a text/plain body (415)',
    operation: 'createPet',
    head: `POST /v1/pets HTTP/1.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: text/plain\r\nContent-Length: 29`,
    body: '{"name":"Rex","categoryId":1}',
    status: 415,
    code: 'unsupported_media_type',
    message: /Content-Type/,
  },
  {
    name: 'a gzip-encoded body (415)',
    operation: 'createPet',
    head: `POST /v1/pets HTTP/1.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 29`,
    body: '{"name":"Rex","categoryId":1}',
    status: 415,
    code: 'unsupported_media_type',
    message: /Content-Encoding "gzip" is not supported/,
  },
  {
    name: 'Content-Type sent twice (400)',
    operation: 'createPet',
    head: `POST /v1/pets HTTP/1.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Type: application/json\r\nContent-Length: 29`,
    body: '{"name":"Rex","categoryId":1}',
    status: 400,
    code: 'bad_request',
    message: /Content-Type/,
  },
  {
    name: 'a wrong key (401)',
    operation: 'createPet',
    head: 'POST /v1/pets HTTP/1.1\r\nAuthorization: Bearer wrong-key\r\nContent-Type: application/json\r\nContent-Length: 29',
    body: '{"name":"Rex","categoryId":1}',
    status: 401,
    code: 'unauthorized',
    message: /key/,
  },
  {
    name: 'a method the path does not take (405)',
    operation: 'createPet',
    head: `PUT /v1/pets HTTP/1.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 29`,
    body: '{"name":"Rex","categoryId":1}',
    status: 405,
    code: 'method_not_allowed',
    message: /PUT/,
  },
  {
    name: 'a list asked with a body declared over the cap (413)',
    operation: 'listPets',
    head: `GET /v1/pets HTTP/1.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Length: 20000`,
    body: 'x'.repeat(20_000),
    status: 413,
    code: 'payload_too_large',
    message: new RegExp(`body must be at most ${BODY_CAP} bytes`),
  },
]

/** Refusals found in the body of a call the hold caught: answered at once, and uncaught. */
const BODY_REFUSALS: readonly Refusal[] = [
  {
    name: 'a chunked body past the cap (413)',
    operation: 'createPet',
    head: `POST /v1/pets HTTP/1.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked`,
    body: chunked(big),
    status: 413,
    code: 'payload_too_large',
    message: new RegExp(`body must be at most ${BODY_CAP} bytes`),
  },
  {
    name: 'a body that is not JSON (400)',
    operation: 'createPet',
    head: `POST /v1/pets HTTP/1.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 14`,
    body: '{"name":"Rex",',
    status: 400,
    code: 'invalid_body',
    message: /./,
  },
  {
    name: 'a pet without its categoryId and with an id it may not set (400, both named)',
    operation: 'createPet',
    head: `POST /v1/pets HTTP/1.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 22`,
    body: '{"id":5,"name":"Rexy"}',
    status: 400,
    code: 'invalid_body',
    message: /id is assigned by the service.*categoryId/,
  },
]

describe('over HTTP: a hold set, every refusal answered at once and never counted', () => {
  let server: RunningServer
  const client = () => createSandboxClient({ baseUrl: server.url })
  const holdOf = async (id: number) => (await client().holds.list()).find((hold) => hold.id === id)

  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterEach(async () => {
    await client().reset()
  })
  afterAll(async () => {
    await server.close()
  })

  const send = (refusal: Refusal) =>
    rawRequest(
      server.url,
      `${refusal.head}\r\nHost: ${new URL(server.url).host}\r\nConnection: close\r\n\r\n${refusal.body ?? ''}`,
    )

  it.each([...HEAD_REFUSALS, ...BODY_REFUSALS].map((refusal) => [refusal.name, refusal] as const))(
    '%s',
    async (_name, refusal) => {
      const before = await server.sandbox.pets.count()
      const hold = await client().holds.add({ operation: refusal.operation, times: 1 })
      const answer = await send(refusal)
      expect(answer.status).toBe(refusal.status)
      expect(answer.head).toMatch(/content-type: application\/json/i)
      const body = JSON.parse(answer.body) as { code: string; message: string; status: number }
      expect(body).toMatchObject({ code: refusal.code, status: refusal.status })
      expect(body.message).toMatch(refusal.message)
      // As if never caught, and nothing changed.
      expect(await holdOf(hold.id)).toEqual({
        id: hold.id,
        operation: refusal.operation,
        remaining: 1,
        holding: 0,
        caught: 0,
      })
      expect((await client().health()).limits.heldRequests.used).toBe(0)
      expect(await server.sandbox.pets.count()).toBe(before)
      // The hold still catches the next call the sandbox would answer.
      const good =
        refusal.operation === 'createPet'
          ? fetch(`${server.apiUrl}/pets`, {
              method: 'POST',
              headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
              body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
            })
          : fetch(`${server.apiUrl}/pets`, { headers: { Authorization: `Bearer ${KEY}` } })
      await expect.poll(async () => (await holdOf(hold.id))?.holding, LIVE).toBe(1)
      expect(await holdOf(hold.id)).toMatchObject({ remaining: 0, caught: 1 })
      await client().holds.release(hold.id)
      expect((await good).status).toBe(refusal.operation === 'createPet' ? 201 : 200)
    },
  )

  it('journals a body refused while held as answered at once: no heldMs', async () => {
    const hold = await client().holds.add({ operation: 'createPet' })
    const refusal = BODY_REFUSALS[1] as Refusal
    expect((await send(refusal)).status).toBe(400)
    const entries = await client().requests()
    expect(entries.at(-1)).toMatchObject({ operation: 'createPet', status: 400, heldMs: null })
    expect(await holdOf(hold.id)).toMatchObject({ remaining: 1, caught: 0, holding: 0 })
  })
})

describe('over HTTP: a held body that never ends', () => {
  let server: RunningServer
  beforeAll(async () => {
    // Small, from the limits table, so that the request timeout ends the body soon.
    server = await startServer({ port: 0, limits: { requestTimeoutMs: 400, headersTimeoutMs: 400 } })
  })
  afterAll(async () => {
    await server.close()
  })

  it('is answered 408 and journaled 408, with how long the hold held it', async () => {
    const client = createSandboxClient({ baseUrl: server.url })
    const hold = await client.holds.add({ operation: 'createPet' })
    // Announces 30 bytes, sends 14, and keeps its side open: the body never ends.
    const answer = await rawExchange(
      server.url,
      `POST /v1/pets HTTP/1.1\r\nHost: ${new URL(server.url).host}\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\r\n{"name":"Rex",`,
    )
    expect(answer).toMatch(/^HTTP\/1\.1 408 /)
    expect(answer).toContain('"code":"request_timeout"')
    const entry = (await client.requests()).at(-1)
    expect(entry).toMatchObject({ operation: 'createPet', status: 408 })
    expect(entry?.heldMs).toBeGreaterThan(0)
    // Let go as if never caught: the hold still waits for a call.
    expect((await client.holds.list()).find((one) => one.id === hold.id)).toMatchObject({
      remaining: 1,
      caught: 0,
      holding: 0,
    })
    expect(await server.sandbox.pets.count()).toBe(32)
  })
})

describe('in-process: a hold set, refusals answered at once', () => {
  const sandbox = createSandbox({ baseUrl: 'https://petstore.test/v1' })
  const server = setupServer(...sandbox.handlers)
  beforeAll(() => {
    server.listen({ onUnhandledRequest: 'error' })
  })
  afterEach(async () => {
    sandbox.releaseHolds()
    await sandbox.reset()
  })
  afterAll(() => {
    server.close()
  })

  const post = (body: string, headers: Record<string, string>) =>
    fetch('https://petstore.test/v1/pets', {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}`, ...headers },
      body,
    })

  it.each([
    ['text/plain', { 'Content-Type': 'text/plain' }, '{"name":"Rex","categoryId":1}', 415],
    ['an oversized JSON body', { 'Content-Type': 'application/json' }, big, 413],
    ['a body that is not JSON', { 'Content-Type': 'application/json' }, '{', 400],
    ['a pet with an empty name', { 'Content-Type': 'application/json' }, '{"name":"","categoryId":1}', 400],
  ] as const)(
    'answers %s at once with createPet held, and the hold is untouched',
    async (_name, headers, body, status) => {
      const before = await sandbox.pets.count()
      const hold = sandbox.hold('createPet')
      const answer = await post(body, headers)
      expect(answer.status).toBe(status)
      expect(hold.holding()).toBe(0)
      expect(sandbox.holds()[0]).toMatchObject({ remaining: 1, caught: 0, holding: 0 })
      expect(await sandbox.pets.count()).toBe(before)
    },
  )
})

describe('sandbox.hold: a key the hold cannot use is a HoldError', () => {
  const isolated = createSandbox({ baseUrl: 'https://isolated.test/v1', isolate: true })
  const shared = createSandbox({ baseUrl: 'https://shared.test/v1' })

  it.each([
    ['a number', 5, /hold\.key must be a non-empty string.*got number 5/],
    ['an empty string', '', /hold\.key must be a non-empty string.*got an empty string/],
    ['an object', {}, /hold\.key must be a non-empty string.*got object \{\}/],
    ['null', null, /hold\.key must be a non-empty string.*got null/],
    ['a key no call could carry', 'has space', /hold\.key "has space" is not a key the sandbox accepts/],
  ] as const)('refuses %s under --isolate, and holds nothing', (_name, key, message) => {
    expect(() => isolated.hold('listPets', { key: key as never })).toThrow(HoldError)
    expect(() => isolated.hold('listPets', { key: key as never })).toThrow(message)
    expect(isolated.holds()).toEqual([])
  })

  it('refuses a key that is no string in shared mode too, and takes a well-formed one there', () => {
    expect(() => shared.hold('listPets', { key: 5 as never })).toThrow(HoldError)
    expect(shared.holds()).toEqual([])
    const hold = shared.hold('listPets', { key: 'any-key' })
    expect(shared.holds()).toHaveLength(1)
    hold.release()
  })

  it('takes a key a call can carry under --isolate, and catches that key only', async () => {
    const server = setupServer(...isolated.handlers)
    server.listen({ onUnhandledRequest: 'error' })
    try {
      const hold = isolated.hold('listPets', { key: 'tenant-a' })
      const other = await fetch('https://isolated.test/v1/pets?limit=1', {
        headers: { Authorization: 'Bearer tenant-b' },
      })
      expect(other.status).toBe(200)
      const mine = fetch('https://isolated.test/v1/pets?limit=1', { headers: { Authorization: 'Bearer tenant-a' } })
      await hold.reached()
      expect(hold.holding()).toBe(1)
      hold.release()
      expect((await mine).status).toBe(200)
    } finally {
      server.close()
    }
  })
})

describe("the head's refusals come before a scenario's answer", () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(async () => {
    await server.close()
  })

  it('answers a text/plain createPet 415 under a createPet scenario of 503, and a JSON one 503', async () => {
    const added = await fetch(`${server.url}/__sandbox/scenarios`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ operation: 'createPet', status: 503 }),
    })
    expect(added.status).toBe(201)
    const post = (contentType: string) =>
      fetch(`${server.apiUrl}/pets`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': contentType },
        body: '{"name":"Rex","categoryId":1}',
      })
    const plain = await post('text/plain')
    expect(plain.status).toBe(415)
    expect(((await plain.json()) as { code: string }).code).toBe('unsupported_media_type')
    expect((await post('application/json')).status).toBe(503)
  })
})
