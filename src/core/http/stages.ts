/**
 * The request's way, declared once: every stage in the order it runs, with the Error codes it may
 * answer (and for which rows of the route table), the headers those answers carry, and the
 * headers it sets on others. dispatch.ts runs DISPATCH_STAGES, api-call.ts API_STAGES and
 * admin-call.ts ADMIN_STAGES, each stage by its name.
 * answers.ts reads this list for the codes and headers of each row, which the OpenAPI documents
 * and CORS read in turn; the list in docs/architecture.md is held to it by
 * test/stages-declared.test.ts. A new check is a stage's rule in its file and a code here: the
 * documents follow.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import type { ErrorCode } from './errors.js'
import type { OperationSpec } from './routes.js'

/** Header names per Error code: on every such answer (`always`), or on some (`sometimes`). */
export type ErrorHeaders = Readonly<Partial<Record<ErrorCode, Readonly<Record<string, 'always' | 'sometimes'>>>>>

/** Codes a stage may answer, for the rows `when` picks (every row when left out). */
export interface StageAnswer {
  readonly codes: readonly ErrorCode[]
  readonly when?: (operation: OperationSpec) => boolean
}

export interface Stage {
  readonly name: string
  /** Where its rule lives, from src/core. */
  readonly file: string
  /** Run by the adapter before the core sees the request (a server's parser), not by the dispatcher. */
  readonly by?: 'adapter'
  /**
   * It may answer before the operation is known (a bad head, a path or method no row takes, a
   * failure of the sandbox's own): such an answer carries none of the operation's own headers.
   */
  readonly unrouted?: boolean
  readonly answers: readonly StageAnswer[]
  /** Headers its Error answers carry, per code: `always`, or `sometimes` (a 415 says Accept-Encoding for a content coding only). */
  readonly errorHeaders?: ErrorHeaders
  /** Headers it sets on the answers of the rows `when` picks, whatever their status. */
  readonly sets?: { readonly names: readonly string[]; readonly when: (operation: OperationSpec) => boolean }
}

/** A path no row answers: what a 404 or a preflight is about. No row documents it. */
const noRow = (): boolean => false
const readsBody = (operation: OperationSpec) => operation.body !== undefined
const simulated = (operation: OperationSpec) => operation.simulated === true
const keyed = (operation: OperationSpec) => operation.key !== 'none'
const largeBody = (operation: OperationSpec) => operation.body?.limit === 'stateBytes'

const CHALLENGE = { unauthorized: { 'WWW-Authenticate': 'always' } } as const
const ALLOW = { method_not_allowed: { Allow: 'always' } } as const
const RETRY = { 'Retry-After': 'always' } as const

/** The failures the sandbox simulates (admin/scenarios.ts's simulatedFailure), on the pet operations. */
const SIMULATED_FAILURES: StageAnswer = {
  codes: ['unauthorized', 'too_many_requests', 'internal_error', 'service_unavailable'],
  when: simulated,
}
const SIMULATED_HEADERS: ErrorHeaders = { ...CHALLENGE, too_many_requests: RETRY, service_unavailable: RETRY }

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

/** Every request, before any area: dispatch.ts. */
export const DISPATCH_STAGES: readonly Stage[] = [
  {
    // The server's parser, before the core sees a request: a timeout, headers past its limit, no HTTP.
    name: 'parse',
    file: 'http/unparsable.ts',
    by: 'adapter',
    unrouted: true,
    answers: [{ codes: ['request_timeout', 'headers_too_large', 'bad_request'] }],
  },
  {
    name: 'head',
    file: 'http/head.ts',
    unrouted: true,
    answers: [{ codes: ['bad_request', 'forbidden', 'uri_too_long', 'expectation_failed', 'not_implemented'] }],
  },
  { name: 'area', file: 'dispatch.ts', answers: [] },
  { name: 'preflight', file: 'http/cors.ts', unrouted: true, answers: [{ codes: ['forbidden'], when: noRow }] },
  { name: 'ready', file: 'dispatch.ts', answers: [] },
  { name: 'call', file: 'dispatch.ts', answers: [] },
  // A failure of the sandbox's own, at any stage, leaves here as a 500.
  { name: 'complete', file: 'http/complete.ts', unrouted: true, answers: [{ codes: ['internal_error'] }] },
]

