/**
 * handle(request) -> response: the order of checks, written once for every route, one named
 * stage per line, each a function of its own (the way fastify documents its request lifecycle):
 *
 *   head       TRACE/CONNECT 501, target 414/400, headers sent twice 400, (server) Host 400/403,
 *              Transfer-Encoding 501, Expect 417                                  http/head.ts
 *   area       the API under its base path (on its origin only, when it names one),
 *              the admin routes under /__sandbox, or the site
 *   preflight  (server) OPTIONS: 204 from the route table, or 403 for the Origin http/cors.ts
 *   ready      the seed loaded (a generated one loads faker first)
 *   call       API:   key 401 -> 404 -> 405 -> body head 413/415 -> tenant 503 -> hold -> body
 *                     400/413 -> delay -> the hold's wait -> scenarios, Prefer, failure rate
 *                     -> forward (502/503/504) or the operation -> record          api-call.ts
 *              admin and site: Origin 403 -> 404 -> 405 -> key 401 -> body -> the control
 *                                                                                  admin-call.ts
 *   complete   nosniff, HEAD without a stream, the polling mark, (server) CORS     http/complete.ts
 *
 * Everything up to the body is decided from the request line and headers: the body of a refused
 * request is never read (adapters pass `readBody`, called only by body intake, http/body.ts).
 * HEAD runs GET's operation. Every failure leaves as an Error body; nothing here throws. One
 * promise per request, and no more unless something waits (a body, a delay, a scenario).
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import { callAdmin, type AdminContext } from './admin-call.js'
import { callApi, type ApiContext } from './api-call.js'
import { completeAnswer } from './http/complete.js'
import { answerPreflight, type CorsPolicy } from './http/cors.js'
import type { Head } from './http/head.js'
import { errorAnswer, failureAnswer, type CoreRequest, type CoreResponse } from './http/http.js'
import type { Area, RouteTable } from './http/routes.js'
import type { Target } from './http/target.js'

/** The contexts of the calls, once the seed is ready. */
export interface Calls {
  readonly api: ApiContext
  readonly admin: AdminContext
}

export interface DispatchOptions {
  readonly head: (request: CoreRequest) => Head
  readonly table: RouteTable
  /** The API's one origin when `baseUrl` names one: absolute targets on other origins are not the API. */
  readonly baseOrigin: string | undefined
  /** CORS headers and preflights, on the server only. */
  readonly cors: CorsPolicy | undefined
  readonly ready: () => Calls | Promise<Calls>
  /** Told about unexpected failures (which answer 500). */
  readonly report: (error: unknown, request: CoreRequest) => void
}

export function createDispatcher(options: DispatchOptions): (request: CoreRequest) => Promise<CoreResponse> {
  const { cors } = options
  const areaOf = (target: Target): Area =>
    options.baseOrigin !== undefined &&
    target.origin !== undefined &&
    new URL(target.origin).origin !== options.baseOrigin
      ? 'site'
      : options.table.areaOf(target.path)
  const fail = (request: CoreRequest) => (error: unknown) =>
    failureAnswer(error, (bug) => {
      options.report(bug, request)
    })

  return (request) => {
    // Answers refused before any area count as the site's for CORS.
    let area: Area = 'site'
    let answer: CoreResponse | Promise<CoreResponse>
    try {
      const head = options.head(request)
      if (head.refusal !== undefined) {
        answer = errorAnswer(head.refusal)
      } else {
        area = areaOf(head.target)
        answer =
          cors !== undefined && request.method === 'OPTIONS'
            ? answerPreflight(cors, options.table, request, head.target.path, area)
            : call(options.ready(), request, head.target, area)
      }
    } catch (error) {
      answer = fail(request)(error)
    }
    const done = area
    if (!(answer instanceof Promise)) return Promise.resolve(completeAnswer(request, answer, done, cors))
    return answer.then(
      (response) => completeAnswer(request, response, done, cors),
      (error: unknown) => completeAnswer(request, fail(request)(error), done, cors),
    )
  }
}

/** The call of the request's area, over contexts ready now or once the seed is. */
function call(
  ready: Calls | Promise<Calls>,
  request: CoreRequest,
  target: Target,
  area: Area,
): CoreResponse | Promise<CoreResponse> {
  const run = (calls: Calls) =>
    area === 'api' ? callApi(calls.api, request, target) : callAdmin(calls.admin, request, target, area)
  return ready instanceof Promise ? ready.then(run) : run(ready)
}
