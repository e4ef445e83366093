/**
 * The MSW handlers: read the request, authenticate, call the contract and the store,
 * build the response. Every failure leaves through `toErrorResponse`, and every answered
 * request is written to the journal.
 */
import { http, HttpResponse, type HttpHandler } from 'msw'
import { routePattern, type BaseUrl } from './base-url.js'
import type { Clock } from './clock.js'
import { checkListPetsQuery, checkPetId, type NewPet } from './contract.js'
import { ApiError } from './errors.js'
import type { WritableJournal } from './journal.js'
import { readJsonBody, readQuery } from './request.js'
import { readPrefer, simulatedFailure, type OperationId, type Traffic, type WritableScenarioBook } from './scenarios.js'
import { PetValidationError, type PetStore } from './store.js'
import type { Tenants } from './tenants.js'

export interface HandlerContext {
  readonly tenants: Tenants
  readonly authenticate: (authorization: string | null) => string
  readonly base: BaseUrl
  readonly maxBodyBytes: number
  readonly journal: WritableJournal
  readonly scenarios: WritableScenarioBook
  readonly traffic: Traffic
  readonly clock: Clock
  /** Told about unexpected failures (which answer 500); the sandbox passes console.error. */
  readonly onUnexpectedError: (error: unknown, request: Request) => void
}

/**
 * getPet is deprecated with removal announced for 5 December 2030. The interface does not
 * say since when, so the sandbox states 1 January 2026 (RFC 9745 wants a date).
 */
export const GET_PET_DEPRECATED_AT = new Date('2026-01-01T00:00:00Z')
export const GET_PET_SUNSET_AT = new Date('2030-12-05T00:00:00Z')

/** Methods the labelled (experimental, beta) endpoints answer, all with 501. */
export const LABELLED_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const

/** What one request carries from the wrapper to its operation and back to the journal. */
interface Exchange {
  readonly request: Request
  readonly store: PetStore
  readonly context: HandlerContext
  /** The body as the operation read it, for the journal. */
  body: unknown
}

type Operation = (exchange: Exchange) => Promise<Response>

export function createHandlers(context: HandlerContext): HttpHandler[] {
  const { base } = context
  const pets = routePattern(base, '/pets')
  const pet = routePattern(base, '/pets/[^/]+')
  const orders = routePattern(base, '/store/orders')
  const labelled = routePattern(base, '/(?:experimental|beta)/[^/]+')
  const deprecation = {
    Deprecation: `@${GET_PET_DEPRECATED_AT.getTime() / 1000}`,
    Sunset: GET_PET_SUNSET_AT.toUTCString(),
    Link: `<${base.path}/pets>; rel="successor-version"`,
  }
  const noHeaders = {}
  const labelledMethods = new Set(LABELLED_METHODS.map((method) => method.toUpperCase()))
  const route =
    (pick: (method: string) => [OperationId | null, Operation, Record<string, string>]) =>
    ({ request }: { request: Request }) => {
      const [operationId, operation, headers] = pick(request.method)
      return run(operationId, operation, request, context, headers)
    }
  const petsNotAllowed = methodNotAllowed('GET, POST')
  const petNotAllowed = methodNotAllowed('GET')
  const labelledNotAllowed = methodNotAllowed([...labelledMethods].join(', '))

  // One handler per path, choosing the operation by method. msw parses every handler it
  // tries (URL and cookies) before looking at the method, at ~60 µs each here, so five
  // handlers instead of fifteen keep getPet and the 404s from paying for the others.
  return [
    http.all(
      pets,
      route((method) =>
        method === 'GET'
          ? ['listPets', listPets, noHeaders]
          : method === 'POST'
            ? ['createPet', createPet, noHeaders]
            : [null, petsNotAllowed, noHeaders],
      ),
    ),
    http.all(
      pet,
      route((method) => (method === 'GET' ? ['getPet', getPet, deprecation] : [null, petNotAllowed, noHeaders])),
    ),
    http.all(
      orders,
      route((method) => (method === 'GET' ? [null, notImplemented, noHeaders] : [null, petNotAllowed, noHeaders])),
    ),
    http.all(
      labelled,
      route((method) =>
        labelledMethods.has(method) ? [null, notImplemented, noHeaders] : [null, labelledNotAllowed, noHeaders],
      ),
    ),
    http.all(
      routePattern(base, '(?:/.*)?'),
      route(() => [null, notFound, noHeaders]),
    ),
  ]
}

/**
 * The order every request goes through: the sandbox-wide delay, authentication, then the
 * simulated conditions (scenarios, Prefer, --failure-rate), then the operation.
 */
async function run(
  operationId: OperationId | null,
  operation: Operation,
  request: Request,
  context: HandlerContext,
  headers: Record<string, string>,
): Promise<Response> {
  const started = performance.now()
  let body: unknown = null
  let tenant: string | undefined
  let applied: string[] = []
  let response: Response
  try {
    await sleep(context.traffic.delayMs())
    tenant = context.authenticate(request.headers.get('authorization'))
    const exchange: Exchange = { request, store: context.tenants.storeFor(tenant), context, body: null }
    try {
      if (operationId !== null) applied = await simulate(operationId, request, context, tenant)
      response = await operation(exchange)
    } finally {
      body = exchange.body
    }
  } catch (error) {
    if (error instanceof ApiError) {
      response = toErrorResponse(error)
    } else {
      context.onUnexpectedError(error, request)
      response = toErrorResponse(
        new ApiError('internal_error', 'The sandbox failed to handle this request; see its log'),
      )
    }
  }
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value)
  if (applied.length > 0) response.headers.set('Preference-Applied', applied.join(', '))
  record(context, operationId, request, body, response.status, performance.now() - started, tenant)
  return response
}

