/**
 * HTTP edges, each sent as raw bytes and each answered with a JSON Error of the right status:
 * headers sent twice, an absolute-form target's own authority, transfer and content codings,
 * Expect, a parse error after a complete pipelined request, HEAD on every GET route, timeouts,
 * CORS for `*` and `null`, query names matched exactly, and bodies never read when refused.
 */
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createSandbox } from '../src/index.js'
import { startServer, type RunningServer } from '../src/server.js'

const KEY = 'petstore-sandbox-key'
const AUTH = `Authorization: Bearer ${KEY}`

/** Sends bytes and collects everything the server sends until it closes the connection. */
function exchange(server: RunningServer, text: string, options: { end?: boolean } = {}): Promise<string> {
  const { port } = new URL(server.url)
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1')
    let answer = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => (answer += chunk))
    socket.on('error', () => undefined)
    socket.on('close', () => {
      resolve(answer)
    })
    if (options.end === false) socket.write(text)
    else socket.end(text)
  })
}

interface Answer {
  status: number
  head: string
  body: string
}

/** Splits what came back into answers (status, head, body by Content-Length). */
function answers(raw: string): Answer[] {
  const result: Answer[] = []
  let rest = raw
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n')
    const head = rest.slice(0, end)
    const length = Number(/^content-length: (\d+)$/im.exec(head)?.[1] ?? 0)
    result.push({ status: Number(head.split(' ')[1]), head, body: rest.slice(end + 4, end + 4 + length) })
    rest = rest.slice(end + 4 + length)
  }
  return result
}

const one = async (server: RunningServer, lines: string[], body = ''): Promise<Answer> => {
  const [answer] = answers(await exchange(server, `${lines.join('\r\n')}\r\n\r\n${body}`))
  if (answer === undefined) throw new Error('no answer')
  return answer
}

