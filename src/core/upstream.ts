/**
 * Forwarding to an upstream (`--upstream`): what the sandbox sends in place of running an
 * operation, and what it makes of what comes back. The host owns the transport (`Upstream.send`:
 * a socket is Node's business); the rules are here, once. The request carries an allow-list of
 * the client's headers, so nothing meant for the sandbox (Prefer, cookies, its own Host) leaks
 * upstream; the answer comes back with an allow-list of the upstream's headers, so hop-by-hop
 * headers and cookies stay there, plus the count of the ways it breaks the interface document.
 * A failed exchange becomes the sandbox's own JSON Error: 502, or 504 past the time budget; the
 * number of exchanges waiting at once is bounded here too (upstreamRequests).
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import type { OperationId } from './api/contract.js'
import { checkUnusedBody, checkWithinCap, capOf } from './http/body.js'
import { preview, readJson } from './http/json.js'
import type { OperationSpec } from './http/routes.js'
import type { Target } from './http/target.js'
import { RELAYED_CSP, VIOLATIONS_HEADER } from './http/stages.js'
import { ApiError } from './http/errors.js'
import { header, type BodyRead, type CoreRequest, type CoreResponse, type PlainAnswer } from './http/http.js'
import type { Limits } from './limits.js'
import type { Release, Turns } from './state/turns.js'
import {
  after,
  contractViolations,
  contractViolationsInSlices,
  violationCount,
  type Violations,
} from './api/answer-check.js'
import { pause, SLICED_FROM_LENGTH } from './http/json-body.js'

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
  /**
   * The path of its URL, without a trailing slash (`/v1`; empty at the root): the base its
   * answers' Location must stay under. Never shown.
   */
  readonly basePath: string
  /** Sends one request; answers with the whole answer, or throws an UpstreamFailure. */
  send(request: UpstreamRequest): Promise<PlainAnswer>
  /** The operations forwarded from the start. */
  readonly forward: readonly OperationId[]
  /** Record from the start (`--record`): forwarded answers' pets are kept in the sandbox's data. */
  readonly record?: boolean
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
 * back byte for byte (the text is for the check), under a Content-Security-Policy that runs
 * nothing in it on the sandbox's origin. An answer Node could not relay as it came is the
 * sandbox's 502, naming why: a status outside 200-599 (RFC 9110 gives 100-599, and a 1xx is
 * never a final answer), a header value no HTTP field may hold, or a content coding (it was
 * asked for identity: its body cannot be checked as sent, and relayed without Content-Encoding,
 * which is not passed back, it would reach the client as garbage). A Location is passed on under
 * the sandbox's own base when it points inside the upstream's, and dropped as a violation when it
 * points anywhere else: the client is never sent elsewhere without a word.
 *
 * `sent` is the target the upstream got after its base path (`/pets?limit=5`); `basePath` the
 * sandbox's own (`/v1`).
 */
export function relayed(
  operation: OperationId,
  answer: PlainAnswer,
  upstream: Upstream,
  sent: string,
  basePath: string,
  /** The body's check when it was made already (in slices, for a large answer). */
  checked?: Violations,
): { response: CoreResponse; violations: Violations } {
  const { label } = upstream
  const refuse = (why: string) => new ApiError('bad_gateway', `The upstream ${label} answered ${operation} ${why}`)
  const { status } = answer
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    throw refuse(
      status >= 100 && status < 200
        ? `with status ${status}, an interim status, where a final one was due`
        : `with status ${status}, which is no HTTP status (RFC 9110: 100 to 599)`,
    )
  }
  const coding = answer.headers['content-encoding']
  if (coding !== undefined && contentCodings(coding).length > 0) {
    throw refuse(`with Content-Encoding ${cut(coding.trim())}, though asked for identity`)
  }
  // A transfer coding the transport does not undo (gzip, chunked) would reach the client still coded.
  const transfer = answer.headers['transfer-encoding']
  if (transfer !== undefined && contentCodings(transfer).some((name) => name !== 'chunked')) {
    throw refuse(`with Transfer-Encoding ${cut(transfer.trim())}, a coding the sandbox does not undo`)
  }
  // The relay's own problems come first, so the bound never hides one behind the body's.
  const own: string[] = []
  const headers: Record<string, string> = {}
  for (const name in PASSED_BACK) {
    const value = answer.headers[name]
    if (value === undefined) continue
    if (!FIELD_VALUE.test(value))
      throw refuse(`with a ${PASSED_BACK[name]} header holding a character no HTTP field may`)
    if (name === 'location') {
      const moved =
        answer.repeated?.includes(name) === true
          ? { problem: 'Location came more than once; none was passed on' }
          : ownLocation(value, upstream, sent, basePath)
      if (typeof moved === 'string') headers.Location = moved
      else own.push(moved.problem)
      continue
    }
    headers[PASSED_BACK[name] as string] = value
  }
  const violations = after(own, checked ?? contractViolations(operation, answer))
  headers[VIOLATIONS_HEADER] = violationCount(violations)
  headers['Content-Security-Policy'] = RELAYED_CSP
  headers['X-Content-Type-Options'] = 'nosniff'
  const body = answer.bytes ?? answer.body
  return { response: { status, headers, body: body.length === 0 ? null : body }, violations }
}

