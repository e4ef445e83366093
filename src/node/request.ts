/**
 * From Node's IncomingMessage to the core's plain request: the headers as sent, and the request
 * object itself.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { SINGLE_HEADERS } from '../core/http/head.js'
import type { BodyRead, CoreRequest, RequestHeaders } from '../core/http/http.js'

/**
 * The plain request the core reads, one per request. A class, not an object literal: its lazy
 * `signal` is a getter on the prototype. 0.11.0 to 0.12.5 built a literal with `get signal()` of
 * its own for every request; V8 gives such a literal a dictionary-mode map and keeps its closure,
 * so every request's garbage lived longer. Measured in one sitting (issue 40, 2 cores, wrk -c32):
 * listPets at 29.1k req/s with 11 mark-compacts in 4 s, 42.2k and 1 with a plain property.
 * Every field is set in the constructor in one order, so every instance shares one shape.
 * test/request-shape.test.ts holds it: no own accessor.
 */
export class NodeRequest implements CoreRequest {
  readonly method: string
  readonly target: string
  readonly body = null
  readonly readBody: CoreRequest['readBody']
  // Empty when the socket is gone already: the core then counts it as another machine's.
  readonly remoteAddress: string
  readonly httpVersion: string
  private made: AbortSignal | undefined = undefined

  constructor(
    private readonly request: IncomingMessage,
    private readonly response: ServerResponse | undefined,
    readonly headers: RequestHeaders,
    readonly headerBytes: number,
    readBody?: (maxBytes: number) => Promise<BodyRead>,
  ) {
    this.method = request.method ?? 'GET'
    this.target = request.url ?? '/'
    this.readBody = readBody
    this.remoteAddress = request.socket.remoteAddress ?? ''
    this.httpVersion = request.httpVersion
  }

  /**
   * The client going away, which the core reads when it forwards a request or a hold catches it.
   * Made on first read: the requests the sandbox answers at once pay for no controller and no
   * listener. Undefined for a request with no answer of its own to wait for (CONNECT).
   */
  get signal(): AbortSignal | undefined {
    if (this.response === undefined) return undefined
    return (this.made ??= clientGone(this.request, this.response))
  }
}

/**
 * Aborted when the client's connection closes before the answer is written. The socket's 'close',
 * not the response's: a pipelined answer still queued behind another gets no 'close' of its own.
 * The listener goes with the answer, so a keep-alive connection does not gather one per request.
 */
function clientGone(request: IncomingMessage, response: ServerResponse): AbortSignal {
  const { socket } = request
  if (socket.destroyed) return AbortSignal.abort()
  const controller = new AbortController()
  const gone = () => {
    if (!response.writableFinished) controller.abort()
  }
  socket.once('close', gone)
  response.once('close', () => {
    socket.off('close', gone)
    gone()
  })
  return controller.signal
}

const SINGLE: ReadonlySet<string> = new Set(SINGLE_HEADERS)

/**
 * The headers as sent, by lower-case name (a header named `__proto__` is only data), and their
 * size. Node keeps the first of a repeated Host, Content-Type or Authorization and drops the rest;
 * here those stay lists, so the core can refuse them. Other repeats are joined with ", " as Node
 * joins them.
 */
export function headersOf(raw: readonly string[]): { headers: RequestHeaders; bytes: number } {
  // A plain object (fast to read), with __proto__ defined as data when someone sends it.
  const headers: Record<string, string | string[]> = {}
  // Their size as sent (name, ": ", value, CRLF), counted on the way: what the journal weighs.
  let bytes = 0
  for (let index = 0; index < raw.length; index += 2) {
    const name = (raw[index] as string).toLowerCase()
    const value = raw[index + 1] as string
    bytes += name.length + value.length + 4
    const known = Object.hasOwn(headers, name) ? headers[name] : undefined
    if (name === '__proto__') {
      Object.defineProperty(headers, name, {
        value: known === undefined ? value : `${String(known)}, ${value}`,
        enumerable: true,
        writable: true,
        configurable: true,
      })
    } else if (known === undefined) headers[name] = value
    else if (SINGLE.has(name)) headers[name] = typeof known === 'string' ? [known, value] : [...known, value]
    else headers[name] = `${known as string}${name === 'cookie' ? '; ' : ', '}${value}`
  }
  return { headers, bytes }
}
