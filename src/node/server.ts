/**
 * The node:http adapter and startServer(): IncomingMessage straight into the core's plain
 * request, the core's plain response straight onto the ServerResponse. No msw, no Fetch
 * objects and no framework on the way: the adapter reads, writes and logs, and never decides.
 * It owns only what Node forces on it: sockets and their errors, backpressure, timeouts and the
 * connection cap, with every number from the core's limits table.
 *
 * May import: node:*, and the core. Never msw or express.
 */
import { once } from 'node:events'
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { DEFAULT_BASE_PATH } from '../core/http/base-url.js'
import {
  errorAnswer,
  header,
  isEventStream,
  type BodyRead,
  type CoreResponse,
  type RequestHeaders,
} from '../core/http/http.js'
import { LIMITS, type Limits } from '../core/limits.js'
import { checkServerOptions, stateFileProblem } from '../core/options.js'
import { createNotices, type Notices } from '../core/admin/notices.js'
import { createSandboxCore, type SandboxCore, type SandboxOptions } from '../core/sandbox.js'
import { answerUnparsable } from '../core/http/unparsable.js'
import { createAssets } from './assets.js'
import { lockStateFile, type StateFileLock } from './state-lock.js'
import { headersOf, NodeRequest } from './request.js'
import { packageVersion } from './package-files.js'
import { coloured, hueStyle, plain, statusStyle, upstreamMark, type Paint } from './terminal.js'
import { createUpstream, type UpstreamOptions } from './upstream.js'
import { readStateFile, resolveStateFile, startSaver, StateFileError, type StateFile } from './state-file.js'
import { StateError } from '../core/api/store.js'

export const DEFAULT_HOST = '127.0.0.1'
export const DEFAULT_PORT = 3210

export interface ServerOptions extends Omit<SandboxOptions, 'baseUrl' | 'version'>, UpstreamOptions {
  /** Port to listen on; 0 picks a free one. Default: 0. */
  port?: number
  /** Interface to bind. Default: 127.0.0.1, reachable from this machine only. */
  host?: string
  /**
   * Host names answered besides local names (`localhost`, `*.localhost`) and IP addresses, against
   * DNS rebinding: `mybox.lan`, or `.example.com` for it and its subdomains; `all` turns the check off.
   */
  allowedHosts?: readonly string[] | 'all'
  /** Origins whose pages may call the API besides local ones (`*`: any). The admin routes stay local. */
  corsOrigins?: readonly string[]
  /** How long close() lets requests in flight finish before cutting them, in ms. Default: 5000. Same as `limits.shutdownTimeoutMs`. */
  shutdownTimeoutMs?: number
  /**
   * Behind a proxy that terminates TLS: believe its `Forwarded` or `X-Forwarded-Proto`/`-Host`
   * headers for the server's own origin (the admin routes' Origin rule) and check the forwarded
   * host against the Host rule. Off by default: without a proxy, any client could send them.
   */
  trustProxy?: boolean
  /**
   * Receives one access log line per request once its outcome is known: the status sent, or
   * `cut` / `aborted` with the reason when no answer went out, and the milliseconds. Default: none.
   */
  log?: (line: string) => void
  /** Log the admin routes' and the site's successful reads too (a dashboard polls them). Default: false. */
  logPolling?: boolean
  /** `text` (`GET /v1/pets 200 1.4 ms`) or `json` (one object per line, for tools). Default: `text`. */
  logFormat?: 'text' | 'json'
  /** Terminal colours in `text` lines: the status by class, the tenant by its hue. The CLI sets it on a TTY. Default: false. */
  logColors?: boolean
  /**
   * Keep the data and its checkpoints in this file across restarts: loaded at start (created from
   * the seed when missing; a bad file refuses to start), saved after changes at most once per
   * `stateSaveIntervalMs`, and at close. A second server on the same file refuses to start. Not with `isolate`.
   */
  stateFile?: string
}

