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
import { errorAnswer, type CoreRequest, type CoreResponse } from '../core/http.js'
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
  /** Stops listening and closes open connections. */
  close(): Promise<void>
}

/** Thrown when the server cannot listen, e.g. because the port is taken. */
export class ServerStartError extends Error {
  override readonly name = 'ServerStartError'
}

/**
 * Starts the sandbox as an HTTP server.
 *
 * @example
 * const server = await startServer({ port: 0 })
 * await fetch(`${server.apiUrl}/pets`, { headers: { Authorization: 'Bearer petstore-sandbox-key' } })
 * await server.close()
 */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const { port = 0, host = DEFAULT_HOST, log, ...sandboxOptions } = options
  const sandbox = createSandboxCore(
    { ...sandboxOptions, version: packageVersion() },
    { surface: 'server', assets: createAssets() },
  )
  const server = createServer((request, response) => {
    serve(sandbox, request, response, log).catch((error: unknown) => {
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
  return { url, apiUrl: `${url}${DEFAULT_BASE_PATH}`, sandbox, close: () => closeServer(server) }
}

async function serve(
  sandbox: SandboxCore,
  request: IncomingMessage,
  response: ServerResponse,
  log: ((line: string) => void) | undefined,
): Promise<void> {
  const started = log === undefined ? 0 : performance.now()
  const { headers } = request
  // Most requests (every GET) carry no body: they go to the core without waiting for one.
  const read =
    headers['content-length'] === undefined && headers['transfer-encoding'] === undefined
      ? { body: null, truncated: false }
      : await readBody(request, sandbox.bodyLimit(request.method ?? 'GET', request.url ?? '/'))
  const answer = await sandbox.handle(coreRequest(request, read.body, read.truncated))
  write(response, answer, read.truncated)
  log?.(`${request.method ?? ''} ${request.url ?? ''} ${answer.status} ${(performance.now() - started).toFixed(1)} ms`)
}

function coreRequest(request: IncomingMessage, body: Uint8Array | null, truncated: boolean): CoreRequest {
  return { method: request.method ?? 'GET', target: request.url ?? '/', headers: request.headers, body, truncated }
}

function write(response: ServerResponse, answer: CoreResponse, truncated: boolean): void {
  const { body } = answer
  const length = body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength
  response.writeHead(answer.status, {
    ...answer.headers,
    'Content-Length': length,
    // The rest of an oversized body was never read: this connection cannot carry another request.
    ...(truncated && { Connection: 'close' }),
  })
  response.end(body ?? undefined)
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
    request.on('data', onData).on('end', onEnd).on('error', reject)
  })
}

/** A failure of the adapter itself (a client gone mid-body, or a bug): never a crash. */
function failed(request: IncomingMessage, response: ServerResponse, error: unknown): void {
  if (request.destroyed || response.headersSent) {
    response.destroy()
    return
  }
  console.error(`petstore-sandbox: unexpected failure on ${request.method ?? ''} ${request.url ?? ''}`, error)
  write(response, errorAnswer('internal_error', 'The sandbox failed to handle this request; see its log'), true)
}

/** Answers requests Node's parser rejects (bad request line, oversized headers) with JSON. */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  writeRaw(
    socket,
    error.code === 'HPE_HEADER_OVERFLOW'
      ? errorAnswer('headers_too_large', 'Request headers are too large')
      : errorAnswer('bad_request', 'The request is not valid HTTP'),
  )
}

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
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

async function closeServer(server: Server): Promise<void> {
  const closed = once(server, 'close')
  server.close()
  server.closeAllConnections()
  await closed
}
