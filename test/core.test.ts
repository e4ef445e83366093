/**
 * The core on its own: plain requests in, plain responses out, with no msw and no server.
 * The same rules the adapters run, seen without either adapter.
 */
import { describe, expect, it } from 'vitest'
import { createSandboxCore, type CoreRequest, type CoreResponse } from '../src/index.js'
import { openapi } from './support/openapi-check.js'

const AUTH = { authorization: 'Bearer petstore-sandbox-key' }
const request = (method: string, target: string, init: Partial<CoreRequest> = {}): CoreRequest => ({
  method,
  target,
  headers: AUTH,
  body: null,
  ...init,
})
const bodyOf = (response: CoreResponse): unknown => {
  if (typeof response.body !== 'string') throw new Error('expected a text body')
  return JSON.parse(response.body)
}
const bytes = (text: string) => new TextEncoder().encode(text)

describe('handle(request)', () => {
  it('answers a plain request with a plain response', async () => {
    const core = createSandboxCore()
    const response = await core.handle(request('GET', '/v1/pets?limit=2'))
    expect(response.status).toBe(200)
    expect(response.headers['Content-Type']).toBe('application/json')
    expect(bodyOf(response)).toEqual([
      { id: 1, name: 'Biscuit', categoryId: 1, status: 'available' },
      { id: 2, name: 'Luna', categoryId: 2, status: 'available' },
    ])
  })

  it('creates from body bytes, and the list shows the new pet at once', async () => {
    const core = createSandboxCore()
    const before = await core.handle(request('GET', '/v1/pets?limit=100'))
    const created = await core.handle(
      request('POST', '/v1/pets', {
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: bytes('{"name":"Rex","categoryId":4}'),
      }),
    )
    expect(created.status).toBe(201)
    expect(created.headers.Location).toBe('/v1/pets/33')
    const after = await core.handle(request('GET', '/v1/pets?limit=100'))
    expect((bodyOf(after) as unknown[]).length).toBe((bodyOf(before) as unknown[]).length + 1)
    expect((bodyOf(after) as unknown[]).at(-1)).toEqual({ id: 33, name: 'Rex', categoryId: 4 })
  })

  it('routes an absolute-form target by its path', async () => {
    const core = createSandboxCore()
    const response = await core.handle(request('GET', 'https://anywhere.test/v1/pets/3'))
    expect(response.status).toBe(200)
    expect(bodyOf(response)).toMatchObject({ id: 3 })
  })

  it.each([
    ['POST', '/v1/%2e%2e/__sandbox/reset'],
    ['POST', '/v1/../__sandbox/reset'],
    ['POST', 'http://h.test/v1/%2E%2E/__sandbox/reset'],
    ['GET', '/v1/pets/%2e%2e/pets/1'],
    ['GET', '/v1/pets/./1'],
  ])('never normalises %s %s: 404, nothing changes', async (method, target) => {
    const core = createSandboxCore()
    await core.pets.create({ name: 'Stays', categoryId: 1 })
    const response = await core.handle(request(method, target))
    expect(response.status).toBe(404)
    expect(bodyOf(response)).toMatchObject({ code: 'not_found', status: 404 })
    expect(await core.pets.count()).toBe(33)
  })

  it('answers a body cut at the cap with 413, after authenticating, and stores nothing', async () => {
    const core = createSandboxCore({ maxBodyBytes: 64 })
    const cut = { body: bytes('{"name":"'), truncated: true, headers: { 'content-type': 'application/json' } }
    expect((await core.handle(request('POST', '/v1/pets', cut))).status).toBe(401)
    const response = await core.handle(request('POST', '/v1/pets', { ...cut, headers: { ...cut.headers, ...AUTH } }))
    expect(response.status).toBe(413)
    expect(bodyOf(response)).toEqual({
      code: 'payload_too_large',
      message: 'body must be at most 64 bytes',
      status: 413,
    })
    expect(await core.pets.count()).toBe(32)
  })

  it('answers only its own origin when baseUrl names one', async () => {
    const core = createSandboxCore({ baseUrl: 'https://api.example.com/v1' })
    expect((await core.handle(request('GET', 'https://api.example.com/v1/pets/1'))).status).toBe(200)
    const elsewhere = await core.handle(request('GET', 'https://other.example/v1/pets/1'))
    expect(elsewhere.status).toBe(404)
    expect(bodyOf(elsewhere)).toMatchObject({ code: 'not_found' })
  })

  it('tells adapters how much body each route reads', () => {
    const core = createSandboxCore({ maxBodyBytes: 1000 })
    expect(core.bodyLimit('POST', '/v1/pets')).toBe(1000)
    expect(core.bodyLimit('PUT', '/__sandbox/state')).toBe(8 * 1024 * 1024)
    expect(core.bodyLimit('POST', '/nowhere')).toBe(1000)
  })

  it('answers an absolute-form target that is no URL, and a target that is no path, with 400', async () => {
    const core = createSandboxCore()
    for (const target of ['http://a%20b/v1/pets', '*', 'v1/pets']) {
      const response = await core.handle(request('GET', target))
      expect(response.status, target).toBe(400)
      expect(bodyOf(response)).toMatchObject({ code: 'bad_request', status: 400 })
    }
  })
})

