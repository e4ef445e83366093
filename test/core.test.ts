/**
 * The core on its own: plain requests in, plain responses out, with no msw and no server.
 * The same rules the adapters run, seen without either adapter.
 */
import { describe, expect, it } from 'vitest'
import { createSandboxCore, type CoreRequest, type CoreResponse } from '../src/index.js'
import { adminOpenapi, openapi } from './support/openapi-check.js'

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

  it("asks the adapter for each route's body within that route's budget", async () => {
    const core = createSandboxCore({ maxBodyBytes: 1000 })
    const asked: number[] = []
    const send = (method: string, target: string) =>
      core.handle({
        method,
        target,
        headers: { authorization: 'Bearer petstore-sandbox-key', 'content-type': 'application/json' },
        body: null,
        readBody: async (maxBytes) => {
          asked.push(maxBytes)
          return { body: new TextEncoder().encode('{}'), truncated: false }
        },
      })
    expect((await send('POST', '/v1/pets')).status).toBe(400)
    expect((await send('PUT', '/__sandbox/state')).status).toBe(400)
    // No route, no body read at all.
    expect((await send('POST', '/nowhere')).status).toBe(404)
    expect(asked).toEqual([1000, 8 * 1024 * 1024])
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
  const server = createSandboxCore({}, { surface: 'server' })
  // Written by hand, never read from the route table or the OpenAPI document (which is generated
  // from it): a wrong row fails here. HEAD is answered wherever GET is (RFC 9110 section 9.3.2);
  // OPTIONS is the server's CORS preflight, so it is the method the in-process core refuses.
  const ROUTES: readonly { target: string; allow: string }[] = [
    { target: '/v1/pets', allow: 'GET, HEAD, POST' },
    { target: '/v1/pets/1', allow: 'GET, HEAD' },
    { target: '/v1/store/orders', allow: 'GET, HEAD' },
    { target: '/v1/experimental/anything', allow: 'GET, HEAD, POST, PUT, PATCH, DELETE' },
    { target: '/v1/beta/anything', allow: 'GET, HEAD, POST, PUT, PATCH, DELETE' },
    { target: '/__sandbox/reset', allow: 'POST' },
    { target: '/__sandbox/requests', allow: 'GET, HEAD' },
    { target: '/__sandbox/scenarios', allow: 'GET, HEAD, POST, DELETE' },
    { target: '/__sandbox/state', allow: 'GET, HEAD, PUT' },
    { target: '/__sandbox/health', allow: 'GET, HEAD' },
    { target: '/__sandbox/tenants', allow: 'GET, HEAD' },
    { target: '/__sandbox/pets', allow: 'GET, HEAD' },
    { target: '/__sandbox/traffic', allow: 'GET, HEAD' },
    { target: '/__sandbox/events', allow: 'GET, HEAD' },
    { target: '/__sandbox/forwarding', allow: 'GET, HEAD, PUT' },
    { target: '/__sandbox/checkpoints', allow: 'GET, HEAD, POST' },
    { target: '/__sandbox/checkpoints/demo', allow: 'DELETE' },
    { target: '/__sandbox/checkpoints/demo/restore', allow: 'POST' },
    { target: '/__sandbox/holds', allow: 'GET, HEAD, POST' },
    { target: '/__sandbox/holds/1/release', allow: 'POST' },
    { target: '/__sandbox/', allow: 'GET, HEAD' },
    { target: '/__sandbox/docs/swagger-ui.css', allow: 'GET, HEAD' },
    { target: '/__sandbox/ui/dashboard.js', allow: 'GET, HEAD' },
    { target: '/', allow: 'GET, HEAD' },
    { target: '/openapi.json', allow: 'GET, HEAD' },
  ]
  /** The request headers some route reads (the key, a JSON body, Prefer): a preflight allows them on every route. */
  const ALLOW_HEADERS = ['Authorization', 'Content-Type', 'Prefer']
  /**
   * The response headers some answer carries beyond the CORS-safelisted ones: the 401 challenge,
   * 405's Allow, 415's Accept-Encoding, Retry-After (429, 503), createPet's Location, getPet's
   * deprecation headers, Preference-Applied and the count of an upstream's contract violations
   * (--upstream). Exposed on every answer to an allowed origin.
   */
  const EXPOSE_HEADERS = [
    'Accept-Encoding',
    'Allow',
    'Content-Security-Policy',
    'Deprecation',
    'Link',
    'Location',
    'Preference-Applied',
    'Retry-After',
    'Sandbox-Contract-Violations',
    'Sunset',
    'WWW-Authenticate',
  ]
  const listed = (value: string | undefined) =>
    (value ?? '')
      .split(',')
      .map((name) => name.trim())
      .sort()

  it('declares the admin routes in a document of their own, under their own tag, and none in the API document', () => {
    expect(Object.keys(openapi.paths).sort()).toEqual(['/pets', '/pets/{petId}'])
    const admin = Object.entries(adminOpenapi.paths)
    expect(admin.map(([path]) => path).sort()).toEqual([
      '/checkpoints',
      '/checkpoints/{name}',
      '/checkpoints/{name}/restore',
      '/events',
      '/forwarding',
      '/health',
      '/holds',
      '/holds/{id}/release',
      '/pets',
      '/requests',
      '/reset',
      '/scenarios',
      '/state',
      '/tenants',
      '/traffic',
    ])
    for (const [, item] of admin) {
      for (const operation of Object.values(item)) {
        expect((operation as { tags?: string[] }).tags).toEqual(['sandbox'])
      }
    }
  })

  it('has an Allow written here for every path the OpenAPI documents declare', () => {
    const targets = ROUTES.map(({ target }) => target)
    for (const path of Object.keys(openapi.paths)) expect(targets, path).toContain(`/v1${path.replace('{petId}', '1')}`)
    for (const path of Object.keys(adminOpenapi.paths)) {
      expect(targets, path).toContain(`/__sandbox${path.replace('{name}', 'demo').replace('{id}', '1')}`)
    }
  })

  it.each(ROUTES)('answers 405 on $target with Allow: $allow', async ({ target, allow }) => {
    const response = await core.handle(request('OPTIONS', target))
    expect(response.status).toBe(405)
    expect(response.headers.Allow).toBe(allow)
    expect(bodyOf(response)).toMatchObject({ code: 'method_not_allowed', status: 405 })
  })

  it.each(ROUTES)(
    'answers a preflight on $target with Allow-Methods $allow, over the server surface',
    async ({ target, allow }) => {
      const response = await server.handle(
        request('OPTIONS', target, {
          headers: { host: 'localhost', origin: 'http://localhost:5173', 'access-control-request-method': 'GET' },
        }),
      )
      expect(response.status).toBe(204)
      expect(response.headers).toEqual({
        'Access-Control-Allow-Origin': 'http://localhost:5173',
        Vary: 'Origin',
        'Access-Control-Allow-Methods': allow,
        'Access-Control-Allow-Headers': expect.any(String) as unknown,
        'Access-Control-Max-Age': '600',
        'X-Content-Type-Options': 'nosniff',
      })
      expect(listed(response.headers['Access-Control-Allow-Headers'])).toEqual(ALLOW_HEADERS)
    },
  )

  it('answers a preflight on a path no route has with every method', async () => {
    const response = await server.handle(
      request('OPTIONS', '/v1/owners', {
        headers: { host: 'localhost', origin: 'http://localhost:5173', 'access-control-request-method': 'GET' },
      }),
    )
    expect(response.status).toBe(204)
    expect(response.headers['Access-Control-Allow-Methods']).toBe('GET, HEAD, POST, PUT, PATCH, DELETE')
    expect(listed(response.headers['Access-Control-Allow-Headers'])).toEqual(ALLOW_HEADERS)
  })

  it.each([
    ['a listPets answer', '/v1/pets', AUTH],
    ['a 401', '/v1/pets/1', {}],
    ['an admin answer', '/__sandbox/health', {}],
  ])('exposes exactly the non-safelisted headers answers carry, on %s', async (_, target, headers) => {
    const response = await server.handle(
      request('GET', target, { headers: { ...headers, host: 'localhost', origin: 'http://localhost:3000' } }),
    )
    expect(response.headers['Access-Control-Allow-Origin']).toBe('http://localhost:3000')
    expect(listed(response.headers['Access-Control-Expose-Headers'])).toEqual(EXPOSE_HEADERS)
  })
})

