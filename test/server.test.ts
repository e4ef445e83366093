import { createServer } from 'node:http'
import { once } from 'node:events'
import { connect } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { checkedFetch, openapi } from './support/openapi-check.js'
import { ServerStartError, startServer, type RunningServer } from '../src/server.js'
import { rawRequest } from './support/raw-http.js'

const AUTH = { Authorization: 'Bearer petstore-sandbox-key' }

describe('startServer', () => {
  let server: RunningServer
  const lines: string[] = []

  beforeAll(async () => {
    server = await startServer({ port: 0, log: (line) => lines.push(line) })
  })
  afterAll(async () => {
    await server.close()
  })
  beforeEach(async () => {
    lines.length = 0
    await server.sandbox.reset()
  })

  it('listens on 127.0.0.1 and a free port when given port 0', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(server.apiUrl).toBe(`${server.url}/v1`)
  })

  describe('CORS', () => {
    it('answers a preflight from another origin, allowing Authorization and Content-Type', async () => {
      const response = await checkedFetch(`${server.apiUrl}/pets`, {
        method: 'OPTIONS',
        headers: {
          Origin: 'http://localhost:5173',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization, content-type',
        },
      })
      expect(response.status).toBe(204)
      expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
      expect(response.headers.get('access-control-allow-headers')).toBe('Authorization,Content-Type,Prefer')
      expect(response.headers.get('access-control-allow-methods')).toContain('POST')
      expect(response.headers.get('vary')).toContain('Origin')
    })

    it('reflects the origin and exposes Location on a real answer', async () => {
      const response = await checkedFetch(`${server.apiUrl}/pets`, {
        method: 'POST',
        headers: { ...AUTH, 'Content-Type': 'application/json', Origin: 'http://127.0.0.1:8080' },
        body: '{"name":"Rex","categoryId":1}',
      })
      expect(response.status).toBe(201)
      expect(response.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:8080')
      expect(response.headers.get('access-control-expose-headers')?.split(',')).toEqual(
        expect.arrayContaining(['Location', 'Deprecation', 'Sunset', 'Link', 'WWW-Authenticate']),
      )
    })

    it('carries CORS headers on errors too, so the browser can read them', async () => {
      const response = await checkedFetch(`${server.apiUrl}/pets`, { headers: { Origin: 'http://127.0.0.1:8080' } })
      expect(response.status).toBe(401)
      expect(response.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:8080')
    })
  })

  describe('body cap', () => {
    it('refuses a declared oversized API body from its Content-Length, without reading it', async () => {
      const answer = await rawRequest(
        server.url,
        'POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer petstore-sandbox-key\r\n' +
          'Content-Type: application/json\r\nContent-Length: 1000000\r\nConnection: close\r\n\r\n{"name":',
      )
      expect(answer.status).toBe(413)
      expect(JSON.parse(answer.body)).toEqual({
        code: 'payload_too_large',
        message: 'body must be at most 16384 bytes',
        status: 413,
      })
      expect(await server.sandbox.pets.count()).toBe(32)
    })

    it('authenticates before looking at the body size', async () => {
      const answer = await rawRequest(
        server.url,
        'POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
          'Content-Length: 1000000\r\nConnection: close\r\n\r\n{"name":',
      )
      expect(answer.status).toBe(401)
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'unauthorized', status: 401 })
    })

    it('refuses a declared oversized body outside the API before reading it, closing the connection', async () => {
      const answer = await rawRequest(
        server.url,
        'POST /__sandbox/reset HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000000\r\n\r\n{',
      )
      expect(answer.status).toBe(413)
      expect(answer.head).toMatch(/^Connection: close$/im)
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'payload_too_large', status: 413 })
    })

    it('refuses a chunked body once it passes the cap', async () => {
      const chunk = `4000\r\n${'x'.repeat(0x4000)}\r\n`
      const answer = await rawRequest(
        server.url,
        'POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer petstore-sandbox-key\r\n' +
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n' +
          `${chunk}${chunk}0\r\n\r\n`,
      )
      expect(answer.status).toBe(413)
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'payload_too_large', status: 413 })
      expect(await server.sandbox.pets.count()).toBe(32)
    })
  })

  describe('admin reset', () => {
    it('POST /__sandbox/reset answers 204 and restores the seed', async () => {
      await server.sandbox.pets.create({ name: 'Temporary', categoryId: 1 })
      expect(await server.sandbox.pets.count()).toBe(33)
      const response = await checkedFetch(`${server.url}/__sandbox/reset`, { method: 'POST' })
      expect(response.status).toBe(204)
      expect(await response.text()).toBe('')
      expect(await server.sandbox.pets.count()).toBe(32)
      expect(await server.sandbox.pets.get(33)).toBeUndefined()
    })

    it('refuses a reset from a web page on another site, and changes nothing', async () => {
      await server.sandbox.pets.create({ name: 'Stays', categoryId: 1 })
      const response = await checkedFetch(`${server.url}/__sandbox/reset`, {
        method: 'POST',
        headers: { Origin: 'https://evil.example' },
      })
      expect(response.status).toBe(403)
      expect(await response.json()).toEqual({
        code: 'forbidden',
        message: 'Admin routes accept requests from this machine only, not from origin https://evil.example',
        status: 403,
      })
      expect(await server.sandbox.pets.count()).toBe(33)
    })

    it.each(['http://localhost:5173', 'http://127.0.0.1:8080'])(
      'accepts a reset from the local origin %s',
      async (origin) => {
        const response = await checkedFetch(`${server.url}/__sandbox/reset`, {
          method: 'POST',
          headers: { Origin: origin },
        })
        expect(response.status).toBe(204)
      },
    )

    it('GET /__sandbox/reset answers 405 with Allow: POST and changes nothing', async () => {
      await server.sandbox.pets.create({ name: 'Stays', categoryId: 1 })
      const response = await checkedFetch(`${server.url}/__sandbox/reset`)
      expect(response.status).toBe(405)
      expect(response.headers.get('allow')).toBe('POST')
      expect(await response.json()).toMatchObject({ code: 'method_not_allowed', status: 405 })
      expect(await server.sandbox.pets.count()).toBe(33)
    })
  })

  describe('targets are routed as sent', () => {
    // fetch() would normalise these before sending; a raw socket sends them byte for byte.
    it.each([
      ['POST', '/v1/%2e%2e/__sandbox/reset'],
      ['POST', '/v1/../__sandbox/reset'],
      ['POST', '/v1/pets/%2E%2E/%2e%2e/__sandbox/reset'],
      ['POST', 'http://127.0.0.1/v1/%2e%2e/__sandbox/reset'],
      ['PUT', '/v1/%2e%2e/__sandbox/state'],
    ])('%s %s never reaches an admin route: 404, and the data stays', async (method, target) => {
      await server.sandbox.pets.create({ name: 'Stays', categoryId: 1 })
      const answer = await rawRequest(
        server.url,
        `${method} ${target} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer petstore-sandbox-key\r\n` +
          'Content-Type: application/json\r\nContent-Length: 29\r\nConnection: close\r\n\r\n{"pets":[],"nextId":1,"x":1}\n',
      )
      expect(answer.status).toBe(404)
      const path = target.replace(/^http:\/\/[^/]+/, '')
      expect(JSON.parse(answer.body)).toEqual({
        code: 'not_found',
        message: `${path} does not exist; the endpoints are /v1/pets and /v1/pets/{petId}`,
        status: 404,
      })
      expect(await server.sandbox.pets.count()).toBe(33)
      expect((await server.sandbox.pets.get(33))?.name).toBe('Stays')
    })

    it.each(['/v1/pets/%2e%2e/pets/1', '/v1/pets/../pets/1', '/v1/./pets/1', '/v1/pets/%31'])(
      'GET %s is not pet 1',
      async (target) => {
        const answer = await rawRequest(
          server.url,
          `GET ${target} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer petstore-sandbox-key\r\nConnection: close\r\n\r\n`,
        )
        expect(answer.status).not.toBe(200)
        expect([400, 404]).toContain(answer.status)
        expect(JSON.parse(answer.body)).not.toHaveProperty('id')
      },
    )

    it('answers /__sandbox/../v1/pets as an unknown admin path, not the pet list', async () => {
      const answer = await rawRequest(
        server.url,
        'GET /__sandbox/../v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer petstore-sandbox-key\r\nConnection: close\r\n\r\n',
      )
      expect(answer.status).toBe(404)
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'not_found', status: 404 })
    })
  })

  describe('outside the API', () => {
    it.each([
      '/pets',
      '/favicon.ico',
      '/v2/pets',
      '/__sandbox/nothing',
      '/__sandbox/docs/nope.js',
      '/__sandbox/ui/nope.js',
    ])('GET %s answers a JSON 404', async (path) => {
      const response = await checkedFetch(`${server.url}${path}`)
      expect(response.status).toBe(404)
      expect(response.headers.get('content-type')).toMatch(/^application\/json/)
      expect(await response.json()).toEqual({
        code: 'not_found',
        message: `${path} does not exist; the API lives under /v1, the admin routes under /__sandbox`,
        status: 404,
      })
    })

    it.each([
      ['TRACE', 'TRACE /v1/pets HTTP/1.1', 501, 'not_implemented', 'The TRACE method is not supported'],
      ['TRACK', 'TRACK /anything HTTP/1.1', 400, 'bad_request', 'The request is not valid HTTP'],
      ['CONNECT', 'CONNECT example.test:443 HTTP/1.1', 501, 'not_implemented', 'The CONNECT method is not supported'],
      [
        'an absolute-form target that is no URL',
        'GET http://a%20b/v1/pets HTTP/1.1',
        400,
        'bad_request',
        'is not a path or an absolute URL',
      ],
      [
        'an absolute-form target with a broken host',
        'GET http://[bad/v1/pets HTTP/1.1',
        400,
        'bad_request',
        'is not a path or an absolute URL',
      ],
      [
        'a path starting with //',
        'GET //evil.test/v1/pets HTTP/1.1',
        404,
        'not_found',
        '//evil.test/v1/pets does not exist',
      ],
      [
        'a request line Node cannot parse',
        'GET /v1/pets HTTP/9.9',
        400,
        'bad_request',
        'The request is not valid HTTP',
      ],
    ])('answers %s with a JSON Error', async (_, line, status, code, message) => {
      const answer = await rawRequest(
        server.url,
        `${line}\r\nHost: localhost\r\nAuthorization: Bearer petstore-sandbox-key\r\nConnection: close\r\n\r\n`,
      )
      expect(answer.status).toBe(status)
      expect(answer.head).toMatch(/^Content-Type: application\/json/im)
      expect(JSON.parse(answer.body)).toEqual({ code, message: expect.stringContaining(message) as unknown, status })
    })

    it('reads an absolute-form target as its path', async () => {
      const answer = await rawRequest(
        server.url,
        'GET http://localhost:3210/v1/pets?limit=1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer petstore-sandbox-key\r\nConnection: close\r\n\r\n',
      )
      expect(answer.status).toBe(200)
      expect(JSON.parse(answer.body)).toEqual([{ id: 1, name: 'Biscuit', categoryId: 1, status: 'available' }])
    })

    it('holds an absolute-form target to the Host rule: its own authority must be allowed too', async () => {
      const answer = await rawRequest(
        server.url,
        'GET http://elsewhere.test/v1/pets?limit=1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer petstore-sandbox-key\r\nConnection: close\r\n\r\n',
      )
      expect(answer.status).toBe(403)
      expect(JSON.parse(answer.body)).toMatchObject({
        code: 'forbidden',
        status: 403,
        message: expect.stringContaining('"elsewhere.test"') as unknown,
      })
    })

    it('answers oversized headers with a JSON 431', async () => {
      const answer = await rawRequest(
        server.url,
        `GET /v1/pets HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'x'.repeat(20_000)}\r\nConnection: close\r\n\r\n`,
      )
      expect(answer.status).toBe(431)
      expect(JSON.parse(answer.body)).toEqual({
        code: 'headers_too_large',
        message: 'Request headers are too large',
        status: 431,
      })
    })

    it.each(['a b', 'exa/mple', 'a?b', 'user@host'])(
      'answers the Host header %j with 400, not 404 or 500',
      async (host) => {
        const answer = await rawRequest(
          server.url,
          `GET /v1/pets HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer petstore-sandbox-key\r\nConnection: close\r\n\r\n`,
        )
        expect(answer.status).toBe(400)
        expect(JSON.parse(answer.body)).toEqual({
          code: 'bad_request',
          message: `Host header ${JSON.stringify(host)} is not a valid host`,
          status: 400,
        })
      },
    )
  })

  describe('the OpenAPI document and its reference page', () => {
    it('serves the committed document at GET /openapi.json, its own address first among the servers', async () => {
      const response = await checkedFetch(`${server.url}/openapi.json`)
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toMatch(/^application\/json/)
      // The address the request used, so tools reading the live document need nothing typed
      // (test/generated-clients.test.ts has the rules).
      const own = { url: server.apiUrl, description: 'This sandbox, at the address this document was fetched from' }
      const { servers } = openapi as unknown as { servers: readonly unknown[] }
      expect(await response.json()).toEqual({ ...openapi, servers: [own, ...servers] })
    })

    it('serves the reference page at GET /, with the key and only local assets', async () => {
      const response = await checkedFetch(`${server.url}/`)
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toMatch(/^text\/html/)
      const html = await response.text()
      expect(html).toContain('data-api-key="petstore-sandbox-key"')
      expect(html).toContain('<a href="/__sandbox/">the dashboard</a>')
      const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)]
        .map((match) => match[1] ?? '')
        // An empty data: icon keeps browsers from asking for /favicon.ico; it loads nothing.
        .filter((asset) => asset !== 'data:,' && asset !== '/__sandbox/' && asset !== '/__sandbox/reference')
      expect(assets).toEqual([
        '/__sandbox/docs/swagger-ui.css',
        '/__sandbox/docs/reference.css',
        '/__sandbox/docs/swagger-ui-bundle.js',
        '/__sandbox/docs/reference.js',
      ])
      for (const asset of assets) {
        const served = await checkedFetch(`${server.url}${asset}`)
        expect(served.status, asset).toBe(200)
        const text = await served.text()
        // The page's own line of style is short; Swagger UI's files and the script are not.
        if (asset.endsWith('reference.css')) expect(text, asset).toContain('.sandbox-key {')
        else expect(text.length, asset).toBeGreaterThan(100)
      }
    })
  })

  it('logs one line per request with method, path, status and milliseconds', async () => {
    await checkedFetch(`${server.apiUrl}/pets?limit=2`, { headers: AUTH })
    await checkedFetch(`${server.apiUrl}/pets/999`, { headers: AUTH })
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^GET \/v1\/pets\?limit=2 200 \d+\.\d ms$/)
    expect(lines[1]).toMatch(/^GET \/v1\/pets\/999 404 \d+\.\d ms$/)
  })
})