export interface RunningServer {
  /**
   * The server's origin as this machine reaches it, e.g. `http://127.0.0.1:3210`; listening on
   * 0.0.0.0 or `::`, the loopback address (`http://127.0.0.1:3210`, `http://[::1]:3210`).
   */
  readonly url: string
  /** Where the API lives, e.g. `http://127.0.0.1:3210/v1`. */
  readonly apiUrl: string
  /** The sandbox behind the server: its data and controls. */
  readonly sandbox: SandboxCore
  /** How many requests are being answered now. */
  inFlight(): number
  /**
   * Stops accepting connections, lets the requests in flight (delayed ones included) finish
   * within `shutdownTimeoutMs`, then cuts what is left and ends pending delays. Calling it
   * again returns the same promise.
   */
  close(): Promise<void>
  /**
   * For an exit right now (a second Ctrl-C): what would be cut, the requests in flight, and the
   * state file's lock given back without a save, with whether the file misses changes. The
   * process is expected to exit next; the server is not closed.
   */
  abandon(): Abandoned
}

/** What `abandon()` leaves behind. */
export interface Abandoned {
  readonly inFlight: number
  /** With --state-file: whether it misses changes, and when it was last saved whole. */
  readonly stateFile?: { readonly file: string; readonly unsaved: boolean; readonly savedAt: string | null }
}

/** Thrown when the server cannot listen, e.g. because the port is taken. */
export class ServerStartError extends Error {
  override readonly name = 'ServerStartError'
}

export const DEFAULT_SHUTDOWN_TIMEOUT_MS = LIMITS.shutdownTimeoutMs.value

/**
 * Starts the sandbox as an HTTP server.
 *
 * @example
 * const server = await startServer({ port: 0 })
 * await fetch(`${server.apiUrl}/pets`, { headers: { Authorization: 'Bearer petstore-sandbox-key' } })
 * await server.close()
 */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  checkServerOptions(options)
  const refused = stateFileProblem(options)
  if (refused !== undefined) throw new ServerStartError(refused)
  const settings = withDefaults(options)
  const hosting = createHosting(settings)
  const { kept } = hosting
  if (settings.stateFile !== undefined) kept.saver = await keepStateFile(settings.stateFile, hosting.sandbox)
  const adapter = createAdapter(hosting, settings)
  const server = createNodeServer(adapter, hosting.connections)
  await listen(server, settings, kept.saver)
  return running(server, adapter, kept.saver, settings.shutdownTimeoutMs)
}

/** startServer's own options with their defaults, and the sandbox's, passed on as they are. */
function withDefaults(options: ServerOptions) {
  const {
    port = 0,
    host = DEFAULT_HOST,
    log,
    logPolling = false,
    logFormat = 'text',
    logColors = false,
    allowedHosts = [],
    corsOrigins = [],
    trustProxy = false,
    shutdownTimeoutMs = options.limits?.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS,
    upstream,
    forward,
    upstreamKey,
    record,
    stateFile,
    ...sandbox
  } = options
  return {
    port,
    host,
    log,
    logPolling,
    logFormat,
    logColors,
    allowedHosts,
    corsOrigins,
    trustProxy,
    shutdownTimeoutMs,
    upstream: { upstream, forward, upstreamKey, record },
    stateFile,
    sandbox,
  }
}

type Settings = ReturnType<typeof withDefaults>

/** What the server hosts: the sandbox, and what the adapter and the sandbox's health share. */
interface Hosting {
  readonly sandbox: SandboxCore
  readonly notices: Notices
  /** Connections open now: health shows them beside the connections limit. */
  readonly connections: { open: number }
  /** The state file's saver, once the file is open; health asks for its status before that too. */
  readonly kept: { saver?: StateFile }
}

function createHosting(settings: Settings): Hosting {
  const { sandbox: sandboxOptions, stateFile, shutdownTimeoutMs } = settings
  const forwardTo = createUpstream(settings.upstream)
  // One summariser for the core's notices (evictions, overflows) and the adapter's own (clients
  // gone, connections refused), so each kind shares one window. Its window is checked by the core.
  const notices = createNotices((line) => {
    console.warn(`petstore-sandbox: ${line}`)
  }, sandboxOptions.limits?.noticeWindowMs ?? LIMITS.noticeWindowMs.value)
  const connections = { open: 0 }
  const kept: Hosting['kept'] = {}
  const sandbox = createSandboxCore(
    { ...sandboxOptions, limits: { ...sandboxOptions.limits, shutdownTimeoutMs }, version: packageVersion() },
    {
      surface: 'server',
      assets: createAssets(),
      allowedHosts: settings.allowedHosts,
      corsOrigins: settings.corsOrigins,
      trustProxy: settings.trustProxy,
      usage: () => ({ connections: connections.open }),
      notices,
      accessLog: settings.log !== undefined,
      ...(forwardTo !== undefined && { upstream: forwardTo }),
      ...(stateFile !== undefined && {
        stateFile: () => kept.saver?.status() ?? { file: stateFile, savedAt: null, error: null },
      }),
    },
  )
  return { sandbox, notices, connections, kept }
}

