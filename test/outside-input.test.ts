/**
 * Nothing from outside answers 500, breaks the journal, or runs on the sandbox's origin (issue 27).
 * A raw net.Server plays a hostile upstream: statuses no relay can pass on, HTML with script,
 * Locations elsewhere, bodies nested thousands deep, numbers past int64, lone surrogates, and
 * lists breaking the contract thousands of times. Clients send bodies nested past any parser's
 * stack, targets that climb out of their path once decoded, and chunked bodies whose framing
 * breaks mid-way. Every answer carries nosniff, and the pages a policy that keeps them out of
 * other sites' frames.
 */
import { once } from 'node:events'
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JournalEntry } from '../src/client.js'
import { createSandbox } from '../src/index.js'
import { startServer, type RunningServer } from '../src/server.js'
import { sendTo } from './support/in-process.js'
import { rawExchange } from './support/raw-http.js'
import { eventText } from './support/event-stream.js'

const KEY = 'petstore-sandbox-key'
const AUTH = { Authorization: `Bearer ${KEY}` }
const JSON_TYPE = { 'Content-Type': 'application/json' }
const VIOLATIONS = 'sandbox-contract-violations'

/** What the raw upstream saw of one request: its head (request line and headers) and body. */
interface Seen {
  readonly head: string
  readonly body: string
}

/**
 * An upstream that writes whatever bytes `answer` gives for each request, then closes: nothing
 * Node's own server would refuse to send stands between the test and the sandbox.
 */
async function rawUpstream(): Promise<{
  url: string
  seen: Seen[]
  answer: (respond: (seen: Seen) => string | Buffer) => void
  server: Server
}> {
  const seen: Seen[] = []
  let respond: (seen: Seen) => string | Buffer = () => 'HTTP/1.1 500 Unset\r\nContent-Length: 0\r\n\r\n'
  const server = createServer((socket: Socket) => {
    socket.on('error', () => undefined)
    let data = Buffer.alloc(0)
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk])
      const end = data.indexOf('\r\n\r\n')
      if (end === -1) return
      const head = data.subarray(0, end).toString('latin1')
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
      if (data.length < end + 4 + length) return
      const request = { head, body: data.subarray(end + 4, end + 4 + length).toString('utf8') }
      seen.push(request)
      socket.end(respond(request))
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    answer: (next) => {
      respond = next
    },
    server,
  }
}

/** A whole HTTP/1.1 answer, its Content-Length counted. */
function raw(status: string, headers: Record<string, string>, body: string | Buffer = ''): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body
  const lines = Object.entries({ ...headers, 'Content-Length': String(bytes.length) }).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  )
  return Buffer.concat([Buffer.from(`HTTP/1.1 ${status}\r\n${lines.join('')}\r\n`, 'latin1'), bytes])
}

const json = (status: string, body: unknown, headers: Record<string, string> = {}) =>
  raw(status, { 'Content-Type': 'application/json', ...headers }, JSON.stringify(body))

const PET = { id: 7, name: 'Upstream Una', categoryId: 9, status: 'sold' }

