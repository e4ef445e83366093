/**
 * One request's way through the adapter, in order, each step in a file of its own:
 *
 *   head     the headers as sent, and their size                              request.ts
 *   book     counted in flight, and owed on its connection          shutdown.ts, connections.ts
 *   handle   the core's handle(); the body is read only if it asks           body-reader.ts
 *   gone     a client that left mid-body: a notice (or its 408), no answer
 *   write    the answer; `Connection: close` when nothing more may follow     response.ts
 *   log      one line once the outcome is known                               access-log.ts
 *   close    a connection with a body left unread lingers, then is cut       connections.ts
 *
 * The adapter reads, writes and logs, and never decides: every status is the core's.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Notices } from '../core/admin/notices.js'
import { errorAnswer, type RequestHeaders } from '../core/http/http.js'
import type { Limits } from '../core/limits.js'
import type { SandboxCore } from '../core/sandbox.js'
import { logLine, logWhenOut, type AccessLog } from './access-log.js'
import { BodyReader } from './body-reader.js'
import { lingerOnClose, type SocketTracker } from './connections.js'
import { headersOf, NodeRequest } from './request.js'
import { writeAnswer } from './response.js'
import type { Flight } from './shutdown.js'

/** What every request's handling shares. */
export interface Adapter {
  readonly sandbox: SandboxCore
  readonly limits: Limits
  readonly notices: Notices
  readonly log: AccessLog | undefined
  readonly flight: Flight
  readonly sockets: SocketTracker
  /** Connections Node's requestTimeout ended (a 408 went out): their requests were not abandoned by the client. */
  readonly timedOut: WeakSet<object>
}

export function ignore(): void {
  // An error on a stream whose end is handled elsewhere ('close'): nothing to do, nothing to crash.
}

/** Node's request listener: books the request, then serves it. */
export function onRequest(adapter: Adapter, request: IncomingMessage, response: ServerResponse): void {
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
    leftMidBody(adapter, request, response, started)
    return
  }
  // Closing: the answer says so, so the client opens no new request on this connection. So does
  // an answer that leaves much of its body unread: reading it only to drop it costs more.
  const last = flight.closing() || body.unread() > limits.unreadBodyBytes
  const logCut = log === undefined ? undefined : logWhenOut(log, request, response, started, answer)
  const outcome = writeAnswer(response, answer, last, { flight, lingerMs: limits.lingerMs })
  if (last && !request.complete) lingerOnClose(request.socket, limits.lingerMs)
  if (outcome === 'cut') logCut?.()
}

/**
 * The request never came whole (the client left, or Node's request timeout ended it): nothing
 * more is written. The access log says which (its 408, or aborted); a client that left is also a notice.
 */
function leftMidBody(adapter: Adapter, request: IncomingMessage, response: ServerResponse, started: number): void {
  const { log } = adapter
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
  writeAnswer(response, errorAnswer('internal_error', 'The sandbox failed to handle this request; see its log'), true)
}
