/**
 * Fault injection: no client can stop the process. The CLI runs as a child process, so a crash
 * shows as an exit; raw sockets reset it before, during and after requests, on CONNECT and on
 * requests its parser refuses; a reader stalls; SIGTERM comes with streams open and requests in
 * flight. After each fault the process lives and answers, or it exits 0 having answered.
 */
import { get as httpGet, ServerResponse, type IncomingMessage } from 'node:http'
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startServer } from '../src/server.js'
import { rawRequest } from './support/raw-http.js'
import { spawnCli, waitFor, type Cli } from './support/spawn-cli.js'

const KEY = 'petstore-sandbox-key'
const TIMES = 20
// Waits for an event, not a pause: the bound only turns a hang into a failure with a message.
const PATIENCE = { timeout: 10_000, interval: 20 }

interface Health {
  limits: Record<string, { budget: number; used: number | null }>
}

interface Running {
  cli: Cli
  url: string
  port: number
}

const running: Cli[] = []
afterAll(async () => {
  for (const cli of running.splice(0)) {
    if (cli.child.exitCode === null && cli.child.signalCode === null) {
      cli.child.kill('SIGKILL')
      await cli.exited
    }
  }
})

async function start(args: string[]): Promise<Running> {
  const cli = spawnCli(['--port', '0', '--quiet', ...args])
  running.push(cli)
  const [, url = ''] = await waitFor(cli, /listening on (http:\/\/\S+)\/v1 with \d+ pets\n/)
  return { cli, url, port: Number(new URL(url).port) }
}

async function health(url: string): Promise<Health> {
  const answer = await rawRequest(url, 'GET /__sandbox/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')
  expect(answer.status).toBe(200)
  return JSON.parse(answer.body) as Health
}

const used = async (url: string, limit: string) => (await health(url)).limits[limit]?.used

/** The process has not exited, and nothing it wrote to stderr is an error or a stack. */
function expectAlive(cli: Cli): void {
  expect(cli.child.exitCode, cli.stderr()).toBeNull()
  expect(cli.child.signalCode, cli.stderr()).toBeNull()
  expect(cli.stderr()).not.toMatch(/Error|^\s+at /m)
}

/**
 * After a group of faults: every faulty connection is gone from the server, which still lives and
 * answers. `kept`: connections the test holds open on purpose.
 */
async function expectServing({ cli, url }: Running, kept = 0): Promise<void> {
  // Only the health request's own connection is left: the server has seen every reset.
  await vi.waitFor(async () => {
    expectAlive(cli)
    expect(await used(url, 'connections')).toBe(1 + kept)
  }, PATIENCE)
  expectAlive(cli)
  const answer = await rawRequest(
    url,
    `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nConnection: close\r\n\r\n`,
  )
  expect(answer.status).toBe(200)
  expect(JSON.parse(answer.body)).toHaveLength(1)
  expectAlive(cli)
}

async function open(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1')
  // The server may reset too (a refused request, its own end): this side only drives the fault.
  socket.on('error', () => undefined)
  await new Promise((resolve) => socket.once('connect', resolve))
  return socket
}

/** Resolves once the bytes are handed to the kernel, so they are on their way to the server. */
const flushed = (socket: Socket, text: string) =>
  new Promise<void>((resolve) => {
    socket.write(text, () => {
      resolve()
    })
  })

/** Resolves when what has arrived on the socket matches; fails if the socket closes first. */
function arrives(socket: Socket, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = ''
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('latin1')
      if (!pattern.test(seen)) return
      socket.off('data', onData).off('close', onClose)
      resolve()
    }
    const onClose = () => {
      reject(new Error(`closed before ${pattern}; got ${JSON.stringify(seen)}`))
    }
    socket.on('data', onData).once('close', onClose)
  })
}

/** Moves the moment of a fault: the i-th try resets i ms later. */
const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function reset(socket: Socket): Promise<void> {
  const closed = new Promise((resolve) => socket.once('close', resolve))
  socket.resetAndDestroy()
  await closed
}