/** Opens the state file into the sandbox and saves it from then on; a new file is written at once. */
async function keepStateFile(given: string, sandbox: SandboxCore): Promise<StateFile> {
  const opened = await openStateFile(given, sandbox)
  const saver = startSaver({
    file: opened.file,
    lock: opened.lock,
    revision: () => sandbox.persistence.revision(),
    chunks: () => sandbox.persistence.chunks(),
    intervalMs: sandbox.limits.stateSaveIntervalMs,
    ...(opened.loaded && { saved: sandbox.persistence.revision() }),
    log: (line) => {
      console.warn(`petstore-sandbox: ${line}`)
    },
  })
  // A new file is written at once, from the seed; a loaded one is left as it is until a change.
  await saver.saveNow()
  return saver
}

function createAdapter(hosting: Hosting, settings: Settings): Adapter {
  const { log } = settings
  return {
    sandbox: hosting.sandbox,
    limits: hosting.sandbox.limits,
    notices: hosting.notices,
    log:
      log === undefined
        ? undefined
        : {
            write: log,
            polling: settings.logPolling,
            json: settings.logFormat === 'json',
            paint: settings.logColors ? coloured : plain,
          },
    flight: createFlight(),
    sockets: createSocketTracker(),
    timedOut: new WeakSet(),
  }
}

/** The node:http server, its timeouts and connection cap from the limits, each event handed to the adapter. */
function createNodeServer(adapter: Adapter, connections: { open: number }): Server {
  const { limits } = adapter
  // Host is the core's to judge (a JSON 400 on HTTP/1.1 without it, HTTP/1.0 let through), not Node's.
  const server = createServer(
    {
      requireHostHeader: false,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // How often Node looks for requests past their time: a fraction of the shortest.
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    (request, response) => {
      onRequest(adapter, request, response)
    },
  )
  server.maxConnections = limits.connections
  // Expect: the core decides. 100-continue is sent only when the core reads the body.
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    onRequest(adapter, request, response)
  })
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    onRequest(adapter, request, response)
  })
  server.on('connection', (socket: Socket) => {
    connections.open++
    socket.once('close', () => {
      connections.open--
    })
  })
  server.on('drop', () => {
    adapter.notices.notice(
      'connection-refused',
      `refused a connection: ${limits.connections} are open (the connections limit)`,
    )
  })
  server.on('clientError', (error: ParseError, socket: Duplex) => {
    onClientError(adapter, error, socket)
  })
  // Node hands CONNECT over as a raw socket, with no error listener: a client reset on it would
  // end the process. The core answers it like any other request.
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    socket.on('error', ignore)
    request.on('error', ignore)
    const { headers, bytes } = headersOf(request.rawHeaders)
    // CONNECT is refused before anything could wait on it: its request needs no signal.
    void adapter.sandbox.handle(new NodeRequest(request, undefined, headers, bytes)).then((answer) => {
      writeRaw(socket, answer)
    })
  })
  return server
}

/** What Node's parser, or its request timeout, reports on a connection. */
type ParseError = Error & { code?: string; rawPacket?: Buffer; reason?: string }

