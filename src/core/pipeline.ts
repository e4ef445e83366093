/**
 * handle(request) -> response: the order of checks, written once for every route.
 *
 *   TRACE/CONNECT -> target length -> target -> headers sent twice -> (server: Host, the target's
 *   authority, a trusted proxy's host) -> Transfer-Encoding -> Expect -> route table -> (server: preflight) ->
 *     API:   key -> 404 -> 405 -> tenant held -> body read (coding, budget) -> delay -> (refusal)
 *            -> scenarios, Prefer, failure rate -> body parsed -> operation -> tenant released -> journal
 *     admin: (server: Origin) -> 404 -> 405 -> key if sent -> body read -> body parsed -> operation
 *     site:  404 -> 405 -> operation
 *   -> (server: CORS, for allowed origins)
 *
 * Everything up to the body is decided from the request line and headers: the body of a refused
 * request is never read (adapters pass `readBody`, called only here). HEAD runs GET's operation.
 * Every failure leaves as an Error body through `errorResponse`; nothing here throws. The answers
 * these checks can give are listed once, in http/answers.ts, for the OpenAPI document and CORS.
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import { unauthorized, type Authenticate } from './api/auth.js'
import type { CorsPolicy } from './http/cors.js'
import { ApiError } from './http/errors.js'
import {
  errorResponse,
  header,
  isEventStream,
  type BodyRead,
  type CoreRequest,
  type CoreResponse,
  type Surface,
} from './http/http.js'
import { checkContentCoding, readJsonBody, tooLarge } from './http/json-body.js'
import type { Limits } from './limits.js'
import { authorityOf, clientAddress, forwardedHost } from './http/forwarded.js'
import { isHostAllowed, isLoopbackAddress, readHost, type AllowedHosts } from './http/local.js'
import {
  allowedMethods,
  operationFor,
  type Area,
  type Exchange,
  type Operation,
  type RouteTable,
} from './http/routes.js'
import { OPERATIONS, type OperationId } from './admin/contract.js'
import { readPrefer, simulatedFailure } from './admin/scenarios.js'
import { notFoundOutsideApi } from './docs/site.js'
import type { SandboxState } from './admin/state.js'
import { labelTenant } from './admin/tenants.js'
import type { TenantStore } from './api/store.js'
import { ADMIN_PATH } from './http/mounts.js'
import { parseTarget, targetTooLong, type Target } from './http/target.js'

interface Pipeline {
  handle(request: CoreRequest): Promise<CoreResponse>
}

interface PipelineOptions {
  readonly table: RouteTable
  readonly basePath: string
  /** The API's one origin when `baseUrl` names one: absolute targets on other origins are not the API. */
  readonly baseOrigin: string | undefined
  readonly surface: Surface
  readonly limits: Limits
  readonly authenticate: Authenticate
  /** The admin routes' credential for a request from another machine: the listed keys only. */
  readonly authenticateAdmin: Authenticate
  /** The state once the seed is ready (a generated seed loads faker first). */
  readonly state: () => SandboxState | Promise<SandboxState>
  /** Server: Host names allowed besides local names and IP literals, or `all`. */
  readonly allowedHosts: AllowedHosts
  /** Server: believe Forwarded and X-Forwarded-Proto/Host for the server's own origin (a proxy in front). */
  readonly trustProxy: boolean
  /** CORS headers, on the server only. */
  readonly cors: CorsPolicy | undefined
  /** Told about unexpected failures (which answer 500). */
  readonly onUnexpectedError: (error: unknown, request: CoreRequest) => void
}

const UNSUPPORTED_METHODS = new Set(['TRACE', 'CONNECT'])

/** A release for a request that holds no large-body slot. */
const NOTHING = (): void => undefined