const PET = '{"name":"Fault","categoryId":1}'
const postHead = (extra = '') =>
  `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\n` +
  `Content-Type: application/json\r\nContent-Length: ${PET.length}\r\n${extra}\r\n`
const get = (target: string, extra = '') =>
  `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\n${extra}\r\n`

/** Each drive writes its part of a request, waits for its moment, and returns: the reset follows. */
type Drive = (socket: Socket, attempt: number) => Promise<unknown>

async function inject({ port }: Running, drive: Drive): Promise<void> {
  for (let attempt = 0; attempt < TIMES; attempt++) {
    const socket = await open(port)
    await drive(socket, attempt)
    await reset(socket)
  }
}

/** A reader of the event stream that reads, over fetch: `ended` resolves on a clean end and rejects on a cut. */
async function openReader(
  url: string,
): Promise<{ text: () => string; ended: Promise<'end'>; close: () => Promise<void> }> {
  // node:http with no agent rather than fetch: closing destroys this one connection at once, where
  // a cancelled fetch body left undici's socket open about 3 s more (the server counted it).
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    httpGet(`${url}/__sandbox/events`, { agent: false }, resolve).once('error', reject)
  })
  expect(response.statusCode).toBe(200)
  response.setEncoding('utf8')
  let text = ''
  let connected: () => void = () => undefined
  const isConnected = new Promise<void>((resolve) => (connected = resolve))
  const ended = new Promise<'end'>((resolve, reject) => {
    response.on('data', (chunk: string) => {
      text += chunk
      if (text.startsWith(': connected\n\n')) connected()
    })
    response.once('end', () => {
      resolve('end')
    })
    // A cut (the server's or this side's) closes the response without an end.
    response.once('close', () => {
      reject(new Error('the event stream was closed before its end'))
    })
    response.on('error', () => undefined)
  })
  // A cut must not surface as an unhandled rejection before a test awaits it.
  ended.catch(() => undefined)
  await Promise.race([isConnected, ended])
  const close = async () => {
    response.destroy()
    await ended.catch(() => undefined)
  }
  return { text: () => text, ended, close }
}

/** A reader of the event stream that never reads once it is connected. */
async function stalledReader(port: number): Promise<Socket> {
  const socket = await open(port)
  const connected = arrives(socket, /\r\n\r\n[\s\S]*: connected\n\n/)
  await flushed(socket, 'GET /__sandbox/events HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')
  await connected
  socket.pause()
  return socket
}

/**
 * A large event that changes nothing: a createPet refused for its empty name, whose 192 KB body
 * the journal records whole, so each answer sends readers one `request` event of about 193 KB (and
 * no `change`). The kernel's buffers toward a stalled reader (some megabytes on loopback: the
 * sending side grows to tcp_wmem's 4 MiB here) fill in a few rounds, where 48 KB bodies took some
 * dozens and a GET with an 8 KB header some hundreds.
 */
const BODY_BYTES = 256 * 1024
const BIG = JSON.stringify({ name: '', categoryId: 1, pad: 'x'.repeat(192 * 1024) })
const filler = () =>
  `${postHead('Connection: close\r\n').replace(`Content-Length: ${PET.length}`, `Content-Length: ${BIG.length}`)}${BIG}`

/** Sends `count` fillers at once, each on its own connection: every one is refused, 400. */
async function sendFillers(url: string, count: number): Promise<void> {
  const answers = await Promise.all(Array.from({ length: count }, () => rawRequest(url, filler())))
  for (const answer of answers) expect(answer.status).toBe(400)
}

/**
 * Sends fillers until the largest reader backlog passes `bytes`: the kernel's buffers toward a
 * stalled reader are full, and the server holds the rest. A reader that reads never holds more
 * than the event being written.
 */
