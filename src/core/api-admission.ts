/**
 * The stages that let an API call in, each decided from the request line and headers before any
 * byte of the body is read: key, route, body-head (http/body.ts's rule), tenant, hold; then body,
 * read within its cap (a held call's judged before it waits).
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import type { Authenticate } from './api/auth.js'
import type { OperationId } from './api/contract.js'
import type { Caught } from './state/hold-book.js'
import { methodNotAllowed } from './http/answers.js'
import { capOf, checkBodyHead, checkWithinCap, jsonBodyOf, takeBody } from './http/body.js'
import { ApiError } from './http/errors.js'
import { header, type CoreRequest } from './http/http.js'
import { allowedMethods, type OperationSpec } from './http/routes.js'
import { climbingParameter } from './upstream.js'
import { routed, type ApiContext, type ApiRun, type ApiWay } from './api-way.js'

/**
 * With its own key for the upstream the sandbox is the gate; without one, the upstream judges the
 * client's credential, which the sandbox then only reads to scope scenarios and the journal.
 */
export const key: ApiRun = (way, context) => {
  const judged = !(way.forward && context.forward?.upstream.key === undefined)
  way.key = keyOfCall(way.operation?.key ?? 'required', context.authenticate, way.request, judged)
}

/**
 * The call's key, by its row's `key` (a path no row answers asks one, as every API row does, so
 * a client without a key learns nothing of the paths): `required`, 401 without a valid one;
 * `optional`, checked when sent; `none`, not read. `judged` false (a forwarded call whose client
 * the upstream judges): the key of a credential the sandbox accepts, or none, never a 401.
 */
export function keyOfCall(
  rule: OperationSpec['key'],
  authenticate: Authenticate,
  request: CoreRequest,
  judged: boolean,
): string | undefined {
  if (rule === 'none') return undefined
  const authorization = header(request.headers, 'authorization')
  if (rule === 'optional' && authorization === undefined) return undefined
  if (judged) return authenticate(authorization)
  try {
    return authenticate(authorization)
  } catch {
    return undefined
  }
}

export const route: ApiRun = (way, context) => {
  const { match, operation, request, target } = way
  if (match === undefined) {
    throw new ApiError('not_found', `${target.path} does not exist; the endpoints are ${context.endpoints}`)
  }
  if (operation === undefined) throw methodNotAllowed(request.method, target.path, allowedMethods(match.route))
  if (way.forward) {
    const climbing = climbingParameter(match.params)
    if (climbing !== undefined) throw climbing
  }
}

/**
 * What the head says of the body (413, 415) is a refusal like the others: before a hold catches
 * the call, before a tenant is held, before a byte is read.
 */
export const bodyHead: ApiRun = (way, context) => {
  checkBodyHead(way.request, routed(way), context.limits, !way.forward)
}

/** The key's data, held to the answer: a tenant is never evicted mid-request, its delays included. */
export const tenant: ApiRun = (way, context) => {
  // A forwarded call reads and writes the upstream's data: it holds no tenant.
  if (routed(way).petData === true && !way.forward && way.key !== undefined) {
    way.store = context.tenants.acquire(way.key)
  }
}

/**
 * The hold that catches the call, if one does: taken when the call arrives, so the holds' counts
 * are right at once (a test waits for `holding`); past the heldRequests budget, a 503 refusal.
 */
export const hold: ApiRun = (way, context) => {
  const operation = routed(way)
  if (operation.simulated !== true) return
  const scope = way.key === undefined ? undefined : context.tenants.of(way.key).scope
  way.held = context.holds.take(operation.id as OperationId, scope, () => way.request.signal)
}

/** The body, read within its cap; a held call's judged before it waits. */
export const body: ApiRun = (way, context) => {
  if (routed(way).body === undefined) return undefined
  return takeAndJudge(way, context)
}

async function takeAndJudge(way: ApiWay, context: ApiContext): Promise<void> {
  try {
    ;[way.read, way.release] = await takeBody(way.request, routed(way), context.limits, context.bodies)
  } catch (error) {
    way.refusal = error
  }
  if (way.held !== undefined) way.held = await judgedBeforeHold(context, way, way.held)
}

/**
 * A held call's body is judged before it waits (a chunked body past its cap, 413; one that is not
 * JSON, or not what the operation takes, 400): a call found refused is let go at once and its
 * hold reads as if it had never caught it. Answers the hold that still keeps the call, or undefined.
 */
async function judgedBeforeHold(context: ApiContext, way: ApiWay, caught: Caught): Promise<Caught | undefined> {
  const operation = routed(way)
  if (way.refusal === undefined && operation.body !== undefined) {
    try {
      if (way.forward) {
        // The upstream judges what it is sent; the sandbox, only its size.
        if (way.read !== undefined) checkWithinCap(way.read, capOf(operation, context.limits))
      } else {
        const spec = { ...operation, body: operation.body }
        const value = await jsonBodyOf(way.request, way.read, spec, context.limits, way.seen)
        operation.body.check?.(value)
        way.parsed = { value }
      }
    } catch (error) {
      way.refusal = error
    }
  }
  if (way.refusal === undefined) return caught
  // Let go at once, its hold's counts as if it had never caught the call. A body that never ended
  // (the request timeout's 408) was held while it did not come, and the journal says how long; a
  // body refused as it came was answered at once, and has no heldMs.
  if (way.refusal instanceof ApiError && way.refusal.code === 'request_timeout') way.heldMs = caught.heldMs()
  caught.uncatch()
  return undefined
}
