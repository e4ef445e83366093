/**
 * Forwarding to an upstream (`--upstream`): what the sandbox sends in place of running an
 * operation, and what it makes of what comes back. The host owns the transport (`Upstream.send`:
 * a socket is Node's business); the rules are here, once. The request carries an allow-list of
 * the client's headers, so nothing meant for the sandbox (Prefer, cookies, its own Host) leaks
 * upstream; the answer comes back with an allow-list of the upstream's headers, so hop-by-hop
 * headers and cookies stay there, plus the count of the ways it breaks the interface document.
 * A failed exchange becomes the sandbox's own JSON Error: 502, or 504 past the time budget; the
 * number of exchanges waiting at once is the pipeline's to bound (upstreamRequests).
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import type { OperationId } from './admin/contract.js'
import { VIOLATIONS_HEADER } from './http/answers.js'
import { ApiError } from './http/errors.js'
import { header, type CoreRequest, type CoreResponse } from './http/http.js'
import type { Limits } from './limits.js'
import { contractViolations, type PlainAnswer } from './verify/conformance.js'

/** One request for the upstream, as the core decides it. */
export interface UpstreamRequest {
  readonly method: string
  /**
   * The client's target with the sandbox's base path taken off, e.g. `/pets?limit=5`: the host
   * puts the upstream URL's own path before it.
   */
  readonly target: string
  /** By lower-case name. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array | null
  /** The whole exchange, connecting included: the upstreamTimeoutMs budget. */
  readonly timeoutMs: number
  /** The answer's body beyond this fails the exchange: the upstreamBodyBytes budget. */
  readonly maxBytes: number
  /**
   * Aborted when the client goes away: the exchange is called off (an `aborted` failure), so a
   * forwarded request never outlives the one who asked for it.
   */
  readonly signal?: AbortSignal
}

/** `aborted`: the request's signal called the exchange off (its client went away). */
export type UpstreamFailureKind = 'connect' | 'timeout' | 'too_large' | 'protocol' | 'aborted'

/**
 * What `Upstream.send` throws when no answer came: the host translates its transport's errors
 * into these. The message says what happened in one line, naming the upstream by its host at most.
 */
export class UpstreamFailure extends Error {
  override readonly name = 'UpstreamFailure'

  constructor(
    readonly kind: UpstreamFailureKind,
    message: string,
  ) {
    super(message)
  }
}

/** The upstream a server forwards to, as its host gives it to the core. */
export interface Upstream {
  /** What may be shown of it: its origin only (no credentials, path or query). */
  readonly label: string
  /** Sends one request; answers with the whole answer, or throws an UpstreamFailure. */
  send(request: UpstreamRequest): Promise<PlainAnswer>
  /** The operations forwarded from the start. */
  readonly forward: readonly OperationId[]
  /** Sent upstream as `Authorization: Bearer <key>` in place of the client's (who needs a sandbox key). */
  readonly key?: string
}

/** Request headers passed on as the client sent them. Never Host, Cookie or Prefer. */
const PASSED_ON = ['content-type', 'accept', 'accept-language', 'user-agent'] as const

/**
 * What the sandbox adds to Via as an intermediary (RFC 9110 section 7.6.3): the protocol it
 * received and a pseudonym, never its host, which may be private.
 */
export const VIA = '1.1 petstore-sandbox'

/** Answer headers passed back, by lower-case name, as the sandbox writes them. */
const PASSED_BACK: Readonly<Record<string, string>> = {
  'content-type': 'Content-Type',
  location: 'Location',
  deprecation: 'Deprecation',
  sunset: 'Sunset',
  link: 'Link',
  'www-authenticate': 'WWW-Authenticate',
  'retry-after': 'Retry-After',
  allow: 'Allow',
  'cache-control': 'Cache-Control',
  etag: 'ETag',
  'last-modified': 'Last-Modified',
}

/**
 * The request the upstream gets. HEAD goes as GET: the sandbox answers HEAD by running GET, and
 * the contract can only be checked on a body (the adapter sends none back for HEAD). Via carries
 * the client's own entries and the sandbox's after them, so a chain of sandboxes can be read off
 * the last one's request (a loop is bounded by upstreamRequests, not detected: two sandboxes in a
 * row are a setup as legitimate as one).
 */