/** A header value for a message, cut at 40 characters: an upstream's value is bounded only by its parser. */
function cut(value: string): string {
  return value.length > 40 ? `${value.slice(0, 37)}...` : value
}

/** What a field value may hold (RFC 9110 section 5.5, and Node's own check before writing one). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/

/**
 * An upstream Location as the client gets it: the same place under the sandbox's base path (so
 * following it comes back through the sandbox), or a problem when it points outside the
 * upstream's base URL or is no URI reference. The upstream's own path is never shown.
 */
function ownLocation(
  location: string,
  upstream: Upstream,
  sent: string,
  basePath: string,
): string | { problem: string } {
  const origin = new URL(upstream.label).origin
  const from = `${origin}${upstream.basePath}${sent}`
  if (!URL.canParse(location, from)) return { problem: 'Location is no URI reference; it was not passed on' }
  const target = new URL(location, from)
  const { pathname } = target
  if (target.origin === origin && (pathname === upstream.basePath || pathname.startsWith(`${upstream.basePath}/`))) {
    return `${basePath}${pathname.slice(upstream.basePath.length)}${target.search}`
  }
  const where = target.origin === origin ? 'a path outside its base URL' : preview(target.origin, 80)
  return { problem: `Location points outside the upstream's base URL, to ${where}; it was not passed on` }
}

/**
 * The refusal for a path parameter that a server or proxy on the way could read as path
 * structure, once it decodes it: a slash or backslash, raw or encoded (`\\`, `%2F`, `%5C`); a dot
 * segment (`..`, `%2e%2e`, `.%2E`), with spaces around it (`%20..`) or parameters after it (`..;`);
 * a `;`, `?` or `#` that ends a segment or the path; a control character; or anything beyond
 * ASCII (overlong `%c0%ae`, full-width dots that NFKC makes `.`, IIS's `%u002e`), however many
 * times encoded (`%252e`). RFC 3986 keeps `/pets/%2e%2e%2f` under `/pets/`, but a server that
 * decodes before routing, or splits on `\\` as Node's URL and browsers do, climbs out of it. No
 * int64 id holds any of these, and the sandbox's own getPet refuses them too (400, petId must be
 * an integer): a forwarded one is refused before anything is sent. Anything else, a name with a
 * space in it say, is the upstream's to judge.
 */
export function climbingParameter(params: Readonly<Record<string, string>>): ApiError | undefined {
  for (const name in params) {
    const raw = params[name] as string
    // The raw text and up to four decodings of it, each layer judged: %25252e is %2e three decodings on.
    let value = raw
    for (let layer = 0; layer <= 4; layer++) {
      if (readsAsPath(value)) {
        return new ApiError(
          'invalid_parameter',
          `${name} ${preview(raw, 80)} holds a slash, a dot segment or a character a server may read as part of the path once it decodes it; it is not forwarded`,
        )
      }
      const decoded = decodeOnce(value)
      if (decoded === value) break
      value = decoded
    }
  }
  return undefined
}

/** Whether one layer of a parameter reads as path structure (see climbingParameter). */
function readsAsPath(value: string): boolean {
  if (/[/\\;?#]|%u/i.test(value)) return true
  // Control characters and anything past ASCII: only printable ASCII is left to the upstream.
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index)
    if (code < 0x20 || code > 0x7e) return true
  }
  return /^\.+$/.test(value.trim())
}

function decodeOnce(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    // A stray % (not an escape) stays as it is; the escapes around it are still read.
    return text.replace(/%[0-9a-fA-F]{2}/g, (escape) => String.fromCharCode(parseInt(escape.slice(1), 16)))
  }
}