/** A request Node could not parse, or that took too long: answered when its turn comes, then the connection ends. */
function onClientError(adapter: Adapter, error: ParseError, socket: Duplex): void {
  const { limits } = adapter
  socket.on('error', ignore)
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') adapter.timedOut.add(socket)
  // A socket's own failure (a reset, a broken pipe): no one is left to answer.
  if (error.code !== 'ERR_HTTP_REQUEST_TIMEOUT' && error.code?.startsWith('HPE_') !== true) {
    socket.destroy()
    return
  }
  // A client that neither reads its answer nor closes is cut after lingerMs: it holds nothing.
  const answer = () => {
    writeRaw(socket, answerUnparsable(unparsable(error), limits))
    setTimeout(() => socket.destroy(), limits.lingerMs).unref()
  }
  // A request already answered on this connection goes out first, then this one's error. A
  // request cut short has no answer to wait for: a timeout still tells the client so (408).
  if (adapter.sockets.whenIdle(socket, answer)) return
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    answer()
  } else if (error.code !== 'HPE_INVALID_EOF_STATE' && adapter.sockets.interrupted(socket) !== undefined) {
    // A body whose framing broke mid-way (a bad chunk size, a chunk longer than declared), the
    // client still there: the request is the core's to answer (400 when it reads the body), and
    // then the connection ends. Node parses nothing more on it, so a request pipelined behind
    // it never runs. (The end of the stream mid-body, INVALID_EOF_STATE, is a client gone.)
    adapter.sockets.interrupted(socket)?.malformed(describeParseError(error))
  } else if (error.code === 'HPE_INVALID_TRANSFER_ENCODING') {
    // The parser handed the request over and then could not frame its body (`gzip` alone): the
    // core answers it from its headers (501), and then the connection ends, within lingerMs.
    const cut = () => {
      socket.destroy()
    }
    adapter.sockets.whenAnswered(socket, cut)
    setTimeout(cut, limits.lingerMs).unref()
  } else {
    socket.destroy()
  }
}

/** Listens, or gives the state file back and says why it cannot. */
async function listen(server: Server, settings: Settings, saver: StateFile | undefined): Promise<void> {
  const { port, host } = settings
  try {
    server.listen(port, host)
    await once(server, 'listening')
  } catch (error) {
    await saver?.close()
    throw new ServerStartError(describeListenError(error, host, port), { cause: error })
  }
}

/** The running server as startServer answers it: its URLs, its sandbox, and close(). */
function running(
  server: Server,
  adapter: Adapter,
  saver: StateFile | undefined,
  shutdownTimeoutMs: number,
): RunningServer {
  const address = server.address() as AddressInfo
  // A wildcard address is no place a browser can open: this machine reaches it on loopback.
  const near = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address
  const url = `http://${near.includes(':') ? `[${near}]` : near}:${address.port}`
  let closed: Promise<void> | undefined
  return {
    url,
    apiUrl: `${url}${DEFAULT_BASE_PATH}`,
    sandbox: adapter.sandbox,
    inFlight: () => adapter.flight.count(),
    close: () =>
      (closed ??= shutDown(server, adapter, shutdownTimeoutMs).then(async () => {
        // The last changes, then the lock (close gives it back): another process may take the file from here.
        await saver?.close()
      })),
    abandon: () => ({
      inFlight: adapter.flight.count(),
      ...(saver !== undefined && { stateFile: saver.abandon() }),
    }),
  }
}

interface AccessLog {
  readonly write: (line: string) => void
  readonly polling: boolean
  readonly json: boolean
  readonly paint: Paint
}

/**
 * One access log line: the status sent, or what happened instead (cut, aborted) and why, the
 * milliseconds, and in isolated mode whose data it was.
 */
function logLine(
  log: AccessLog,
  request: IncomingMessage,
  started: number,
  outcome: { status: number } | { kind: 'cut' | 'aborted'; reason: string },
  answer?: CoreResponse,
): void {
  const tenant = answer?.tenant
  // Sent to the upstream: marked, with its contract violations; never the upstream's URL.
  const forwarded = answer?.forwarded
  const ms = Number((performance.now() - started).toFixed(1))
  const method = request.method ?? ''
  const target = request.url ?? ''
  if (log.json) {
    const fields =
      'status' in outcome
        ? { outcome: 'sent', status: outcome.status }
        : { outcome: outcome.kind, status: null, reason: outcome.reason }
    log.write(
      JSON.stringify({
        time: new Date().toISOString(),
        method,
        target,
        ...fields,
        ms,
        ...(tenant && { tenant: tenant.label }),
        ...(forwarded && {
          upstream: true,
          violations: forwarded.violations,
          ...(forwarded.more && { moreViolations: true }),
          ...(forwarded.unrecorded !== undefined && { unrecorded: forwarded.unrecorded }),
        }),
      }),
    )
    return
  }
  const { paint } = log
  const result =
    'status' in outcome
      ? paint(statusStyle(outcome.status), String(outcome.status))
      : paint('red', `${outcome.kind} (${outcome.reason})`)
  const whose = tenant === undefined ? '' : ` ${paint(hueStyle(tenant.hue), `[${tenant.label}]`)}`
  const where = forwarded === undefined ? '' : upstreamMark(forwarded, paint)
  log.write(`${method} ${target} ${result} ${paint('dim', `${ms.toFixed(1)} ms`)}${where}${whose}`)
}