export function upstreamRequest(
  request: CoreRequest,
  target: string,
  body: Uint8Array | null,
  upstream: Upstream,
  limits: Limits,
): UpstreamRequest {
  // The body is sent as it came, never re-encoded: a compressed answer could not be checked.
  const headers: Record<string, string> = { 'accept-encoding': 'identity' }
  for (const name of PASSED_ON) {
    const value = header(request.headers, name)
    if (value !== undefined) headers[name] = value
  }
  const via = request.headers.via
  const before = via === undefined ? [] : typeof via === 'string' ? [via] : via
  headers.via = [...before, VIA].join(', ')
  const authorization = upstream.key === undefined ? header(request.headers, 'authorization') : `Bearer ${upstream.key}`
  if (authorization !== undefined) headers.authorization = authorization
  if (body !== null) headers['content-length'] = String(body.byteLength)
  return {
    method: request.method === 'HEAD' ? 'GET' : request.method,
    target,
    headers,
    body,
    timeoutMs: limits.upstreamTimeoutMs,
    maxBytes: limits.upstreamBodyBytes,
    ...(request.signal !== undefined && { signal: request.signal }),
  }
}

/**
 * The upstream's answer as the client gets it, and the ways it breaks the contract. The body goes
 * back byte for byte (the text is for the check). An answer with a content coding is refused with
 * 502: it was asked for identity, its body cannot be checked as sent, and relayed without the
 * Content-Encoding header (which is not passed back) it would reach the client as garbage.
 */
export function relayed(
  operation: OperationId,
  answer: PlainAnswer,
  label: string,
): { response: CoreResponse; violations: string[] } {
  const coding = answer.headers['content-encoding']
  if (coding !== undefined && contentCodings(coding).length > 0) {
    throw new ApiError(
      'bad_gateway',
      `The upstream ${label} answered ${operation} with Content-Encoding ${coding.trim()}, though asked for identity`,
    )
  }
  const violations = contractViolations(operation, answer)
  const headers: Record<string, string> = {}
  for (const name in PASSED_BACK) {
    const value = answer.headers[name]
    if (value !== undefined) headers[PASSED_BACK[name] as string] = value
  }
  headers[VIOLATIONS_HEADER] = String(violations.length)
  const body = answer.bytes ?? answer.body
  return { response: { status: answer.status, headers, body: body.length === 0 ? null : body }, violations }
}

/** The codings a Content-Encoding value names besides identity (which is none), in lower case. */
function contentCodings(value: string): string[] {
  return value
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
}

/** The 503 past the upstreamRequests budget: the upstream is slow or a loop is feeding it, and no request waits in line. */
export function upstreamBusy(limits: Limits): ApiError {
  const count = limits.upstreamRequests
  return new ApiError(
    'service_unavailable',
    `The sandbox waits on at most ${count} forwarded request${count === 1 ? '' : 's'} at once (the upstreamRequests limit); try again in a moment`,
    { 'Retry-After': '1' },
  )
}

/** The sandbox's Error for an exchange that gave no answer; anything but an UpstreamFailure is a bug, passed on. */
export function upstreamFailed(error: unknown, operation: OperationId, label: string, limits: Limits): unknown {
  if (!(error instanceof UpstreamFailure)) return error
  switch (error.kind) {
    case 'timeout':
      return new ApiError(
        'gateway_timeout',
        `The upstream ${label} did not answer ${operation} within ${limits.upstreamTimeoutMs} ms (the upstreamTimeoutMs limit)`,
      )
    case 'too_large':
      return new ApiError(
        'bad_gateway',
        `The upstream ${label} answered ${operation} with a body over ${limits.upstreamBodyBytes} bytes (the upstreamBodyBytes limit)`,
      )
    case 'connect':
      return new ApiError(
        'bad_gateway',
        `The sandbox could not reach the upstream ${label} for ${operation}: ${error.message}`,
      )
    case 'protocol':
      return new ApiError('bad_gateway', `The upstream ${label} gave no whole answer to ${operation}: ${error.message}`)
    case 'aborted':
      // No one reads this answer: it is the journal's record of a request its client gave up on.
      return new ApiError(
        'bad_request',
        `The client closed the connection before the upstream ${label} answered ${operation}`,
      )
  }
}