/** The codings a Content-Encoding value names besides identity (which is none), in lower case. */
function contentCodings(value: string): string[] {
  return value
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
}

/** What a forwarded call needs of its sandbox: the upstream, the budgets, and the base path taken off the target. */
export interface ForwardContext {
  readonly upstream: Upstream
  readonly limits: Limits
  readonly basePath: string
  /** Forwarded requests waiting for the upstream now: the upstreamRequests budget's use. */
  readonly exchanges: { waiting: number }
  /** Large answers are checked, and recorded, one at a time (state/turns.ts). */
  readonly large: Turns
}

/** What a forwarded call leaves for its journal entry: what was sent of the body, whether it went, and the answer's violations. */
export interface ForwardRecord {
  readonly seen: { body: unknown; bytes: number }
  sent: boolean
  violations: Violations | undefined
  /** A large answer's turn (state/turns.ts), held through its check and its recording; given back at the finish at the latest. */
  turn: Release | undefined
}

/**
 * The forwarding stage of an API call: the body as it came (within the operation's cap), the
 * target without the base path, sent to the upstream in place of running the operation. The
 * answer is relayed and checked against the interface document (relayed); no answer is a 502,
 * or a 504 past upstreamTimeoutMs; past upstreamRequests waiting at once, a 503 and nothing sent.
 */
export async function forward(
  context: ForwardContext,
  operation: OperationSpec & { readonly id: OperationId },
  request: CoreRequest,
  target: Target,
  read: BodyRead | undefined,
  record: ForwardRecord,
): Promise<CoreResponse> {
  const { upstream, limits } = context
  let body: Uint8Array | null = null
  if (operation.body === undefined) {
    // No body is sent on: it is judged as for the sandbox's own.
    await checkUnusedBody(request, limits)
  } else if (read !== undefined) {
    const bytes = checkWithinCap(read, capOf(operation, limits))
    if (read.body !== null) {
      body = bytes
      record.seen.bytes = bytes.byteLength
      record.seen.body = journalBody(bytes)
    }
  }
  const rest = target.path.slice(context.basePath.length)
  const onward = target.query === '' ? rest : `${rest}?${target.query}`
  const sent = upstreamRequest(request, onward, body, upstream, limits)
  // Gone while its unused body was read: nothing is sent for no one. (Gone during a delay or a
  // scenario's wait, the call never gets here: api-way.ts's leftDuring refuses it first.)
  if (request.signal?.aborted === true) throw upstreamFailed(CALLED_OFF, operation.id, upstream.label, limits)
  // Held until the exchange ends, answered or not: each holds a socket and up to upstreamBodyBytes.
  const { exchanges } = context
  if (exchanges.waiting >= limits.upstreamRequests) throw upstreamBusy(limits)
  exchanges.waiting++
  record.sent = true
  let answer: PlainAnswer
  try {
    answer = await upstream.send(sent)
  } catch (error) {
    throw upstreamFailed(error, operation.id, upstream.label, limits)
  } finally {
    exchanges.waiting--
  }
  // A large answer (upstreamBodyBytes raised) is checked in slices: the other clients are answered
  // meanwhile. The check gives the same violations either way.
  const size = answer.bytes?.byteLength ?? answer.body.length
  let checked: Violations | undefined
  if (size >= SLICED_FROM_LENGTH) {
    record.turn = await context.large.take()
    checked = await contractViolationsInSlices(operation.id, answer, limits.contractProblems, pause)
  }
  const { response, violations } = relayed(operation.id, answer, upstream, onward, context.basePath, checked)
  record.violations = violations
  return response
}

/** A forward whose client left before it was sent: answered as one called off mid-exchange. */
const CALLED_OFF = new UpstreamFailure('aborted', 'the client left before the request was sent')

/**
 * A forwarded body as the journal keeps it: read by the sandbox's own JSON reader (within the
 * jsonDepth budget, numbers as written), as its own bodies are, else its text, which the body's
 * cap bounds. JSON.parse would take 8,000 nested arrays in a 16 KiB body, and every later read
 * of the journal would then overflow the stack in JSON.stringify.
 */
function journalBody(bytes: Uint8Array): unknown {
  const text = new TextDecoder().decode(bytes)
  const reading = readJson(text, 'body')
  return reading.ok ? reading.value : text
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