/** Headers a request may carry once: a second one would let two readers see two requests (RFC 9110, 9112). */
export const SINGLE_HEADERS = ['host', 'content-length', 'content-type', 'authorization'] as const
const HEADER_NAMES: Readonly<Record<(typeof SINGLE_HEADERS)[number], string>> = {
  host: 'Host',
  'content-length': 'Content-Length',
  'content-type': 'Content-Type',
  authorization: 'Authorization',
}

export function createPipeline(options: PipelineOptions): Pipeline {
  const { table, basePath, surface, cors, limits } = options
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

  /** One Host value's rules: well formed, and allowed (against DNS rebinding). */
  const checkHostValue = (host: string, what: string, malformed = what): ApiError | undefined => {
    if (host === lastGoodHost) return undefined
    // A slash, query or credentials in Host would parse as a URL with the rest moved into its path.
    if (/[\s/?#@\\]/.test(host) || !URL.canParse(`http://${host}`)) {
      return new ApiError('bad_request', `${malformed} ${JSON.stringify(host)} is not a valid host`)
    }
    if (!isHostAllowed(host, options.allowedHosts)) {
      const read = readHost(host)
      const name = read.kind === 'name' ? read.name : host
      return new ApiError(
        'forbidden',
        `${what} ${JSON.stringify(host)} is not allowed: the sandbox answers local names and IP addresses only. ` +
          `To reach it as ${name}, start it with --allowed-host ${name} (or PETSTORE_ALLOWED_HOSTS=${name})`,
      )
    }
    lastGoodHost = host
    return undefined
  }

  /**
   * The server's Host rules: present on HTTP/1.1, and each name the request gives for the server
   * allowed: the Host header, an absolute-form target's authority (RFC 9112 section 3.2.2), and
   * with trustProxy the forwarded host.
   */
  const checkHost = (request: CoreRequest, target: Target): ApiError | undefined => {
    const host = header(request.headers, 'host')
    if (host === undefined && request.httpVersion !== '1.0') {
      return new ApiError('bad_request', 'An HTTP/1.1 request must carry a Host header (RFC 9112)')
    }
    // HTTP/1.0 has no Host: load balancers' health checks still pass.
    const refusal =
      (host === undefined ? undefined : checkHostValue(host, 'Host', 'Host header')) ??
      (target.origin === undefined ? undefined : checkHostValue(authorityOf(target.origin), "The target's host"))
    if (refusal !== undefined || !options.trustProxy) return refusal
    const forwarded = forwardedHost(request)
    return forwarded === undefined ? undefined : checkHostValue(forwarded, 'The forwarded host')
  }

  const fail = (error: unknown, request: CoreRequest): CoreResponse => {
    if (error instanceof ApiError) return errorResponse(error)
    options.onUnexpectedError(error, request)
    return errorResponse(new ApiError('internal_error', 'The sandbox failed to handle this request; see its log'))
  }

  const capOf = (operation: Operation): number => limits[operation.body?.limit ?? 'bodyBytes']

  /**
   * Reads the body of a request every other rule has let through, within its route's budget.
   * A body sent with a content coding is refused unread; a large one (a state import) waits for
   * no one: past the largeBodies budget it is refused unread with 503. Answers a release for the
   * large-body slot, called when the operation is done with the body.
   */
  const takeBody = async (
    request: CoreRequest,
    operation: Operation,
    state: SandboxState,
  ): Promise<[BodyRead, () => void]> => {
    const { bodies } = state
    checkContentCoding(request.headers)
    const cap = capOf(operation)
    // Declared too large: refused from the header, whatever else is being read.
    if (declaredLength(request) > cap) return [{ body: null, truncated: true }, NOTHING]
    let release = NOTHING
    if (cap > limits.bodyBytes) {
      if (bodies.large >= limits.largeBodies) {
        throw new ApiError(
          'service_unavailable',
          `The sandbox reads at most ${limits.largeBodies} large bod${limits.largeBodies === 1 ? 'y' : 'ies'} at once (the largeBodies limit); try again in a moment`,
          { 'Retry-After': '1' },
        )
      }
      bodies.large++
      let held = true
      release = () => {
        if (held) bodies.large--
        held = false
      }
    }
    try {
      const read =
        request.readBody === undefined
          ? { body: request.body, truncated: request.truncated === true }
          : await request.readBody(cap)
      if (read.incomplete === true) {
        throw new ApiError('bad_request', 'The client closed the connection before the body was complete')
      }
      return [read, release]
    } catch (error) {
      release()
      throw error
    }
  }

  /** Parses the body when the operation takes one, then runs it. `seen` keeps what was sent, for the journal. */
  const run = (
    operation: Operation,
    exchange: Omit<Exchange, 'body'>,
    read: BodyRead | undefined,
    seen: { body: unknown; bytes: number },
  ): CoreResponse | Promise<CoreResponse> => {
    const { request } = exchange
    if (operation.body === undefined) {
      // A route that reads no body still has a budget for one: judged from Content-Length, unread.
      if (request.truncated === true || declaredLength(request) > limits.bodyBytes) throw tooLarge(limits.bodyBytes)
      return operation.run({ ...exchange, body: undefined })
    }
    const given = read ?? { body: null, truncated: false }
    seen.bytes = given.body?.byteLength ?? 0
    const { emptyHint } = operation.body
    return readJsonBody(request.headers, given, capOf(operation), emptyHint, (text) => {
      seen.body = text
    }).then((body) => {
      seen.body = body
      return operation.run({ ...exchange, body })
    })
  }

  const api = async (request: CoreRequest, target: Target, state: SandboxState): Promise<CoreResponse> => {
    const started = performance.now()
    const match = table.match(target.path, 'api')
    const operation = match === undefined ? undefined : operationFor(match.route, request.method)
    const seen = { body: null as unknown, bytes: 0 }
    let key: string | undefined
    let store: TenantStore | undefined
    let applied: string[] = []
    let response: CoreResponse
    let release = NOTHING
    try {
      // Everything that needs no body is decided first, so a refused body is never read. The
      // key is read first so that the tenant is held from here to the answer, every delay
      // included: a tenant is never evicted mid-request. A refusal still waits out --delay.
      let refusal: unknown
      try {
        key = options.authenticate(header(request.headers, 'authorization'))
        if (match === undefined) {
          throw new ApiError('not_found', `${target.path} does not exist; the endpoints are ${endpoints}`)
        }
        if (operation === undefined) throw methodNotAllowed(request, target, allowedMethods(match.route))
        if (operation.petData === true) store = state.tenants.acquire(key)
      } catch (error) {
        refusal = error
      }
      let read: BodyRead | undefined
      if (refusal === undefined && operation?.body !== undefined) {
        try {
          ;[read, release] = await takeBody(request, operation, state)
        } catch (error) {
          refusal = error
        }
      }
      const delay = state.traffic.delayMs()
      if (delay > 0) await state.delays.sleep(delay)
      if (refusal !== undefined || key === undefined || operation === undefined || match === undefined) throw refusal
      if (operation.simulated === true) applied = await simulate(operation.id as OperationId, request, state, key)
      response = await run(operation, { request, target, params: match.params, key, state, store }, read, seen)
    } catch (error) {
      response = fail(error, request)
    } finally {
      release()
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
      const kept = state.journal.record({
        time: state.clock().getTime(),
        operation: journalOperation(operation),
        method: request.method,
        target: request.target,
        headers: request.headers,
        ...(request.headerBytes !== undefined && { headerBytes: request.headerBytes }),
        body: seen.body,
        bodyBytes: seen.bytes,
        status: response.status,
        durationMs: performance.now() - started,
        tenant: key,
      })
      if (state.events.listening()) announce(state, operation, key, response.status, kept)
    }
    return state.isolated && key !== undefined ? { ...response, tenant: labelTenant(key, state.defaultKey) } : response
  }

  const other = async (
    request: CoreRequest,
    target: Target,
    state: SandboxState,
    area: 'admin' | 'site',
  ): Promise<CoreResponse> => {
    let release = NOTHING
    try {
      const match = table.match(target.path, area)
      const operation = match === undefined ? undefined : operationFor(match.route, request.method)
      // The shipped files are the same for everyone, and a page loads its own module scripts with
      // an Origin: they are left out, so the dashboard behind a TLS proxy loads and can say why
      // its requests are refused. CORS still keeps other sites from reading them.
      if (area === 'admin' && cors !== undefined && operation?.shipped !== true) {
        const refusal = cors.refuseAdmin(request)
        if (refusal !== undefined) throw refusal
      }
      if (match === undefined) throw notFoundOutsideApi(target.path, basePath)
      if (operation === undefined) throw methodNotAllowed(request, target, allowedMethods(match.route))
      const authorization = header(request.headers, 'authorization')
      const elsewhere = fromElsewhere(request)
      if (elsewhere && area === 'admin' && operation.key === 'optional' && operation.shipped !== true) {
        checkAdminKey(authorization)
      }
      let key =
        operation.key !== 'none' && authorization !== undefined ? options.authenticate(authorization) : undefined
      // The dashboard scopes by ?tenant=, a handle that never shows the key itself.
      const handle = key === undefined && operation.key === 'optional' ? tenantParameter(target) : undefined
      if (handle !== undefined) key = tenantKey(state, handle)
      let read: BodyRead | undefined
      if (operation.body !== undefined) [read, release] = await takeBody(request, operation, state)
      const exchange = { request, target, params: match.params, key, state, store: undefined, elsewhere }
      return await run(operation, exchange, read, { body: null, bytes: 0 })
    } catch (error) {
      return fail(error, request)
    } finally {
      release()
    }
  }

  /** Whether a request comes from another machine: a peer beyond loopback, or one a trusted proxy names. */
  const fromElsewhere = (request: CoreRequest): boolean => {
    const address = clientAddress(request, options.trustProxy)
    return address !== undefined && !isLoopbackAddress(address)
  }

  /**
   * The admin routes answer this machine freely. Another machine (a sandbox listening beyond
   * loopback, or a LAN client behind a trusted proxy) needs one of the listed API keys: the data
   * and its controls are not open to a whole network without a credential.
   */
  const checkAdminKey = (authorization: string | undefined): void => {
    try {
      options.authenticateAdmin(authorization)
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      throw unauthorized(
        `${ADMIN_PATH} answers another machine only with one of the sandbox's API keys (--api-key): ${error.message}`,
        authorization !== undefined,
      )
    }
  }

  /** Rules on the request line and headers alone, before any route: each a JSON Error. */
  const checkHead = (request: CoreRequest, target: Target): ApiError | undefined => {
    let repeated: (typeof SINGLE_HEADERS)[number][] | undefined
    for (const name of SINGLE_HEADERS) if (Array.isArray(request.headers[name])) (repeated ??= []).push(name)
    if (repeated !== undefined) {
      return new ApiError(
        'bad_request',
        repeated
          .map(
            (name) =>
              `the ${HEADER_NAMES[name]} header must be sent once, got ${(request.headers[name] as string[]).length}`,
          )
          .join('; '),
      )
    }
    const refusal = surface === 'server' ? checkHost(request, target) : undefined
    if (refusal !== undefined) return refusal
    const coding = header(request.headers, 'transfer-encoding')
    if (coding !== undefined && coding.trim().toLowerCase() !== 'chunked') {
      return new ApiError(
        'not_implemented',
        `Transfer-Encoding ${JSON.stringify(coding)} is not supported: send the body with Content-Length, or with Transfer-Encoding: chunked alone`,
      )
    }
    const expect = header(request.headers, 'expect')
    if (expect !== undefined && expect.trim().toLowerCase() !== '100-continue') {
      return new ApiError(
        'expectation_failed',
        `Expect ${JSON.stringify(expect)} cannot be met: the sandbox meets Expect: 100-continue only`,
      )
    }
    return undefined
  }

  /** The answer, and the area whose CORS rule applies to it (answers refused early count as the site's). */
  const dispatch = async (request: CoreRequest): Promise<[CoreResponse, Area]> => {
    // Before the target: CONNECT's is an authority (host:port), which is no path.
    if (UNSUPPORTED_METHODS.has(request.method)) {
      return refuse(new ApiError('not_implemented', `The ${request.method} method is not supported`))
    }
    const tooLong = targetTooLong(request.target, limits)
    if (tooLong !== undefined) return refuse(tooLong)
    const target = parseTarget(request.target)
    if (target === undefined) {
      return refuse(
        new ApiError(
          'bad_request',
          `Request target ${JSON.stringify(request.target)} is not a path or an absolute URL`,
        ),
      )
    }
    const refusal = checkHead(request, target)
    if (refusal !== undefined) return refuse(refusal)
    const area = onOtherOrigin(target) ? 'site' : table.areaOf(target.path)
    if (cors !== undefined && request.method === 'OPTIONS') {
      const origin = header(request.headers, 'origin')
      if (origin !== undefined && !cors.allows(request, origin, area))
        return [errorResponse(originRefused(origin, area)), area]
      return [
        { status: 204, headers: cors.preflight(request, table.match(target.path, area)?.route, area), body: null },
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
      // HEAD: GET's status and headers; a stream is not opened for it (its body would go nowhere).
      if (request.method === 'HEAD' && isEventStream(response.body)) response = { ...response, body: null }
      if (area !== 'api' && response.status < 400 && (request.method === 'GET' || request.method === 'HEAD')) {
        response = { ...response, polling: true }
      }
      if (cors === undefined || request.method === 'OPTIONS') return response
      const headers = cors.answer(request, area)
      return headers === undefined ? response : { ...response, headers: { ...response.headers, ...headers } }
    },
  }
}

/** An answer refused before any route: the site's CORS rule applies to it. */
function refuse(error: ApiError): [CoreResponse, Area] {
  return [errorResponse(error), 'site']
}

/** The body's length as Content-Length declares it; 0 without one. */
function declaredLength(request: CoreRequest): number {
  const length = header(request.headers, 'content-length')
  return length === undefined ? 0 : Number(length)
}

/** The `tenant` query parameter, by its exact name; undefined when absent. */
function tenantParameter(target: Target): string | undefined {
  if (target.query === '') return undefined
  const params = new URLSearchParams(target.query)
  return params.has('tenant') ? (params.get('tenant') ?? '') : undefined
}

/** Tells the event stream about an answered request, and about the data it changed. */
function announce(
  state: SandboxState,
  operation: Operation | undefined,
  key: string | undefined,
  status: number,
  kept: boolean,
): void {
  const entry = kept ? state.journal.last() : undefined
  if (entry !== undefined) state.events.emit({ type: 'request', key, entry })
  if (operation?.writes === true && status < 300) {
    state.events.emit({ type: 'change', key: state.tenants.scope(key) })
  }
}

function tenantKey(state: SandboxState, handle: string): string {
  const key = state.tenants.keyOf(handle)
  if (key === undefined) {
    throw new ApiError(
      'invalid_parameter',
      `tenant ${JSON.stringify(handle)} does not exist (any more); GET ${ADMIN_PATH}/tenants lists them`,
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

function originRefused(origin: string, area: Area): ApiError {
  return new ApiError(
    'forbidden',
    area === 'api'
      ? `Pages from origin ${origin} may not call the API; start the sandbox with --cors-origin ${origin} (or PETSTORE_CORS_ORIGINS) to let them`
      : `Pages from origin ${origin} may not read the admin routes, the reference page or the document: they are for local origins and the sandbox's own only`,
  )
}
