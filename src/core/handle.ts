/**
 * handle(request) -> response: the order of checks, written once for every route.
 *
 *   TRACE/CONNECT -> target -> (server: Host) -> route table ->
 *     API:   delay -> key -> 404 -> 405 -> scenarios, Prefer, failure rate -> body -> operation -> journal
 *     admin: (server: Origin) -> 404 -> 405 -> key if sent -> body -> operation
 *     site:  404 -> 405 -> operation
 *   -> (server: CORS)
 *
 * Every failure leaves as an Error body through `errorResponse`; nothing here throws.
 *
 * May import: other core files, zod, lossless-json, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import type { Authenticate } from './auth.js'
import type { CorsPolicy } from './cors.js'
import { ApiError } from './errors.js'
import { errorResponse, header, type CoreRequest, type CoreResponse, type Surface } from './http.js'
import { readJsonBody, tooLarge } from './json-body.js'
import { allowedMethods, type Exchange, type Method, type Operation, type RouteTable } from './routes.js'
import { OPERATIONS, readPrefer, simulatedFailure, type OperationId } from './scenarios.js'
import { notFoundOutsideApi } from './site.js'
import type { SandboxState } from './state.js'
import { parseTarget, type Target } from './target.js'
import { sleep } from './sleep.js'

export interface Pipeline {
  handle(request: CoreRequest): Promise<CoreResponse>
  /** The most body bytes the route of this request reads; an adapter reads at most one more. */
  bodyLimit(method: string, target: string): number
}

export interface PipelineOptions {
  readonly table: RouteTable
  readonly basePath: string
  /** The API's one origin when `baseUrl` names one: absolute targets on other origins are not the API. */
  readonly baseOrigin: string | undefined
  readonly surface: Surface
  readonly maxBodyBytes: number
  readonly authenticate: Authenticate
  /** The state once the seed is ready (a generated seed loads faker first). */
  readonly state: () => SandboxState | Promise<SandboxState>
  /** CORS headers, on the server only. */
  readonly cors: CorsPolicy | undefined
  /** Told about unexpected failures (which answer 500). */
  readonly onUnexpectedError: (error: unknown, request: CoreRequest) => void
}

const UNSUPPORTED_METHODS = new Set(['TRACE', 'CONNECT'])

