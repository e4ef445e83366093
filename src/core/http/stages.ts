/**
 * The request's way, declared once: every stage in the order it runs, with the Error codes it may
 * answer (and for which rows of the route table), the headers those answers carry, the headers it
 * sets on others, what it decides (`says`) and the file of its rule. dispatch.ts runs
 * DISPATCH_STAGES, api-call.ts API_STAGES and admin-call.ts ADMIN_STAGES, each stage by its name.
 * answers.ts reads this list for the codes and headers of each row, which the OpenAPI documents
 * and CORS read in turn; the list in docs/architecture.md is written from it
 * (docs/stage-list.ts, `npm run docs:stages`), and test/stages-declared.test.ts fails while it is
 * not current. A stage whose rule lives in core/http declares itself beside its check (head.ts,
 * body.ts, unparsable.ts) and is only placed here: a new check is its rule and a code in that
 * module, and the documents follow. The others are declared here: their rules live above
 * core/http (api-admission.ts, api-way.ts, api-answer.ts, keep.ts, state/, api/, admin/,
 * admin-call.ts, upstream.ts, dispatch.ts), which this folder may not import; and preflight's and
 * complete's modules (cors.ts, complete.ts) read answers.ts, which reads this list, so declaring
 * them there would be an import cycle.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { ADMIN_BODY_STAGE, BODY_HEAD_STAGE, BODY_STAGE, readsBody } from './body.js'
import { HEAD_STAGE } from './head.js'
import { RETRY, type ErrorHeaders, type Stage, type StageAnswer } from './stage.js'
import type { OperationSpec } from './routes.js'
import { PARSE_STAGE } from './unparsable.js'

export type { ErrorHeaders, Stage, StageAnswer } from './stage.js'

/** A path no row answers: what a 404 or a preflight is about. No row documents it. */
const noRow = (): boolean => false
const simulated = (operation: OperationSpec) => operation.simulated === true
const keyed = (operation: OperationSpec) => operation.key !== 'none'

const CHALLENGE = { unauthorized: { 'WWW-Authenticate': 'always' } } as const
const ALLOW = { method_not_allowed: { Allow: 'always' } } as const

/** The failures the sandbox simulates (state/scenarios.ts's simulatedFailure), on the pet operations. */
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
  PARSE_STAGE,
  HEAD_STAGE,
  {
    name: 'area',
    says: ['the API (on its origin, when baseUrl names one),', '/__sandbox, or the site'],
    file: 'dispatch.ts',
    answers: [],
  },
  {
    name: 'preflight',
    says: ['(server) OPTIONS: 204 from the route table'],
    file: 'http/cors.ts',
    unrouted: true,
    answers: [{ codes: ['forbidden'], when: noRow }],
  },
  { name: 'ready', says: ['the seed loaded (a generated one loads faker)'], file: 'dispatch.ts', answers: [] },
  { name: 'call', says: ["the API's stages, or the admin routes' (below)"], file: 'dispatch.ts', answers: [] },
  // A failure of the sandbox's own, at any stage, is answered 500 (http/http.ts failureAnswer, from dispatch.ts); complete runs over it.
  {
    name: 'complete',
    says: ['nosniff, HEAD, (server) CORS; a failure of the', "sandbox's own at any stage answers 500"],
    file: 'http/complete.ts',
    unrouted: true,
    answers: [{ codes: ['internal_error'] }],
  },
]

