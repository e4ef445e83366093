/**
 * What the stages (stages.ts) can answer around an operation, read off their declaration: the
 * Error codes a row can meet, given what the row says, and the headers those answers carry. The
 * OpenAPI documents list these answers and CORS exposes these headers, both from here, so a new
 * check is a code on its stage, not three lists to keep in step.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { ApiError, type ErrorCode } from './errors.js'
import type { Area, OperationSpec } from './routes.js'
import { ADMIN_STAGES, API_STAGES, DISPATCH_STAGES, type ErrorHeaders, type Stage } from './stages.js'

const API_WAY = [...DISPATCH_STAGES, ...API_STAGES]
const ADMIN_WAY = [...DISPATCH_STAGES, ...ADMIN_STAGES]
const EVERY_STAGE = [...DISPATCH_STAGES, ...API_STAGES, ...ADMIN_STAGES]

/** The stages a row of this area meets, in order: every request's, then its call's. */
function stagesOf(area: Area): readonly Stage[] {
  return area === 'api' ? API_WAY : ADMIN_WAY
}

/** The codes answered before the operation is known (stages.ts's `unrouted` stages). */
const BEFORE_ROUTING: ReadonlySet<ErrorCode> = new Set(
  EVERY_STAGE.filter((stage) => stage.unrouted === true).flatMap((stage) =>
    stage.answers.flatMap((answer) => answer.codes),
  ),
)

/** Whether an answer with this code may come before the operation is known: without its own headers. */
export function answeredBeforeRouting(code: ErrorCode): boolean {
  return BEFORE_ROUTING.has(code)
}

/**
 * The headers an Error answer with this code carries, by name: `always`, or `sometimes` (a 415
 * says Accept-Encoding for a body sent with a content coding, not for a wrong Content-Type). What
 * the stages declare, gathered by code.
 */
export const ERROR_HEADERS: ErrorHeaders = gatherErrorHeaders(EVERY_STAGE)

function gatherErrorHeaders(stages: readonly Stage[]): ErrorHeaders {
  const gathered: Partial<Record<ErrorCode, Record<string, 'always' | 'sometimes'>>> = {}
  for (const stage of stages) {
    for (const [code, names] of Object.entries(stage.errorHeaders ?? {})) {
      gathered[code as ErrorCode] = { ...gathered[code as ErrorCode], ...names }
    }
  }
  return gathered
}

/**
 * Every Error code an operation can answer: its own, then its stages' given its row, those that
 * may come before the operation is known first.
 */
export function errorCodesOf(operation: OperationSpec, area: Area): Set<ErrorCode> {
  const codes = new Set<ErrorCode>(operation.errors)
  const stages = stagesOf(area)
  for (const unrouted of [true, false]) {
    for (const stage of stages) {
      if ((stage.unrouted === true) !== unrouted) continue
      for (const answer of stage.answers) {
        if (answer.when === undefined || answer.when(operation)) for (const code of answer.codes) codes.add(code)
      }
    }
  }
  return codes
}

/** Every response header an operation's answers can carry: its row's, its errors', and what its stages set. */
export function responseHeadersOf(operation: OperationSpec, area: Area): Set<string> {
  const names = new Set<string>(Object.keys(operation.headers ?? {}))
  for (const success of operation.success) for (const name of Object.keys(success.headers ?? {})) names.add(name)
  for (const code of errorCodesOf(operation, area)) {
    for (const name of Object.keys(ERROR_HEADERS[code] ?? {})) names.add(name)
  }
  for (const stage of stagesOf(area)) {
    if (stage.sets?.when(operation) === true) for (const name of stage.sets.names) names.add(name)
  }
  return names
}

/** The request headers some operation reads besides Host and Origin: what a preflight must allow. */
export function requestHeadersOf(operations: readonly OperationSpec[]): string[] {
  return [
    ...(operations.some((operation) => operation.key !== 'none') ? ['Authorization'] : []),
    ...(operations.some((operation) => operation.body !== undefined) ? ['Content-Type'] : []),
    ...(operations.some((operation) => operation.simulated === true) ? ['Prefer'] : []),
  ]
}

/** The 405 of a method a route does not answer, with the Allow it does. */
export function methodNotAllowed(method: string, path: string, allow: string): ApiError {
  return new ApiError('method_not_allowed', `${method} is not allowed on ${path}; allowed: ${allow}`, { Allow: allow })
}
