/**
 * The node:http server: its timeouts and connection cap from the core's limits, and each of its
 * events handed to the step that takes it (a request to listener.ts, what Node could not parse to
 * parse-errors.ts, CONNECT to the core as any other request).
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { ignore, onRequest, type Adapter } from './listener.js'
import { onClientError, type ParseError } from './parse-errors.js'
import { headersOf, NodeRequest } from './request.js'
import { writeRaw } from './response.js'

/** The node:http server, its timeouts and connection cap from the limits, each event handed to the adapter. */
export function createNodeServer(adapter: Adapter, connections: { open: number }): Server {
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
