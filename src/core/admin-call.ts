/**
 * A request to the admin routes or the site (the pages, the document, their assets), through
 * its stages in the order http/stages.ts declares them (ADMIN_STAGES, with the codes each may
 * answer): gate (admin/gate.ts), route, admit (admin/gate.ts), body (its head first, then the
 * body within its cap), control (admin/controls.ts, over the tenant the key scopes).
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import type { Controls } from './admin/controls.js'
import type { AdminExchange, AdminOperation, SiteContext } from './admin/exchange.js'
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
import { allowedMethods, operationFor, type RouteTable } from './http/routes.js'
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
}

export async function callAdmin(
  context: AdminContext,
  request: CoreRequest,
  target: Target,
  area: 'admin' | 'site',
): Promise<CoreResponse> {
  const { limits } = context
  let release = NO_SLOT
  try {
    const match = context.table.match(target.path, area)
    const operation = match === undefined ? undefined : operationFor(match.route, request.method)
    refuseOrigin(context.gate, request, area, operation)
    if (match === undefined) throw notFoundOutsideApi(target.path, context.basePath)
    if (operation === undefined) throw methodNotAllowed(request.method, target.path, allowedMethods(match.route))
    const { key, elsewhere } = admit(context.gate, request, target, area, operation, context.controls.keyOfHandle)
    let read: BodyRead | undefined
    if (operation.body !== undefined) {
      // What the head says of the body (415, 413) before a byte is read. An optional body may
      // come empty whatever its Content-Type, so only one the head declares is judged now.
      if (operation.body.optional !== true || declaresBody(request)) checkBodyHead(request, operation, limits, true)
      ;[read, release] = await takeBody(request, operation, limits, context.bodies)
    }
    const exchange: AdminExchange = {
      request,
      target,
      params: match.params,
      key,
      elsewhere,
      body: undefined,
      controls: context.controls,
      site: context.site,
    }
    if (operation.body === undefined) {
      await checkUnusedBody(request, limits)
      return await operation.run(exchange)
    }
    if (
      operation.body.optional === true &&
      read !== undefined &&
      !read.truncated &&
      (read.body?.byteLength ?? 0) === 0
    ) {
      return await operation.run(exchange)
    }
    const body = await jsonBodyOf(request, read, { ...operation, body: operation.body }, limits, {
      body: null,
      bytes: 0,
    })
    return await operation.run({ ...exchange, body })
  } catch (error) {
    return failureAnswer(error, (bug) => {
      context.report(bug, request)
    })
  } finally {
    release()
  }
}
