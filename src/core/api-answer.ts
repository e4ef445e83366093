/**
 * The stages that answer an API call: simulate (state/scenarios.ts), then forward (upstream.ts)
 * or the operation over the tenant's data, keep (keep.ts, with --record), commit (commit.ts, with
 * --state-file), and finish: its headers, the counters, the journal and the events
 * (state/journal-writer.ts), a refusal's answer included.
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import { NO_VIOLATIONS } from './api/answer-check.js'
import { OPERATIONS, type OperationId } from './api/contract.js'
import type { ApiExchange } from './api/exchange.js'
import { simulate as simulated } from './state/scenarios.js'
import { checkUnusedBody, jsonBodyOf } from './http/body.js'
import { failureAnswer, header, JSON_HEADERS, type CoreResponse } from './http/http.js'
import { keep as kept } from './keep.js'
import { forward as forwarded } from './upstream.js'
import { leftDuring, routed, type ApiContext, type ApiRun, type ApiWay } from './api-way.js'

/** Its answer, set now or once it is ready. */
function answer(way: ApiWay, response: CoreResponse | Promise<CoreResponse>): void | Promise<void> {
  if (!(response instanceof Promise)) {
    way.answer = response
    return undefined
  }
  return response.then((ready) => {
    way.answer = ready
  })
}

/** Scenarios, Prefer and the failure rate: a failure thrown, or what Preference-Applied says. */
export const simulate: ApiRun = (way, context) => {
  const operation = routed(way)
  if (operation.simulated !== true) return undefined
  const own = way.key === undefined ? undefined : context.tenants.existingScenarios(way.key)
  const applied = simulated(context.simulation, operation.id as OperationId, header(way.request.headers, 'prefer'), own)
  if (!(applied instanceof Promise)) {
    way.applied = applied
    return undefined
  }
  // A delay (Prefer or a scenario) waited: a client gone meanwhile changes nothing, as a held one.
  return applied.then((names) => {
    if (leftDuring(way, 'its delay')) throw way.refusal
    way.applied = names
  })
}

/** With --upstream, a forwarded operation's answer is the upstream's. */
export const forward: ApiRun = (way, context) => {
  if (!way.forward || context.forward === undefined) return undefined
  const operation = routed(way)
  // Read once per call: switching recording off stops it for the answers still to come.
  way.keeping = context.forwarding.record
  const id = operation.id as OperationId
  return answer(way, forwarded(context.forward, { ...operation, id }, way.request, way.target, way.read, way))
}

/** The operation over the tenant's data: its body parsed first when it reads one. */
export const operation: ApiRun = (way, context) => {
  const { request } = way
  const spec = routed(way)
  const exchange: ApiExchange = {
    request,
    target: way.target,
    params: way.match?.params ?? {},
    store: way.store,
    body: undefined,
    now: context.clock,
  }
  if (spec.body === undefined) {
    const unused = checkUnusedBody(request, context.limits)
    return unused === undefined ? answer(way, spec.run(exchange)) : unused.then(() => answer(way, spec.run(exchange)))
  }
  if (way.parsed !== undefined) return answer(way, spec.run({ ...exchange, body: way.parsed.value }))
  return jsonBodyOf(request, way.read, { ...spec, body: spec.body }, context.limits, way.seen).then((body) =>
    answer(way, spec.run({ ...exchange, body })),
  )
}

/** With --record, a forwarded answer's pets, kept in the data. */
export const keep: ApiRun = (way, context) => {
  if (!way.keeping || way.refusal !== undefined || way.answer === undefined) return undefined
  const keeping = answer(way, kept(context, way, routed(way).id as OperationId, way.answer))
  // A large answer's turn ends with its recording: the next one's check may start while this call finishes.
  if (keeping === undefined) {
    way.turn?.()
    return undefined
  }
  return keeping.finally(() => way.turn?.())
}

/**
 * With --state-file, saving each change before its answer: a write the sandbox answered itself
 * (not the upstream's) waits until it is on disk, or is answered 507 (commit.ts). A recorded
 * answer is the upstream's, and says nothing of the sandbox's data: it does not wait.
 */
export const commit: ApiRun = (way, context) => {
  const { answer: done } = way
  if (context.commit === undefined || way.refusal !== undefined || done === undefined) return undefined
  if (way.sent || way.operation?.writes !== true || done.status >= 300) return undefined
  return context.commit()
}

/** Releases what the call held, adds the operation's headers, and writes the call down (state/journal-writer.ts). */
export const finish: ApiRun = (way, context) => {
  const { operation, key, request } = way
  const answered =
    way.refusal !== undefined || way.answer === undefined
      ? failureAnswer(way.refusal, (bug) => {
          context.report(bug, request)
        })
      : way.answer
  way.release()
  way.turn?.()
  if (way.store !== undefined && key !== undefined) context.tenants.release(key)
  const response = withHeaders(context, way, answered)
  const relayed = way.sent ? { ...response, forwarded: forwardedMark(way) } : response
  context.journalWriter.write(
    {
      time: context.clock(),
      operation: isOperationId(operation?.id) ? operation.id : null,
      method: request.method,
      target: request.target,
      headers: request.headers,
      headerBytes: request.headerBytes,
      body: way.seen.body,
      bodyBytes: way.seen.bytes,
      status: relayed.status,
      durationMs: performance.now() - way.started,
      tenant: key,
      forwarded: way.sent,
      violations: (way.violations ?? NO_VIOLATIONS).problems,
      moreViolations: way.violations?.more === true,
      ...(way.heldMs !== undefined && { heldMs: way.heldMs }),
      ...(way.kept !== undefined && { recorded: { pets: way.kept.pets, refused: way.kept.refused } }),
    },
    // A forwarded write changed the upstream's data, not the sandbox's (unless it was recorded).
    (!way.sent && operation?.writes === true && relayed.status < 300) || (way.kept?.changed ?? 0) > 0,
  )
  way.finished =
    context.labelTenants && key !== undefined ? { ...relayed, tenant: context.tenants.labelOf(key) } : relayed
}

/** The operation's own headers (getPet's) and Preference-Applied; an answer relayed from the upstream keeps its own. */
function withHeaders(context: ApiContext, way: ApiWay, response: CoreResponse): CoreResponse {
  const { operation, applied } = way
  const own = way.violations === undefined ? operation?.headers : undefined
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

function forwardedMark(way: ApiWay): NonNullable<CoreResponse['forwarded']> {
  const { problems, more } = way.violations ?? NO_VIOLATIONS
  // The first answer left unrecorded for its cause: the access log line says why, once.
  const told = way.kept?.told === true ? way.kept.refused.at(-1) : undefined
  return told === undefined
    ? { violations: problems.length, more }
    : { violations: problems.length, more, unrecorded: told }
}

function isOperationId(id: string | undefined): id is OperationId {
  return (OPERATIONS as readonly (string | undefined)[]).includes(id)
}