describe('startServer failures and shutdown', () => {
  it('rejects with a clear ServerStartError when the port is taken', async () => {
    const blocker = createServer()
    blocker.listen(0, '127.0.0.1')
    await once(blocker, 'listening')
    const { port } = blocker.address() as { port: number }
    try {
      await expect(startServer({ port })).rejects.toThrow(
        new ServerStartError(`Port ${port} on 127.0.0.1 is already in use. Choose another port, or 0 for a free one.`),
      )
    } finally {
      blocker.close()
    }
  })

  it('close() does not wait for an idle keep-alive connection: it closes it and resolves', async () => {
    // Both bounds far past the test's timeout: were close() to wait for the idle connection (its
    // keep-alive timeout, or the shutdown bound), the test would time out instead of passing.
    const server = await startServer({
      port: 0,
      shutdownTimeoutMs: 600_000,
      limits: { keepAliveTimeoutMs: 600_000 },
    })
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1')
    let received = ''
    let answered: () => void = () => undefined
    const answer = new Promise<void>((resolve) => (answered = resolve))
    socket.setEncoding('latin1').on('data', (chunk: string) => {
      received += chunk
      // The whole answer: a JSON array of one pet after the head.
      if (/\r\n\r\n\[\{.*\}\]$/.test(received)) answered()
    })
    const socketClosed = once(socket, 'close')
    socket.write(`GET /v1/pets?limit=1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${AUTH.Authorization}\r\n\r\n`)
    await answer
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    expect(received).toMatch(/^Connection: keep-alive\r$/im)
    await server.close()
    await socketClosed
    await expect(checkedFetch(`${server.apiUrl}/pets`, { headers: AUTH })).rejects.toThrow()
  })

  it('gives each server its own data', async () => {
    const [one, two] = await Promise.all([startServer({ port: 0 }), startServer({ port: 0 })])
    try {
      await checkedFetch(`${one.apiUrl}/pets`, {
        method: 'POST',
        headers: { ...AUTH, 'Content-Type': 'application/json' },
        body: '{"name":"Mine","categoryId":1}',
      })
      expect((await checkedFetch(`${one.apiUrl}/pets/33`, { headers: AUTH })).status).toBe(200)
      expect((await checkedFetch(`${two.apiUrl}/pets/33`, { headers: AUTH })).status).toBe(404)
    } finally {
      await Promise.all([one.close(), two.close()])
    }
  })
})

