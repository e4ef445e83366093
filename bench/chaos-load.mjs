// The chaos phase's clients and load kinds (bench/soak.mjs runs them through bench/chaos-phase.mjs).
// Every client talks to 127.0.0.1 only; every load kind stops at its deadline or its count,
// whichever comes first; every answer goes through one tally, which sorts the 5xx into the
// documented 503s (by the limit their message names, each with its Retry-After) and the rest.
import { Agent, request as httpRequest } from 'node:http'
import { connect } from 'node:net'
import { isDeepStrictEqual } from 'node:util'
import { stateBody as sharedStateBody } from './state-body.mjs'

export const DEFAULT_KEY = 'petstore-sandbox-key'
const SAMPLES_KEPT = 8

/** The documented 503s: the limit each message names, and the Retry-After each carries. */
export const BUSY = {
  tenants: { pattern: /\(the tenants limit\)/, retryAfter: '1' },
  largeBodies: { pattern: /\(the largeBodies limit\)/, retryAfter: '1' },
  eventStreams: { pattern: /\(the eventStreams limit\)/, retryAfter: '5' },
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
/** A bound on a wait: a timer that keeps no one alive once the wait is over. */
export const expire = (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref())

function bucket() {
  return { count: 0, samples: [] }
}

function note(into, line) {
  into.count++
  if (into.samples.length < SAMPLES_KEPT) into.samples.push(line)
}

/** Counts of everything the chaos clients sent and got, by load kind. */
export function createTally() {
  return {
    kinds: new Map(),
    busy: Object.fromEntries(Object.keys(BUSY).map((name) => [name, 0])),
    undocumented5xx: bucket(),
    unexpected: bucket(),
    clientErrors: bucket(),
    wrongBody: bucket(),
  }
}

function kindOf(tally, kind) {
  let entry = tally.kinds.get(kind)
  if (entry === undefined) {
    entry = { requests: 0, statuses: new Map(), errors: new Map() }
    tally.kinds.set(kind, entry)
  }
  return entry
}

/**
 * Records one answer. `expected`: the statuses this request may get; a documented 503 is told
 * apart by its message and must carry its Retry-After, any other 5xx is undocumented.
 * Answers the 503's cause, if it was one.
 */
export function record(tally, kind, what, answer, expected) {
  const entry = kindOf(tally, kind)
  entry.requests++
  const { status } = answer
  entry.statuses.set(status, (entry.statuses.get(status) ?? 0) + 1)
  let cause
  if (status >= 500) {
    cause = Object.keys(BUSY).find((name) => BUSY[name].pattern.test(answer.body ?? ''))
    const retryAfter = answer.headers?.['retry-after']
    if (status === 503 && cause !== undefined && retryAfter === BUSY[cause].retryAfter) {
      tally.busy[cause]++
    } else {
      cause = undefined
      note(
        tally.undocumented5xx,
        `${kind}: ${what} -> ${status} Retry-After ${retryAfter} ${answer.body?.slice(0, 200)}`,
      )
    }
  }
  if (!expected.includes(status)) note(tally.unexpected, `${kind}: ${what} -> ${status} ${answer.body?.slice(0, 200)}`)
  return cause
}

/** Records a request that got no answer. `allowed`: the client itself cut it (a reset on purpose). */
export function recordError(tally, kind, what, error, allowed = false) {
  const entry = kindOf(tally, kind)
  entry.requests++
  const code = error instanceof Error ? (error.code ?? error.message) || 'error' : String(error)
  entry.errors.set(code, (entry.errors.get(code) ?? 0) + 1)
  if (!allowed) note(tally.clientErrors, `${kind}: ${what} -> ${code}`)
}

export function wrongBody(tally, line) {
  note(tally.wrongBody, line)
}

/**
 * One HTTP request with node:http. Resolves { status, headers, body } or { error }; never
 * rejects. An answer that comes before the body is sent whole (a refused import) counts.
 * Without an agent, a connection of its own, closed after (never the global keep-alive agent's).
 */
export function send(port, { method = 'GET', path, headers = {}, body, agent = false, timeoutMs = 20_000 }) {
  return new Promise((resolve) => {
    let settled = false
    const done = (result) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(result)
    }
    const request = httpRequest(
      { host: '127.0.0.1', port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers }, agent },
      (response) => {
        const chunks = []
        response.on('data', (chunk) => chunks.push(chunk))
        response.once('end', () => {
          done({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks).toString() })
        })
        response.once('error', (error) => done({ error }))
        response.once('close', () => {
          if (!response.complete) done({ error: new Error('answer cut short') })
        })
      },
    )
    const timer = setTimeout(() => request.destroy(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs)
    request.once('error', (error) => done({ error }))
    request.end(body)
  })
}

