/**
 * handle(request) -> response: the order of checks, written once for every route.
 *
 *   TRACE/CONNECT -> target length -> target -> headers sent twice -> (server: Host, the target's
 *   authority, a trusted proxy's host) -> Transfer-Encoding -> Expect -> route table -> (server: preflight) ->
 *     API:   key -> 404 -> 405 -> tenant held -> body read (coding, budget) -> delay -> (refusal)
 *            -> scenarios, Prefer, failure rate -> body parsed -> operation -> tenant released -> journal
 *            (forwarded: key, or none without an upstream key -> body read -> delay -> scenarios, Prefer,
 *            failure rate -> client still there -> upstreamRequests held -> the upstream, called off if
 *            the client leaves, its answer checked against the contract -> journal; no tenant)
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
  JSON_HEADERS,
  header,
  isEventStream,
  type BodyRead,
  type CoreRequest,
  type CoreResponse,
  type Surface,
  withNosniff,
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
  type Match,
  type Operation,
  type RouteTable,
} from './http/routes.js'
import { OPERATIONS, type OperationId, type Scenario } from './admin/contract.js'
import { readPrefer, simulatedFailure, type Preference } from './admin/scenarios.js'
import { notFoundOutsideApi } from './docs/site.js'
import type { SandboxState } from './admin/state.js'
import type { TenantStore } from './api/store.js'
import { ADMIN_PATH } from './http/mounts.js'
import { parseTarget, targetTooLong, type Target } from './http/target.js'
import {
  climbingParameter,
  relayed,
  upstreamBusy,
  upstreamFailed,
  UpstreamFailure,
  upstreamRequest,
  type Upstream,
} from './upstream.js'
import { NO_VIOLATIONS, type PlainAnswer, type Violations } from './verify/conformance.js'
import { readJson } from './http/json.js'

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
  /** Name the tenant on API answers in isolated mode, for a host's access log (one object more per answer). */
  readonly labelTenants: boolean
  /** CORS headers, on the server only. */
  readonly cors: CorsPolicy | undefined
  /** Told about unexpected failures (which answer 500). */
  readonly onUnexpectedError: (error: unknown, request: CoreRequest) => void
  /** Server with --upstream: where forwarded operations go (state.forwarding says which). */
  readonly upstream: Upstream | undefined
}

const UNSUPPORTED_METHODS = new Set(['TRACE', 'CONNECT'])

/** A release for a request that holds no large-body slot. */
const NOTHING = (): void => undefined

/** What one API request holds from its first rule to its journal entry. */
interface ApiCall {
  readonly started: number
  readonly match: Match | undefined
  operation: Operation | undefined
  key: string | undefined
  store: TenantStore | undefined
  /** The body as sent, for the journal. */
  readonly seen: { body: unknown; bytes: number }
  /** Gives back the large-body slot, if the request took one. */
  release: () => void
  applied?: readonly string[]
  /** The operation goes to the upstream (decided once, before the key is read). */
  forward: boolean
  /** It was sent: the answer is the upstream's, or the sandbox's 502/504 when none came. */
  sent: boolean
  /** The upstream's answer is relayed, breaking the contract in these ways (none: kept it). */
  violations: Violations | undefined
}

/** Headers a request may carry once: a second one would let two readers see two requests (RFC 9110, 9112). */
export const SINGLE_HEADERS = ['host', 'content-length', 'content-type', 'authorization'] as const
const HEADER_NAMES: Readonly<Record<(typeof SINGLE_HEADERS)[number], string>> = {
  host: 'Host',
  'content-length': 'Content-Length',
  'content-type': 'Content-Type',
  authorization: 'Authorization',
}

