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
import { DISPATCH_STAGES } from './http/stages.js'
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

/** What one request holds on its way through the dispatcher's stages. */
interface Way {
  readonly request: CoreRequest
  /** Read by the head; undefined until then, or when it refused. */
  target: Target | undefined
  /** Answers refused before any area count as the site's for CORS. */
  area: Area
  calls: Calls | Promise<Calls> | undefined
  /** Set by the first stage that answers: the stages after it, but complete, are passed by. */
  answer: CoreResponse | Promise<CoreResponse> | undefined
}

/** A stage's work in the dispatcher; its name, codes and headers are declared in http/stages.ts. */
type Run = (way: Way, options: DispatchOptions) => void

/** The dispatcher's part of each stage it runs, by the declared name; `complete` runs on every answer. */
const RUNS: Readonly<Record<string, Run>> = {
  head(way, options) {
    const head = options.head(way.request)
    if (head.refusal !== undefined) way.answer = errorAnswer(head.refusal)
    else way.target = head.target
  },
  area(way, options) {
    const target = way.target as Target
    way.area =
      options.baseOrigin !== undefined &&
      target.origin !== undefined &&
      new URL(target.origin).origin !== options.baseOrigin
        ? 'site'
        : options.table.areaOf(target.path)
  },
  preflight(way, { cors, table }) {
    if (cors === undefined || way.request.method !== 'OPTIONS') return
    way.answer = answerPreflight(cors, table, way.request, (way.target as Target).path, way.area)
  },
  ready(way, options) {
    way.calls = options.ready()
  },
  call(way) {
    const { calls } = way
    if (calls === undefined) return
    way.answer = calls instanceof Promise ? calls.then((ready) => call(ready, way)) : call(calls, way)
  },
}

/**
 * The declared stages the dispatcher runs, in their order: every one but the adapter's parse and
 * the last, complete, which every answer gets. A declared stage with no run here is a bug.
 */
const ORDER: readonly Run[] = DISPATCH_STAGES.filter(
  (stage) => stage.by !== 'adapter' && stage.name !== 'complete',
).map((stage) => {
  const run = RUNS[stage.name]
  if (run === undefined) throw new Error(`The dispatcher has no run for the declared stage ${stage.name}`)
  return run
})

export function createDispatcher(options: DispatchOptions): (request: CoreRequest) => Promise<CoreResponse> {
  const { cors } = options
  const fail = (request: CoreRequest) => (error: unknown) =>
    failureAnswer(error, (bug) => {
      options.report(bug, request)
    })

  return (request) => {
    const way: Way = { request, target: undefined, area: 'site', calls: undefined, answer: undefined }
    let answer: CoreResponse | Promise<CoreResponse>
    try {
      for (const run of ORDER) {
        run(way, options)
        if (way.answer !== undefined) break
      }
      answer = way.answer ?? fail(request)(new Error('No stage answered the request'))
    } catch (error) {
      answer = fail(request)(error)
    }
    const done = way.area
    if (!(answer instanceof Promise)) return Promise.resolve(completeAnswer(request, answer, done, cors))
    return answer.then(
      (response) => completeAnswer(request, response, done, cors),
      (error: unknown) => completeAnswer(request, fail(request)(error), done, cors),
    )
  }
}

/** The call of the request's area, once the seed is ready. */
function call(calls: Calls, way: Way): CoreResponse | Promise<CoreResponse> {
  const target = way.target as Target
  return way.area === 'api'
    ? callApi(calls.api, way.request, target)
    : callAdmin(calls.admin, way.request, target, way.area)
}