/** An API request, the `call` stage under the base path: api-call.ts. */
export const API_STAGES: readonly Stage[] = [
  {
    name: 'key',
    file: 'api-admission.ts',
    answers: [{ codes: ['unauthorized'], when: keyed }],
    errorHeaders: CHALLENGE,
  },
  {
    name: 'route',
    file: 'api-admission.ts',
    unrouted: true,
    answers: [
      { codes: ['not_found'], when: noRow },
      { codes: ['method_not_allowed'] },
      // A forwarded path parameter that climbs out of its segment.
      { codes: ['bad_request'], when: simulated },
    ],
    errorHeaders: ALLOW,
  },
  {
    name: 'body-head',
    file: 'http/body.ts',
    answers: [{ codes: ['payload_too_large'] }, { codes: ['unsupported_media_type'], when: readsBody }],
    errorHeaders: { unsupported_media_type: { 'Accept-Encoding': 'sometimes' } },
  },
  {
    name: 'tenant',
    file: 'admin/tenants.ts',
    answers: [{ codes: ['service_unavailable'], when: (operation) => operation.petData === true }],
    errorHeaders: { service_unavailable: RETRY },
  },
  {
    name: 'hold',
    file: 'admin/holds.ts',
    answers: [{ codes: ['service_unavailable'], when: simulated }],
    errorHeaders: { service_unavailable: RETRY },
  },
  {
    name: 'body',
    file: 'http/body.ts',
    answers: [
      { codes: ['bad_request', 'payload_too_large', 'invalid_body'], when: readsBody },
      { codes: ['service_unavailable'], when: largeBody },
    ],
    errorHeaders: { service_unavailable: RETRY },
  },
  { name: 'delay', file: 'api-way.ts', answers: [{ codes: ['bad_request'] }] },
  {
    // A client gone while held (400), or the failure a release names.
    name: 'wait',
    file: 'admin/holds.ts',
    answers: [{ codes: ['bad_request'], when: simulated }, SIMULATED_FAILURES],
    errorHeaders: SIMULATED_HEADERS,
  },
  {
    // A Prefer it cannot honour (400), or the failure a scenario, Prefer or the failure rate names.
    name: 'simulate',
    file: 'admin/scenarios.ts',
    answers: [{ codes: ['invalid_parameter'], when: simulated }, SIMULATED_FAILURES],
    errorHeaders: SIMULATED_HEADERS,
    sets: { names: ['Preference-Applied'], when: simulated },
  },
  {
    name: 'forward',
    file: 'upstream.ts',
    answers: [{ codes: ['bad_gateway', 'gateway_timeout', 'service_unavailable'], when: simulated }],
    errorHeaders: { service_unavailable: RETRY },
    sets: { names: [VIOLATIONS_HEADER, 'Content-Security-Policy'], when: simulated },
  },
  // Or the operation itself: its own errors (the row's `errors`), and its JSON body's.
  {
    name: 'operation',
    file: 'api/operations.ts',
    answers: [{ codes: ['unsupported_media_type', 'payload_too_large', 'invalid_body'], when: readsBody }],
  },
  { name: 'keep', file: 'keep.ts', answers: [] },
  { name: 'record', file: 'admin/recording.ts', answers: [] },
]

/** A request to the admin routes or the site, the `call` stage elsewhere: admin-call.ts. */
export const ADMIN_STAGES: readonly Stage[] = [
  { name: 'gate', file: 'admin/gate.ts', unrouted: true, answers: [{ codes: ['forbidden'] }] },
  {
    name: 'route',
    file: 'admin-call.ts',
    unrouted: true,
    answers: [{ codes: ['not_found'], when: noRow }, { codes: ['method_not_allowed'] }],
    errorHeaders: ALLOW,
  },
  {
    name: 'admit',
    file: 'admin/gate.ts',
    answers: [
      { codes: ['unauthorized'], when: keyed },
      // `?tenant=`, a handle that may not exist.
      { codes: ['invalid_parameter'], when: (operation) => operation.key === 'optional' },
    ],
    errorHeaders: CHALLENGE,
  },
  {
    name: 'body',
    file: 'http/body.ts',
    answers: [
      { codes: ['payload_too_large'] },
      { codes: ['unsupported_media_type', 'bad_request', 'invalid_body'], when: readsBody },
      { codes: ['service_unavailable'], when: largeBody },
    ],
    errorHeaders: { unsupported_media_type: { 'Accept-Encoding': 'sometimes' }, service_unavailable: RETRY },
  },
  {
    // The control: its own errors (the row's `errors`), and a new key's tenant past the cap.
    name: 'control',
    file: 'admin/controls.ts',
    answers: [{ codes: ['service_unavailable'], when: (operation) => operation.makesTenant === true }],
    errorHeaders: { service_unavailable: RETRY },
  },
]