describe('a refusal its head decides reads no byte of the body', () => {
  /** A request whose body records whether the core pulled it. */
  const watched = (
    method: string,
    target: string,
    headers: Record<string, string>,
    text = '{"name":"Rex","categoryId":1}',
  ) => {
    const pulled = { times: 0 }
    const sent: CoreRequest = {
      method,
      target,
      headers,
      body: null,
      readBody: () => {
        pulled.times++
        return Promise.resolve({ body: bytes(text), truncated: false })
      },
    }
    return { sent, pulled }
  }

  it.each([
    ['a text/plain createPet', 'POST', '/v1/pets', { ...AUTH, 'content-type': 'text/plain' }, 415],
    ['a createPet declared over its cap', 'POST', '/v1/pets', { ...AUTH, 'content-length': '99999999' }, 413],
    ['a gzip createPet', 'POST', '/v1/pets', { ...AUTH, 'content-encoding': 'gzip' }, 415],
    ['a createPet without a key', 'POST', '/v1/pets', { 'content-type': 'application/json' }, 401],
    ['a text/plain state import', 'PUT', '/__sandbox/state', { 'content-type': 'text/plain' }, 415],
    ['a text/plain scenario', 'POST', '/__sandbox/scenarios', { 'content-type': 'text/plain' }, 415],
    ['a state import declared over its cap', 'PUT', '/__sandbox/state', { 'content-length': '999999999999' }, 413],
  ])('%s: %s, the body never pulled', async (_, method, target, headers, status) => {
    const core = createSandboxCore()
    const { sent, pulled } = watched(method, target, headers)
    const response = await core.handle(sent)
    expect(response.status).toBe(status)
    expect(pulled.times).toBe(0)
  })

  it('pulls the body once the head let it through (the check above can fail)', async () => {
    const core = createSandboxCore()
    const { sent, pulled } = watched('POST', '/v1/pets', { ...AUTH, 'content-type': 'application/json' })
    expect((await core.handle(sent)).status).toBe(201)
    expect(pulled.times).toBe(1)
  })

  it('judges an optional body by its type only once the head announces one', async () => {
    const core = createSandboxCore()
    // An empty body is taken as none, whatever its Content-Type: the route runs (no such hold, 404).
    const empty = watched(
      'POST',
      '/__sandbox/holds/1/release',
      { 'content-type': 'text/plain', 'content-length': '0' },
      '',
    )
    expect((await core.handle(empty.sent)).status).toBe(404)
    const announced = watched('POST', '/__sandbox/holds/1/release', {
      'content-type': 'text/plain',
      'content-length': '2',
    })
    expect((await core.handle(announced.sent)).status).toBe(415)
    expect(announced.pulled.times).toBe(0)
  })
})