// Every raw socket, until it closes: a paused one never notices its server gone, and would keep
// this process alive after a failure.
const rawSockets = new Set()

function rawSocket(port) {
  const socket = connect(port, '127.0.0.1')
  rawSockets.add(socket)
  socket.once('close', () => rawSockets.delete(socket))
  return socket
}

/** Destroys every raw socket still open. */
export function destroyRawSockets() {
  for (const socket of rawSockets) socket.destroy()
}

/** A raw connection for what node:http will not do: half a body, slow bytes, a reset. */
function rawConnection(port) {
  const socket = rawSocket(port)
  const state = { socket, text: '', closed: false, error: undefined }
  socket.setEncoding('latin1')
  socket.on('data', (chunk) => {
    if (state.text.length < 4096) state.text += chunk
  })
  socket.on('error', (error) => (state.error = error))
  state.closedPromise = new Promise((resolve) =>
    socket.once('close', () => {
      state.closed = true
      resolve()
    }),
  )
  state.connected = new Promise((resolve) => {
    socket.once('connect', resolve)
    socket.once('close', resolve)
  })
  return state
}

/** Status, headers and body of a raw HTTP/1.1 answer, or undefined before its headers are in. */
function parseRaw(text) {
  const end = text.indexOf('\r\n\r\n')
  if (end < 0) return undefined
  const [line, ...lines] = text.slice(0, end).split('\r\n')
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(line)?.[1])
  const headers = {}
  for (const header of lines) {
    const colon = header.indexOf(':')
    headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim()
  }
  return { status, headers, body: text.slice(end + 4) }
}

const auth = (key) => ({ authorization: `Bearer ${key}` })
const jsonHeaders = (key) => ({ ...auth(key), 'content-type': 'application/json' })