describe('a hostile upstream', () => {
  let upstream: Awaited<ReturnType<typeof rawUpstream>>
  let sandbox: RunningServer
  const logged: string[] = []
  const failures: unknown[][] = []
  const originalError = console.error

  beforeAll(async () => {
    upstream = await rawUpstream()
    // The upstream's own base path is not the sandbox's: a Location under it is moved to the sandbox's.
    sandbox = await startServer({
      port: 0,
      upstream: `${upstream.url}/api/v1`,
      forward: 'all',
      log: (line) => logged.push(line),
    })
    console.error = (...args: unknown[]) => {
      failures.push(args)
    }
  })

  afterAll(async () => {
    console.error = originalError
    await sandbox.close()
    upstream.server.close()
  })

  const journal = async (): Promise<JournalEntry[]> => {
    const answer = await fetch(`${sandbox.url}/__sandbox/requests`)
    expect(answer.status).toBe(200)
    return (await answer.json()) as JournalEntry[]
  }
  const lastEntry = async (): Promise<JournalEntry> => {
    const entries = await journal()
    return entries.at(-1) as JournalEntry
  }

  it.each([
    ['000 Zero', 0, 'which is no HTTP status (RFC 9110: 100 to 599)'],
    ['099 Low', 99, 'which is no HTTP status (RFC 9110: 100 to 599)'],
    ['600 High', 600, 'which is no HTTP status (RFC 9110: 100 to 599)'],
    ['999 Nine', 999, 'which is no HTTP status (RFC 9110: 100 to 599)'],
    ['101 Switching Protocols', 101, 'an interim status, where a final one was due'],
  ])('answers status %s with a JSON 502 naming it, and logs and records the 502', async (line, status, why) => {
    upstream.answer(() => json(line, PET))
    const from = logged.length
    const answer = await fetch(`${sandbox.apiUrl}/pets/7`, { headers: AUTH })
    expect(answer.status).toBe(502)
    expect(answer.headers.get('content-type')).toBe('application/json')
    expect(await answer.json()).toEqual({
      code: 'bad_gateway',
      status: 502,
      message: `The upstream ${upstream.url} answered getPet with status ${status}, ${why}`,
    })
    await expect.poll(() => logged.slice(from)).toEqual([expect.stringMatching(/^GET \/v1\/pets\/7 502 /)])
    expect(await lastEntry()).toMatchObject({ status: 502, forwarded: true, operation: 'getPet' })
    expect(failures).toEqual([])
  })

  it('relays a page of HTML with script so that nothing in it runs on the sandbox origin, and counts it', async () => {
    const page = '<!doctype html><script>fetch("/__sandbox/reset",{method:"POST"})</script>'
    upstream.answer(() => raw('200 OK', { 'Content-Type': 'text/html' }, page))
    const answer = await fetch(`${sandbox.apiUrl}/pets/7`, { headers: AUTH })
    expect(answer.status).toBe(200)
    expect(await answer.text()).toBe(page)
    expect(answer.headers.get('content-type')).toBe('text/html')
    expect(answer.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'; frame-ancestors 'none'")
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff')
    expect(answer.headers.get(VIOLATIONS)).toBe('1')
    expect((await lastEntry()).violations).toEqual(['Content-Type is "text/html", not application/json'])
  })

  it('moves a Location under the upstream base to the sandbox base, and drops one that leads elsewhere as a violation', async () => {
    const cases: [string, string | null, string | undefined][] = [
      [`${upstream.url}/api/v1/pets/42`, '/v1/pets/42', undefined],
      ['/api/v1/pets/43?x=1', '/v1/pets/43?x=1', undefined],
      ['https://evil.example/steal', null, 'to "https://evil.example"'],
      ['/admin/reset', null, 'to a path outside its base URL'],
      ['/api/v1/../../admin', null, 'to a path outside its base URL'],
      [`${upstream.url.replace('127.0.0.1', 'localhost')}/api/v1/pets/1`, null, 'to "http://localhost:'],
    ]
    for (const [location, moved, problem] of cases) {
      upstream.answer(() => json('201 Created', { ...PET, id: 42 }, { Location: location }))
      const answer = await fetch(`${sandbox.apiUrl}/pets`, {
        method: 'POST',
        headers: { ...AUTH, ...JSON_TYPE },
        body: '{"name":"Rex","categoryId":1}',
        redirect: 'manual',
      })
      expect(answer.status).toBe(201)
      expect(answer.headers.get('location')).toBe(moved)
      const { violations } = await lastEntry()
      if (problem === undefined) {
        expect(violations).toEqual([])
        expect(answer.headers.get(VIOLATIONS)).toBe('0')
      } else {
        expect(violations).toEqual([
          expect.stringContaining(`Location points outside the upstream's base URL, ${problem}`),
        ])
        expect(answer.headers.get(VIOLATIONS)).toBe('1')
        // The upstream's own path never shows.
        expect(violations.join()).not.toContain('/api/v1')
      }
    }
    // A redirect elsewhere is not followed silently either.
    upstream.answer(() => raw('302 Found', { Location: 'https://evil.example/' }))
    const redirect = await fetch(`${sandbox.apiUrl}/pets`, { headers: AUTH, redirect: 'manual' })
    expect(redirect.status).toBe(302)
    expect(redirect.headers.get('location')).toBeNull()
  })

  it('checks a list nested thousands deep, with numbers past int64 and lone surrogates, without a 500, and the journal reads', async () => {
    const deep = `[${'['.repeat(8000)}${']'.repeat(8000)},{"id":1e400,"name":"\\ud800","categoryId":123456789012345678901234567890}]`
    upstream.answer(() => raw('200 OK', { 'Content-Type': 'application/json' }, deep))
    const answer = await fetch(`${sandbox.apiUrl}/pets`, { headers: AUTH })
    expect(answer.status).toBe(200)
    expect(await answer.text()).toBe(deep)
    const { violations } = await lastEntry()
    expect(violations).toEqual([
      `the body is not a list of Pets: body.0 must be an object, got [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[...`,
      'the body is not a list of Pets: body.1.id must be an integer, got null',
      'the body is not a list of Pets: body.1.categoryId must be at most 9007199254740991, got 1.2345678901234568e+29',
    ])
    expect(answer.headers.get(VIOLATIONS)).toBe('3')
    expect(failures).toEqual([])
  })

  it('stops checking a list at 20 problems, and says "20+" in the header, the journal and the log alike', async () => {
    const bad = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ id: index + 1, name: 'x', categoryId: 1, status: 'lost' }))
    for (const [count, header, more] of [
      [20, '20', false],
      [21, '20+', true],
      [12_000, '20+', true],
    ] as const) {
      upstream.answer(() => json('200 OK', bad(count)))
      const from = logged.length
      const answer = await fetch(`${sandbox.apiUrl}/pets`, { headers: AUTH })
      expect(answer.status).toBe(200)
      expect(answer.headers.get(VIOLATIONS)).toBe(header)
      const entry = await lastEntry()
      expect(entry.violations).toHaveLength(20)
      expect(entry.violations[19]).toBe(
        'the body is not a list of Pets: body.19.status must be one of available, pending, sold, got "lost"',
      )
      expect(entry.moreViolations).toBe(more)
      await expect
        .poll(() => logged.slice(from))
        .toEqual([expect.stringContaining(`→ upstream, ${header} contract violations`)])
    }
  })

  it('records a forwarded body nested 8,000 deep as its text, and the journal and the event stream still read', async () => {
    upstream.answer(() => json('201 Created', { ...PET, id: 99 }, { Location: '/api/v1/pets/99' }))
    const events = eventText(await fetch(`${sandbox.url}/__sandbox/events`))
    const nested = `${'['.repeat(8000)}${']'.repeat(8000)}`
    const answer = await fetch(`${sandbox.apiUrl}/pets`, {
      method: 'POST',
      headers: { ...AUTH, ...JSON_TYPE },
      body: nested,
    })
    expect(answer.status).toBe(201)
    expect(upstream.seen.at(-1)?.body).toBe(nested)
    // The event stream tells of the request: reading it did not throw.
    await events.until(/event: request/)
    expect(events.text()).toContain('event: request')
    await events.cancel()
    const entry = await lastEntry()
    expect(entry.body).toBe(nested)
    // Within the depth budget, the body is kept as JSON.
    const shallow = `${'['.repeat(100)}${']'.repeat(100)}`
    await fetch(`${sandbox.apiUrl}/pets`, { method: 'POST', headers: { ...AUTH, ...JSON_TYPE }, body: shallow })
    expect(JSON.stringify((await lastEntry()).body)).toBe(shallow)
    const tooDeep = `${'['.repeat(101)}${']'.repeat(101)}`
    await fetch(`${sandbox.apiUrl}/pets`, { method: 'POST', headers: { ...AUTH, ...JSON_TYPE }, body: tooDeep })
    expect((await lastEntry()).body).toBe(tooDeep)
    // The dashboard's reads too.
    expect((await fetch(`${sandbox.url}/__sandbox/requests?operation=createPet`)).status).toBe(200)
    expect(failures).toEqual([])
  })

  it('keeps forwarded bodies with lone surrogates, bytes that are not UTF-8 and numbers past int64 readable in the journal', async () => {
    upstream.answer(() => json('201 Created', { ...PET, id: 5 }))
    const bodies: [Uint8Array<ArrayBuffer> | string, unknown][] = [
      ['{"name":"\\ud800","categoryId":1}', { name: '\ud800', categoryId: 1 }],
      [
        '{"name":"Rex","categoryId":123456789012345678901234567890}',
        { name: 'Rex', categoryId: '123456789012345678901234567890' },
      ],
      [new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), '{"\ufffd\ufffd"}'],
    ]
    for (const [body, kept] of bodies) {
      const answer = await fetch(`${sandbox.apiUrl}/pets`, { method: 'POST', headers: { ...AUTH, ...JSON_TYPE }, body })
      expect(answer.status).toBe(201)
      expect((await lastEntry()).body).toEqual(kept)
    }
    expect(failures).toEqual([])
  })

  it('passes header values of Latin-1 text on, and answers 502 to a header no HTTP field may hold', async () => {
    upstream.answer(() =>
      Buffer.concat([
        Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nLink: <caf'),
        Buffer.from([0xe9]),
        Buffer.from('>; rel="x"\r\nContent-Length: 2\r\n\r\n[]'),
      ]),
    )
    const latin = await fetch(`${sandbox.apiUrl}/pets`, { headers: AUTH })
    expect(latin.status).toBe(200)
    expect(latin.headers.get('link')).toBe('<caf\u00e9>; rel="x"')
    upstream.answer(
      () => 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nLink: <a\u0001b>\r\nContent-Length: 2\r\n\r\n[]',
    )
    const control = await fetch(`${sandbox.apiUrl}/pets`, { headers: AUTH })
    expect(control.status).toBe(502)
    expect(((await control.json()) as { code: string }).code).toBe('bad_gateway')
    expect(failures).toEqual([])
  })

  it.each([
    '/v1/pets/%2e%2e%2f',
    '/v1/pets/..%2Fadmin',
    '/v1/pets/%2E%2E',
    '/v1/pets/%252e%252e%252f',
    '/v1/pets/x%5Cy',
    '/v1/pets/..',
    '/v1/pets/.',
    '/v1/pets/\\..\\..\\admin',
    '/v1/pets/1\\..',
    '/v1/pets/..;',
    '/v1/pets/%2e%2e%3b',
    '/v1/pets/%25252e%25252e',
    '/v1/pets/%c0%ae%c0%ae',
    '/v1/pets/%2e%2e%23',
    '/v1/pets/%u002e%u002e',
    '/v1/pets/%ef%bc%8e%ef%bc%8e',
    '/v1/pets/%20..',
  ])('refuses %s with a JSON 400 and forwards nothing', async (target) => {
    upstream.answer(() => json('200 OK', PET))
    const before = upstream.seen.length
    const answer = await rawExchange(
      sandbox.url,
      `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nConnection: close\r\n\r\n`,
    )
    const [head = '', body = ''] = answer.split('\r\n\r\n')
    expect(head).toMatch(/^HTTP\/1\.1 400 /)
    const error = JSON.parse(body) as { code: string; message: string; status: number }
    expect(error.code).toBe('invalid_parameter')
    expect(error.status).toBe(400)
    expect(error.message).toMatch(
      /^petId ".*" holds a slash, a dot segment or a character a server may read as part of the path/,
    )
    expect(upstream.seen.length).toBe(before)
  })

  it('names a Location that leads elsewhere first, even behind 20 problems of the body, and one sent twice', async () => {
    const bad = Array.from({ length: 30 }, (_, index) => ({ id: index + 1, name: 'x', categoryId: 1, status: 'lost' }))
    upstream.answer(() => json('200 OK', bad, { Location: '//evil.example/' }))
    const many = await fetch(`${sandbox.apiUrl}/pets`, { headers: AUTH })
    expect(many.headers.get(VIOLATIONS)).toBe('20+')
    expect(many.headers.get('location')).toBeNull()
    expect((await lastEntry()).violations[0]).toBe(
      `Location points outside the upstream's base URL, to "http://evil.example"; it was not passed on`,
    )
    upstream.answer(() =>
      Buffer.from(
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nLocation: /api/v1/pets/1\r\nLocation: //evil.example/\r\nContent-Length: 2\r\n\r\n[]',
      ),
    )
    const twice = await fetch(`${sandbox.apiUrl}/pets`, { headers: AUTH })
    expect(twice.headers.get('location')).toBeNull()
    expect((await lastEntry()).violations).toEqual(['Location came more than once; none was passed on'])
  })

  it('answers 502 to a transfer coding the sandbox does not undo, and relays a 204 without a length', async () => {
    upstream.answer(() =>
      Buffer.from(
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\n[]\r\n0\r\n\r\n',
      ),
    )
    const coded = await fetch(`${sandbox.apiUrl}/pets`, { headers: AUTH })
    expect(coded.status).toBe(502)
    expect(((await coded.json()) as { message: string }).message).toBe(
      `The upstream ${upstream.url} answered listPets with Transfer-Encoding gzip, chunked, a coding the sandbox does not undo`,
    )
    upstream.answer(() => 'HTTP/1.1 204 No Content\r\n\r\n')
    const answer = await rawExchange(
      sandbox.url,
      `GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nConnection: close\r\n\r\n`,
    )
    expect(answer).toMatch(/^HTTP\/1\.1 204 No Content\r\n/)
    expect(answer.toLowerCase()).not.toContain('content-length')
  })

  it('forwards an id that is merely not a number: what the operation checks is the upstream’s', async () => {
    upstream.answer(() => json('404 Not Found', { code: 'pet_not_found', message: 'no', status: 404 }))
    const answer = await fetch(`${sandbox.apiUrl}/pets/abc%20def`, { headers: AUTH })
    expect(answer.status).toBe(404)
    expect(upstream.seen.at(-1)?.head).toMatch(/^GET \/api\/v1\/pets\/abc%20def HTTP\/1\.1/)
  })
})