/** What every request's handling shares. */
interface Adapter {
  readonly sandbox: SandboxCore
  readonly limits: Limits
  readonly notices: Notices
  readonly log: AccessLog | undefined
  readonly flight: Flight
  readonly sockets: SocketTracker
  /** Connections Node's requestTimeout ended (a 408 went out): their requests were not abandoned by the client. */
  readonly timedOut: WeakSet<object>
}

function ignore(): void {
  // An error on a stream whose end is handled elsewhere ('close'): nothing to do, nothing to crash.
}

function onRequest(adapter: Adapter, request: IncomingMessage, response: ServerResponse): void {
  request.on('error', ignore)
  response.on('error', ignore)
  const { headers, bytes } = headersOf(request.rawHeaders)
  const reader = new BodyReader(request, response, headers)
  // One listener for both books: the requests in flight, and the answers owed on this connection.
  adapter.flight.begin(response)
  adapter.sockets.begin(request.socket, request, reader)
  response.once('close', () => {
    adapter.flight.end(response)
    adapter.sockets.end(request.socket, request)
  })
  serve(adapter, request, response, headers, bytes, reader).catch((error: unknown) => {
    failed(adapter, request, response, error)
  })
}

/** The requests being answered, so a shutdown can wait for them, and the event streams it ends at once. */
interface Flight {
  /** Counts a request in flight, until `end` (its response closed). */
  begin(response: ServerResponse): void
  end(response: ServerResponse): void
  /** The response is an event stream: no request to wait for; `end` closes it at shutdown. */
  stream(response: ServerResponse, end: () => void): void
  count(): number
  closing(): boolean
  /** Ends the event streams, then resolves when nothing is in flight, or after `ms`, whichever comes first. */
  settle(ms: number): Promise<void>
}

function createFlight(): Flight {
  let count = 0
  let closing = false
  let onIdle: (() => void) | undefined
  const streams = new Map<ServerResponse, () => void>()
  const done = () => {
    count--
    if (count === 0) onIdle?.()
  }
  return {
    begin() {
      count++
    },
    end(response) {
      if (streams.delete(response)) return
      done()
    },
    stream(response, end) {
      streams.set(response, end)
      done()
    },
    count: () => count,
    closing: () => closing,
    settle(ms) {
      closing = true
      for (const end of [...streams.values()]) end()
      if (count === 0) return Promise.resolve()
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, ms)
        onIdle = () => {
          clearTimeout(timer)
          resolve()
        }
      })
    },
  }
}

/**
 * Answers not yet finished per connection. A parse error after complete pipelined requests is
 * answered only once their answers are out: the client gets them all, in order. A parse error in
 * the middle of a request (a body cut short) ends the connection: that request cannot be answered.
 * A WeakMap rather than a field on the socket: a new field would give sockets a second shape,
 * and Node's own socket code, which runs on every request, slower property reads.
 */
interface SocketTracker {
  begin(socket: Duplex, request: IncomingMessage, reader: BodyReader): void
  end(socket: Duplex, request: IncomingMessage): void
  /** Runs `then` once every request on the socket is answered; false (and nothing run) when one is incomplete. */
  whenIdle(socket: Duplex, then: () => void): boolean
  /** Runs `then` once every request on the socket is answered, complete or not. */
  whenAnswered(socket: Duplex, then: () => void): void
  /** The body reader of the newest request, when that request is still arriving: what a parse error cuts short. */
  interrupted(socket: Duplex): BodyReader | undefined
}

interface Owed {
  count: number
  /** The newest request: the one a parse error can interrupt. */
  last: IncomingMessage | undefined
  /** Its body reader. */
  reader: BodyReader | undefined
  waiting: (() => void)[] | undefined
}

