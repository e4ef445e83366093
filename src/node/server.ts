/**
 * The node:http adapter and startServer(): IncomingMessage straight into the core's plain
 * request, the core's plain response straight onto the ServerResponse. No msw, no Fetch
 * objects and no framework on the way: the adapter reads, writes and logs, and never decides.
 *
 * May import: node:*, and the core. Never msw or express.
 */
import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { DEFAULT_BASE_PATH } from '../core/base-url.js'
import { MAX_TARGET_LENGTH } from '../core/handle.js'
import { errorAnswer, isEventStream, type CoreRequest, type CoreResponse } from '../core/http.js'
import { createSandboxCore, type SandboxCore, type SandboxOptions } from '../core/sandbox.js'
import { createAssets } from './assets.js'
import { packageVersion } from './version.js'

export const DEFAULT_HOST = '127.0.0.1'
export const DEFAULT_PORT = 3210

export interface ServerOptions extends Omit<SandboxOptions, 'baseUrl' | 'version'> {
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
  /** How long close() lets requests in flight finish before cutting them, in ms. Default: 5000. */
  shutdownTimeoutMs?: number
  /** Receives one line per answered request (method, target, status, milliseconds). Default: none. */
  log?: (line: string) => void
}

export interface RunningServer {
  /** The server's origin, e.g. `http://127.0.0.1:3210`. */
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
}

/** Thrown when the server cannot listen, e.g. because the port is taken. */
export class ServerStartError extends Error {
  override readonly name = 'ServerStartError'
}

export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 5000

