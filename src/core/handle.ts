/**
 * handle(request) -> response: the order of checks, written once for every route.
 *
 *   TRACE/CONNECT -> target length -> target -> (server: Host) -> route table -> (server: preflight) ->
 *     API:   key -> tenant held -> delay -> (401) -> 404 -> 405 -> scenarios, Prefer, failure rate
 *            -> body -> operation -> tenant released -> journal
 *     admin: (server: Origin) -> 404 -> 405 -> key if sent -> body -> operation
 *     site:  404 -> 405 -> operation
 *   -> (server: CORS, for allowed origins)
 *
 * Every failure leaves as an Error body through `errorResponse`; nothing here throws.
 *
 * May import: other core files, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import type { Authenticate } from './auth.js'
import type { CorsPolicy } from './cors.js'
import { ApiError } from './errors.js'
import { errorResponse, header, type CoreRequest, type CoreResponse, type Surface } from './http.js'
import { readJsonBody, tooLarge } from './json-body.js'
import { isHostAllowed, isLocalOrigin, readHost, type AllowedHosts } from './local.js'
import { allowedMethods, type Area, type Exchange, type Method, type Operation, type RouteTable } from './routes.js'
import { OPERATIONS, readPrefer, simulatedFailure, type OperationId } from './scenarios.js'
import { notFoundOutsideApi } from './site.js'
import type { SandboxState } from './state.js'
import type { TenantStore } from './store.js'
import { parseTarget, type Target } from './target.js'

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
  /** Server: Host names allowed besides local names and IP literals, or `all`. */
  readonly allowedHosts: AllowedHosts
  /** CORS headers, on the server only. */
  readonly cors: CorsPolicy | undefined
  /** Told about unexpected failures (which answer 500). */
  readonly onUnexpectedError: (error: unknown, request: CoreRequest) => void
}

const UNSUPPORTED_METHODS = new Set(['TRACE', 'CONNECT'])