function createSocketTracker(): SocketTracker {
  const bySocket = new WeakMap<Duplex, Owed>()
  const owed = (socket: Duplex) => bySocket.get(socket)
  return {
    begin(socket, request, reader) {
      const entry = owed(socket)
      if (entry === undefined) {
        bySocket.set(socket, { count: 1, last: request, reader, waiting: undefined })
        return
      }
      entry.count++
      entry.last = request
      entry.reader = reader
    },
    end(socket, request) {
      const entry = owed(socket)
      if (entry === undefined) return
      entry.count--
      if (entry.last === request) {
        entry.last = undefined
        entry.reader = undefined
      }
      if (entry.count === 0 && entry.waiting !== undefined) for (const then of entry.waiting.splice(0)) then()
    },
    whenIdle(socket, then) {
      const entry = owed(socket)
      if (entry === undefined || entry.count === 0) {
        then()
        return true
      }
      if (entry.last !== undefined && !entry.last.complete) return false
      ;(entry.waiting ??= []).push(then)
      return true
    },
    whenAnswered(socket, then) {
      const entry = owed(socket)
      if (entry === undefined || entry.count === 0) then()
      else (entry.waiting ??= []).push(then)
    },
    interrupted(socket) {
      const entry = owed(socket)
      return entry?.last !== undefined && !entry.last.complete ? entry.reader : undefined
    },
  }
}

async function shutDown(server: Server, adapter: Adapter, timeoutMs: number): Promise<void> {
  const closed = once(server, 'close')
  server.close()
  server.closeIdleConnections()
  // Held calls answer now: nothing would release them while the server waits for its requests.
  adapter.sandbox.releaseHolds()
  await adapter.flight.settle(timeoutMs)
  // Past the bound: cut the connections still open, and answer the delays still pending into them.
  server.closeAllConnections()
  adapter.sandbox.cutDelays()
  await closed
  adapter.notices.flush()
}

async function serve(
  adapter: Adapter,
  request: IncomingMessage,
  response: ServerResponse,
  headers: RequestHeaders,
  bytes: number,
  body: BodyReader,
): Promise<void> {
  const { log, flight, sandbox, limits } = adapter
  const started = log === undefined ? 0 : performance.now()
  const answer = await sandbox.handle(new NodeRequest(request, response, headers, bytes, (limit) => body.read(limit)))
  if (body.gone) {
    response.destroy()
    // The client was too slow and got its 408 (clientError): the log says so, not that it left.
    if (adapter.timedOut.has(request.socket)) {
      if (log !== undefined) logLine(log, request, started, { status: 408 })
      return
    }
    // An ordinary event, not a failure: one line, no stack, and repeats summarised.
    adapter.notices.notice(
      'client-gone',
      `${request.method ?? ''} ${request.url ?? ''}: the client closed the connection before the request was complete`,
    )
    if (log !== undefined) {
      logLine(log, request, started, { kind: 'aborted', reason: 'the client closed the connection mid-request' })
    }
    return
  }
  // Closing: the answer says so, so the client opens no new request on this connection. So does
  // an answer that leaves much of its body unread: reading it only to drop it costs more.
  const last = flight.closing() || body.unread() > limits.unreadBodyBytes
  // Logged once the outcome is known: 'finish' when the whole answer went to the connection,
  // 'close' before it when the connection went first (a shutdown's bound, a client gone).
  const logged = log !== undefined && (answer.polling !== true || log.polling)
  let told = false
  const tell = (sent: boolean) => {
    if (told || log === undefined) return
    told = true
    const cut = { kind: 'cut', reason: 'the connection closed before the answer went out' } as const
    logLine(log, request, started, sent ? { status: answer.status } : cut, answer)
  }
  if (logged) {
    response.once('finish', () => {
      tell(true)
    })
    response.once('close', () => {
      tell(false)
    })
  }
  const outcome = write(response, answer, last, { flight, lingerMs: limits.lingerMs })
  if (last && !request.complete) lingerOnClose(request.socket, limits.lingerMs)
  if (logged && outcome === 'cut') tell(false)
}

/**
 * Writes the core's answer. `last`: this connection carries no other request (a body left unread,
 * or the server closing). Returns `cut` when the connection was already gone (a shutdown's bound).
 * An event stream that ends (a shutdown, or a reader that fell behind) has `lingerMs` to take its
 * last bytes; a reader that does not is cut, so a stalled reader never holds its connection.
 */
