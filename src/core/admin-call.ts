/**
 * A request to the admin routes or the site (the pages, the document, their assets), through
 * its stages in the order http/stages.ts declares them (ADMIN_STAGES, with the codes each may
 * answer): gate (admin/gate.ts), route, admit (admin/gate.ts), body (its head first, then the
 * body within its cap), control (admin/controls.ts, over the tenant the key scopes), commit
 * (commit.ts, with --state-file: a change on disk before its answer).
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import type { Controls } from './admin/controls.js'
import type { Commit } from './commit.js'
import type { AdminOperation, SiteContext } from './admin/exchange.js'
import { admit, refuseOrigin, type AdminGate } from './admin/gate.js'
import { notFoundOutsideApi } from './docs/site.js'
import { methodNotAllowed } from './http/answers.js'
import {
  checkBodyHead,
  checkUnusedBody,
  declaresBody,
  jsonBodyOf,
  NO_SLOT,
  takeBody,
  type BodySlots,
} from './http/body.js'
import { failureAnswer, type BodyRead, type CoreRequest, type CoreResponse } from './http/http.js'
import { allowedMethods, operationFor, type Match, type RouteTable } from './http/routes.js'
import { ADMIN_STAGES } from './http/stages.js'
import type { Target } from './http/target.js'
import type { Limits } from './limits.js'

/** What every admin or site request of one sandbox shares. */
export interface AdminContext {
  readonly table: RouteTable<AdminOperation>
  readonly basePath: string
  readonly limits: Limits
  readonly gate: AdminGate
  readonly controls: Controls
  readonly site: SiteContext
  readonly bodies: BodySlots
  /** Told about unexpected failures (which answer 500). */
  readonly report: (error: unknown, request: CoreRequest) => void
  /** With --state-file, saving each change before its answer: the commit stage's wait (commit.ts). */
  readonly commit: Commit | undefined
}

/** What one admin or site request holds on its way through its stages. */
interface AdminWay {
  readonly request: CoreRequest
  readonly target: Target
  readonly area: 'admin' | 'site'
  readonly match: Match<AdminOperation> | undefined
  readonly operation: AdminOperation | undefined
  key: string | undefined
  elsewhere: boolean
  read: BodyRead | undefined
  /** Gives back the large-body slot, if the request took one. */
  release: () => void
  body: unknown
  answer: CoreResponse | undefined
}

/** A stage's work here; its name, codes and headers are declared in http/stages.ts. */
type Run = (way: AdminWay, context: AdminContext) => void | Promise<void>

/** The routed parts of a way: what the stages after `route` read. */
const routed = (way: AdminWay) => ({
  match: way.match as Match<AdminOperation>,
  operation: way.operation as AdminOperation,
})

const RUNS: Readonly<Record<string, Run>> = {
  gate(way, context) {
    refuseOrigin(context.gate, way.request, way.area, way.operation)
  },
  route(way, context) {
    const { match, operation, request, target } = way
    if (match === undefined) throw notFoundOutsideApi(target.path, context.basePath)
    if (operation === undefined) throw methodNotAllowed(request.method, target.path, allowedMethods(match.route))
  },
  admit(way, context) {
    const { operation } = routed(way)
    const admitted = admit(context.gate, way.request, way.target, way.area, operation, context.controls.keyOfHandle)
    way.key = admitted.key
    way.elsewhere = admitted.elsewhere
  },
  body(way, context) {
    const { operation } = routed(way)
    const { request } = way
    const { limits } = context
    if (operation.body === undefined) return checkUnusedBody(request, limits)
    // What the head says of the body (415, 413) before a byte is read. An optional body may
    // come empty whatever its Content-Type, so only one the head declares is judged now.
    if (operation.body.optional !== true || declaresBody(request)) checkBodyHead(request, operation, limits, true)
    const spec = { ...operation, body: operation.body }
    return takeBody(request, operation, limits, context.bodies).then(async ([read, release]) => {
      way.read = read
      way.release = release
      // An optional body sent empty is none: the control runs with `body` undefined.
      if (operation.body?.optional === true && !read.truncated && (read.body?.byteLength ?? 0) === 0) return
      way.body = await jsonBodyOf(request, read, spec, limits, { body: null, bytes: 0 })
    })
  },
  control(way, context) {
    const { match, operation } = routed(way)
    const answer = operation.run({
      request: way.request,
      target: way.target,
      params: match.params,
      key: way.key,
      elsewhere: way.elsewhere,
      body: way.body,
      controls: context.controls,
      site: context.site,
    })
    if (answer instanceof Promise) {
      return answer.then((response) => {
        way.answer = response
      })
    }
    way.answer = answer
    return undefined
  },
  commit(way, context) {
    const { operation } = routed(way)
    if (context.commit === undefined || operation.writes !== true || (way.answer?.status ?? 500) >= 300)
      return undefined
    return context.commit()
  },
}

/** The declared stages, in their order, each with its run here; a declared stage without one is a bug. */
const ORDER: readonly Run[] = ADMIN_STAGES.map((stage) => {
  const run = RUNS[stage.name]
  if (run === undefined) throw new Error(`The admin call has no run for the declared stage ${stage.name}`)
  return run
})

/** Runs the stages from `index` on: synchronously until one waits. */
function runFrom(index: number, way: AdminWay, context: AdminContext): void | Promise<void> {
  for (let at = index; at < ORDER.length; at++) {
    const step = (ORDER[at] as Run)(way, context)
    if (step instanceof Promise) return step.then(() => runFrom(at + 1, way, context))
  }
  return undefined
}

/** The request's answer: now when nothing waits, else a promise of it. */
export function callAdmin(
  context: AdminContext,
  request: CoreRequest,
  target: Target,
  area: 'admin' | 'site',
): CoreResponse | Promise<CoreResponse> {
  const match = context.table.match(target.path, area)
  const way: AdminWay = {
    request,
    target,
    area,
    match,
    operation: match === undefined ? undefined : operationFor(match.route, request.method),
    key: undefined,
    elsewhere: false,
    read: undefined,
    release: NO_SLOT,
    body: undefined,
    answer: undefined,
  }
  const failed = (error: unknown) => {
    way.release()
    return failureAnswer(error, (bug) => {
      context.report(bug, request)
    })
  }
  const answered = () => {
    way.release()
    return way.answer ?? failed(new Error('No admin stage answered the request'))
  }
  try {
    const pending = runFrom(0, way, context)
    return pending === undefined ? answered() : pending.then(answered, failed)
  } catch (error) {
    return failed(error)
  }
}