describe('framing of a chunked body', () => {
  let sandbox: RunningServer
  const logged: string[] = []

  beforeAll(async () => {
    sandbox = await startServer({ port: 0, limits: { lingerMs: 100 }, log: (line) => logged.push(line) })
  })
  afterAll(async () => {
    await sandbox.close()
  })

  const behind = `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 32\r\n\r\n{"name":"Behind","categoryId":1}`

  it.each([
    ['a chunk size that is no number', 'zz\r\nabc\r\n0\r\n\r\n', 'invalid character in chunk size'],
    ['a chunk longer than it said', '3\r\nabcdef\r\n0\r\n\r\n', 'expected LF after chunk data'],
    ['a size past 64 bits', 'FFFFFFFFFFFFFFFFFF\r\nabc\r\n0\r\n\r\n', 'chunk size overflow'],
  ])(
    'answers %s with a JSON 400, closes, and never runs the request pipelined behind it',
    async (_, chunks, reason) => {
      const before = await sandbox.sandbox.pets.count()
      const from = logged.length
      const answer = await rawExchange(
        sandbox.url,
        `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunks}${behind}`,
      )
      const [head = '', ...rest] = answer.split('\r\n\r\n')
      expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
      expect(head).toContain('\r\nConnection: close')
      expect(JSON.parse(rest.join('\r\n\r\n'))).toEqual({
        code: 'bad_request',
        status: 400,
        message: `The chunked body cannot be read: ${reason}. Nothing more is read on this connection`,
      })
      // One answer on the connection, none for the request behind, and nothing stored.
      expect(answer.match(/HTTP\/1\.1 /g)).toHaveLength(1)
      expect(await sandbox.sandbox.pets.count()).toBe(before)
      expect(logged.slice(from)).toEqual([expect.stringMatching(/^POST \/v1\/pets 400 /)])
      expect(sandbox.sandbox.requests.all().at(-1)).toMatchObject({ status: 400, operation: 'createPet' })
    },
  )
})

