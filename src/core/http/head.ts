/**
 * Head checks: what every request meets before any route, decided from its request line and
 * headers alone, each a JSON Error: TRACE and CONNECT (501), the target's length (414) and form
 * (400), the headers a request may carry once (400), on a server the Host and every other name
 * the request gives for it (400, 403 against DNS rebinding), a transfer coding other than chunked
 * (501), and an Expect other than 100-continue (417).
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { ApiError } from './errors.js'
import { authorityOf, forwardedHost } from './forwarded.js'
import { header, type CoreRequest, type Surface } from './http.js'
import { isHostAllowed, readHost, type AllowedHosts } from './local.js'
import type { Stage } from './stage.js'
import { parseTarget, targetTooLong, type Target } from './target.js'
import type { Limits } from '../limits.js'

/** The head stage, as http/stages.ts lists it: every code the checks below may answer, before any route. */
export const HEAD_STAGE: Stage = {
  name: 'head',
  says: ['TRACE/CONNECT, the target, headers sent twice,', '(server) Host, Transfer-Encoding, Expect'],
  file: 'http/head.ts',
  unrouted: true,
  answers: [{ codes: ['bad_request', 'forbidden', 'uri_too_long', 'expectation_failed', 'not_implemented'] }],
}

/** Headers a request may carry once: a second one would let two readers see two requests (RFC 9110, 9112). */
export const SINGLE_HEADERS = ['host', 'content-length', 'content-type', 'authorization'] as const
const HEADER_NAMES: Readonly<Record<(typeof SINGLE_HEADERS)[number], string>> = {
  host: 'Host',
  'content-length': 'Content-Length',
  'content-type': 'Content-Type',
  authorization: 'Authorization',
}

const UNSUPPORTED_METHODS = new Set(['TRACE', 'CONNECT'])

export interface HeadRules {
  readonly surface: Surface
  readonly limits: Limits
  /** Server: Host names allowed besides local names and IP literals, or `all`. */
  readonly allowedHosts: AllowedHosts
  /** Server: believe a proxy's Forwarded or X-Forwarded-Host, which must then pass the Host rule too. */
  readonly trustProxy: boolean
}

/** The request's target, read; or the refusal of its head. */
export type Head = { readonly target: Target; readonly refusal?: undefined } | { readonly refusal: ApiError }

/**
 * The head checks of one sandbox. Clients send the same Host on every request: the last one that
 * passed is kept, and not parsed again.
 */
export function createHeadCheck(rules: HeadRules): (request: CoreRequest) => Head {
  const hosts = createHostCheck(rules)
  return (request) => {
    // Before the target: CONNECT's is an authority (host:port), which is no path.
    if (UNSUPPORTED_METHODS.has(request.method)) {
      return { refusal: new ApiError('not_implemented', `The ${request.method} method is not supported`) }
    }
    const tooLong = targetTooLong(request.target, rules.limits)
    if (tooLong !== undefined) return { refusal: tooLong }
    const target = parseTarget(request.target)
    if (target === undefined) {
      return {
        refusal: new ApiError(
          'bad_request',
          `Request target ${JSON.stringify(request.target)} is not a path or an absolute URL`,
        ),
      }
    }
    const refusal =
      repeatedHeaders(request) ??
      (rules.surface === 'server' ? hosts(request, target) : undefined) ??
      transferCoding(request) ??
      expectation(request)
    return refusal === undefined ? { target } : { refusal }
  }
}

function repeatedHeaders(request: CoreRequest): ApiError | undefined {
  const repeated = SINGLE_HEADERS.filter((name) => Array.isArray(request.headers[name]))
  if (repeated.length === 0) return undefined
  return new ApiError(
    'bad_request',
    repeated
      .map(
        (name) =>
          `the ${HEADER_NAMES[name]} header must be sent once, got ${(request.headers[name] as string[]).length}`,
      )
      .join('; '),
  )
}

function transferCoding(request: CoreRequest): ApiError | undefined {
  const coding = header(request.headers, 'transfer-encoding')
  if (coding === undefined || coding.trim().toLowerCase() === 'chunked') return undefined
  return new ApiError(
    'not_implemented',
    `Transfer-Encoding ${JSON.stringify(coding)} is not supported: send the body with Content-Length, or with Transfer-Encoding: chunked alone`,
  )
}

function expectation(request: CoreRequest): ApiError | undefined {
  const expect = header(request.headers, 'expect')
  if (expect === undefined || expect.trim().toLowerCase() === '100-continue') return undefined
  return new ApiError(
    'expectation_failed',
    `Expect ${JSON.stringify(expect)} cannot be met: the sandbox meets Expect: 100-continue only`,
  )
}

/**
 * The server's Host rules: present on HTTP/1.1, and each name the request gives for the server
 * allowed: the Host header, an absolute-form target's authority (RFC 9112 section 3.2.2), and
 * with trustProxy the forwarded host.
 */
function createHostCheck(rules: HeadRules): (request: CoreRequest, target: Target) => ApiError | undefined {
  let lastGoodHost: string | undefined

  /** One Host value's rules: well formed, and allowed (against DNS rebinding). */
  const checkValue = (host: string, what: string, malformed = what): ApiError | undefined => {
    if (host === lastGoodHost) return undefined
    // A slash, query or credentials in Host would parse as a URL with the rest moved into its path.
    if (/[\s/?#@\\]/.test(host) || !URL.canParse(`http://${host}`)) {
      return new ApiError('bad_request', `${malformed} ${JSON.stringify(host)} is not a valid host`)
    }
    if (!isHostAllowed(host, rules.allowedHosts)) {
      const read = readHost(host)
      const name = read.kind === 'name' ? read.name : host
      return new ApiError(
        'forbidden',
        `${what} ${JSON.stringify(host)} is not allowed: the sandbox answers local names and IP addresses only. ` +
          `To reach it as ${name}, start it with --allowed-host ${name} (or PETSTORE_ALLOWED_HOSTS=${name})`,
      )
    }
    lastGoodHost = host
    return undefined
  }

  return (request, target) => {
    const host = header(request.headers, 'host')
    if (host === undefined && request.httpVersion !== '1.0') {
      return new ApiError('bad_request', 'An HTTP/1.1 request must carry a Host header (RFC 9112)')
    }
    // HTTP/1.0 has no Host: load balancers' health checks still pass.
    const refusal =
      (host === undefined ? undefined : checkValue(host, 'Host', 'Host header')) ??
      (target.origin === undefined ? undefined : checkValue(authorityOf(target.origin), "The target's host"))
    if (refusal !== undefined || !rules.trustProxy) return refusal
    const forwarded = forwardedHost(request)
    return forwarded === undefined ? undefined : checkValue(forwarded, 'The forwarded host')
  }
}