export function createPipeline(options: PipelineOptions): Pipeline {
  const { table, basePath, surface, cors } = options
  const endpoints = table.routes
    .filter((route) => route.area === 'api' && Object.values(route.methods).some((operation) => operation.simulated))
    .map((route) => `${basePath}${route.path}`)
    .join(' and ')

  const onOtherOrigin = (target: Target): boolean =>
    options.baseOrigin !== undefined &&
    target.origin !== undefined &&
    new URL(target.origin).origin !== options.baseOrigin

  // Clients send the same Host on every request: checked once, not parsed again each time.
  let lastGoodHost: string | undefined

  const fail = (error: unknown, request: CoreRequest): CoreResponse => {
    if (error instanceof ApiError) return errorResponse(error)
    options.onUnexpectedError(error, request)
    return errorResponse(new ApiError('internal_error', 'The sandbox failed to handle this request; see its log'))
  }

  /** Reads the body when the operation takes one, then runs it. `seen` keeps what was sent, for the journal. */
  const run = (
    operation: Operation,
    exchange: Omit<Exchange, 'body'>,
    seen: { body: unknown },
  ): CoreResponse | Promise<CoreResponse> => {
    const { request } = exchange
    let body: unknown = undefined
    if (operation.body !== undefined) {
      const cap = operation.body.maxBytes === 'api' ? options.maxBodyBytes : operation.body.maxBytes
      body = readJsonBody(request, cap, operation.body.emptyHint, (text) => {
        seen.body = text
      })
      seen.body = body
    } else if (request.truncated === true) {
      throw tooLarge(options.maxBodyBytes)
    }
    return operation.run({ ...exchange, body })
  }

  const api = async (request: CoreRequest, target: Target, state: SandboxState): Promise<CoreResponse> => {
    const started = performance.now()
    const match = table.match(target.path, 'api')
    const operation = match?.route.methods[request.method as Method]
    const seen = { body: null as unknown }
    let key: string | undefined
    let applied: string[] = []
    let response: CoreResponse
    try {
      const delay = state.traffic.delayMs()
      if (delay > 0) await sleep(delay)
      key = options.authenticate(header(request.headers, 'authorization'))
      if (match === undefined) {
        throw new ApiError('not_found', `${target.path} does not exist; the endpoints are ${endpoints}`)
      }
      if (operation === undefined) throw methodNotAllowed(request, target, allowedMethods(match.route))
      if (operation.simulated === true) applied = await simulate(operation.id as OperationId, request, state, key)
      response = await run(operation, { request, target, params: match.params, key, state }, seen)
    } catch (error) {
      response = fail(error, request)
    }
    if (operation?.headers !== undefined || applied.length > 0) {
      response = {
        ...response,
        headers: {
          ...response.headers,
          ...operation?.headers,
          ...(applied.length > 0 && { 'Preference-Applied': applied.join(', ') }),
        },
      }
    }
    if (state.journal.enabled) {
      state.journal.record({
        time: state.clock().getTime(),
        operation: journalOperation(operation),
        method: request.method,
        target: request.target,
        headers: request.headers,
        body: seen.body,
        status: response.status,
        durationMs: performance.now() - started,
        tenant: key,
      })
    }
    return response
  }

  const other = async (
    request: CoreRequest,
    target: Target,
    state: SandboxState,
    area: 'admin' | 'site',
  ): Promise<CoreResponse> => {
    try {
      if (area === 'admin' && surface === 'server') checkOrigin(request)
      const match = table.match(target.path, area)
      if (match === undefined) throw notFoundOutsideApi(target.path, basePath)
      const operation = match.route.methods[request.method as Method]
      if (operation === undefined) throw methodNotAllowed(request, target, allowedMethods(match.route))
      const authorization = header(request.headers, 'authorization')
      const key =
        operation.key !== 'none' && authorization !== undefined ? options.authenticate(authorization) : undefined
      return await run(operation, { request, target, params: match.params, key, state }, { body: null })
    } catch (error) {
      return fail(error, request)
    }
  }

  const dispatch = async (request: CoreRequest): Promise<CoreResponse> => {
    // Before the target: CONNECT's is an authority (host:port), which is no path.
    if (UNSUPPORTED_METHODS.has(request.method)) {
      return errorResponse(new ApiError('not_implemented', `The ${request.method} method is not supported`))
    }
    const target = parseTarget(request.target)
    if (target === undefined) {
      return errorResponse(
        new ApiError(
          'bad_request',
          `Request target ${JSON.stringify(request.target)} is not a path or an absolute URL`,
        ),
      )
    }
    if (surface === 'server') {
      const host = header(request.headers, 'host')
      if (host !== undefined && host !== lastGoodHost) {
        // A slash, query or credentials in Host would parse as a URL with the rest moved into its path.
        if (/[\s/?#@\\]/.test(host) || !URL.canParse(`http://${host}`)) {
          return errorResponse(new ApiError('bad_request', `Host header ${JSON.stringify(host)} is not a valid host`))
        }
        lastGoodHost = host
      }
    }
    const area = onOtherOrigin(target) ? 'site' : table.areaOf(target.path)
    if (cors !== undefined && request.method === 'OPTIONS') {
      return { status: 204, headers: cors.preflight(request, table.match(target.path, area)?.route), body: null }
    }
    const state = await options.state()
    return area === 'api' ? api(request, target, state) : other(request, target, state, area)
  }

  return {
    async handle(request) {
      let response: CoreResponse
      try {
        response = await dispatch(request)
      } catch (error) {
        response = fail(error, request)
      }
      if (cors === undefined || request.method === 'OPTIONS') return response
      const headers = cors.answer(request)
      return headers === undefined ? response : { ...response, headers: { ...response.headers, ...headers } }
    },
    bodyLimit(method, target) {
      const path = parseTarget(target)?.path
      const body =
        path === undefined ? undefined : table.match(path, table.areaOf(path))?.route.methods[method as Method]?.body
      return body === undefined || body.maxBytes === 'api' ? options.maxBodyBytes : body.maxBytes
    },
  }
}

function methodNotAllowed(request: CoreRequest, target: Target, allow: string): ApiError {
  return new ApiError('method_not_allowed', `${request.method} is not allowed on ${target.path}; allowed: ${allow}`, {
    Allow: allow,
  })
}

function journalOperation(operation: Operation | undefined): OperationId | null {
  const id = operation?.id
  return (OPERATIONS as readonly (string | undefined)[]).includes(id) ? (id as OperationId) : null
}

/** Applies the first matching scenario, the request's Prefer, and the run-wide failure rate. */
async function simulate(
  operation: OperationId,
  request: CoreRequest,
  state: SandboxState,
  key: string,
): Promise<string[]> {
  // Read first: a Prefer the sandbox cannot honour is refused before any scenario is used up.
  const preference = readPrefer(header(request.headers, 'prefer') ?? null, operation)
  const scenario = state.tenants.existingScenarios(key)?.take(operation) ?? state.scenarios.take(operation)
  if (scenario !== undefined) {
    if (scenario.delayMs !== undefined) await sleep(scenario.delayMs)
    if (scenario.status !== undefined) {
      throw simulatedFailure(scenario.status, `scenario ${scenario.id}`, scenario.retryAfterSeconds)
    }
  }
  if (preference.delayMs !== undefined) await sleep(preference.delayMs)
  if (preference.status !== undefined) {
    throw simulatedFailure(preference.status, `Prefer: code=${preference.status}`, 1, {
      'Preference-Applied': preference.applied.join(', '),
    })
  }
  const failure = state.traffic.failure()
  if (failure !== undefined) throw simulatedFailure(failure, 'failure rate')
  return preference.applied
}

/**
 * The admin routes change state without a key, so a web page on another site must not
 * reach them: a cross-site form or fetch POST needs no preflight. Requests without an
 * Origin (curl, scripts), from the sandbox's own origin and from loopback origins
 * (a local front end) are let through.
 */
function checkOrigin(request: CoreRequest): void {
  const origin = header(request.headers, 'origin')
  if (
    origin === undefined ||
    isLoopbackOrigin(origin) ||
    origin === `http://${header(request.headers, 'host') ?? ''}`
  ) {
    return
  }
  throw new ApiError('forbidden', `Admin routes accept requests from this machine only, not from origin ${origin}`)
}

function isLoopbackOrigin(origin: string): boolean {
  if (!URL.canParse(origin)) return false
  const { hostname } = new URL(origin)
  return hostname === 'localhost' || hostname === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(hostname)
}