function parseOr(text) {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** A loop of one worker, until `deadline` or until `more()` says no. */
async function until(deadline, more, step) {
  while (performance.now() < deadline && more()) await step()
}

/**
 * Mixed API traffic: lists, creates, gets, a few 404s and 400s, a share of requests with a 4 KiB
 * header (which the journal keeps and the event stream carries, so stalled readers fall behind).
 * Creates go to the default key (its tenant is never evicted: every one must read back) and to
 * kept keys, each kept key used for creates by one worker only, so its creates are serial and its
 * ids tell its tenant's lives apart (bench/chaos-phase.mjs reads them back).
 */
export async function mixedTraffic(ctx, { workers, keptKeys, maxRequests, maxCreates, seed, firstCreatedId }) {
  const { port, tally, deadline } = ctx
  const agent = new Agent({ keepAlive: true, maxSockets: Math.max(1, workers) })
  const created = { byDefault: [], byKept: new Map(keptKeys.map((key) => [key, []])) }
  let sent = 0
  let creates = 0
  let turn = 0
  const pad = 'p'.repeat(4096)
  const worker = async (w) => {
    const mine = keptKeys.filter((_, index) => index % workers === w)
    await until(
      deadline,
      () => sent < maxRequests,
      async () => {
        sent++
        turn++
        const roll = Math.random()
        const keyed = Math.random() < 0.5 || mine.length === 0 ? DEFAULT_KEY : mine[turn % mine.length]
        const extra = turn % 10 === 0 ? { 'x-chaos-pad': pad } : {}
        const kind = 'mixed'
        // Creates spread over the whole load, so some come after the churn has stopped.
        const allowed = (maxCreates * (performance.now() - ctx.startedAt)) / (deadline - ctx.startedAt)
        if (roll < 0.2 && creates < allowed) {
          creates++
          const pet = { name: `Chaos ${w}.${turn}`, categoryId: 1 + (turn % 7), status: 'available' }
          const what = `POST /v1/pets as ${keyed}`
          const answer = await send(port, {
            method: 'POST',
            path: '/v1/pets',
            headers: { ...jsonHeaders(keyed), ...extra },
            body: JSON.stringify(pet),
            agent,
          })
          if (answer.error) return recordError(tally, kind, what, answer.error)
          record(tally, kind, what, answer, keyed === DEFAULT_KEY ? [201] : [201, 503])
          if (answer.status !== 201) return
          const { id, ...rest } = parseOr(answer.body) ?? {}
          if (!Number.isSafeInteger(id) || id < firstCreatedId || !isDeepStrictEqual(rest, pet)) {
            return wrongBody(tally, `${what} -> 201 ${answer.body.slice(0, 200)}`)
          }
          const list = keyed === DEFAULT_KEY ? created.byDefault : created.byKept.get(keyed)
          list.push({ id, ...pet })
          return
        }
        let path
        let expect
        if (roll < 0.65) {
          path = `/v1/pets?limit=${1 + (turn % 50)}${turn % 3 === 0 ? '&status=available' : ''}`
        } else if (roll < 0.8 || created.byDefault.length === 0) {
          const pet = seed[turn % seed.length]
          path = `/v1/pets/${pet.id}`
          expect = pet
        } else if (roll < 0.9) {
          const pet = created.byDefault[turn % created.byDefault.length]
          return getDefaultCreated(pet)
        } else if (roll < 0.95) {
          path = '/v1/pets/987654321'
        } else {
          const what = `POST /v1/pets as ${keyed} with an empty name`
          const answer = await send(port, {
            method: 'POST',
            path: '/v1/pets',
            headers: { ...jsonHeaders(keyed), ...extra },
            body: '{"name":""}',
            agent,
          })
          if (answer.error) return recordError(tally, kind, what, answer.error)
          record(tally, kind, what, answer, keyed === DEFAULT_KEY ? [400] : [400, 503])
          return
        }
        const what = `GET ${path} as ${keyed}`
        const answer = await send(port, { path, headers: { ...auth(keyed), ...extra }, agent })
        if (answer.error) return recordError(tally, kind, what, answer.error)
        const ok = path.includes('987654321') ? 404 : 200
        record(tally, kind, what, answer, keyed === DEFAULT_KEY ? [ok] : [ok, 503])
        if (answer.status !== 200) return
        const body = parseOr(answer.body)
        if (expect === undefined ? !Array.isArray(body) : !isDeepStrictEqual(body, expect)) {
          wrongBody(tally, `${what} -> ${answer.body.slice(0, 200)}`)
        }
      },
    )
  }
  // A pet the default key created, read while the load goes on: never evicted, so always there.
  const getDefaultCreated = async (pet) => {
    const what = `GET /v1/pets/${pet.id} as ${DEFAULT_KEY}`
    const answer = await send(port, { path: `/v1/pets/${pet.id}`, headers: auth(DEFAULT_KEY), agent })
    if (answer.error) return recordError(tally, 'mixed', what, answer.error)
    record(tally, 'mixed', what, answer, [200])
    if (answer.status === 200 && !isDeepStrictEqual(parseOr(answer.body), pet)) {
      wrongBody(tally, `${what} -> ${answer.body.slice(0, 200)}, expected ${JSON.stringify(pet)}`)
    }
  }
  await Promise.all(Array.from({ length: workers }, (_, w) => worker(w)))
  agent.destroy()
  return { sent, creates, created }
}

/**
 * Tenant churn past the cap. Loops of fresh keys (each new key makes a tenant, so the least
 * recently used idle one is evicted), and waves of `cap + extra` delayed requests on fresh keys
 * at once, so every slot is busy and the rest are refused with the tenants 503.
 */
export async function tenantChurn(ctx, { loops, maxKeys, cap, extra, waves, waveEveryMs, delayMs }) {
  const { port, tally, deadline } = ctx
  const agent = new Agent({ keepAlive: true, maxSockets: loops })
  let keys = 0
  const churn = async (l) =>
    until(
      deadline,
      () => keys < maxKeys,
      async () => {
        const key = `churn-${l}-${keys++}`
        const what = `GET /v1/pets?limit=3 as a fresh key`
        const answer = await send(port, { path: '/v1/pets?limit=3', headers: auth(key), agent })
        if (answer.error) return recordError(tally, 'churn', what, answer.error)
        record(tally, 'churn', what, answer, [200, 503])
      },
    )
  let waveCount = 0
  const waveLoop = async () => {
    for (let wave = 0; wave < waves; wave++) {
      await sleep(waveEveryMs)
      if (performance.now() + delayMs > deadline) break
      waveCount++
      await Promise.all(
        Array.from({ length: cap + extra }, async (_, index) => {
          const what = `GET /v1/pets?limit=1 with Prefer: delay=${delayMs}, one of ${cap + extra} fresh keys at once`
          const answer = await send(port, {
            path: '/v1/pets?limit=1',
            headers: { ...auth(`wave-${wave}-${index}`), prefer: `delay=${delayMs}` },
            agent: false,
          })
          if (answer.error) return recordError(tally, 'tenant wave', what, answer.error)
          record(tally, 'tenant wave', what, answer, [200, 503])
        }),
      )
    }
  }
  await Promise.all([...Array.from({ length: loops }, (_, l) => churn(l)), waveLoop()])
  agent.destroy()
  return { keys: keys + waveCount * (cap + extra), waves: waveCount }
}

/**
 * Event stream readers, each a raw connection: `stalled` ones never read until `finish()`
 * (the server must close them for overflow), `live` ones read all along,
 * `vanishing` ones read a moment and then go (a close or a reset), and bursts past the
 * eventStreams budget that must get its 503.
 */
export function eventReaders(ctx, { stalled, live, vanishing, bursts, burstSize, burstEveryMs }) {
  const { port, tally, deadline } = ctx
  const request = `GET /__sandbox/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`
  const open = ({ paused }) => {
    const socket = rawSocket(port)
    // `finished`: its answer came to its last chunk; `ended`: that, or the server closed the
    // connection (a FIN); `cut`: the connection closed before the last chunk.
    const reader = { socket, head: '', tail: '', bytes: 0, overflow: false, finished: false, ended: false }
    reader.closed = new Promise((resolve) => socket.once('close', resolve))
    void reader.closed.then(() => (reader.cut = !reader.finished))
    // Its status line and headers are in (or it is closed).
    let headed
    reader.headed = new Promise((resolve) => (headed = resolve))
    void reader.closed.then(() => headed())
    // The answer is over at the last chunk (the connection may stay, for keep-alive) or the close.
    let over
    reader.over = new Promise((resolve) => (over = resolve))
    void reader.closed.then(() => over())
    socket.on('error', (error) => (reader.error = error))
    socket.once('end', () => (reader.ended = true))
    reader.read = () => {
      socket.setEncoding('latin1')
      socket.resume()
      socket.on('data', (chunk) => {
        reader.bytes += chunk.length
        if (reader.head.length < 2048) reader.head += chunk.slice(0, 2048)
        if (reader.head.includes('\r\n\r\n')) headed()
        const window = reader.tail + chunk
        if (window.includes('event: overflow')) reader.overflow = true
        reader.tail = window.slice(-32)
        if (reader.tail.endsWith('\r\n0\r\n\r\n')) {
          reader.finished = true
          reader.ended = true
          over()
        }
      })
    }
    socket.write(request)
    if (paused) socket.pause()
    else reader.read()
    return reader
  }
  const answerOf = (reader) => parseRaw(reader.head) ?? { status: 0, headers: {}, body: reader.head }
  const kept = { stalled: [], live: [] }
  const counts = { opened: 0, live, vanished: 0, bursts: 0, refused: 0 }
  for (let i = 0; i < stalled; i++) kept.stalled.push(open({ paused: true }))
  for (let i = 0; i < live; i++) kept.live.push(open({ paused: false }))
  counts.opened += stalled + live
  const vanish = async () => {
    for (let i = 0; i < vanishing && performance.now() < deadline; i++) {
      const reader = open({ paused: false })
      counts.opened++
      await sleep(50 + Math.random() * 400)
      if (i % 2 === 0) reader.socket.resetAndDestroy()
      else reader.socket.destroy()
      await reader.closed
      counts.vanished++
      const answer = answerOf(reader)
      // A vanishing reader may find every slot taken by the others: its 503 is fine too.
      if (answer.status !== 0) record(tally, 'event reader', 'GET /__sandbox/events, gone soon', answer, [200, 503])
    }
  }
  const burst = async () => {
    for (let b = 0; b < bursts; b++) {
      await sleep(burstEveryMs)
      if (performance.now() > deadline) break
      counts.bursts++
      const readers = Array.from({ length: burstSize }, () => open({ paused: false }))
      counts.opened += burstSize
      await Promise.race([Promise.all(readers.map((reader) => reader.headed)), expire(5000)])
      await sleep(200)
      for (const reader of readers) reader.socket.destroy()
      await Promise.all(readers.map((reader) => reader.closed))
      for (const reader of readers) {
        const answer = answerOf(reader)
        if (answer.status === 503) counts.refused++
        record(tally, 'event reader', `GET /__sandbox/events, one of ${burstSize} at once`, answer, [200, 503])
      }
    }
  }
  const running = Promise.all([vanish(), burst()])
  return {
    counts,
    kept,
    /** Resolves when the vanishing readers and the bursts are done (at the deadline). */
    running,
    /** Reads what the stalled readers were sent, and closes them and the live ones. */
    async finish() {
      await running
      for (const reader of kept.stalled) reader.read()
      // The stalled readers' backlog is in the kernel's buffers: reading it takes a moment.
      await Promise.race([Promise.all(kept.stalled.map((reader) => reader.over)), expire(2000)])
      const stalledResults = kept.stalled.map((reader) => ({
        overflow: reader.overflow,
        finished: reader.finished,
        cut: reader.cut === true || reader.error !== undefined,
        bytes: reader.bytes,
        status: answerOf(reader).status,
      }))
      for (const reader of [...kept.stalled, ...kept.live]) {
        const answer = answerOf(reader)
        const kind = kept.stalled.includes(reader) ? 'stalled' : 'live'
        record(tally, 'event reader', `GET /__sandbox/events, ${kind}`, answer, [200])
        reader.socket.destroy()
      }
      const liveOverflows = kept.live.filter((reader) => reader.overflow).length
      const liveBytes = kept.live.reduce((sum, reader) => sum + reader.bytes, 0)
      return { stalledResults, liveOverflows, liveBytes }
    },
  }
}

/**
 * Connections reset (TCP RST) at every stage of a request: mid-headers, mid-body, mid-delay,
 * right after a complete request, mid-import, mid-answer (the journal, a large one), and on a
 * CONNECT. Nothing to check on each: the process must live, and the slots they held come back.
 */
export async function resets(ctx, { workers, maxResets }) {
  const { port, tally, deadline } = ctx
  const variants = [
    ['mid-headers', `GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthor`, 5],
    [
      'mid-body',
      `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${DEFAULT_KEY}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 60\r\n\r\n{"name":"Never fin',
      5,
    ],
    [
      'mid-delay',
      `GET /v1/pets?limit=2 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${DEFAULT_KEY}\r\n` +
        'Prefer: delay=300\r\n\r\n',
      60,
    ],
    [
      'after-request',
      `GET /v1/pets/1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${DEFAULT_KEY}\r\n\r\n`,
      0,
    ],
    [
      'mid-import',
      `PUT /__sandbox/state HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
        `Authorization: Bearer reset-import\r\nContent-Length: 1048576\r\n\r\n{"pets":[${'{"id":1,"name":"x"},'.repeat(6000)}`,
      20,
    ],
    ['connect', `CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n`, 0],
    ['mid-answer', `GET /__sandbox/requests HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`, 'first-byte'],
  ]
  const byVariant = Object.fromEntries(variants.map(([name]) => [name, 0]))
  let count = 0
  const worker = async () =>
    until(
      deadline,
      () => count < maxResets,
      async () => {
        const [name, text, wait] = variants[count++ % variants.length]
        const connection = rawConnection(port)
        await connection.connected
        connection.socket.write(text)
        if (wait === 'first-byte') {
          await Promise.race([new Promise((resolve) => connection.socket.once('data', resolve)), expire(2000)])
        } else if (wait > 0) {
          await sleep(wait)
        }
        if (!connection.closed) connection.socket.resetAndDestroy()
        await connection.closedPromise
        byVariant[name]++
        recordError(tally, 'reset', name, new Error('reset by the client'), true)
      },
    )
  await Promise.all(Array.from({ length: workers }, () => worker()))
  return { count, byVariant }
}

/**
 * Slow bodies: creates whose body comes in pieces over about a second and a half (each must be
 * answered 201 and read back), bodies and headers that stop halfway (each must be answered 408
 * once requestTimeoutMs or headersTimeoutMs has passed, and closed), and at `silentAt` (a share
 * of the load) one state import that stops halfway from a client that then neither reads nor
 * closes: the server must let go of it by itself (its connection and its largeBodies slot).
 * Answers that client's socket as `silent`, for the caller to close once it has looked.
 */
export async function slowBodies(
  ctx,
  { workers, maxSlow, stalledEvery, requestTimeoutMs, headersTimeoutMs, silentAt },
) {
  const { port, tally, deadline } = ctx
  const created = []
  let count = 0
  const unanswered = bucket()
  const stalledOne = async (what, text, timeoutMs) => {
    const connection = rawConnection(port)
    await connection.connected
    connection.socket.write(text)
    const started = performance.now()
    const limit = timeoutMs + 4000
    await Promise.race([connection.closedPromise, expire(limit)])
    const answer = parseRaw(connection.text)
    if (!connection.closed || answer === undefined) {
      note(unanswered, `${what}: ${connection.closed ? 'closed with no answer' : 'no answer'} after ${limit} ms`)
      connection.socket.destroy()
      recordError(tally, 'slow body', what, new Error('no answer'), true)
      return
    }
    record(tally, 'slow body', what, answer, [408])
    if (answer.status === 408 && performance.now() - started < timeoutMs - 500) {
      wrongBody(tally, `${what}: 408 after ${Math.round(performance.now() - started)} ms, before its ${timeoutMs} ms`)
    }
  }
  const worker = async (w) =>
    until(
      deadline,
      () => count < maxSlow,
      async () => {
        const turn = count++
        if (turn % stalledEvery === stalledEvery - 1) {
          const half = `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${DEFAULT_KEY}\r\n`
          // Two kinds by turns: the body stops, or the headers do.
          return (turn / stalledEvery) % 2 < 1
            ? stalledOne(
                'POST /v1/pets whose body stops halfway',
                `${half}Content-Type: application/json\r\nContent-Length: 40\r\n\r\n{"name":"Stal`,
                requestTimeoutMs,
              )
            : stalledOne('POST /v1/pets whose headers stop halfway', `${half}X-Slow: 1\r\n`, headersTimeoutMs)
        }
        const pet = { name: `Slow ${w}.${turn}`, categoryId: 2, status: 'pending' }
        const body = JSON.stringify(pet)
        const what = 'POST /v1/pets, its body in six pieces over 1.5 s'
        const connection = rawConnection(port)
        await connection.connected
        connection.socket.write(
          `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${DEFAULT_KEY}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
        )
        const piece = Math.ceil(body.length / 6)
        for (let at = 0; at < body.length && !connection.closed; at += piece) {
          await sleep(250)
          connection.socket.write(body.slice(at, at + piece))
        }
        await Promise.race([connection.closedPromise, expire(10_000)])
        const answer = parseRaw(connection.text)
        connection.socket.destroy()
        if (answer === undefined)
          return recordError(tally, 'slow body', what, connection.error ?? new Error('no answer'))
        record(tally, 'slow body', what, answer, [201])
        if (answer.status !== 201) return
        const { id, ...rest } = parseOr(answer.body) ?? {}
        if (!Number.isSafeInteger(id) || !isDeepStrictEqual(rest, pet)) {
          return wrongBody(tally, `${what} -> 201 ${answer.body.slice(0, 200)}`)
        }
        created.push({ id, ...pet })
      },
    )
  const silent = []
  const silentOne = async () => {
    await sleep(silentAt * (deadline - ctx.startedAt))
    const socket = rawSocket(port)
    socket.on('error', () => undefined)
    silent.push(socket)
    socket.write(
      `PUT /__sandbox/state HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
        `Authorization: Bearer silent-import\r\nContent-Length: 4096\r\n\r\n{"pets":[`,
    )
    socket.pause()
  }
  await Promise.all([...Array.from({ length: workers }, (_, w) => worker(w)), silentOne()])
  return { count, created, unanswered, silent }
}

/** A state body of just under `bytes` bytes: small pets, then a marker pet to read back. */
export function stateBody(bytes, marker) {
  return sharedStateBody(bytes, { marker }).body
}

/**
 * State imports: small ones on fresh keys every few hundred ms; `large` ones ({ at, body,
 * marker }, `at` a share of the load), each with a small one sent while it is read (which must
 * get the largeBodies 503); and one declared over the stateBytes budget (413 without reading it).
 * Each key first creates a pet, so an import that was answered 204 but not applied is told from
 * a tenant evicted since: after the 204 the marker pet is read back, and when it is missing the
 * key's state says which.
 */
export async function imports(ctx, { maxSmall, smallEveryMs, large, stateBytes, seedNextId }) {
  const { port, tally, deadline, startedAt } = ctx
  // A connection per request: one every 250 ms needs no keep-alive (whose idle sockets the server
  // closes after keepAliveTimeoutMs, a race with their reuse).
  const agent = false
  const result = {
    small: 0,
    large: 0,
    created: 0,
    createdReadBack: 0,
    createdEvicted: 0,
    applied: 0,
    readBack: 0,
    evictedBefore: 0,
    lost: bucket(),
    oversize: undefined,
  }
  let sequence = 0
  // Whether `pet` is there for `key`: 'there', 'evicted' (its tenant went since: the read made a
  // fresh one from the seed, or found every slot busy), or a line telling what was found instead.
  const lookFor = async (kind, key, pet, what) => {
    const read = await send(port, { path: `/v1/pets/${pet.id}`, headers: auth(key), agent })
    if (read.error) {
      recordError(tally, kind, `GET /v1/pets/${pet.id} as ${key}`, read.error)
      return `${what}: GET /v1/pets/${pet.id} -> ${read.error.message}`
    }
    record(tally, kind, `GET /v1/pets/${pet.id} as ${key}, ${what}`, read, [200, 404, 503])
    if (read.status === 200 && isDeepStrictEqual(parseOr(read.body), pet)) return 'there'
    if (read.status === 503) return 'evicted'
    if (read.status !== 404) return `${what}: GET /v1/pets/${pet.id} -> ${read.status} ${read.body.slice(0, 200)}`
    const state = await send(port, { path: '/__sandbox/state', headers: auth(key), agent })
    if (state.status === 200 && parseOr(state.body)?.nextId === seedNextId) return 'evicted'
    return `${what}: GET /v1/pets/${pet.id} -> 404, and the key's state ${state.status} ${state.body?.slice(0, 200)}`
  }
  // Sends, records, and after a documented 503 tries again once its Retry-After has passed, up to
  // `tries` times in all. Answers the last answer, or undefined after a connection error.
  const sendTrying = async (tries, kind, what, options, expected) => {
    for (let attempt = 1; ; attempt++) {
      const answer = await send(port, { ...options, agent })
      if (answer.error) {
        recordError(tally, kind, what, answer.error)
        return undefined
      }
      const cause = record(tally, kind, what, answer, expected)
      if (cause === undefined || attempt >= tries) return answer
      await sleep(1000 * Number(answer.headers['retry-after']))
    }
  }
  const one = async (kind, body, marker, sending = () => undefined) => {
    const key = `import-${sequence++}`
    // The large ones are few: each tries again after a 503, the small ones do not.
    const tries = body.length > 1 << 20 ? 4 : 1
    const before = { name: 'Replaced by an import', categoryId: 1 }
    const seeded = await sendTrying(
      tries,
      kind,
      `POST /v1/pets as ${key} before its import`,
      {
        method: 'POST',
        path: '/v1/pets',
        headers: jsonHeaders(key),
        body: JSON.stringify(before),
      },
      [201, 503],
    )
    if (seeded?.status !== 201) return
    const createdPet = parseOr(seeded.body)
    if (createdPet?.id !== seedNextId || !isDeepStrictEqual({ ...before, id: createdPet.id }, createdPet)) {
      return wrongBody(tally, `POST /v1/pets as ${key} -> 201 ${seeded.body.slice(0, 200)}`)
    }
    result.created++
    sending()
    const what = `PUT /__sandbox/state (${body.length} bytes) as ${key}`
    const options = { method: 'PUT', path: '/__sandbox/state', headers: jsonHeaders(key), body }
    const answer = await sendTrying(tries, kind, what, options, [204, 503])
    if (answer === undefined) return
    if (answer.status === 204) {
      // The import replaced the pet created before it; its marker must be there now.
      result.applied++
      const found = await lookFor(kind, key, marker, 'the marker of an import answered 204')
      if (found === 'there') result.readBack++
      else if (found === 'evicted') result.evictedBefore++
      else note(result.lost, found)
    } else {
      // Refused: the pet created before it must still be there.
      const found = await lookFor(kind, key, createdPet, 'created before an import that was refused')
      if (found === 'there') result.createdReadBack++
      else if (found === 'evicted') result.createdEvicted++
      else note(result.lost, found)
    }
    // Give the memory back: the imported pets are the data, not what the soak measures.
    if (body.length > 1 << 20) {
      const reset = await send(port, { method: 'POST', path: '/__sandbox/reset', headers: auth(key), agent })
      if (reset.error) return recordError(tally, kind, `POST /__sandbox/reset as ${key}`, reset.error)
      record(tally, kind, `POST /__sandbox/reset as ${key}`, reset, [204])
    }
  }
  const smallState = (n) => {
    const marker = { id: 500_000 + n, name: `Marker ${n}`, categoryId: 3, status: 'pending' }
    return [JSON.stringify({ pets: [{ id: 7, name: 'Kept', categoryId: 1 }, marker], nextId: marker.id + 1 }), marker]
  }
  const smallLoop = async () =>
    until(
      deadline,
      () => result.small < maxSmall,
      async () => {
        await sleep(smallEveryMs)
        const [body, marker] = smallState(result.small++)
        await one('import', body, marker)
      },
    )
  const largeLoop = async () => {
    // First one declared over the budget: 413 from the headers, the body never read (after a 503
    // for the slot taken, again after its Retry-After, three times at most). Early, before the
    // slow importer of slowBodies() holds the slot for its requestTimeoutMs.
    for (let attempt = 0; attempt < 3; attempt++) {
      await sleep(attempt === 0 ? 500 : 1000)
      if ((await oversize()) !== 503) break
    }
    for (const { at: share, body: largeBody, marker: largeMarker } of large) {
      const at = startedAt + share * (deadline - startedAt)
      if (at > deadline) break
      await sleep(Math.max(0, at - performance.now()))
      result.large++
      const [body] = smallState(10_000 + result.large)
      let sending
      const sent = new Promise((resolve) => (sending = resolve))
      await Promise.all([
        // (When it is refused before its body, the one beside goes anyway.)
        one('import, large', largeBody, largeMarker, sending).finally(() => sending()),
        // While the large one is read and parsed: the largeBodies slot is taken.
        sent
          .then(() => sleep(30))
          .then(() =>
            send(port, {
              method: 'PUT',
              path: '/__sandbox/state',
              headers: jsonHeaders('import-beside'),
              body,
              agent,
            }).then((answer) =>
              answer.error
                ? recordError(tally, 'import, beside a large one', 'PUT /__sandbox/state', answer.error)
                : record(tally, 'import, beside a large one', 'PUT /__sandbox/state', answer, [503, 204]),
            ),
          ),
      ])
    }
  }
  const oversize = async () => {
    const connection = rawConnection(port)
    await connection.connected
    connection.socket.write(
      `PUT /__sandbox/state HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${stateBytes + 1}\r\n\r\n{"pets":[`,
    )
    await Promise.race([
      new Promise((resolve) => {
        const check = () => (parseRaw(connection.text) === undefined ? undefined : resolve())
        connection.socket.on('data', check)
        connection.socket.once('close', resolve)
      }),
      expire(5000),
    ])
    const answer = parseRaw(connection.text)
    connection.socket.destroy()
    result.oversize = answer?.status
    if (answer === undefined) {
      recordError(tally, 'import, over the budget', 'PUT /__sandbox/state', new Error('no answer'))
    } else {
      const what = `PUT /__sandbox/state, Content-Length ${stateBytes + 1}`
      record(tally, 'import, over the budget', what, answer, [413, 503])
    }
    return answer?.status
  }
  await Promise.all([smallLoop(), largeLoop()])
  return result
}