describe('the route table', () => {
  const core = createSandboxCore()
  // The committed document is the independent record: what it declares must be what dispatch does.
  const declared = Object.entries(openapi.paths).map(([path, item]) => ({
    target: path.startsWith('/__sandbox/') ? path : `/v1${path.replace(/\{[^}]+\}/g, '1')}`,
    // HEAD is answered wherever GET is (RFC 9110 section 9.3.2), without a row of its own in the document.
    methods: Object.keys(item)
      .filter((key) => key !== 'servers')
      .flatMap((method) => (method === 'get' ? ['GET', 'HEAD'] : [method.toUpperCase()]))
      .sort(),
  }))

  it('declares the admin routes in the OpenAPI document under their own tag', () => {
    const admin = Object.entries(openapi.paths).filter(([path]) => path.startsWith('/__sandbox/'))
    expect(admin.map(([path]) => path).sort()).toEqual([
      '/__sandbox/events',
      '/__sandbox/health',
      '/__sandbox/pets',
      '/__sandbox/requests',
      '/__sandbox/reset',
      '/__sandbox/scenarios',
      '/__sandbox/state',
      '/__sandbox/tenants',
      '/__sandbox/traffic',
    ])
    for (const [, item] of admin) {
      for (const [key, operation] of Object.entries(item)) {
        if (key !== 'servers') expect((operation as { tags?: string[] }).tags).toEqual(['sandbox'])
      }
    }
  })

  it.each(declared)(
    'answers 405 on $target with exactly the declared methods in Allow',
    async ({ target, methods }) => {
      const response = await core.handle(request('OPTIONS', target))
      expect(response.status).toBe(405)
      expect(response.headers.Allow?.split(', ').sort()).toEqual(methods)
    },
  )

  it.each(declared)(
    'answers a preflight on $target with the same methods, over the server surface',
    async ({ target, methods }) => {
      const server = createSandboxCore({}, { surface: 'server' })
      const response = await server.handle(
        request('OPTIONS', target, {
          headers: { host: 'localhost', origin: 'http://localhost:5173', 'access-control-request-method': 'GET' },
        }),
      )
      expect(response.status).toBe(204)
      expect(response.headers['Access-Control-Allow-Methods']?.split(', ').sort()).toEqual(methods)
    },
  )

  it('exposes to browsers every header a declared response carries', async () => {
    const server = createSandboxCore({}, { surface: 'server' })
    const response = await server.handle(
      request('GET', '/v1/pets', { headers: { ...AUTH, host: 'localhost', origin: 'http://localhost:3000' } }),
    )
    const exposed = response.headers['Access-Control-Expose-Headers']?.split(',') ?? []
    const documentHeaders = new Set<string>()
    for (const item of Object.values(openapi.paths)) {
      for (const operation of Object.values(item) as { responses?: Record<string, { headers?: object }> }[]) {
        for (const answer of Object.values(operation.responses ?? {})) {
          for (const name of Object.keys(answer.headers ?? {})) documentHeaders.add(name)
        }
      }
    }
    expect(documentHeaders.size).toBeGreaterThan(4)
    expect(exposed).toEqual(expect.arrayContaining([...documentHeaders, 'Allow', 'Preference-Applied']))
  })
})