function write(
  response: ServerResponse,
  answer: CoreResponse,
  last: boolean,
  stream?: { flight: Flight; lingerMs: number },
): 'sent' | 'cut' {
  // The connection, not the response's socket: a pipelined answer waits with no socket of its own.
  if (response.destroyed || response.req.socket.destroyed) return 'cut'
  const { body } = answer
  if (isEventStream(body)) {
    response.writeHead(answer.status, answer.headers)
    const state: { open: boolean; stop?: () => void } = { open: true }
    // One step: unsubscribe from the core and end the response, so nothing is written after the end.
    const finish = () => {
      if (!state.open) return
      state.open = false
      state.stop?.()
      response.end()
      if (response.writableFinished) return
      const cut = setTimeout(() => response.destroy(), stream?.lingerMs ?? 0).unref()
      response.once('close', () => {
        clearTimeout(cut)
      })
    }
    // The backlog the core weighs against its budget: what the reader had not taken before this
    // text (a chunk written now waits for the next tick whatever the reader does).
    state.stop = body.open((text) => {
      if (!state.open) return 0
      const backlog = response.writableLength
      response.write(text)
      return backlog
    }, finish)
    // Ended while opening: unsubscribe now that there is something to unsubscribe.
    if (!state.open) state.stop()
    response.once('close', finish)
    stream?.flight.stream(response, finish)
    return 'sent'
  }
  const length = body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength
  // A flat list of names and values: no object spread per answer (writeHead takes either).
  const headers: string[] = []
  for (const name in answer.headers) headers.push(name, answer.headers[name] as string)
  // A 204 carries no Content-Length (RFC 9110 section 8.6), nor a 304, which would give its 200's.
  if (answer.status !== 204 && answer.status !== 304) headers.push('Content-Length', String(length))
  if (last) headers.push('Connection', 'close')
  response.writeHead(answer.status, headers)
  response.end(body ?? undefined)
  return 'sent'
}

/**
 * Reads the body only when the core asks, and at most `limit + 1` bytes: enough for the core to
 * see that a body is too large without the rest being read (a declared length over the limit is
 * refused by the core before it asks). `unread` tells how much of the body is left in the connection.
 *
 * A class, not closures per request: one object holds what a read needs.
 */
class BodyReader {
  private readonly declared: string | undefined
  private readonly chunked: boolean
  private readonly length: number
  private received = 0
  gone = false
  /** What broke the body's framing, once the parser said so. */
  private broken: string | undefined
  /** Ends the read under way, if one is. */
  private settle: ((read: BodyRead) => void) | undefined

  constructor(
    private readonly request: IncomingMessage,
    private readonly response: ServerResponse,
    private readonly headers: RequestHeaders,
  ) {
    this.declared = header(headers, 'content-length')
    this.chunked = headers['transfer-encoding'] !== undefined
    this.length = this.declared === undefined ? 0 : Number(this.declared)
  }

  unread(): number {
    return this.request.complete ? 0 : this.chunked ? Infinity : Math.max(0, this.length - this.received)
  }

  /** The parser gave up on the body's framing: a read under way, or the next one, answers `malformed`. */
  malformed(reason: string): void {
    if (this.broken !== undefined) return
    this.broken = reason
    this.settle?.({ body: null, truncated: false, malformed: reason })
  }

  read(limit: number): Promise<BodyRead> {
    const { request, response } = this
    if (this.broken !== undefined) return Promise.resolve({ body: null, truncated: false, malformed: this.broken })
    if (this.declared === undefined && !this.chunked) return Promise.resolve({ body: null, truncated: false })
    // The client waits for this before it sends the body (Expect: 100-continue).
    if (this.headers.expect !== undefined && !response.headersSent) response.writeContinue()
    // Events rather than `for await`: the async iterator costs a promise per chunk on the hot path.
    return new Promise((resolve) => {
      const chunks: Buffer[] = []
      const onData = (chunk: Buffer) => {
        this.received += chunk.length
        if (this.received <= limit) {
          chunks.push(chunk)
          return
        }
        request.off('data', onData).off('end', onEnd).pause()
        resolve({ body: new Uint8Array(0), truncated: true })
      }
      const onEnd = () => {
        resolve({
          body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, this.received),
          truncated: false,
        })
      }
      // A client that goes away mid-body ends the request without 'end' (and not always with 'error').
      const onGone = () => {
        if (request.complete || this.broken !== undefined) return
        this.gone = true
        resolve({ body: null, truncated: false, incomplete: true })
      }
      this.settle = (read) => {
        request.off('data', onData).off('end', onEnd).pause()
        resolve(read)
      }
      request.on('data', onData).on('end', onEnd).on('error', onGone).on('close', onGone)
    })
  }
}