describe('the access log', () => {
  const AUTH = { Authorization: 'Bearer petstore-sandbox-key' }

  it("logs a request the shutdown's bound cut as cut, never with the status it would have had", async () => {
    const lines: string[] = []
    const server = await startServer({ port: 0, log: (line) => lines.push(line), shutdownTimeoutMs: 50 })
    const held = fetch(`${server.apiUrl}/pets?limit=1`, { headers: { ...AUTH, Prefer: 'delay=60000' } }).then(
      (response) => `answered ${response.status}`,
      () => 'no answer',
    )
    await expect.poll(() => server.inFlight(), { timeout: 10_000 }).toBe(1)
    await server.close()
    expect(await held).toBe('no answer')
    await expect.poll(() => lines, { timeout: 10_000 }).toHaveLength(1)
    expect(lines[0]).toMatch(
      /^GET \/v1\/pets\?limit=1 cut \(the connection closed before the answer went out\) \d+\.\d ms$/,
    )
  })

  it("leaves a dashboard's polling out of the default log, and keeps the API and the admin writes", async () => {
    const lines: string[] = []
    const server = await startServer({ port: 0, log: (line) => lines.push(line) })
    try {
      for (const path of ['/__sandbox/', '/__sandbox/health', '/__sandbox/traffic', '/__sandbox/ui/app.js', '/']) {
        expect((await fetch(`${server.url}${path}`)).status, path).toBe(200)
      }
      // A failed read is no polling: it is logged.
      expect((await fetch(`${server.url}/__sandbox/nowhere`)).status).toBe(404)
      expect((await fetch(`${server.url}/__sandbox/reset`, { method: 'POST' })).status).toBe(204)
      expect((await fetch(`${server.apiUrl}/pets?limit=1`, { headers: AUTH })).status).toBe(200)
      await expect.poll(() => lines.length, { timeout: 10_000 }).toBe(3)
      expect(lines.map((line) => line.replace(/ \d+\.\d ms$/, ''))).toEqual([
        'GET /__sandbox/nowhere 404',
        'POST /__sandbox/reset 204',
        'GET /v1/pets?limit=1 200',
      ])
    } finally {
      await server.close()
    }
  })

  it('logs the polling too with logPolling, and one JSON object per line with logFormat json', async () => {
    const lines: string[] = []
    const server = await startServer({
      port: 0,
      log: (line) => lines.push(line),
      logPolling: true,
      logFormat: 'json',
    })
    try {
      expect((await fetch(`${server.url}/__sandbox/health`)).status).toBe(200)
      expect((await fetch(`${server.apiUrl}/pets`)).status).toBe(401)
      await expect.poll(() => lines.length, { timeout: 10_000 }).toBe(2)
      const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
      expect(entries.map(({ time: _time, ms: _ms, ...rest }) => rest)).toEqual([
        { method: 'GET', target: '/__sandbox/health', outcome: 'sent', status: 200 },
        { method: 'GET', target: '/v1/pets', outcome: 'sent', status: 401 },
      ])
      for (const entry of entries) {
        expect(typeof entry.ms).toBe('number')
        expect(Number.isNaN(Date.parse(String(entry.time)))).toBe(false)
      }
    } finally {
      await server.close()
    }
  })
})
