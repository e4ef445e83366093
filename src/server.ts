/**
 * The Node entry: an express 5 app around the sandbox's handlers, and startServer().
 * It wraps the handlers and never re-implements a rule: CORS, guards against malformed
 * HTTP, the admin routes, the OpenAPI document and its reference page, and a JSON 404.
 */
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import cors from 'cors'
import express, { type ErrorRequestHandler } from 'express'
import morgan from 'morgan'
import { DEFAULT_BASE_PATH } from './base-url.js'
import {
  admitRequest,
  answerClientError,
  answerConnect,
  onlyLocalOrigins,
  rejectOversizedBody,
  writeError,
} from './http-guards.js'
import { createOpenApiDocument } from './openapi.js'
import { REFERENCE_SCRIPT, referencePage, swaggerUiDirectory } from './reference-page.js'
import { DEFAULT_MAX_BODY_BYTES } from './request.js'
import { ADMIN_PATH, MAX_STATE_BYTES } from './admin.js'
import { createBridge } from './bridge.js'
import { createSandbox, type Sandbox, type SandboxOptions } from './sandbox.js'
import { packageVersion } from './version.js'

export const DEFAULT_HOST = '127.0.0.1'
export const DEFAULT_PORT = 3210
const DOCS_ASSETS_PATH = `${ADMIN_PATH}/docs`

export interface ServerOptions extends Omit<SandboxOptions, 'baseUrl' | 'version'> {
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
  const sandbox = createSandbox({ ...sandboxOptions, version: packageVersion() })
  const app = createApp(sandbox, { maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, log })
  // The request line is checked before express parses it: express answers some bad
  // targets with an HTML page, and the MSW bridge fails on others.
  const server = createServer((request, response) => {
    if (admitRequest(request, response)) app(request, response)
  })
  server.on('clientError', answerClientError)
  server.on('connect', answerConnect)
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

interface AppOptions {
  maxBodyBytes: number
  log?: ((line: string) => void) | undefined
}

/** The express app, without listening: the sandbox is passed in so tests can hold it. */
function createApp(sandbox: Sandbox, { maxBodyBytes, log }: AppOptions): express.Express {
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
      allowedHeaders: ['Authorization', 'Content-Type', 'Prefer'],
      exposedHeaders: [
        'Location',
        'Deprecation',
        'Sunset',
        'Link',
        'WWW-Authenticate',
        'Allow',
        'Retry-After',
        'Preference-Applied',
      ],
      maxAge: 600,
    }),
  )
  // Under these paths the handlers judge body size themselves, after authenticating.
  app.use(rejectOversizedBody([DEFAULT_BASE_PATH, `${ADMIN_PATH}/state`], maxBodyBytes))

  // Built on first request: nothing at start-up needs it.
  let document: ReturnType<typeof createOpenApiDocument> | undefined
  app.get('/openapi.json', (_request, response) => {
    document ??= createOpenApiDocument()
    response.json(document)
  })
  app.get('/', (_request, response) => {
    response.type('html').send(referencePage(DOCS_ASSETS_PATH, sandbox.apiKeys[0] ?? ''))
  })

  app.use(ADMIN_PATH, onlyLocalOrigins)
  app.get(`${DOCS_ASSETS_PATH}/reference.js`, (_request, response) => {
    response.type('js').send(REFERENCE_SCRIPT)
  })
  app.use(DOCS_ASSETS_PATH, express.static(swaggerUiDirectory(), { index: false, fallthrough: true }))
  const statePath = `${ADMIN_PATH}/state`
  app.use(
    createBridge([...sandbox.handlers, ...sandbox.adminHandlers], {
      maxBodyBytes: (path) => (path === statePath || path.startsWith(`${statePath}?`) ? MAX_STATE_BYTES : maxBodyBytes),
    }),
  )
  app.use((request, response) => {
    writeError(
      response,
      'not_found',
      `${request.path} does not exist; the API lives under ${DEFAULT_BASE_PATH}, the admin routes under ${ADMIN_PATH}`,
    )
  })
  app.use(handleUnexpectedError)
  return app
}

const handleUnexpectedError: ErrorRequestHandler = (error, request, response, _next) => {
  console.error(`petstore-sandbox: unexpected failure on ${request.method} ${request.originalUrl}`, error)
  if (response.headersSent) {
    response.destroy()
    return
  }
  writeError(response, 'internal_error', 'The sandbox failed to handle this request; see its log')
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