/**
 * After an answer that leaves a body unread, Node closes the connection at once; a client still
 * sending would then get a reset, which can destroy the answer before it reads it. Instead the
 * connection is half-closed, what still comes is read and dropped, and it is cut after `ms`.
 */
function lingerOnClose(socket: Socket, ms: number): void {
  const cut = () => {
    socket.destroy()
  }
  socket.destroySoon = () => {
    socket.end()
    socket.resume()
    socket.once('end', cut)
    setTimeout(cut, ms).unref()
  }
}

/** A failure of the adapter itself (a bug, or a client gone mid-answer): never a crash. */
function failed(adapter: Adapter, request: IncomingMessage, response: ServerResponse, error: unknown): void {
  const what = `${request.method ?? ''} ${request.url ?? ''}`
  if (request.destroyed || response.headersSent) {
    // An ordinary event, not a failure: one line, no stack, and repeats summarised.
    adapter.notices.notice('client-gone', `${what}: the client closed the connection before the request was complete`)
    response.destroy()
    return
  }
  console.error(`petstore-sandbox: unexpected failure on ${what}`, error)
  write(response, errorAnswer('internal_error', 'The sandbox failed to handle this request; see its log'), true)
}

/** A parse error in a few words: llhttp's reason (`Invalid character in chunk size`), or its code. */
function describeParseError(error: Error & { code?: string; reason?: string }): string {
  const reason = error.reason ?? error.code ?? 'unreadable'
  return reason.charAt(0).toLowerCase() + reason.slice(1)
}

/** What Node's parser reports, in the core's terms. */
function unparsable(error: ParseError) {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { kind: 'timeout' } as const
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return { kind: 'too-large', packet: error.rawPacket?.toString('latin1') ?? '' } as const
  }
  return { kind: 'invalid', reason: error.reason } as const
}

// For the cases above, where Node gives a socket instead of a response.
function writeRaw(socket: Duplex, answer: CoreResponse): void {
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const body = typeof answer.body === 'string' ? answer.body : ''
  const headers = Object.entries(answer.headers).map(([name, value]) => `${name}: ${value}\r\n`)
  socket.end(
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? 'Error'}\r\n${headers.join('')}` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
}

function describeListenError(error: unknown, host: string, port: number): string {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'EADDRINUSE')
    return `Port ${port} on ${host} is already in use. Choose another port, or 0 for a free one.`
  if (code === 'EADDRNOTAVAIL') return `Cannot bind to ${host}: no such address on this machine.`
  if (code === 'EACCES') return `Not allowed to listen on port ${port}. Use a port above 1023.`
  return `Failed to listen on ${host}:${port}: ${(error as Error).message}`
}

/**
 * Takes the state file's lock and loads the file into the sandbox, when it exists. A file that
 * is not valid refuses the start, naming every problem: the seed is never used in its place.
 */
async function openStateFile(
  given: string,
  sandbox: SandboxCore,
): Promise<{ file: string; lock: StateFileLock; loaded: boolean }> {
  let file: string
  let lock: StateFileLock
  try {
    file = await resolveStateFile(given)
    lock = await lockStateFile(file, { staleMs: sandbox.limits.stateLockStaleMs })
  } catch (error) {
    if (error instanceof StateFileError) throw new ServerStartError(error.message)
    throw error
  }
  try {
    const content = await readStateFile(file)
    if (content !== undefined) await sandbox.persistence.load(content)
    return { file, lock, loaded: content !== undefined }
  } catch (error) {
    lock.release()
    if (error instanceof StateFileError) throw new ServerStartError(`${error.message}; the sandbox did not start`)
    if (error instanceof StateError) {
      throw new ServerStartError(`${given} is not a valid state file: ${error.message}; the sandbox did not start`)
    }
    throw error
  }
}
