/**
 * The Node entry: an express 5 app around the sandbox's handlers, and startServer().
 * It wraps the handlers and never re-implements a rule: CORS, a body cap, the admin
 * routes and a JSON 404 are all it adds.
 */
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createMiddleware } from '@mswjs/http-middleware'
import cors from 'cors'
import express, { type ErrorRequestHandler, type RequestHandler } from 'express'
import morgan from 'morgan'
import { DEFAULT_BASE_PATH } from './base-url.js'
import { errorBody, type ErrorCode } from './errors.js'
import { DEFAULT_MAX_BODY_BYTES } from './request.js'
import { createSandbox, type Sandbox, type SandboxOptions } from './sandbox.js'

export const DEFAULT_HOST = '127.0.0.1'
export const DEFAULT_PORT = 3210
export const ADMIN_PATH = '/__sandbox'

export interface ServerOptions extends Omit<SandboxOptions, 'baseUrl'> {
  /** Port to listen on; 0 picks a free one. Default: 0. */
  port?: number
  /** Interface to bind. Default: 127.0.0.1, reachable from this machine only. */
  host?: string
  /** Receives one line per answered request (method, path, status, milliseconds). Default: none. */
  log?: (line: string) => void
}

export interface RunningServer {
  /** The server's origin, e.g. `http://127.0.0.1:3210`. */
  readonly url: string
  /** Where the API lives, e.g. `http://127.0.0.1:3210/v1`. */
  readonly apiUrl: string
  readonly sandbox: Sandbox
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
  const sandbox = createSandbox(sandboxOptions)
  const app = createApp(sandbox, { maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, log })
  const server = createServer(app)
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

export interface AppOptions {
  maxBodyBytes: number
  log?: ((line: string) => void) | undefined
}

/** The express app, without listening: the sandbox is passed in so tests can hold it. */
export function createApp(sandbox: Sandbox, { maxBodyBytes, log }: AppOptions): express.Express {
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  if (log !== undefined) {
    app.use(
      morgan(':method :url :status :response-time[1] ms', {
        stream: {
          write: (line) => {
            log(line.trimEnd())
          },
        },
      }),
    )
  }
  app.use(
    cors({
      origin: true,
      allowedHeaders: ['Authorization', 'Content-Type'],
      exposedHeaders: ['Location', 'Deprecation', 'Sunset', 'Link', 'WWW-Authenticate', 'Allow'],
      maxAge: 600,
    }),
  )
  app.use(rejectOversizedBody(maxBodyBytes))
  app.use(rejectInvalidHost)
  app.post(`${ADMIN_PATH}/reset`, async (_request, response) => {
    await sandbox.reset()
    response.status(204).end()
  })
  app.all(`${ADMIN_PATH}/reset`, (request, response) => {
    response.set('Allow', 'POST')
    sendError(response, 'method_not_allowed', `${request.method} is not allowed on ${ADMIN_PATH}/reset; allowed: POST`)
  })
  // The middleware is typed against msw's CommonJS declarations, ours against its ESM ones: the
  // classes are the same at run time, but TypeScript sees two unrelated declarations.
  app.use(createMiddleware(...(sandbox.handlers as unknown as Parameters<typeof createMiddleware>)))
  app.use((request, response) => {
    sendError(
      response,
      'not_found',
      `${request.path} does not exist; the API lives under ${DEFAULT_BASE_PATH}, the admin routes under ${ADMIN_PATH}`,
    )
  })
  app.use(handleUnexpectedError)
  return app
}

// Refuses a declared oversized body before anything reads it. Bodies without a length
// (chunked) are counted by the handlers while they stream.
function rejectOversizedBody(maxBytes: number): RequestHandler {
  return (request, response, next) => {
    const declared = Number(request.headers['content-length'] ?? 0)
    if (declared <= maxBytes) {
      next()
      return
    }
    // The body is left unread, so the connection cannot be reused.
    response.set('Connection', 'close')
    sendError(response, 'payload_too_large', `body must be at most ${maxBytes} bytes`)
  }
}

// The MSW bridge builds the request URL from the Host header; a malformed one would
// otherwise surface as a 500 from `new URL`.
const rejectInvalidHost: RequestHandler = (request, response, next) => {
  const host = request.headers.host
  if (host === undefined || URL.canParse(`http://${host}`)) {
    next()
    return
  }
  sendError(response, 'bad_request', `Host header ${JSON.stringify(host)} is not a valid host`)
}

const handleUnexpectedError: ErrorRequestHandler = (error, request, response, _next) => {
  console.error(`petstore-sandbox: unexpected failure on ${request.method} ${request.originalUrl}`, error)
  if (response.headersSent) {
    response.destroy()
    return
  }
  sendError(response, 'internal_error', 'The sandbox failed to handle this request; see its log')
}

function sendError(response: express.Response, code: ErrorCode, message: string): void {
  const body = errorBody(code, message)
  response.status(body.status).json(body)
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