/** An API request, the `call` stage under the base path: api-call.ts. */
export const API_STAGES: readonly Stage[] = [
  {
    name: 'key',
    says: ["the row's key: required, optional or none"],
    file: 'api-admission.ts',
    answers: [{ codes: ['unauthorized'], when: keyed }],
    errorHeaders: CHALLENGE,
  },
  {
    name: 'route',
    says: ['the row and method; a forwarded parameter that', 'climbs'],
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
  BODY_HEAD_STAGE,
  {
    name: 'tenant',
    says: ["the key's data, held to the answer (tenants cap)"],
    file: 'state/tenants.ts',
    answers: [{ codes: ['service_unavailable'], when: (operation) => operation.petData === true }],
    errorHeaders: { service_unavailable: RETRY },
  },
  {
    name: 'hold',
    says: ['a hold catches the call (heldRequests)'],
    file: 'state/hold-book.ts',
    answers: [{ codes: ['service_unavailable'], when: simulated }],
    errorHeaders: { service_unavailable: RETRY },
  },
  BODY_STAGE,
  { name: 'delay', says: ['--delay, refusals included'], file: 'api-way.ts', answers: [{ codes: ['bad_request'] }] },
  {
    // A client gone while held (400), or the failure a release names.
    name: 'wait',
    says: ['the hold, until a test releases it'],
    file: 'api-way.ts',
    answers: [{ codes: ['bad_request'], when: simulated }, SIMULATED_FAILURES],
    errorHeaders: SIMULATED_HEADERS,
  },
  {
    // A Prefer it cannot honour (400), or the failure a scenario, Prefer or the failure rate names.
    name: 'simulate',
    says: ['scenarios, Prefer, the failure rate'],
    file: 'state/scenarios.ts',
    answers: [{ codes: ['invalid_parameter'], when: simulated }, SIMULATED_FAILURES],
    errorHeaders: SIMULATED_HEADERS,
    sets: { names: ['Preference-Applied'], when: simulated },
  },
  {
    name: 'forward',
    says: ['(--upstream) the upstream answers'],
    file: 'upstream.ts',
    answers: [{ codes: ['bad_gateway', 'gateway_timeout', 'service_unavailable'], when: simulated }],
    errorHeaders: { service_unavailable: RETRY },
    sets: { names: [VIOLATIONS_HEADER, 'Content-Security-Policy'], when: simulated },
  },
  // Or the operation itself: its own errors (the row's `errors`), and its JSON body's (http/json-body.ts's, through body.ts's jsonBodyOf).
  {
    name: 'operation',
    says: ["or the operation, over the tenant's data, and", 'its own errors'],
    file: 'api/operations.ts',
    answers: [{ codes: ['unsupported_media_type', 'payload_too_large', 'invalid_body'], when: readsBody }],
  },
  { name: 'keep', says: ["(--record) a forwarded answer's pets, kept"], file: 'keep.ts', answers: [] },
  {
    name: 'commit',
    says: ['(--state-file) a change on disk before its', 'answer'],
    file: 'commit.ts',
    answers: [{ codes: ['insufficient_storage'], when: (operation) => operation.writes === true }],
  },
  {
    name: 'finish',
    says: ['its headers, the counters, the journal, the', 'events'],
    file: 'api-answer.ts',
    answers: [],
  },
]

/** A request to the admin routes or the site, the `call` stage elsewhere: admin-call.ts. */
export const ADMIN_STAGES: readonly Stage[] = [
  {
    name: 'gate',
    says: ['(server) a page from another site'],
    file: 'admin/gate.ts',
    unrouted: true,
    answers: [{ codes: ['forbidden'] }],
  },
  {
    name: 'route',
    says: ['the row and method'],
    file: 'admin-call.ts',
    unrouted: true,
    answers: [{ codes: ['not_found'], when: noRow }, { codes: ['method_not_allowed'] }],
    errorHeaders: ALLOW,
  },
  {
    name: 'admit',
    says: ["another machine's key; a key sent; ?tenant="],
    file: 'admin/gate.ts',
    answers: [
      { codes: ['unauthorized'], when: keyed },
      // `?tenant=`, a handle that may not exist.
      { codes: ['invalid_parameter'], when: (operation) => operation.key === 'optional' },
    ],
    errorHeaders: CHALLENGE,
  },
  ADMIN_BODY_STAGE,
  {
    // The control: its own errors (the row's `errors`), and a new key's tenant past the cap.
    name: 'control',
    says: ['the control, and its own errors'],
    file: 'admin/controls.ts',
    answers: [{ codes: ['service_unavailable'], when: (operation) => operation.makesTenant === true }],
    errorHeaders: { service_unavailable: RETRY },
  },
  {
    name: 'commit',
    says: ['(--state-file) a change on disk before its', 'answer'],
    file: 'commit.ts',
    answers: [{ codes: ['insufficient_storage'], when: (operation) => operation.writes === true }],
  },
]