async function fillBacklog(url: string, largestBacklog: () => Promise<number>, bytes: number): Promise<void> {
  for (let sent = 0; (await largestBacklog()) <= bytes; sent += 5) {
    // Well past what loopback buffers hold (some megabytes): a backlog that never grows fails here.
    expect(sent).toBeLessThan(500)
    await sendFillers(url, 5)
  }
}

describe('a client that resets its connection', () => {
  let server: Running
  beforeAll(async () => {
    server = await start([])
  })

  it.each<[string, Drive]>([
    ['right after connecting, before any request', async () => undefined],
    ['in the middle of the request line', (socket) => flushed(socket, 'GET /v1/pets?lim')],
    ['in the middle of the headers', (socket) => flushed(socket, 'GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAutho')],
    [
      'after the headers of a POST with a Content-Length body, before the body',
      (socket) => flushed(socket, postHead()),
    ],
    [
      'once the server asks for the body (100 Continue), before the body',
      async (socket) => {
        const asked = arrives(socket, /^HTTP\/1\.1 100 /)
        await flushed(socket, postHead('Expect: 100-continue\r\n'))
        await asked
      },
    ],
    ['in the middle of the body', (socket) => flushed(socket, `${postHead()}${PET.slice(0, 10)}`)],
    [
      'in the middle of the body, once the server reads it',
      async (socket) => {
        const asked = arrives(socket, /^HTTP\/1\.1 100 /)
        await flushed(socket, postHead('Expect: 100-continue\r\n'))
        await asked
        await flushed(socket, PET.slice(0, 10))
      },
    ],
    ['right after a complete request, before reading the answer', (socket) => flushed(socket, get('/v1/pets?limit=5'))],
    [
      '0 to 19 ms into a request delayed 10 ms: before, during and after its answer',
      async (socket, attempt) => {
        await flushed(socket, get('/v1/pets?limit=5', 'Prefer: delay=10\r\n'))
        await later(attempt)
      },
    ],
    [
      'with the answer arrived and unread',
      async (socket) => {
        const answered = arrives(socket, /^HTTP\/1\.1 200 /)
        await flushed(socket, get('/v1/pets?limit=100'))
        await answered
      },
    ],
    [
      'after a request its parser refuses (the clientError socket)',
      async (socket, attempt) => {
        await flushed(socket, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon here\r\n\r\n')
        await later(attempt % 4)
      },
    ],
    [
      'while its headers overflow the header size limit (the clientError socket)',
      (socket) => flushed(socket, `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'x'.repeat(20_000)}\r\n\r\n`),
    ],
  ])(`leaves the process running and answering: a reset %s, ${TIMES} times`, async (_, drive) => {
    await inject(server, drive)
    await expectServing(server)
  })
})

describe('a client that resets a CONNECT', () => {
  let server: Running
  beforeAll(async () => {
    server = await start([])
  })

  const CONNECT = 'CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n'

  it('gets a JSON 501 when it waits for the answer', async () => {
    const answer = await rawRequest(server.url, CONNECT)
    expect(answer.status).toBe(501)
    expect(answer.head).toMatch(/^Content-Type: application\/json/im)
    expect(JSON.parse(answer.body)).toMatchObject({ status: 501 })
  })

  it.each<[string, Drive]>([
    ['right after sending it', (socket) => flushed(socket, CONNECT)],
    [
      '0 to 19 ms after sending it',
      async (socket, attempt) => {
        await flushed(socket, CONNECT)
        await later(attempt)
      },
    ],
    [
      'as its 501 arrives',
      async (socket) => {
        const answered = arrives(socket, /^HTTP\/1\.1 501 /)
        await flushed(socket, CONNECT)
        await answered
      },
    ],
    ['with bytes after its head (the tunnel data Node hands over)', (socket) => flushed(socket, `${CONNECT}tunnel`)],
  ])(`leaves the process running and answering: a reset %s, ${TIMES} times`, async (_, drive) => {
    await inject(server, drive)
    await expectServing(server)
  })
})

describe('a reader that stops reading', () => {
  const BUDGET = 1024 * 1024
  let server: Running
  beforeAll(async () => {
    // A budget well above one event (five of them), so only a reader that falls behind passes it, not
    // a reader that reads while four events are written at once; and time enough
    // for the stalled reader to take its last bytes once this test lets it read again.
    server = await start([
      '--limit',
      `eventBacklogBytes=${BUDGET}`,
      '--limit',
      'lingerMs=60000',
      '--limit',
      `bodyBytes=${BODY_BYTES}`,
    ])
  })

  it('is sent a last overflow event and closed, while a reader that reads goes on and the process lives', async () => {
    const { cli, url, port } = server
    const reading = await openReader(url)
    const stalled = await stalledReader(port)
    expect(await used(url, 'eventStreams')).toBe(2)

    // Until the server lets the stalled reader go: the kernel's buffers take some megabytes first.
    let sent = 0
    while ((await used(url, 'eventStreams')) === 2) {
      // A reader kept past its budget (and one event) fails here; so does one the server never
      // lets go of, well past what loopback buffers hold.
      expect(await used(url, 'eventBacklogBytes')).toBeLessThanOrEqual(BUDGET)
      expect(sent).toBeLessThan(500)
      // A few at a time: the server weighs the backlog before each event it writes.
      await sendFillers(url, 4)
      sent += 4
      expectAlive(cli)
    }
    expect(await used(url, 'eventStreams')).toBe(1)
    expect(await used(url, 'eventBacklogBytes')).toBeLessThanOrEqual(BUDGET)

    // What the stalled reader was sent: request events, one overflow last, and a clean end.
    let received = ''
    stalled.setEncoding('latin1').on('data', (chunk: string) => (received += chunk))
    const end = new Promise((resolve) => stalled.once('end', resolve))
    stalled.resume()
    await end
    const events = received.match(/^event: \w+$/gm) ?? []
    expect(events.length).toBeGreaterThan(1)
    expect(events.slice(0, -1).every((event) => event === 'event: request')).toBe(true)
    expect(events.at(-1)).toBe('event: overflow')
    const overflow = /^event: overflow\ndata: (.*)\n\n\r\n0\r\n\r\n$/m.exec(received)
    expect(overflow, received.slice(-300)).not.toBeNull()
    const data = JSON.parse(overflow?.[1] ?? '') as { backlogBytes: number; budgetBytes: number }
    expect(data.budgetBytes).toBe(BUDGET)
    expect(data.backlogBytes).toBeGreaterThan(BUDGET)

    // The reader that reads was never dropped: it has every event and no overflow.
    await vi.waitFor(() => {
      expect(reading.text().split('event: request\n').length - 1).toBe(sent)
    }, PATIENCE)
    expect(reading.text()).not.toContain('event: overflow')
    await expectServing(server, 1)
    await reading.close()
    await vi.waitFor(async () => {
      expect(await used(url, 'eventStreams')).toBe(0)
    }, PATIENCE)
    await expectServing(server)
  }, 60_000)

  it('is cut after lingerMs when it never takes its last bytes: its connection is let go', async () => {
    const cutting = await start([
      '--limit',
      `eventBacklogBytes=${BUDGET}`,
      '--limit',
      'lingerMs=200',
      '--limit',
      `bodyBytes=${BODY_BYTES}`,
    ])
    const stalled = await stalledReader(cutting.port)
    let sent = 0
    while ((await used(cutting.url, 'eventStreams')) === 1) {
      expect(sent).toBeLessThan(500)
      await sendFillers(cutting.url, 5)
      sent += 5
    }
    // Never resumed (a paused socket sees no end): the server itself lets the connection go, and
    // holds nothing for it. Only the health request's own connection is left.
    await expectServing(cutting)
    stalled.destroy()
  }, 60_000)

  it('keeps a reader that reads, even when one event is larger than the whole budget', async () => {
    const small = await start(['--limit', 'eventBacklogBytes=4KiB'])
    const reading = await openReader(small.url)
    const padded = get('/v1/pets?limit=1', `X-Pad: ${'x'.repeat(8 * 1024)}\r\nConnection: close\r\n`)
    for (let index = 0; index < 5; index++) {
      expect((await rawRequest(small.url, padded)).status).toBe(200)
      await vi.waitFor(() => {
        expect(reading.text().split('event: request\n').length - 1).toBe(index + 1)
      }, PATIENCE)
    }
    expect(reading.text()).not.toContain('event: overflow')
    expect(await used(small.url, 'eventStreams')).toBe(1)
    await reading.close()
  }, 60_000)
})

describe('SIGTERM with event streams open and delayed requests in flight', () => {
  it.each([
    ['two readers that read', 0],
    ['two readers that read and one stalled with unsent bytes', 1],
  ])(
    'with %s: answers each delayed request, ends each reading stream cleanly, and exits 0 with nothing on stderr',
    async (_, stalledCount) => {
      // Isolated tenants only to see the requests in flight: each new key holds a tenant from
      // before its delay until its answer, and health counts tenants.
      const { cli, url, port } = await start([
        '--isolate',
        '--api-key-pattern',
        'fault-[a-z]+',
        '--limit',
        `bodyBytes=${BODY_BYTES}`,
      ])
      const readers = [await openReader(url), await openReader(url)]
      const stalled = await Promise.all(Array.from({ length: stalledCount }, () => stalledReader(port)))
      expect(await used(url, 'eventStreams')).toBe(2 + stalledCount)
      // A stalled reader's end cannot finish: its stream gets no 'close' before the requests below answer.
      if (stalledCount > 0) await fillBacklog(url, async () => (await used(url, 'eventBacklogBytes')) ?? 0, 64 * 1024)
      const tenants = (await used(url, 'tenants')) ?? 0
      const order: string[] = []
      for (const [index, reader] of readers.entries()) void reader.ended.then(() => order.push(`stream ${index} ended`))
      const delayed = ['fault-a', 'fault-b', 'fault-c'].map(async (key) => {
        const response = await fetch(`${url}/v1/pets?limit=1`, {
          // Long enough for the SIGTERM below to end the streams first on a loaded machine: at
          // 1000 ms, one CI run under a busy npm test saw an answer come before a stream's end.
          headers: { Authorization: `Bearer ${key}`, Prefer: 'delay=2500' },
        })
        order.push(`${key} answered`)
        return {
          status: response.status,
          connection: response.headers.get('connection'),
          body: (await response.json()) as unknown,
        }
      })
      await vi.waitFor(async () => {
        expect(await used(url, 'tenants')).toBe(tenants + 3)
      }, PATIENCE)

      cli.child.kill('SIGTERM')
      await waitFor(cli, /Stopping \(SIGTERM\): letting 3 requests in flight finish/)
      for (const answer of await Promise.all(delayed)) {
        expect(answer).toEqual({ status: 200, connection: 'close', body: [expect.objectContaining({ id: 1 })] })
      }
      for (const reader of readers) {
        expect(await reader.ended).toBe('end')
        expect(reader.text()).toMatch(/^: connected\n\n/)
      }
      // The streams end first, so the delayed requests' events come after their end: the old crash.
      expect(order.slice(0, 2).sort()).toEqual(['stream 0 ended', 'stream 1 ended'])
      expect(await cli.exited).toBe(0)
      expect(cli.stdout()).toContain('Stopped (SIGTERM).')
      expect(cli.stderr()).not.toMatch(/Error|write after end|^\s+at /im)
      for (const socket of stalled) socket.destroy()
    },
  )
})

describe('close() in process with event streams open and a delayed request in flight', () => {
  it('answers the request, ends the reading stream, writes nothing after an end and throws nothing uncaught', async () => {
    const uncaught: unknown[] = []
    const onUncaught = (error: unknown) => {
      uncaught.push(error)
    }
    process.on('uncaughtException', onUncaught)
    process.on('unhandledRejection', onUncaught)
    // Nothing writes after end: every write to a response that has ended is kept here.
    const afterEnd: string[] = []
    const write = Reflect.get(ServerResponse.prototype, 'write')
    const spy = vi.spyOn(ServerResponse.prototype, 'write').mockImplementation(function (
      this: ServerResponse,
      ...args: Parameters<ServerResponse['write']>
    ) {
      if (this.writableEnded) afterEnd.push(String(args[0]).slice(0, 80))
      return Reflect.apply(write, this, args)
    })
    const server = await startServer({ port: 0, limits: { bodyBytes: BODY_BYTES } })
    const sockets: Socket[] = []
    try {
      sockets.push(await stalledReader(Number(new URL(server.url).port)))
      const reader = await openReader(server.url)
      // The stalled reader's end cannot finish, so its response stays open past the end.
      const largestBacklog = async () => (await server.sandbox.health()).limits.eventBacklogBytes.used ?? 0
      await fillBacklog(server.url, largestBacklog, 64 * 1024)
      const delayed = fetch(`${server.apiUrl}/pets?limit=1`, {
        headers: { Authorization: `Bearer ${KEY}`, Prefer: 'delay=500' },
      })
      await vi.waitFor(() => {
        expect(server.inFlight()).toBe(1)
      }, PATIENCE)
      const closed = server.close()
      expect(await reader.ended).toBe('end')
      const response = await delayed
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual([expect.objectContaining({ id: 1 })])
      await closed
      // The delayed request was journaled and announced after the streams ended: to no one.
      expect(server.sandbox.requests.last()).toMatchObject({ status: 200, headers: { prefer: 'delay=500' } })
      await new Promise((resolve) => setImmediate(resolve))
      expect(afterEnd).toEqual([])
      expect(uncaught).toEqual([])
      expect((await server.sandbox.health()).limits.eventStreams.used).toBe(0)
    } finally {
      process.off('uncaughtException', onUncaught)
      process.off('unhandledRejection', onUncaught)
      spy.mockRestore()
      for (const socket of sockets) socket.destroy()
      await server.close()
    }
  })
})

describe('a client that leaves during a delay', () => {
  const create = { operation: 'createPet', method: 'POST' }
  it.each<[string, { delay?: number }, Record<string, string>, boolean]>([
    ['Prefer: delay', {}, { Prefer: 'delay=300' }, false],
    ["a scenario's delayMs", {}, {}, true],
    ['--delay', { delay: 300 }, {}, false],
  ])('%s: the createPet it sent creates no pet, and the journal says 400', async (_, options, headers, scenario) => {
    const server = await startServer({ port: 0, ...options })
    try {
      if (scenario) server.sandbox.scenarios.add({ operation: 'createPet', delayMs: 300 })
      const before = await server.sandbox.pets.count()
      const leaving = new AbortController()
      const sent = fetch(`${server.apiUrl}/pets`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json', ...headers },
        body: PET,
        signal: leaving.signal,
      }).catch((error: unknown) => error)
      await vi.waitFor(() => {
        expect(server.inFlight()).toBe(1)
      }, PATIENCE)
      leaving.abort()
      expect(await sent).toBeInstanceOf(Error)
      // Recorded once the delay is over, as a refusal answered to no one.
      await vi.waitFor(() => {
        expect(server.sandbox.requests.last()).toMatchObject({ ...create, status: 400 })
      }, PATIENCE)
      expect(await server.sandbox.pets.count()).toBe(before)
      // The next createPet still gets the next id: the one that left took none.
      const next = await fetch(`${server.apiUrl}/pets`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json', Prefer: 'delay=0' },
        body: PET,
      })
      expect(next.status).toBe(201)
      expect(await server.sandbox.pets.count()).toBe(before + 1)
    } finally {
      await server.close()
    }
  })
})