describe('HTTP edges over raw sockets', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(() => server.close())

  it.each([
    ['Host', ['Host: 127.0.0.1', 'Host: rebind.example']],
    ['Content-Type', ['Host: 127.0.0.1', 'Content-Type: application/json', 'Content-Type: text/plain']],
    ['Authorization', ['Host: 127.0.0.1', AUTH, 'Authorization: Bearer other-key']],
  ])('answers a %s header sent twice with a 400 naming it, and changes nothing', async (name, headers) => {
    await server.sandbox.reset()
    const answer = await one(
      server,
      ['POST /v1/pets HTTP/1.1', ...headers, ...(name === 'Authorization' ? [] : [AUTH]), 'Content-Length: 30'],
      '{"name":"Twice","categoryId":1}'.slice(0, 30),
    )
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toEqual({
      code: 'bad_request',
      message: `the ${name} header must be sent once, got 2`,
      status: 400,
    })
    expect(answer.body).not.toContain('other-key')
    expect(await server.sandbox.pets.count()).toBe(32)
  })

  it('answers two Content-Length headers with a JSON 400', async () => {
    const answer = await one(
      server,
      ['POST /v1/pets HTTP/1.1', 'Host: 127.0.0.1', AUTH, 'Content-Length: 2', 'Content-Length: 2'],
      '{}',
    )
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'bad_request', status: 400 })
    expect((JSON.parse(answer.body) as { message: string }).message).toMatch(/Content-Length/)
  })

  it('holds a reset with an absolute-form target naming another host to the Host rule: 403, nothing reset', async () => {
    await server.sandbox.pets.create({ name: 'Stays', categoryId: 1 })
    const answer = await one(server, ['POST http://rebind.example:3210/__sandbox/reset HTTP/1.1', 'Host: 127.0.0.1'])
    expect(answer.status).toBe(403)
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'forbidden', status: 403 })
    expect(await server.sandbox.pets.count()).toBe(33)
    await server.sandbox.reset()
  })

  // `gzip` alone: Node's parser hands the request over and then gives up on framing its body
  // (HPE_INVALID_TRANSFER_ENCODING); the request's own 501 still goes out before the connection ends.
  it.each(['gzip, chunked', 'deflate, chunked', 'x-custom, chunked', 'gzip', 'identity'])(
    'answers Transfer-Encoding %s with 501, storing nothing',
    async (coding) => {
      const answer = await one(
        server,
        [
          'POST /v1/pets HTTP/1.1',
          'Host: 127.0.0.1',
          AUTH,
          'Content-Type: application/json',
          `Transfer-Encoding: ${coding}`,
        ],
        '1f\r\n{"name":"Coded","categoryId":1}\r\n0\r\n\r\n',
      )
      expect(answer.status).toBe(501)
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'not_implemented', status: 501 })
      expect((JSON.parse(answer.body) as { message: string }).message).toContain(coding)
      expect(await server.sandbox.pets.count()).toBe(32)
    },
  )

  it.each(['gzip', 'br', 'deflate', 'x-custom'])(
    'answers a body with Content-Encoding %s with 415 naming it, and Accept-Encoding: identity',
    async (coding) => {
      const answer = await one(
        server,
        [
          'POST /v1/pets HTTP/1.1',
          'Host: 127.0.0.1',
          AUTH,
          'Content-Type: application/json',
          `Content-Encoding: ${coding}`,
          'Content-Length: 30',
        ],
        '{"name":"Zipped","categoryId":1',
      )
      expect(answer.status).toBe(415)
      expect(answer.head).toMatch(/^Accept-Encoding: identity$/im)
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'unsupported_media_type', status: 415 })
      expect((JSON.parse(answer.body) as { message: string }).message).toContain(`"${coding}"`)
      expect(await server.sandbox.pets.count()).toBe(32)
    },
  )

  it('takes Content-Encoding: identity as no coding at all', async () => {
    const answer = await one(
      server,
      [
        'POST /v1/pets HTTP/1.1',
        'Host: 127.0.0.1',
        AUTH,
        'Content-Type: application/json',
        'Content-Encoding: identity',
        'Content-Length: 30',
      ],
      '{"name":"Plain","categoryId":1}'.slice(0, 30),
    )
    expect(answer.status).toBe(400)
    await server.sandbox.reset()
  })

  it.each(['teapot', '200-ok', 'x'])('answers Expect: %s with a JSON 417', async (expectation) => {
    const answer = await one(server, ['GET /v1/pets HTTP/1.1', 'Host: 127.0.0.1', AUTH, `Expect: ${expectation}`])
    expect(answer.status).toBe(417)
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'expectation_failed', status: 417 })
  })

  it('sends 100 Continue only when the body is wanted: never to a request refused on its headers', async () => {
    const refused = await exchange(
      server,
      'POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer wrong\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 30\r\n\r\n',
    )
    expect(refused).not.toMatch(/100 Continue/)
    expect(answers(refused)[0]?.status).toBe(401)
    const { port } = new URL(server.url)
    const body = '{"name":"Waited","categoryId":1}'
    const accepted = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1')
      let text = ''
      socket.setEncoding('latin1')
      socket.on('data', (chunk: string) => {
        text += chunk
        // The body goes only after the server asked for it.
        if (/^HTTP\/1\.1 100 Continue\r\n\r\n$/.test(text)) socket.end(body)
      })
      socket.on('close', () => {
        resolve(text)
      })
      socket.write(
        `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\n${AUTH}\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      )
    })
    expect(accepted).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 Created/)
    await server.sandbox.reset()
  })

  it('answers a complete pipelined create, then the 400 for the bytes after it: both, in order', async () => {
    const body = '{"name":"Piped","categoryId":1}'
    const raw = await exchange(
      server,
      `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\n${AUTH}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}NOT HTTP AT ALL\r\n\r\n`,
    )
    const [created, refused] = answers(raw)
    expect(created?.status).toBe(201)
    expect(JSON.parse(created?.body ?? '{}')).toMatchObject({ name: 'Piped', id: 33 })
    expect(refused?.status).toBe(400)
    expect(JSON.parse(refused?.body ?? '{}')).toMatchObject({ code: 'bad_request', status: 400 })
    await server.sandbox.reset()
  })

  it.each([
    ['/v1/pets?limit=2', true],
    ['/v1/pets/1', true],
    ['/v1/pets/999', true],
    ['/__sandbox/health', false],
    ['/__sandbox/requests', false],
    ['/__sandbox/state', false],
    ['/__sandbox/tenants', false],
    ['/__sandbox/pets', false],
    ['/__sandbox/traffic', false],
    ['/__sandbox/', false],
    ['/openapi.json', false],
    ['/', false],
  ])('answers HEAD %s with GET’s status and headers, and no body', async (path, keyed) => {
    const lines = (method: string) => [
      `${method} ${path} HTTP/1.1`,
      'Host: 127.0.0.1',
      ...(keyed ? [AUTH] : []),
      'Connection: close',
    ]
    const get = await one(server, lines('GET'))
    const raw = await exchange(server, `${lines('HEAD').join('\r\n')}\r\n\r\n`)
    const head = raw.slice(0, raw.indexOf('\r\n\r\n'))
    expect(Number(head.split(' ')[1])).toBe(get.status)
    expect(/^content-type: (.*)$/im.exec(head)?.[1]).toBe(/^content-type: (.*)$/im.exec(get.head)?.[1])
    expect(raw.slice(raw.indexOf('\r\n\r\n') + 4)).toBe('')
  })

  it('lists HEAD in Allow wherever GET is', async () => {
    const answer = await one(server, ['DELETE /v1/pets HTTP/1.1', 'Host: 127.0.0.1', AUTH])
    expect(answer.status).toBe(405)
    expect(answer.head).toMatch(/^Allow: GET, HEAD, POST$/im)
  })

  it('answers HEAD on the event stream without opening one', async () => {
    const raw = await exchange(
      server,
      'HEAD /__sandbox/events HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    )
    expect(raw).toMatch(/^HTTP\/1\.1 200 OK/)
    expect(raw).toMatch(/^Content-Type: text\/event-stream/im)
    expect(raw.slice(raw.indexOf('\r\n\r\n') + 4)).toBe('')
    expect((await server.sandbox.health()).limits.eventStreams.used).toBe(0)
  })

  it('answers a 20 MiB import from a refused Host with 403 before its body is sent, and closes the connection', async () => {
    const { port } = new URL(server.url)
    const answer = await new Promise<{ text: string; sent: number }>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1')
      let text = ''
      let sent = 0
      socket.setEncoding('latin1')
      socket.on('error', () => undefined)
      socket.on('data', (chunk: string) => (text += chunk))
      socket.on('close', () => {
        resolve({ text, sent })
      })
      socket.write(
        'PUT /__sandbox/state HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\nContent-Length: 20971520\r\n\r\n',
      )
      // One MiB of the twenty: the answer must come without the rest.
      const chunk = 'x'.repeat(64 * 1024)
      for (let index = 0; index < 16; index++) {
        socket.write(chunk)
        sent += chunk.length
      }
    })
    expect(answer.sent).toBeLessThan(20 * 1024 * 1024)
    const [refused] = answers(answer.text)
    expect(refused?.status).toBe(403)
    expect(refused?.head).toMatch(/^Connection: close$/im)
    expect(JSON.parse(refused?.body ?? '{}')).toMatchObject({ code: 'forbidden', status: 403 })
  })

  it('answers a declared body over the route’s budget with 413 from its Content-Length alone', async () => {
    const answer = await one(server, [
      'POST /v1/pets HTTP/1.1',
      'Host: 127.0.0.1',
      AUTH,
      'Content-Type: application/json',
      'Content-Length: 10000000',
    ])
    expect(answer.status).toBe(413)
    expect(answer.head).toMatch(/^Connection: close$/im)
  })
})

describe('timeouts', () => {
  it('answers headers that never finish with a JSON 408 and closes the connection', async () => {
    const slow = await startServer({ port: 0, limits: { headersTimeoutMs: 200, requestTimeoutMs: 400 } })
    try {
      const raw = await exchange(slow, 'GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\n', { end: false })
      const [answer] = answers(raw)
      expect(answer?.status).toBe(408)
      expect(JSON.parse(answer?.body ?? '{}')).toMatchObject({ code: 'request_timeout', status: 408 })
    } finally {
      await slow.close()
    }
  })

  it('answers a body that never finishes with a JSON 408, storing nothing', async () => {
    const lines: string[] = []
    const warn = vi.spyOn(console, 'warn')
    const slow = await startServer({
      port: 0,
      limits: { headersTimeoutMs: 200, requestTimeoutMs: 400 },
      log: (line) => lines.push(line),
    })
    try {
      const raw = await exchange(
        slow,
        `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\n${AUTH}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`,
        { end: false },
      )
      const [answer] = answers(raw)
      expect(answer?.status).toBe(408)
      expect(JSON.parse(answer?.body ?? '{}')).toMatchObject({ code: 'request_timeout', status: 408 })
      expect(await slow.sandbox.pets.count()).toBe(32)
      // The log tells the 408 it sent; no notice blames the client for leaving.
      await vi.waitFor(() => {
        expect(lines).toEqual([expect.stringMatching(/^POST \/v1\/pets 408 \d+\.\d ms$/)])
      })
      expect(warn).not.toHaveBeenCalled()
    } finally {
      warn.mockRestore()
      await slow.close()
    }
  })
})

describe('CORS and query names', () => {
  it('answers * itself for any origin under --cors-origin *, and never echoes Origin: null', async () => {
    const any = await startServer({ port: 0, corsOrigins: ['*'] })
    try {
      for (const origin of ['null', 'https://x.example']) {
        const response = await fetch(`${any.apiUrl}/pets?limit=1`, {
          headers: { Authorization: `Bearer ${KEY}`, Origin: origin },
        })
        expect(response.headers.get('access-control-allow-origin'), origin).toBe('*')
      }
      const local = await fetch(`${any.apiUrl}/pets?limit=1`, {
        headers: { Authorization: `Bearer ${KEY}`, Origin: 'http://localhost:5173' },
      })
      expect(local.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    } finally {
      await any.close()
    }
  })

  it('never grants Origin: null without --cors-origin *', async () => {
    const plain = await startServer({ port: 0, corsOrigins: ['https://app.example'] })
    try {
      const response = await fetch(`${plain.apiUrl}/pets?limit=1`, {
        headers: { Authorization: `Bearer ${KEY}`, Origin: 'null' },
      })
      expect(response.headers.get('access-control-allow-origin')).toBeNull()
    } finally {
      await plain.close()
    }
  })

  it('reads ?tenant= by its exact name: ?subtenant= is just another parameter', async () => {
    const sandbox = createSandbox({ isolate: true })
    const { getResponse } = await import('msw')
    const response = await getResponse(
      [...sandbox.adminHandlers],
      new Request('https://petstore.test/__sandbox/pets?subtenant=1&limit=1'),
    )
    expect(response?.status).toBe(200)
    const unknown = await getResponse(
      [...sandbox.adminHandlers],
      new Request('https://petstore.test/__sandbox/pets?tenant=t0'),
    )
    expect(unknown?.status).toBe(400)
  })

  it('keeps __proto__ in a query or header name as plain data in the journal', async () => {
    const sandbox = createSandbox()
    const { getResponse } = await import('msw')
    await getResponse(
      [...sandbox.handlers],
      new Request('https://petstore.test/v1/pets?__proto__=a&__proto__=b&constructor=c', {
        headers: { Authorization: `Bearer ${KEY}` },
      }),
    )
    const [entry] = sandbox.requests.all()
    expect(Object.getPrototypeOf(entry?.query)).toBe(Object.prototype)
    expect(Object.getOwnPropertyDescriptor(entry?.query, '__proto__')?.value).toEqual(['a', 'b'])
    expect(entry?.query.constructor).toBe('c')
  })

  it('makes tenant handles that cannot be guessed from one another', async () => {
    const sandbox = createSandbox({ isolate: true })
    const { getResponse } = await import('msw')
    for (const key of ['worker-1', 'worker-2', 'worker-3']) {
      await getResponse(
        [...sandbox.handlers],
        new Request('https://petstore.test/v1/pets', { headers: { Authorization: `Bearer ${key}` } }),
      )
    }
    const list = (await (
      await getResponse([...sandbox.adminHandlers], new Request('https://petstore.test/__sandbox/tenants'))
    )?.json()) as { id: string }[]
    const handles = list.map((tenant) => tenant.id)
    expect(handles).toHaveLength(4)
    for (const handle of handles) expect(handle).toMatch(/^t-[0-9a-f]{16}$/)
    expect(new Set(handles).size).toBe(4)
    const other = createSandbox({ isolate: true })
    expect((await other.health()).tenants).toBe(1)
  })
})

describe('a trusted proxy', () => {
  let trusted: RunningServer
  beforeAll(async () => {
    trusted = await startServer({ port: 0, trustProxy: true, allowedHosts: ['sandbox.test'] })
  })
  afterAll(() => trusted.close())

  const reset = (headers: string[]) =>
    one(trusted, ['POST /__sandbox/reset HTTP/1.1', 'Host: sandbox.test:443', ...headers])

  it('takes the origin its headers give, without the scheme’s default port', async () => {
    expect((await reset(['X-Forwarded-Proto: https', 'Origin: https://sandbox.test'])).status).toBe(204)
    expect((await reset(['X-Forwarded-Proto: https', 'Origin: https://SANDBOX.test:443'])).status).toBe(204)
    expect((await reset(['X-Forwarded-Proto: https', 'Origin: http://sandbox.test'])).status).toBe(403)
  })

  it('believes the X-Forwarded-* headers the proxy sets over a Forwarded header a client sent on', async () => {
    const answer = await reset(['X-Forwarded-Proto: https', 'Forwarded: proto=http', 'Origin: http://sandbox.test:443'])
    expect(answer.status).toBe(403)
    expect(
      (await reset(['X-Forwarded-Proto: https', 'Forwarded: proto=http', 'Origin: https://sandbox.test'])).status,
    ).toBe(204)
  })

  it('holds the forwarded host to the Host rule too', async () => {
    const answer = await reset([
      'X-Forwarded-Proto: https',
      'X-Forwarded-Host: rebind.example',
      'Origin: https://rebind.example',
    ])
    expect(answer.status).toBe(403)
    expect((JSON.parse(answer.body) as { message: string }).message).toContain('"rebind.example"')
  })
})
