/**
 * handle(request) -> response: the stages every request meets, in the order http/stages.ts
 * declares them (DISPATCH_STAGES, with the codes each may answer): head, area, preflight, ready,
 * call (api-call.ts or admin-call.ts, each through its own stages in their declared order),
 * complete. The server's parser (parse) comes before, in the adapter.
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
