/**
 * What the dispatcher and its stages (dispatch.ts) can answer around an operation, said once: the Error codes each
 * check produces, given what the route's row says, and the headers each such answer carries. The
 * OpenAPI document lists these answers and CORS exposes these headers, both from here, so a new
 * check in the pipeline is one row below, not three lists to keep in step.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { ApiError, type ErrorCode } from './errors.js'
import type { OperationSpec } from './routes.js'

/**
 * Codes the pipeline can answer before it knows the operation: such an answer carries none of
 * the operation's own headers (getPet's Deprecation, Sunset and Link).
 */
const BEFORE_ROUTING: readonly ErrorCode[] = [
  'bad_request',
  'forbidden',
  'method_not_allowed',
  'request_timeout',
  'uri_too_long',
  'expectation_failed',
  'headers_too_large',
  'internal_error',
  'not_implemented',
]

/** Whether an answer with this code may come before the operation is known. */
export function answeredBeforeRouting(code: ErrorCode): boolean {
  return BEFORE_ROUTING.includes(code)
}

/** One of the pipeline's answers: the codes it uses, for which rows, with which headers. */
interface PipelineAnswer {
  readonly codes: readonly ErrorCode[]
  /** The rows it applies to; every row when left out. */
  readonly when?: (operation: OperationSpec) => boolean
}

const readsBody = (operation: OperationSpec) => operation.body !== undefined
const simulated = (operation: OperationSpec) => operation.simulated === true

const PIPELINE_ANSWERS: readonly PipelineAnswer[] = [
  // Before any route: the request line and headers (a bad target, a header sent twice, a Host
  // not allowed, a Transfer-Encoding or Expect the sandbox cannot meet), what Node's parser
  // could not read (unparsable.ts), a method the route lacks, a failure of the sandbox itself.
  { codes: BEFORE_ROUTING },
  // A body over its route's budget, read or declared.
  { codes: ['payload_too_large'] },
  { codes: ['unauthorized'], when: (operation) => operation.key !== 'none' },
  // Admin routes scope by `?tenant=`, a handle that may not exist.
  { codes: ['invalid_parameter'], when: (operation) => operation.key === 'optional' },
  { codes: ['invalid_body', 'unsupported_media_type'], when: readsBody },
  // One large body at a time (largeBodies); a new key past the tenants cap while all are busy.
  { codes: ['service_unavailable'], when: (operation) => operation.body?.limit === 'stateBytes' },
  { codes: ['service_unavailable'], when: (operation) => operation.petData === true || operation.makesTenant === true },
  // Prefer with a value the sandbox cannot honour, and the failures scenarios simulate.
  {
    codes: ['invalid_parameter', 'unauthorized', 'too_many_requests', 'internal_error', 'service_unavailable'],
    when: simulated,
  },
  // A forwarded operation (--upstream) whose upstream gave no answer, or none within its budget.
  { codes: ['bad_gateway', 'gateway_timeout'], when: simulated },
]

/**
 * On an answer relayed from the upstream (--upstream): how many ways it breaks the interface
 * document (`0`, `3`, or `20+` past the contractProblems budget). Such an answer is the
 * upstream's own, status and body.
 */
export const VIOLATIONS_HEADER = 'Sandbox-Contract-Violations'

/**
 * On an answer relayed from the upstream: whatever it holds (a page of HTML, a script) runs in no
 * origin of the sandbox's, which holds the dashboard and the admin routes.
 */
export const RELAYED_CSP = "sandbox; default-src 'none'; frame-ancestors 'none'"

/**
 * The headers an Error answer with this code carries, by name: `always`, or `sometimes` (a 415
 * says Accept-Encoding for a body sent with a content coding, not for a wrong Content-Type).
 */
export const ERROR_HEADERS: Readonly<Partial<Record<ErrorCode, Readonly<Record<string, 'always' | 'sometimes'>>>>> = {
  unauthorized: { 'WWW-Authenticate': 'always' },
  method_not_allowed: { Allow: 'always' },
  unsupported_media_type: { 'Accept-Encoding': 'sometimes' },
  too_many_requests: { 'Retry-After': 'always' },
  service_unavailable: { 'Retry-After': 'always' },
}

/** Every Error code an operation can answer: its own, and the pipeline's given its row. */
export function errorCodesOf(operation: OperationSpec): Set<ErrorCode> {
  const codes = new Set<ErrorCode>(operation.errors)
  for (const answer of PIPELINE_ANSWERS) {
    if (answer.when === undefined || answer.when(operation)) for (const code of answer.codes) codes.add(code)
  }
  return codes
}

/** Every response header an operation's answers can carry: its rows', its errors', Preference-Applied and the relayed answers' count. */
export function responseHeadersOf(operation: OperationSpec): Set<string> {
  const names = new Set<string>(Object.keys(operation.headers ?? {}))
  for (const success of operation.success) for (const name of Object.keys(success.headers ?? {})) names.add(name)
  for (const code of errorCodesOf(operation)) for (const name of Object.keys(ERROR_HEADERS[code] ?? {})) names.add(name)
  if (simulated(operation)) {
    names.add('Preference-Applied')
    names.add(VIOLATIONS_HEADER)
    names.add('Content-Security-Policy')
  }
  return names
}

/** The request headers some operation reads besides Host and Origin: what a preflight must allow. */
export function requestHeadersOf(operations: readonly OperationSpec[]): string[] {
  return [
    ...(operations.some((operation) => operation.key !== 'none') ? ['Authorization'] : []),
    ...(operations.some(readsBody) ? ['Content-Type'] : []),
    ...(operations.some(simulated) ? ['Prefer'] : []),
  ]
}

/** The 405 of a method a route does not answer, with the Allow it does. */
export function methodNotAllowed(method: string, path: string, allow: string): ApiError {
  return new ApiError('method_not_allowed', `${method} is not allowed on ${path}; allowed: ${allow}`, { Allow: allow })
}
