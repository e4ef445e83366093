/**
 * The core's view of HTTP: a plain request in, a plain response out. No Fetch objects, no
 * node:http, so the same rules run behind msw (Node and browsers) and behind node:http.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { ApiError, ERROR_CODES, errorBody, type ErrorCode } from './errors.js'

/**
 * Request headers by lower-case name. A list only for a header that must come once (head.ts's
 * SINGLE_HEADERS) and came more than once: the head then refuses the request; other repeats
 * arrive joined, as one value.
 */
export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>

export interface CoreRequest {
  /** The method as sent, e.g. `GET`. */
  readonly method: string
  /**
   * The request target exactly as sent: origin-form (`/v1/pets?limit=3`) or absolute-form
   * (`http://host/v1/pets`). It is routed as it is: no percent-decoding, no dot-segment removal.
   */
  readonly target: string
  readonly headers: RequestHeaders
  /**
   * The body bytes, when the adapter read them already (at most the route's cap, body.ts's
   * `capOf`); null when there was none or when `readBody` is given.
   */
  readonly body: Uint8Array | null
  /** True when the body was longer than the cap and was cut (or, declared too long, not read). */
  readonly truncated?: boolean
  /**
   * Reads the body on demand: the core calls it only once every rule that needs no body
   * (Host, Origin, key, route, method, the body budget) has let the request through, so a
   * refused request is answered without its body being read. At most `maxBytes + 1` bytes.
   */
  readonly readBody?: ((maxBytes: number) => Promise<BodyRead>) | undefined
  /** The headers' size as sent, when the adapter counted it: what the journal weighs them at. */
  readonly headerBytes?: number
  /**
   * From a server: the peer's IP address as the socket gives it, empty when it is unknown. The
   * core decides what it means (the admin routes want a key from another machine); undefined
   * in-process, where every request comes from the test or page that holds the sandbox.
   */
  readonly remoteAddress?: string
  /** `1.0` or `1.1`, from a server: an HTTP/1.0 request may come without Host. */
  readonly httpVersion?: string
  /**
   * From a server: aborted when the client's connection closes before its answer is written.
   * Work done on the client's behalf elsewhere (a forwarded request) stops there, as no one is
   * left to answer; undefined in-process, where nothing outlives its caller.
   */
  readonly signal?: AbortSignal | undefined
}

export interface BodyRead {
  readonly body: Uint8Array | null
  /** The body was longer than the cap: it was cut, or (declared too long) not read at all. */
  readonly truncated: boolean
  /** The client went away before the whole body came: there is no request to answer. */
  readonly incomplete?: boolean
  /**
   * The body did not come whole within the server's request timeout (requestTimeoutMs): the
   * server answered 408 and closed the connection; the call is journaled with that 408.
   */
  readonly timedOut?: boolean
  /**
   * The body's framing is broken (a chunk size that is no number, a chunk longer than it said):
   * what the server's parser reported. Nothing after it on the connection can be read.
   */
  readonly malformed?: string
}

export interface CoreResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** Text (JSON, HTML, script), bytes (assets), an event stream, or nothing (204). */
  readonly body: string | Uint8Array | EventStream | null
  /**
   * A read of the admin routes or the site answered without error: what an open dashboard asks
   * for again and again. A host's access log leaves it out unless asked for it.
   */
  readonly polling?: boolean
  /** Isolated mode, when the host keeps an access log (Hosting.accessLog): whose data an API request used, as logs and the dashboard show it (labelTenant). */
  readonly tenant?: { readonly label: string; readonly hue: number }
  /**
   * Sent to the upstream (`--upstream`), for the access log: how many ways its answer breaks the
   * contract (0 for a 502/504), and whether the check stopped at its bound with more to find;
   * with --record, on the first answer left unrecorded for its cause, why (`nothing recorded: ...`).
   */
  readonly forwarded?: { readonly violations: number; readonly more: boolean; readonly unrecorded?: string }
}

/**
 * A body that goes on: server-sent events. The adapter opens it with a way to send text and a
 * way to end, writes what comes, and calls the returned function when the client goes away.
 * `send` answers how many bytes the reader has not taken yet (its backlog), so the core can
 * drop a reader that falls behind its budget; an adapter that cannot tell answers 0.
 */
export interface EventStream {
  open(send: (text: string) => number, end: () => void): () => void
}

export function isEventStream(body: CoreResponse['body']): body is EventStream {
  return typeof body === 'object' && body !== null && 'open' in body
}

/** Where a request came from: tests and browser apps (msw), or a real HTTP server. */
export type Surface = 'in-process' | 'server'

/** On every answer: a browser never guesses a type other than the one sent (a JSON body read as HTML). */
export const NOSNIFF = 'X-Content-Type-Options'

export const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'application/json',
  [NOSNIFF]: 'nosniff',
})

/** An answer's headers with nosniff, when they lack it: the same object when they have it. */
export function withNosniff(headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  return headers[NOSNIFF] === undefined ? { ...headers, [NOSNIFF]: 'nosniff' } : headers
}

export function json(status: number, value: unknown, headers?: Readonly<Record<string, string>>): CoreResponse {
  return {
    status,
    headers: headers === undefined ? JSON_HEADERS : { ...JSON_HEADERS, ...headers },
    body: JSON.stringify(value),
  }
}

export function noContent(headers: Readonly<Record<string, string>> = {}): CoreResponse {
  return { status: 204, headers, body: null }
}

/**
 * The one way an Error body leaves the core: an ApiError, or (for an adapter's answer to what its
 * parser could not read) a code and its message.
 */
export function errorAnswer(error: ApiError): CoreResponse
export function errorAnswer(code: ErrorCode, message: string): CoreResponse
export function errorAnswer(error: ApiError | ErrorCode, message = ''): CoreResponse {
  return typeof error === 'string'
    ? json(ERROR_CODES[error], errorBody(error, message))
    : json(error.status, error.toBody(), error.headers)
}

/**
 * A thrown value as an answer: an ApiError answers as itself; anything else is a bug of the
 * sandbox's, told to `report` and answered 500 (never bad input: that is always an ApiError).
 */
export function failureAnswer(error: unknown, report: (error: unknown) => void): CoreResponse {
  if (error instanceof ApiError) return errorAnswer(error)
  report(error)
  return errorAnswer('internal_error', 'The sandbox failed to handle this request; see its log')
}

/** One header's value: the first when it was repeated (the core refuses repeats where they matter), undefined when absent. */
export function header(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name]
  return typeof value === 'string' ? value : value?.[0]
}

/** An answer as any transport gives it: header names in lower case, the body as text. */
export interface PlainAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** The body as UTF-8 text, for the checks (a transport may decode it on first read). */
  readonly body: string
  /**
   * The body's bytes as they came, when the transport has them: what a relay passes on, and what
   * a list is checked from, an item at a time.
   */
  readonly bytes?: Uint8Array
  /** Header names (lower case) that came more than once: their values are joined in `headers`. */
  readonly repeated?: readonly string[]
}