/** Applies the first matching scenario, the request's Prefer, and the random failure rate. */
async function simulate(
  operationId: OperationId,
  request: Request,
  context: HandlerContext,
  tenant: string,
): Promise<string[]> {
  // Read first: a Prefer the sandbox cannot honour is refused before any scenario is used up.
  const preference = readPrefer(request.headers.get('prefer'), operationId)
  const scenario = context.tenants.scenariosFor(tenant)?.take(operationId) ?? context.scenarios.take(operationId)
  if (scenario !== undefined) {
    await sleep(scenario.delayMs ?? 0)
    if (scenario.status !== undefined) {
      throw simulatedFailure(scenario.status, `scenario ${scenario.id}`, scenario.retryAfterSeconds)
    }
  }
  await sleep(preference.delayMs ?? 0)
  if (preference.status !== undefined) {
    throw simulatedFailure(preference.status, `Prefer: code=${preference.status}`, 1, {
      'Preference-Applied': preference.applied.join(', '),
    })
  }
  const failure = context.traffic.failure()
  if (failure !== undefined) throw simulatedFailure(failure, 'failure rate')
  return preference.applied
}

function record(
  context: HandlerContext,
  operation: OperationId | null,
  request: Request,
  body: unknown,
  status: number,
  durationMs: number,
  tenant: string | undefined,
): void {
  if (!context.journal.enabled) return
  const url = new URL(request.url)
  const query: Record<string, string | string[]> = {}
  for (const name of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(name)
    query[name] = values.length === 1 ? (values[0] ?? '') : values
  }
  const headers: Record<string, string> = {}
  request.headers.forEach((value, name) => {
    headers[name] = name === 'authorization' || name === 'proxy-authorization' ? redact(value) : value
  })
  context.journal.record(
    {
      time: context.clock().toISOString(),
      operation,
      method: request.method,
      url: request.url,
      path: url.pathname,
      query,
      headers,
      body,
      status,
      durationMs: Math.round(durationMs * 100) / 100,
    },
    tenant,
  )
}

/** Keeps a scheme visible (a wrong scheme is a common mistake); a credential, never. */
function redact(value: string): string {
  const match = /^(\S+)\s+\S/.exec(value.trim())
  return match === null ? '[redacted]' : `${match[1] ?? ''} [redacted]`
}

export function toErrorResponse(error: ApiError): Response {
  return HttpResponse.json(error.toBody(), { status: error.status, headers: error.headers })
}

// Unref'd where the platform allows: a delayed answer must not keep a closed server's process alive.
const sleep = (ms: number) =>
  ms > 0
    ? new Promise<void>((resolve) => {
        const timer: unknown = setTimeout(resolve, ms)
        if (typeof timer === 'object' && timer !== null && 'unref' in timer && typeof timer.unref === 'function') {
          ;(timer as { unref: () => void }).unref()
        }
      })
    : Promise.resolve()

const listPets: Operation = async ({ request, store }) => {
  const query = checkListPetsQuery(readQuery(new URL(request.url), ['limit', 'status']))
  if (!query.ok) throw new ApiError('invalid_parameter', query.problems.join('; '))
  return HttpResponse.json(await store.list(query.value))
}

const createPet: Operation = async (exchange) => {
  const { request, store, context } = exchange
  const body = await readJsonBody(request, context.maxBodyBytes, (text) => {
    exchange.body = text
  })
  exchange.body = body
  try {
    // Only shaped like a NewPet so far: create() checks it against the contract.
    const created = await store.create(body as NewPet)
    return HttpResponse.json(created, {
      status: 201,
      headers: { Location: `${context.base.path}/pets/${created.id}` },
    })
  } catch (error) {
    if (error instanceof PetValidationError) throw new ApiError('invalid_body', error.message)
    throw error
  }
}

const getPet: Operation = async ({ request, store, context }) => {
  if (context.clock() >= GET_PET_SUNSET_AT) {
    throw new ApiError(
      'gone',
      `getPet was removed on ${GET_PET_SUNSET_AT.toUTCString()}; use GET ${context.base.path}/pets with the status filter`,
    )
  }
  const id = checkPetId(lastSegment(request))
  if (!id.ok) throw new ApiError('invalid_parameter', id.problems.join('; '))
  const found = await store.get(id.value)
  if (found === undefined) throw new ApiError('pet_not_found', `pet ${id.value} does not exist`)
  return HttpResponse.json(found)
}

const notImplemented: Operation = async ({ request }) => {
  throw new ApiError(
    'not_implemented',
    `${request.method} ${new URL(request.url).pathname} is not implemented: the interface does not show its shape`,
  )
}

function methodNotAllowed(allow: string): Operation {
  return async ({ request }) => {
    throw new ApiError(
      'method_not_allowed',
      `${request.method} is not allowed on ${new URL(request.url).pathname}; allowed: ${allow}`,
      { Allow: allow },
    )
  }
}

const notFound: Operation = async ({ request, context }) => {
  const { path } = context.base
  throw new ApiError(
    'not_found',
    `${new URL(request.url).pathname} does not exist; the endpoints are ${path}/pets and ${path}/pets/{petId}`,
  )
}

// The raw segment, percent-escapes and all: an id is digits, so anything escaped is not one.
function lastSegment(request: Request): string {
  return new URL(request.url).pathname.replace(/\/$/, '').split('/').pop() ?? ''
}
