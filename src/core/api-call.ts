/**
 * An API request, as one way object through its stages in the order http/stages.ts declares them
 * (API_STAGES, with the codes each may answer), each run by its name: key, route, body-head,
 * tenant, hold, body (api-admission.ts); delay, wait (api-way.ts); simulate, then forward or the
 * operation, keep (keep.ts, with --record), commit (commit.ts, with --state-file), finish
 * (api-answer.ts).
 *
 * Everything that needs no body is decided first, so a refused body is never read. The key is
 * read first so that the tenant is held from here to the answer, every delay included: a tenant
 * is never evicted mid-request. A stage that refuses ends the way: the stages after it are passed
 * by, but those a refusal meets too (delay, wait, keep, finish: a refusal still waits out --delay
 * and its hold, and is written down). Without a body, a delay or a scenario to wait for (the common
 * request), the call runs through without a promise: the pipeline's work per request was measured
 * under wrk, and awaits and object spreads were a good part of it.
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import { NONE_APPLIED } from './state/scenarios.js'
import { NO_SLOT } from './http/body.js'
import type { CoreRequest, CoreResponse } from './http/http.js'
import { operationFor } from './http/routes.js'
import { API_STAGES } from './http/stages.js'
import type { Target } from './http/target.js'
import { body, bodyHead, hold, key, route, tenant } from './api-admission.js'
import { commit, finish, forward, keep, operation, simulate } from './api-answer.js'
import { delay, wait, type ApiContext, type ApiRun, type ApiWay } from './api-way.js'

export type { ApiContext } from './api-way.js'
export { keyOfCall } from './api-admission.js'

/** Each declared stage's run here, by its name. */
const RUNS: Readonly<Record<string, ApiRun>> = {
  key,
  route,
  'body-head': bodyHead,
  tenant,
  hold,
  body,
  delay,
  wait,
  simulate,
  forward,
  operation,
  keep,
  commit,
  finish,
}

/**
 * The stages a call meets after a refusal, or after an answer (keep, over forward's; commit, over
 * the operation's): the waits, so that a refusal is no faster than an answer, and what writes the
 * call down.
 */
const AFTER_REFUSAL: ReadonlySet<string> = new Set(['delay', 'wait', 'keep', 'commit', 'finish'])

interface Planned {
  readonly run: ApiRun
  readonly always: boolean
}

/** The declared stages, in their order, each with its run here; a declared stage without one is a bug. */
const ORDER: readonly Planned[] = API_STAGES.map((stage) => {
  const run = RUNS[stage.name]
  if (run === undefined) throw new Error(`The API call has no run for the declared stage ${stage.name}`)
  return { run, always: AFTER_REFUSAL.has(stage.name) }
})

/** The stage at `at`, unless the way passes it by: undefined when it is done, a promise when it waits. */
function step(at: number, way: ApiWay, context: ApiContext): void | Promise<void> {
  const { run, always } = ORDER[at] as Planned
  if (!always && (way.refusal !== undefined || way.answer !== undefined)) return undefined
  try {
    return run(way, context)
  } catch (error) {
    way.refusal = error
    return undefined
  }
}

/** An API request's answer: now when nothing waits, else a promise of it. */
export function callApi(
  context: ApiContext,
  request: CoreRequest,
  target: Target,
): CoreResponse | Promise<CoreResponse> {
  const way = wayOf(context, request, target)
  for (let at = 0; at < ORDER.length; at++) {
    const waiting = step(at, way, context)
    if (waiting !== undefined) return runOnceWaited(waiting, at + 1, way, context)
  }
  return finished(way)
}

/** The stages from `from` on, once one waits. */
async function runOnceWaited(
  waiting: Promise<void>,
  from: number,
  way: ApiWay,
  context: ApiContext,
): Promise<CoreResponse> {
  try {
    await waiting
  } catch (error) {
    way.refusal = error
  }
  for (let at = from; at < ORDER.length; at++) {
    const next = step(at, way, context)
    if (next === undefined) continue
    try {
      await next
    } catch (error) {
      way.refusal = error
    }
  }
  return finished(way)
}

/** The answer the finish stage made; without one, the finish stage failed, a 500 (dispatch.ts). */
function finished(way: ApiWay): CoreResponse {
  if (way.finished === undefined) throw way.refusal
  return way.finished
}

function wayOf(context: ApiContext, request: CoreRequest, target: Target): ApiWay {
  const match = context.table.match(target.path, 'api')
  const operation = match === undefined ? undefined : operationFor(match.route, request.method)
  const { forward: upstream } = context
  return {
    request,
    target,
    started: performance.now(),
    match,
    operation,
    // One lookup in a small set, and only for the pet operations of a server with an upstream.
    forward: upstream !== undefined && operation?.simulated === true && context.forwarding.forwarded.has(operation.id),
    // Drawn when the call arrives, from the seeded random the failure rate draws from too: a call
    // reading its body does not shift the draws of the calls after it. (No stage before the delay
    // draws, so this is the draw the delay stage would take.)
    delay: context.simulation.traffic.delayMs(),
    key: undefined,
    store: undefined,
    refusal: undefined,
    held: undefined,
    read: undefined,
    release: NO_SLOT,
    applied: NONE_APPLIED,
    heldMs: undefined,
    keeping: false,
    kept: undefined,
    parsed: undefined,
    answer: undefined,
    finished: undefined,
    seen: { body: null, bytes: 0 },
    sent: false,
    violations: undefined,
    turn: undefined,
  }
}