export function createPipeline(options: PipelineOptions): Pipeline {
  const { table, basePath, surface, cors, limits, upstream } = options
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
      checkFraming(read)
      return [read, release]
    } catch (error) {
      release()
      throw error
    }
  }

  // JSON_HEADERS and an operation's own headers, by operation: a handful of objects, built once each.
  const jsonHeaders = new Map<Operation, Readonly<Record<string, string>>>()
  const jsonHeadersOf = (operation: Operation): Readonly<Record<string, string>> => {
    let headers = jsonHeaders.get(operation)
    if (headers === undefined) {
      headers = Object.freeze({ ...JSON_HEADERS, ...operation.headers })
      jsonHeaders.set(operation, headers)
    }
    return headers
  }

  /** Parses the body when the operation takes one, then runs it. `seen` keeps what was sent, for the journal. */
  const run = (
    operation: Operation,
    exchange: Exchange,
    read: BodyRead | undefined,
    seen: { body: unknown; bytes: number },
  ): CoreResponse | Promise<CoreResponse> => {
    const { request } = exchange
    if (operation.body === undefined) {
      const unused = checkUnusedBody(request, limits.bodyBytes)
      return unused === undefined ? operation.run(exchange) : unused.then(() => operation.run(exchange))
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

  /**
   * An API request. Everything that needs no body is decided first, so a refused body is never
   * read. The key is read first so that the tenant is held from here to the answer, every delay
   * included: a tenant is never evicted mid-request. A refusal still waits out --delay.
   *
   * Without a body, a delay or a scenario to wait for (the common request), it answers at once,
   * without a promise: the pipeline's work per request was measured under wrk, and awaits and
   * object spreads were a good part of it.
   */
  const api = (request: CoreRequest, target: Target, state: SandboxState): CoreResponse | Promise<CoreResponse> => {
    const call: ApiCall = {
      started: performance.now(),
      match: table.match(target.path, 'api'),
      operation: undefined,
      key: undefined,
      store: undefined,
      seen: { body: null, bytes: 0 },
      release: NOTHING,
      forward: false,
      sent: false,
      violations: undefined,
    }
    const { match } = call
    const operation = match === undefined ? undefined : operationFor(match.route, request.method)
    call.operation = operation
    // One lookup in a small set, and only for the pet operations of a server with an upstream.
    call.forward =
      upstream !== undefined && operation?.simulated === true && state.forwarding.forwarded.has(operation.id)
    let refusal: unknown
    try {
      const authorization = header(request.headers, 'authorization')
      // With its own key for the upstream the sandbox is the gate; without one, the upstream judges
      // the client's credential, which the sandbox then only reads to scope scenarios and the journal.
      call.key =
        call.forward && upstream?.key === undefined ? keyIfAccepted(authorization) : options.authenticate(authorization)
      if (match === undefined) {
        throw new ApiError('not_found', `${target.path} does not exist; the endpoints are ${endpoints}`)
      }
      if (operation === undefined) throw methodNotAllowed(request, target, allowedMethods(match.route))
      if (call.forward) {
        const climbing = climbingParameter(match.params)
        if (climbing !== undefined) throw climbing
      }
      // A forwarded call reads and writes the upstream's data: it holds no tenant.
      if (operation.petData === true && !call.forward && call.key !== undefined) {
        call.store = state.tenants.acquire(call.key)
      }
    } catch (error) {
      refusal = error
    }
    const delay = state.traffic.delayMs()
    if (delay > 0 || (refusal === undefined && call.operation?.body !== undefined)) {
      return answerLater(call, request, target, state, refusal, delay)
    }
    let response: CoreResponse | Promise<CoreResponse>
    try {
      response = proceed(call, request, target, state, refusal, undefined)
    } catch (error) {
      response = fail(error, request)
    }
    if (response instanceof Promise) return settle(call, request, state, response)
    return finish(call, request, state, response)
  }

  /** The key of a credential the sandbox accepts, or none: a forwarded call's client is the upstream's to judge. */
  const keyIfAccepted = (authorization: string | undefined): string | undefined => {
    try {
      return options.authenticate(authorization)
    } catch {
      return undefined
    }
  }

  /** The rest of an API request once its body is read and its delay waited out. */
  const answerLater = async (
    call: ApiCall,
    request: CoreRequest,
    target: Target,
    state: SandboxState,
    refused: unknown,
    delay: number,
  ): Promise<CoreResponse> => {
    let response: CoreResponse | Promise<CoreResponse>
    try {
      let refusal = refused
      let read: BodyRead | undefined
      const { operation } = call
      if (refusal === undefined && operation?.body !== undefined) {
        try {
          ;[read, call.release] = await takeBody(request, operation, state)
        } catch (error) {
          refusal = error
        }
      }
      if (delay > 0) await state.delays.sleep(delay)
      response = proceed(call, request, target, state, refusal, read)
    } catch (error) {
      response = fail(error, request)
    }
    return settle(call, request, state, response)
  }

  /** Scenarios, Prefer and the failure rate, then the operation: an answer now, or a promise of one. */
  const proceed = (
    call: ApiCall,
    request: CoreRequest,
    target: Target,
    state: SandboxState,
    refusal: unknown,
    read: BodyRead | undefined,
  ): CoreResponse | Promise<CoreResponse> => {
    const { operation, key, match, store } = call
    // Past the refusals, only a forwarded call may have no key (the upstream judges its credential).
    if (
      refusal !== undefined ||
      operation === undefined ||
      match === undefined ||
      (key === undefined && !call.forward)
    ) {
      throw refusal
    }
    if (call.forward && upstream !== undefined) {
      const id = operation.id as OperationId
      const applied = simulate(id, request, state, key)
      if (applied instanceof Promise) {
        return applied.then((names) => {
          call.applied = names
          return forward(call, operation, id, upstream, request, target, state, read)
        })
      }
      call.applied = applied
      return forward(call, operation, id, upstream, request, target, state, read)
    }
    const exchange: Exchange = { request, target, params: match.params, key, state, store, body: undefined }
    if (operation.simulated !== true) return run(operation, exchange, read, call.seen)
    const applied = simulate(operation.id as OperationId, request, state, key)
    if (applied instanceof Promise) {
      return applied.then((names) => {
        call.applied = names
        return run(operation, exchange, read, call.seen)
      })
    }
    call.applied = applied
    return run(operation, exchange, read, call.seen)
  }

  /**
   * Sends a forwarded operation to the upstream in place of running it: the body as it came
   * (within the operation's cap), the target without the base path. The answer is relayed and
   * checked against the interface document; no answer is a 502, or a 504 past upstreamTimeoutMs.
   */
  const forward = async (
    call: ApiCall,
    operation: Operation,
    id: OperationId,
    to: Upstream,
    request: CoreRequest,
    target: Target,
    state: SandboxState,
    read: BodyRead | undefined,
  ): Promise<CoreResponse> => {
    let body: Uint8Array | null = null
    if (operation.body === undefined) {
      // No body is sent on: it is judged as for the sandbox's own.
      await checkUnusedBody(request, limits.bodyBytes)
    } else {
      if (read?.truncated === true) throw tooLarge(capOf(operation))
      body = read?.body ?? null
      if (body !== null) {
        call.seen.bytes = body.byteLength
        call.seen.body = journalBody(body)
      }
    }
    const rest = target.path.slice(state.basePath.length)
    const onward = target.query === '' ? rest : `${rest}?${target.query}`
    const sent = upstreamRequest(request, onward, body, to, limits)
    // Gone during a delay or a scenario's wait: nothing is sent for no one.
    if (request.signal?.aborted === true) throw upstreamFailed(CALLED_OFF, id, to.label, limits)
    // Held until the exchange ends, answered or not: each holds a socket and up to upstreamBodyBytes.
    const { exchanges } = state.forwarding
    if (exchanges.waiting >= limits.upstreamRequests) throw upstreamBusy(limits)
    exchanges.waiting++
    call.sent = true
    let answer: PlainAnswer
    try {
      answer = await to.send(sent)
    } catch (error) {
      throw upstreamFailed(error, id, to.label, limits)
    } finally {
      exchanges.waiting--
    }
    const { response, violations } = relayed(id, answer, to, onward, state.basePath)
    call.violations = violations
    return response
  }

  /** Waits for an answer that was not ready at once, then finishes it. */
  const settle = async (
    call: ApiCall,
    request: CoreRequest,
    state: SandboxState,
    pending: CoreResponse | Promise<CoreResponse>,
  ): Promise<CoreResponse> => {
    let response: CoreResponse
    try {
      response = await pending
    } catch (error) {
      response = fail(error, request)
    }
    return finish(call, request, state, response)
  }

  /** Releases what the request held, adds the operation's headers, counts and records it. */
  const finish = (call: ApiCall, request: CoreRequest, state: SandboxState, answered: CoreResponse): CoreResponse => {
    const { operation, key } = call
    const applied = call.applied ?? NONE_APPLIED
    let response = answered
    call.release()
    if (call.store !== undefined && key !== undefined) state.tenants.release(key)
    // An answer relayed from the upstream keeps the upstream's headers: the sandbox adds none of getPet's.
    const own = call.violations === undefined ? operation?.headers : undefined
    if (own !== undefined && operation !== undefined && applied.length === 0 && response.headers === JSON_HEADERS) {
      // A JSON answer of an operation with headers of its own (getPet): merged once, not per request.
      response = { ...response, headers: jsonHeadersOf(operation) }
    } else if (own !== undefined || applied.length > 0) {
      response = {
        ...response,
        headers: {
          ...response.headers,
          ...own,
          ...(applied.length > 0 && { 'Preference-Applied': applied.join(', ') }),
        },
      }
    }
    if (call.sent) {
      const { problems, more } = call.violations ?? NO_VIOLATIONS
      response = { ...response, forwarded: { violations: problems.length, more } }
    }
    state.counters.record(response.status, Date.now())
    if (state.journal.enabled) {
      const kept = state.journal.record({
        time: state.clock(),
        operation: journalOperation(operation),
        method: request.method,
        target: request.target,
        headers: request.headers,
        headerBytes: request.headerBytes,
        body: call.seen.body,
        bodyBytes: call.seen.bytes,
        status: response.status,
        durationMs: performance.now() - call.started,
        tenant: key,
        forwarded: call.sent,
        violations: (call.violations ?? NO_VIOLATIONS).problems,
        moreViolations: call.violations?.more === true,
      })
      // A forwarded write changed the upstream's data, not the sandbox's.
      if (state.events.listening()) announce(state, call.sent ? undefined : operation, key, response.status, kept)
    }
    return options.labelTenants && state.isolated && key !== undefined
      ? { ...response, tenant: state.tenants.labelOf(key) }
      : response
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
      const exchange = {
        request,
        target,
        params: match.params,
        key,
        state,
        store: undefined,
        elsewhere,
        body: undefined,
      }
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
  const dispatch = (request: CoreRequest): [CoreResponse | Promise<CoreResponse>, Area] => {
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
    const state = options.state()
    const route = (ready: SandboxState) =>
      area === 'api' ? api(request, target, ready) : other(request, target, ready, area)
    return [state instanceof Promise ? state.then(route) : route(state), area]
  }

  /** What every answer gets last: HEAD without a stream, the polling mark, nosniff, CORS. */
  const complete = (request: CoreRequest, answered: CoreResponse, area: Area): CoreResponse => {
    let response = answered
    // JSON answers carry it already (JSON_HEADERS): only pages, assets, streams and 204s are copied.
    const sniffless = withNosniff(response.headers)
    if (sniffless !== response.headers) response = { ...response, headers: sniffless }
    // HEAD: GET's status and headers; a stream is not opened for it (its body would go nowhere).
    if (request.method === 'HEAD' && isEventStream(response.body)) response = { ...response, body: null }
    if (area !== 'api' && response.status < 400 && (request.method === 'GET' || request.method === 'HEAD')) {
      response = { ...response, polling: true }
    }
    if (cors === undefined || request.method === 'OPTIONS') return response
    const headers = cors.answer(request, area)
    return headers === undefined ? response : { ...response, headers: { ...response.headers, ...headers } }
  }

  return {
    // One promise per request, and no more unless something waits (a body, a delay, a scenario).
    handle(request) {
      let pending: CoreResponse | Promise<CoreResponse>
      let area: Area = 'site'
      try {
        ;[pending, area] = dispatch(request)
      } catch (error) {
        pending = fail(error, request)
      }
      if (!(pending instanceof Promise)) return Promise.resolve(complete(request, pending, area))
      return pending.then(
        (response) => complete(request, response, area),
        (error: unknown) => complete(request, fail(error, request), area),
      )
    },
  }
}

/** An answer refused before any route: the site's CORS rule applies to it. */
function refuse(error: ApiError): [CoreResponse | Promise<CoreResponse>, Area] {
  return [errorResponse(error), 'site']
}

/** A body read to its end, or the refusal when it never came whole: the client left, or its chunked framing broke. */
function checkFraming(read: BodyRead): void {
  if (read.incomplete === true) {
    throw new ApiError('bad_request', 'The client closed the connection before the body was complete')
  }
  if (read.malformed !== undefined) {
    throw new ApiError(
      'bad_request',
      `The chunked body cannot be read: ${read.malformed}. Nothing more is read on this connection`,
    )
  }
}

/**
 * The body of a route that reads none still has a budget, and a framing: a Content-Length over
 * the cap is refused unread; a chunked body (whose length no header gives) is read to its end
 * within the cap before the route acts, so a broken framing or an oversized body refuses the
 * request (400, 413) and changes nothing. Undefined when there is nothing to wait for.
 */
function checkUnusedBody(request: CoreRequest, cap: number): Promise<void> | undefined {
  if (request.truncated === true || declaredLength(request) > cap) throw tooLarge(cap)
  if (request.readBody === undefined || request.headers['transfer-encoding'] === undefined) return undefined
  return request.readBody(cap).then((read) => {
    checkFraming(read)
    if (read.truncated) throw tooLarge(cap)
  })
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

/** No Preference-Applied: shared by every request that applied nothing. */
const NONE_APPLIED: readonly string[] = Object.freeze([])

/** A forward whose client left before it was sent: answered as one called off mid-exchange. */
const CALLED_OFF = new UpstreamFailure('aborted', 'the client left before the request was sent')

/**
 * A forwarded body as the journal keeps it: read by the sandbox's own JSON reader (within the
 * jsonDepth budget, numbers as written), as its own bodies are, else its text, which the body's
 * cap bounds. JSON.parse would take 8,000 nested arrays in a 16 KiB body, and every later read
 * of the journal would then overflow the stack in JSON.stringify.
 */
function journalBody(bytes: Uint8Array): unknown {
  const text = new TextDecoder().decode(bytes)
  const reading = readJson(text, 'body')
  return reading.ok ? reading.value : text
}

/**
 * Applies the first matching scenario, the request's Prefer, and the run-wide failure rate.
 * Synchronous when nothing waits (no scenario, no Prefer): the common request makes no promise.
 */
function simulate(
  operation: OperationId,
  request: CoreRequest,
  state: SandboxState,
  key: string | undefined,
): readonly string[] | Promise<readonly string[]> {
  const prefer = header(request.headers, 'prefer')
  // Read first: a Prefer the sandbox cannot honour is refused before any scenario is used up.
  const preference = prefer === undefined ? undefined : readPrefer(prefer, operation)
  // No key: a forwarded call whose credential the sandbox does not hold; the shared scenarios apply.
  const own = key === undefined ? undefined : state.tenants.existingScenarios(key)
  const scenario = own?.take(operation) ?? state.scenarios.take(operation)
  if (scenario !== undefined || preference !== undefined) return simulateSlowly(scenario, preference, state)
  const failure = state.traffic.failure()
  if (failure !== undefined) throw simulatedFailure(failure, 'failure rate')
  return NONE_APPLIED
}

async function simulateSlowly(
  scenario: Scenario | undefined,
  preference: Preference | undefined,
  state: SandboxState,
): Promise<readonly string[]> {
  if (scenario !== undefined) {
    if (scenario.delayMs !== undefined) await state.delays.sleep(scenario.delayMs)
    if (scenario.status !== undefined) {
      throw simulatedFailure(scenario.status, `scenario ${scenario.id}`, scenario.retryAfterSeconds)
    }
  }
  if (preference?.delayMs !== undefined) await state.delays.sleep(preference.delayMs)
  if (preference?.status !== undefined) {
    throw simulatedFailure(preference.status, `Prefer: code=${preference.status}`, 1, {
      'Preference-Applied': preference.applied.join(', '),
    })
  }
  const failure = state.traffic.failure()
  if (failure !== undefined) throw simulatedFailure(failure, 'failure rate')
  return preference?.applied ?? NONE_APPLIED
}

function originRefused(origin: string, area: Area): ApiError {
  return new ApiError(
    'forbidden',
    area === 'api'
      ? `Pages from origin ${origin} may not call the API; start the sandbox with --cors-origin ${origin} (or PETSTORE_CORS_ORIGINS) to let them`
      : `Pages from origin ${origin} may not read the admin routes, the reference page or the document: they are for local origins and the sandbox's own only`,
  )
}