/**
 * Starts the sandbox as an HTTP server.
 *
 * @example
 * const server = await startServer({ port: 0 })
 * await fetch(`${server.apiUrl}/pets`, { headers: { Authorization: 'Bearer petstore-sandbox-key' } })
 * await server.close()
 */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const {
    port = 0,
    host = DEFAULT_HOST,
    log,
    allowedHosts = [],
    corsOrigins = [],
    shutdownTimeoutMs = DEFAULT_SHUTDOWN_TIMEOUT_MS,
    ...sandboxOptions
  } = options
  if (!Number.isSafeInteger(shutdownTimeoutMs) || shutdownTimeoutMs < 0) {
    throw new TypeError(
      `Failed to start the server: shutdownTimeoutMs must be a whole number, got ${shutdownTimeoutMs}`,
    )
  }
  const sandbox = createSandboxCore(
    { ...sandboxOptions, version: packageVersion() },
    { surface: 'server', assets: createAssets(), allowedHosts, corsOrigins },
  )
  const flight = createFlight()
  // Host is the core's to judge (a JSON 400 on HTTP/1.1 without it, HTTP/1.0 let through), not Node's.
  const server = createServer({ requireHostHeader: false }, (request, response) => {
    flight.begin(response)
    serve(sandbox, request, response, log, flight).catch((error: unknown) => {
      failed(request, response, error)
    })
  })
  server.on('clientError', answerClientError)
  // Node hands CONNECT over as a raw socket; the core answers it like any other request.
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    void sandbox.handle(coreRequest(request, null, false)).then((answer) => {
      writeRaw(socket, answer)
    })
  })
  try {
    server.listen(port, host)
    await once(server, 'listening')
  } catch (error) {
    throw new ServerStartError(describeListenError(error, host, port), { cause: error })
  }
  const address = server.address() as AddressInfo
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`
  let closed: Promise<void> | undefined
  return {
    url,
    apiUrl: `${url}${DEFAULT_BASE_PATH}`,
    sandbox,
    inFlight: () => flight.count(),
    close: () => (closed ??= shutDown(server, sandbox, flight, shutdownTimeoutMs)),
  }
}

/** The requests being answered, so a shutdown can wait for them, and the event streams it ends at once. */
interface Flight {
  begin(response: ServerResponse): void
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
    begin(response) {
      count++
      response.once('close', () => {
        if (streams.delete(response)) return
        done()
      })
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

async function shutDown(server: Server, sandbox: SandboxCore, flight: Flight, timeoutMs: number): Promise<void> {
  const closed = once(server, 'close')
  server.close()
  server.closeIdleConnections()
  await flight.settle(timeoutMs)
  // Past the bound: cut the connections still open, and answer the delays still pending into them.
  server.closeAllConnections()
  sandbox.cutDelays()
  await closed
}

async function serve(
  sandbox: SandboxCore,
  request: IncomingMessage,
  response: ServerResponse,
  log: ((line: string) => void) | undefined,
  flight: Flight,
): Promise<void> {
  const started = log === undefined ? 0 : performance.now()
  const { headers } = request
  // Most requests (every GET) carry no body: they go to the core without waiting for one.
  const read =
    headers['content-length'] === undefined && headers['transfer-encoding'] === undefined
      ? { body: null, truncated: false }
      : await readBody(request, sandbox.bodyLimit(request.method ?? 'GET', request.url ?? '/'))
  const answer = await sandbox.handle(coreRequest(request, read.body, read.truncated))
  // Closing: the answer says so, so the client opens no new request on this connection.
  const outcome = write(response, answer, read.truncated || flight.closing(), flight)
  const ms = (performance.now() - started).toFixed(1)
  log?.(`${request.method ?? ''} ${request.url ?? ''} ${outcome === 'cut' ? 'cut' : answer.status} ${ms} ms`)
}

function coreRequest(request: IncomingMessage, body: Uint8Array | null, truncated: boolean): CoreRequest {
  return {
    method: request.method ?? 'GET',
    target: request.url ?? '/',
    headers: request.headers,
    body,
    truncated,
    httpVersion: request.httpVersion,
  }
}

/**
 * Writes the core's answer. `last`: this connection carries no other request (a body left unread,
 * or the server closing). Returns `cut` when the connection was already gone (a shutdown's bound).
 */
function write(response: ServerResponse, answer: CoreResponse, last: boolean, flight?: Flight): 'sent' | 'cut' {
  if (response.destroyed) return 'cut'
  const { body } = answer
  if (isEventStream(body)) {
    response.writeHead(answer.status, answer.headers)
    const stop = body.open(
      (text) => response.write(text),
      () => response.end(),
    )
    response.once('close', stop)
    flight?.stream(response, () => response.end())
    return 'sent'
  }
  const length = body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength
  response.writeHead(answer.status, {
    ...answer.headers,
    'Content-Length': length,
    ...(last && { Connection: 'close' }),
  })
  response.end(body ?? undefined)
  return 'sent'
}

/**
 * At most `limit + 1` bytes: enough for the core to see that a body is too large without the
 * rest being read. A declared length over the limit is judged from the header alone.
 */
function readBody(request: IncomingMessage, limit: number): Promise<{ body: Uint8Array; truncated: boolean }> {
  if (Number(request.headers['content-length'] ?? 0) > limit) {
    return Promise.resolve({ body: new Uint8Array(0), truncated: true })
  }
  // Events rather than `for await`: the async iterator costs a promise per chunk on the hot path.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= limit) {
        chunks.push(chunk)
        return
      }
      request.off('data', onData).off('end', onEnd).pause()
      resolve({ body: new Uint8Array(0), truncated: true })
    }
    const onEnd = () => {
      resolve({ body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size), truncated: false })
    }
    // A client that goes away mid-body ends the request without 'end' (and not always with 'error').
    const onClose = () => {
      if (!request.complete) reject(new ClientGone())
    }
    request.on('data', onData).on('end', onEnd).on('error', reject).on('close', onClose)
  })
}

/** The client closed its connection before sending its whole request. */
class ClientGone extends Error {
  override readonly name = 'ClientGone'
}

/** A failure of the adapter itself (a client gone mid-body, or a bug): never a crash. */
function failed(request: IncomingMessage, response: ServerResponse, error: unknown): void {
  const what = `${request.method ?? ''} ${request.url ?? ''}`
  if (error instanceof ClientGone || request.destroyed || response.headersSent) {
    // An ordinary event, not a failure: one line, no stack.
    console.warn(`petstore-sandbox: ${what}: the client closed the connection before the request was complete`)
    response.destroy()
    return
  }
  console.error(`petstore-sandbox: unexpected failure on ${what}`, error)
  write(response, errorAnswer('internal_error', 'The sandbox failed to handle this request; see its log'), true)
}

/**
 * Answers requests Node's parser rejects (a bad request line, headers past its 16 KiB) with JSON.
 * Node counts the request line among the headers: a long target is a 414, not a 431.
 */
function answerClientError(error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex): void {
  if (error.code !== 'HPE_HEADER_OVERFLOW') {
    writeRaw(socket, errorAnswer('bad_request', 'The request is not valid HTTP'))
    return
  }
  // rawPacket is the chunk being parsed when the limit was hit. When it begins with the request
  // line, the target in it (or its part, when the line runs past the chunk) tells a long target
  // from many headers; a later chunk holds only headers.
  const target = /^[A-Z]+ ([^ \r\n]*)/.exec(error.rawPacket?.toString('latin1') ?? '')?.[1]
  const longTarget = target !== undefined && target.length > MAX_TARGET_LENGTH
  writeRaw(
    socket,
    longTarget
      ? errorAnswer(
          'uri_too_long',
          `The request target is longer than the ${MAX_TARGET_LENGTH} characters the sandbox reads`,
        )
      : errorAnswer('headers_too_large', 'Request headers are too large'),
  )
}

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
  501: 'Not Implemented',
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
    `HTTP/1.1 ${answer.status} ${REASONS[answer.status] ?? 'Error'}\r\n${headers.join('')}` +
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