/** Longer request targets answer 414: no route is anywhere near, and logs and the journal keep them. */
export const MAX_TARGET_LENGTH = 8 * 1024

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

  /** The server's Host rules: present on HTTP/1.1, well formed, and allowed (against DNS rebinding). */
  const checkHost = (request: CoreRequest): ApiError | undefined => {
    const host = header(request.headers, 'host')
    if (host === undefined) {
      // HTTP/1.0 has no Host: load balancers' health checks still pass.
      return request.httpVersion === '1.0'
        ? undefined
        : new ApiError('bad_request', 'An HTTP/1.1 request must carry a Host header (RFC 9112)')
    }
    if (host === lastGoodHost) return undefined
    // A slash, query or credentials in Host would parse as a URL with the rest moved into its path.
    if (/[\s/?#@\\]/.test(host) || !URL.canParse(`http://${host}`)) {
      return new ApiError('bad_request', `Host header ${JSON.stringify(host)} is not a valid host`)
    }
    if (!isHostAllowed(host, options.allowedHosts)) {
      const read = readHost(host)
      const name = read.kind === 'name' ? read.name : host
      return new ApiError(
        'forbidden',
        `Host ${JSON.stringify(host)} is not allowed: the sandbox answers local names and IP addresses only. ` +
          `To reach it as ${name}, start it with --allowed-host ${name} (or PETSTORE_ALLOWED_HOSTS=${name})`,
      )
    }
    lastGoodHost = host
    return undefined
  }

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
    let store: TenantStore | undefined
    let applied: string[] = []
    let response: CoreResponse
    try {
      // The key is read first so that the tenant is held from here to the answer, every delay
      // included: a tenant is never evicted mid-request. A refusal still waits out --delay.
      let refusal: unknown
      try {
        key = options.authenticate(header(request.headers, 'authorization'))
        if (operation?.petData === true) store = state.tenants.acquire(key)
      } catch (error) {
        refusal = error
      }
      const delay = state.traffic.delayMs()
      if (delay > 0) await state.delays.sleep(delay)
      if (refusal !== undefined || key === undefined) throw refusal
      if (match === undefined) {
        throw new ApiError('not_found', `${target.path} does not exist; the endpoints are ${endpoints}`)
      }
      if (operation === undefined) throw methodNotAllowed(request, target, allowedMethods(match.route))
      if (operation.simulated === true) applied = await simulate(operation.id as OperationId, request, state, key)
      response = await run(operation, { request, target, params: match.params, key, state, store }, seen)
    } catch (error) {
      response = fail(error, request)
    } finally {
      if (store !== undefined && key !== undefined) state.tenants.release(key)
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
    state.counters.record(response.status, Date.now())
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
    if (state.events.listening()) announce(state, operation, key, response.status)
    return response
  }

  const other = async (
    request: CoreRequest,
    target: Target,
    state: SandboxState,
    area: 'admin' | 'site',
  ): Promise<CoreResponse> => {
    try {
      if (area === 'admin' && surface === 'server') checkAdminOrigin(request)
      const match = table.match(target.path, area)
      if (match === undefined) throw notFoundOutsideApi(target.path, basePath)
      const operation = match.route.methods[request.method as Method]
      if (operation === undefined) throw methodNotAllowed(request, target, allowedMethods(match.route))
      const authorization = header(request.headers, 'authorization')
      let key =
        operation.key !== 'none' && authorization !== undefined ? options.authenticate(authorization) : undefined
      // The dashboard scopes by ?tenant=t3, a handle that never shows the key itself.
      if (key === undefined && operation.key === 'optional' && target.query.includes('tenant=')) {
        key = tenantKey(state, new URLSearchParams(target.query).get('tenant') ?? '')
      }
      const exchange = { request, target, params: match.params, key, state, store: undefined }
      return await run(operation, exchange, { body: null })
    } catch (error) {
      return fail(error, request)
    }
  }

  /** The answer, and the area whose CORS rule applies to it (answers refused early count as the site's). */
  const dispatch = async (request: CoreRequest): Promise<[CoreResponse, Area]> => {
    const refuse = (error: ApiError): [CoreResponse, Area] => [errorResponse(error), 'site']
    // Before the target: CONNECT's is an authority (host:port), which is no path.
    if (UNSUPPORTED_METHODS.has(request.method)) {
      return refuse(new ApiError('not_implemented', `The ${request.method} method is not supported`))
    }
    if (request.target.length > MAX_TARGET_LENGTH) {
      return refuse(
        new ApiError(
          'uri_too_long',
          `The request target is ${request.target.length} characters long; the sandbox reads targets of up to ${MAX_TARGET_LENGTH}`,
        ),
      )
    }
    const target = parseTarget(request.target)
    if (target === undefined) {
      return refuse(
        new ApiError(
          'bad_request',
          `Request target ${JSON.stringify(request.target)} is not a path or an absolute URL`,
        ),
      )
    }
    const refusal = surface === 'server' ? checkHost(request) : undefined
    if (refusal !== undefined) return refuse(refusal)
    const area = onOtherOrigin(target) ? 'site' : table.areaOf(target.path)
    if (cors !== undefined && request.method === 'OPTIONS') {
      const origin = header(request.headers, 'origin')
      if (origin !== undefined && !cors.allows(origin, area)) return [errorResponse(originRefused(origin, area)), area]
      return [
        { status: 204, headers: cors.preflight(request, table.match(target.path, area)?.route), body: null },
        area,
      ]
    }
    const state = await options.state()
    return [area === 'api' ? await api(request, target, state) : await other(request, target, state, area), area]
  }

  return {
    async handle(request) {
      let response: CoreResponse
      let area: Area = 'site'
      try {
        ;[response, area] = await dispatch(request)
      } catch (error) {
        response = fail(error, request)
      }
      if (cors === undefined || request.method === 'OPTIONS') return response
      const headers = cors.answer(request, area)
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

/** Tells the event stream about an answered request, and about the data it changed. */
function announce(
  state: SandboxState,
  operation: Operation | undefined,
  key: string | undefined,
  status: number,
): void {
  const entry = state.journal.last()
  if (entry !== undefined) state.events.emit({ type: 'request', key, entry })
  if (operation?.writes === true && status < 300) {
    state.events.emit({ type: 'change', key: state.isolated ? key : undefined })
  }
}

function tenantKey(state: SandboxState, handle: string): string {
  const key = state.tenants.keyOf(handle)
  if (key === undefined) {
    throw new ApiError(
      'invalid_parameter',
      `tenant ${JSON.stringify(handle)} does not exist (any more); GET /__sandbox/tenants lists them`,
    )
  }
  return key
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
    if (scenario.delayMs !== undefined) await state.delays.sleep(scenario.delayMs)
    if (scenario.status !== undefined) {
      throw simulatedFailure(scenario.status, `scenario ${scenario.id}`, scenario.retryAfterSeconds)
    }
  }
  if (preference.delayMs !== undefined) await state.delays.sleep(preference.delayMs)
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
 * Origin (curl, scripts), from local origins (a local front end) and from the sandbox's own
 * origin (its Host already passed the allowlist) are let through.
 */
function checkAdminOrigin(request: CoreRequest): void {
  const origin = header(request.headers, 'origin')
  const own = `http://${header(request.headers, 'host') ?? ''}`
  if (origin === undefined || isLocalOrigin(origin) || origin === own) return
  throw new ApiError('forbidden', `Admin routes accept requests from this machine only, not from origin ${origin}`)
}

function originRefused(origin: string, area: Area): ApiError {
  return new ApiError(
    'forbidden',
    area === 'api'
      ? `Pages from origin ${origin} may not call the API; start the sandbox with --cors-origin ${origin} (or PETSTORE_CORS_ORIGINS) to let them`
      : `Pages from origin ${origin} may not read the admin routes, the reference page or the document: they are for local origins only`,
  )
}
