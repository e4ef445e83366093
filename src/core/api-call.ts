/**
 * An API request, as one call object passed through its stages, in the order http/stages.ts
 * declares them (API_STAGES, with the codes each may answer): key, route, body-head, tenant
 * (identify); hold; body, delay, wait (answerLater); simulate, then forward or the operation
 * (attempt); keep (keep.ts, with --record); record.
 *
 * Everything that needs no body is decided first, so a refused body is never read. The key is
 * read first so that the tenant is held from here to the answer, every delay included: a tenant
 * is never evicted mid-request. A refusal still waits out --delay. Without a body, a delay or a
 * scenario to wait for (the common request), the call runs through without a promise: the
 * pipeline's work per request was measured under wrk, and awaits and object spreads were a good
 * part of it.
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import type { Authenticate } from './api/auth.js'
import { OPERATIONS, type OperationId } from './api/contract.js'
import type { ApiExchange, ApiOperation } from './api/exchange.js'
import type { TenantStore } from './api/store.js'
import type { Clock } from './state/clock.js'
import type { ForwardingState } from './state/forwarding-state.js'
import type { Caught, HoldBook } from './state/hold-book.js'
import type { Recorder } from './state/journal-writer.js'
import { NONE_APPLIED, simulate, simulatedFailure, type Simulation } from './state/scenarios.js'
import type { Tenants } from './state/tenants.js'
import {
  capOf,
  checkBodyHead,
  checkUnusedBody,
  checkWithinCap,
  jsonBodyOf,
  NO_SLOT,
  takeBody,
  type BodySlots,
} from './http/body.js'
import { ApiError } from './http/errors.js'
import { failureAnswer, header, JSON_HEADERS, type BodyRead, type CoreRequest, type CoreResponse } from './http/http.js'
import { allowedMethods, operationFor, type Match, type OperationSpec, type RouteTable } from './http/routes.js'
import type { Target } from './http/target.js'
import type { Limits } from './limits.js'
import { climbingParameter, forward, type ForwardContext, type ForwardRecord } from './upstream.js'
import { NO_VIOLATIONS } from './api/answer-check.js'
import type { Kept } from './api/record.js'
import { keep } from './keep.js'
import { methodNotAllowed } from './http/answers.js'

/** What every API call of one sandbox shares. */
export interface ApiContext {
  readonly table: RouteTable<ApiOperation>
  /** The API's endpoints, for the 404's message. */
  readonly endpoints: string
  readonly limits: Limits
  readonly authenticate: Authenticate
  readonly tenants: Tenants
  /** Each key its own data (--isolate): what a forwarded answer is recorded into (keep.ts). */
  readonly isolated: boolean
  readonly simulation: Simulation
  readonly forwarding: ForwardingState
  readonly holds: HoldBook
  /** With --upstream: where forwarded operations go. */
  readonly forward: ForwardContext | undefined
  readonly recorder: Recorder
  readonly clock: Clock
  /** Name the tenant on answers (isolated mode, with a host's access log): one object more per answer. */
  readonly labelTenants: boolean
  readonly bodies: BodySlots
  /** Each operation's JSON headers with its own, built once. */
  readonly jsonHeaders: Map<ApiOperation, Readonly<Record<string, string>>>
  /** Told about unexpected failures (which answer 500). */
  readonly report: (error: unknown, request: CoreRequest) => void
}

/** What one API request holds from its first rule to its record. */
interface ApiCall extends ForwardRecord {
  readonly request: CoreRequest
  readonly target: Target
  readonly started: number
  readonly match: Match<ApiOperation> | undefined
  readonly operation: ApiOperation | undefined
  /** The operation goes to the upstream (decided once, before the key is read). */
  readonly forward: boolean
  key: string | undefined
  /** The key's data, held until the call is recorded. */
  store: TenantStore | undefined
  /** The first refusal: answered once the delay is waited out. */
  refusal: unknown
  read: BodyRead | undefined
  /** Gives back the large-body slot, if the call took one. */
  release: () => void
  applied: readonly string[]
  /** How long a hold kept it, once one let it go. */
  heldMs: number | undefined
  /** With --record, what a forwarded answer left in the data. */
  kept: Kept | undefined
  /** The JSON body, when it was parsed before a hold's wait (a held call's body is judged first). */
  parsed: { readonly value: unknown } | undefined
}