describe('framing of a chunked body on routes that read none', () => {
  let sandbox: RunningServer
  beforeAll(async () => {
    sandbox = await startServer({ port: 0, limits: { lingerMs: 100 } })
  })
  afterAll(async () => {
    await sandbox.close()
  })

  it.each([
    ['POST', '/__sandbox/reset', ''],
    ['GET', '/v1/pets', `Authorization: Bearer ${KEY}\r\n`],
    ['GET', '/__sandbox/health', ''],
  ])('refuses %s %s with a broken chunk with a JSON 400, and does nothing', async (method, path, extra) => {
    await sandbox.sandbox.pets.create({ name: 'Kept', categoryId: 1 })
    const before = await sandbox.sandbox.pets.count()
    const answer = await rawExchange(
      sandbox.url,
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}Transfer-Encoding: chunked\r\n\r\nzz\r\nnot chunked framing\r\n`,
    )
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
    expect(answer).toContain('"code":"bad_request"')
    expect(answer).toContain('The chunked body cannot be read: invalid character in chunk size')
    expect(await sandbox.sandbox.pets.count()).toBe(before)
  })

  it('reads a whole chunked body on a route that reads none, and answers as usual', async () => {
    const answer = await rawExchange(
      sandbox.url,
      `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n0\r\n\r\n`,
    )
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    const over = await rawExchange(
      sandbox.url,
      `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nTransfer-Encoding: chunked\r\n\r\n${(20 * 1024).toString(16)}\r\n${'x'.repeat(20 * 1024)}\r\n0\r\n\r\n`,
    )
    expect(over).toMatch(/^HTTP\/1\.1 413 /)
  })
})

describe('every answer carries nosniff, and the pages a policy of their own', () => {
  let sandbox: RunningServer
  beforeAll(async () => {
    sandbox = await startServer({ port: 0 })
  })
  afterAll(async () => {
    await sandbox.close()
  })

  it.each([
    ['GET', '/v1/pets', AUTH],
    ['GET', '/v1/pets', {}],
    ['GET', '/v1/pets/1', AUTH],
    ['GET', '/v1/pets/999', AUTH],
    ['POST', '/v1/pets', AUTH],
    ['GET', '/v1/store/orders', AUTH],
    ['GET', '/nowhere', {}],
    ['GET', '/', {}],
    ['GET', '/openapi.json', {}],
    ['GET', '/__sandbox/', {}],
    ['GET', '/__sandbox/health', {}],
    ['GET', '/__sandbox/docs/reference.js', {}],
    ['GET', '/__sandbox/docs/reference.css', {}],
    ['GET', '/__sandbox/ui/app.js', {}],
    ['POST', '/__sandbox/reset', {}],
    ['OPTIONS', '/v1/pets', { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'GET' }],
    ['DELETE', '/v1/pets', AUTH],
  ] as const)('%s %s', async (method, path, headers) => {
    const answer = await fetch(`${sandbox.url}${path}`, { method, headers })
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff')
    // A 204 says nothing of a length (RFC 9110 section 8.6).
    if (answer.status === 204) expect(answer.headers.get('content-length')).toBeNull()
    await answer.arrayBuffer()
  })

  it('sends nosniff on an answer to what the parser could not read, and on the event stream', async () => {
    const answer = await rawExchange(sandbox.url, 'GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n')
    expect(answer).toMatch(/^HTTP\/1\.1 400 /)
    expect(answer).toContain('X-Content-Type-Options: nosniff')
    const events = await fetch(`${sandbox.url}/__sandbox/events`)
    expect(events.headers.get('x-content-type-options')).toBe('nosniff')
    await events.body?.cancel()
  })

  it.each(['/', '/__sandbox/'])('sends %s with a policy: its own scripts and styles, in no frame', async (path) => {
    const answer = await fetch(`${sandbox.url}${path}`)
    expect(answer.headers.get('x-frame-options')).toBe('DENY')
    const policy = answer.headers.get('content-security-policy') ?? ''
    expect(policy.split('; ')).toEqual(
      expect.arrayContaining(["default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"]),
    )
    const page = await answer.text()
    // Nothing inline for the policy to refuse.
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=/)
  })

  it.each([
    ['GET', '/v1/pets', KEY],
    ['GET', '/v1/pets', undefined],
    ['GET', '/__sandbox/health', undefined],
  ] as const)('sends nosniff in process too: %s %s', async (method, path, key) => {
    const answer = await sendTo(createSandbox(), key, method, path)
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff')
  })
})