type Step<T> = T | Promise<T>

/** An API request's answer: now when nothing waits, else a promise of it. */
export function callApi(context: ApiContext, request: CoreRequest, target: Target): Step<CoreResponse> {
  const call = identify(context, request, target)
  const caught = hold(context, call)
  const delay = context.simulation.traffic.delayMs()
  if (delay > 0 || caught !== undefined || (call.refusal === undefined && call.operation?.body !== undefined)) {
    return answerLater(context, call, delay, caught)
  }
  return settle(context, call, attempt(context, call))
}

/** authenticate -> route -> hold the tenant; a refusal is kept for after the delay. */
function identify(context: ApiContext, request: CoreRequest, target: Target): ApiCall {
  const match = context.table.match(target.path, 'api')
  const operation = match === undefined ? undefined : operationFor(match.route, request.method)
  const { forward } = context
  const call: ApiCall = {
    request,
    target,
    started: performance.now(),
    match,
    operation,
    // One lookup in a small set, and only for the pet operations of a server with an upstream.
    forward: forward !== undefined && operation?.simulated === true && context.forwarding.forwarded.has(operation.id),
    key: undefined,
    store: undefined,
    refusal: undefined,
    read: undefined,
    release: NO_SLOT,
    applied: NONE_APPLIED,
    heldMs: undefined,
    kept: undefined,
    parsed: undefined,
    seen: { body: null, bytes: 0 },
    sent: false,
    violations: undefined,
  }
  try {
    // With its own key for the upstream the sandbox is the gate; without one, the upstream judges
    // the client's credential, which the sandbox then only reads to scope scenarios and the journal.
    const judged = !(call.forward && forward?.upstream.key === undefined)
    call.key = keyOfCall(operation?.key ?? 'required', context.authenticate, request, judged)
    if (match === undefined) {
      throw new ApiError('not_found', `${target.path} does not exist; the endpoints are ${context.endpoints}`)
    }
    if (operation === undefined) throw methodNotAllowed(request.method, target.path, allowedMethods(match.route))
    if (call.forward) {
      const climbing = climbingParameter(match.params)
      if (climbing !== undefined) throw climbing
    }
    // What the head says of the body (413, 415) is a refusal like the others: before a hold
    // catches the call, before a tenant is held, before a byte is read.
    checkBodyHead(request, operation, context.limits, !call.forward)
    // A forwarded call reads and writes the upstream's data: it holds no tenant.
    if (operation.petData === true && !call.forward && call.key !== undefined) {
      call.store = context.tenants.acquire(call.key)
    }
  } catch (error) {
    call.refusal = error
  }
  return call
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

/**
 * The hold that catches the call, if one does: taken when the call arrives, so the holds' counts
 * are right at once (a test waits for `holding`); past the heldRequests budget, a 503 refusal.
 */
function hold(context: ApiContext, call: ApiCall): Caught | undefined {
  const { operation } = call
  if (call.refusal !== undefined || operation?.simulated !== true) return undefined
  try {
    const scope = call.key === undefined ? undefined : context.tenants.of(call.key).scope
    return context.holds.take(operation.id as OperationId, scope, () => call.request.signal)
  } catch (error) {
    call.refusal = error
    return undefined
  }
}

/** read -> wait, then the rest: the calls that wait for a body, a delay or a hold. */
async function answerLater(
  context: ApiContext,
  call: ApiCall,
  delay: number,
  caught: Caught | undefined,
): Promise<CoreResponse> {
  const { operation } = call
  if (call.refusal === undefined && operation?.body !== undefined) {
    try {
      ;[call.read, call.release] = await takeBody(call.request, operation, context.limits, context.bodies)
    } catch (error) {
      call.refusal = error
    }
  }
  const holding = caught === undefined ? undefined : await judgedBeforeHold(context, call, caught)
  if (delay > 0) {
    await context.simulation.delays.sleep(delay)
    leftDuring(call, 'its delay')
  }
  if (holding !== undefined) {
    const how = await holding.until
    call.heldMs = holding.heldMs()
    if ('gone' in how) {
      // No one reads this answer: it is the journal's record of a request its client gave up on.
      call.refusal ??= new ApiError('bad_request', 'The client closed the connection while its request was held')
    } else if (how.status !== undefined) {
      call.refusal ??= simulatedFailure(how.status, 'a released hold')
    }
  }
  return settle(context, call, attempt(context, call))
}

/**
 * A held call's body is judged before it waits (a chunked body past its cap, 413; one that is not
 * JSON, or not what the operation takes, 400): a call found refused is let go at once and its
 * hold reads as if it had never caught it. Answers the hold that still keeps the call, or undefined.
 */
async function judgedBeforeHold(context: ApiContext, call: ApiCall, caught: Caught): Promise<Caught | undefined> {
  const { operation } = call
  if (call.refusal === undefined && operation?.body !== undefined) {
    try {
      if (call.forward) {
        // The upstream judges what it is sent; the sandbox, only its size.
        if (call.read !== undefined) checkWithinCap(call.read, capOf(operation, context.limits))
      } else {
        const spec = { ...operation, body: operation.body }
        const value = await jsonBodyOf(call.request, call.read, spec, context.limits, call.seen)
        operation.body.check?.(value)
        call.parsed = { value }
      }
    } catch (error) {
      call.refusal = error
    }
  }
  if (call.refusal === undefined) return caught
  caught.uncatch()
  return undefined
}

/** The refusal, or simulate -> forward or execute; a thrown failure becomes its answer. */
function attempt(context: ApiContext, call: ApiCall): Step<CoreResponse> {
  try {
    return proceed(context, call)
  } catch (error) {
    return failureAnswer(error, (bug) => {
      context.report(bug, call.request)
    })
  }
}

function proceed(context: ApiContext, call: ApiCall): Step<CoreResponse> {
  const { operation, key } = call
  if (call.refusal !== undefined || operation === undefined) throw call.refusal
  if (operation.simulated !== true) return execute(context, call, operation)
  const id = operation.id as OperationId
  const own = key === undefined ? undefined : context.tenants.existingScenarios(key)
  const applied = simulate(context.simulation, id, header(call.request.headers, 'prefer'), own)
  const next = (names: readonly string[]): Step<CoreResponse> => {
    call.applied = names
    if (!call.forward || context.forward === undefined) return execute(context, call, operation)
    const relayed = forward(context.forward, { ...operation, id }, call.request, call.target, call.read, call)
    // Read once per answer: switching recording off stops it for the answers still to come.
    return context.forwarding.record ? relayed.then((response) => keep(context, call, id, response)) : relayed
  }
  // A delay (Prefer or a scenario) waited: a client gone meanwhile changes nothing, as a held one.
  return applied instanceof Promise
    ? applied.then((names) => {
        if (leftDuring(call, 'its delay')) throw call.refusal
        return next(names)
      })
    : next(applied)
}

/**
 * After a wait: whether the client closed its connection meanwhile. Its call then becomes a
 * refusal, recorded in the journal and answered to no one, and changes nothing (a createPet
 * creates no pet). The signal is read only now, so a call that waits for nothing pays no listener.
 */
function leftDuring(call: ApiCall, wait: string): boolean {
  if (call.request.signal?.aborted !== true) return false
  call.refusal ??= new ApiError('bad_request', `The client closed the connection during ${wait}`)
  return true
}

/** The operation over the tenant's data: its body parsed first when it reads one. */
function execute(context: ApiContext, call: ApiCall, operation: ApiOperation): Step<CoreResponse> {
  const { request } = call
  const exchange: ApiExchange = {
    request,
    target: call.target,
    params: call.match?.params ?? {},
    store: call.store,
    body: undefined,
    now: context.clock,
  }
  if (operation.body === undefined) {
    const unused = checkUnusedBody(request, context.limits)
    return unused === undefined ? operation.run(exchange) : unused.then(() => operation.run(exchange))
  }
  if (call.parsed !== undefined) return operation.run({ ...exchange, body: call.parsed.value })
  return jsonBodyOf(request, call.read, { ...operation, body: operation.body }, context.limits, call.seen).then(
    (body) => operation.run({ ...exchange, body }),
  )
}

/** Waits for an answer that was not ready at once, then records it. */
function settle(context: ApiContext, call: ApiCall, pending: Step<CoreResponse>): Step<CoreResponse> {
  if (!(pending instanceof Promise)) return record(context, call, pending)
  return pending.then(
    (response) => record(context, call, response),
    (error: unknown) =>
      record(
        context,
        call,
        failureAnswer(error, (bug) => {
          context.report(bug, call.request)
        }),
      ),
  )
}

/** Releases what the call held, adds the operation's headers, and records it (admin/recording.ts). */
function record(context: ApiContext, call: ApiCall, answered: CoreResponse): CoreResponse {
  const { operation, key, request } = call
  call.release()
  if (call.store !== undefined && key !== undefined) context.tenants.release(key)
  const response = withHeaders(context, call, answered)
  const relayed = call.sent ? { ...response, forwarded: forwardedMark(call) } : response
  context.recorder.record(
    {
      time: context.clock(),
      operation: isOperationId(operation?.id) ? operation.id : null,
      method: request.method,
      target: request.target,
      headers: request.headers,
      headerBytes: request.headerBytes,
      body: call.seen.body,
      bodyBytes: call.seen.bytes,
      status: relayed.status,
      durationMs: performance.now() - call.started,
      tenant: key,
      forwarded: call.sent,
      violations: (call.violations ?? NO_VIOLATIONS).problems,
      moreViolations: call.violations?.more === true,
      ...(call.heldMs !== undefined && { heldMs: call.heldMs }),
      ...(call.kept !== undefined && { recorded: { pets: call.kept.pets, refused: call.kept.refused } }),
    },
    // A forwarded write changed the upstream's data, not the sandbox's (unless it was recorded).
    (!call.sent && operation?.writes === true && relayed.status < 300) || (call.kept?.changed ?? 0) > 0,
  )
  return context.labelTenants && key !== undefined ? { ...relayed, tenant: context.tenants.labelOf(key) } : relayed
}

/** The operation's own headers (getPet's) and Preference-Applied; an answer relayed from the upstream keeps its own. */
function withHeaders(context: ApiContext, call: ApiCall, response: CoreResponse): CoreResponse {
  const { operation, applied } = call
  const own = call.violations === undefined ? operation?.headers : undefined
  if (own !== undefined && operation !== undefined && applied.length === 0 && response.headers === JSON_HEADERS) {
    // A JSON answer of an operation with headers of its own (getPet): merged once, not per request.
    let headers = context.jsonHeaders.get(operation)
    if (headers === undefined) {
      headers = Object.freeze({ ...JSON_HEADERS, ...own })
      context.jsonHeaders.set(operation, headers)
    }
    return { ...response, headers }
  }
  if (own === undefined && applied.length === 0) return response
  return {
    ...response,
    headers: {
      ...response.headers,
      ...own,
      ...(applied.length > 0 && { 'Preference-Applied': applied.join(', ') }),
    },
  }
}

function forwardedMark(call: ApiCall): NonNullable<CoreResponse['forwarded']> {
  const { problems, more } = call.violations ?? NO_VIOLATIONS
  // The first answer left unrecorded for its cause: the access log line says why, once.
  const told = call.kept?.told === true ? call.kept.refused.at(-1) : undefined
  return told === undefined
    ? { violations: problems.length, more }
    : { violations: problems.length, more, unrecorded: told }
}

function isOperationId(id: string | undefined): id is OperationId {
  return (OPERATIONS as readonly (string | undefined)[]).includes(id)
}
