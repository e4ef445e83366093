/**
 * The MSW handlers: read the request, authenticate, call the contract and the store,
 * build the response. Every failure leaves through `toErrorResponse`.
 */
import { http, HttpResponse, type HttpHandler } from 'msw'
import { routePattern, type BaseUrl } from './base-url.js'
import { checkListPetsQuery, checkPetId, type NewPet } from './contract.js'
import { ApiError } from './errors.js'
import { readJsonBody, readQuery } from './request.js'
import { PetValidationError, type PetStore } from './store.js'

export interface HandlerContext {
  readonly store: PetStore
  readonly authenticate: (authorization: string | null) => void
  readonly base: BaseUrl
  readonly maxBodyBytes: number
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

type Operation = (request: Request, context: HandlerContext) => Promise<Response>

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
  const answer =
    (operation: Operation, headers: Record<string, string> = {}) =>
    async ({ request }: { request: Request }) => {
      const response = await run(operation, request, context)
      for (const [name, value] of Object.entries(headers)) response.headers.set(name, value)
      return response
    }

  // msw answers with the first handler that matches, so the specific routes come first
  // and the catch-alls (405 on known paths, 404 for the rest of the base) last.
  return [
    http.get(pets, answer(listPets)),
    http.post(pets, answer(createPet)),
    http.get(pet, answer(getPet, deprecation)),
    http.get(orders, answer(notImplemented)),
    ...LABELLED_METHODS.map((method) => http[method](labelled, answer(notImplemented))),
    http.all(pets, answer(methodNotAllowed('GET, POST'))),
    http.all(pet, answer(methodNotAllowed('GET'))),
    http.all(orders, answer(methodNotAllowed('GET'))),
    http.all(labelled, answer(methodNotAllowed(LABELLED_METHODS.join(', ').toUpperCase()))),
    http.all(routePattern(base, '(?:/.*)?'), answer(notFound)),
  ]
}

/** Authentication comes before anything else, on every path under the base. */
async function run(operation: Operation, request: Request, context: HandlerContext): Promise<Response> {
  try {
    context.authenticate(request.headers.get('authorization'))
    return await operation(request, context)
  } catch (error) {
    if (error instanceof ApiError) return toErrorResponse(error)
    context.onUnexpectedError(error, request)
    return toErrorResponse(new ApiError('internal_error', 'The sandbox failed to handle this request; see its log'))
  }
}

export function toErrorResponse(error: ApiError): Response {
  return HttpResponse.json(error.toBody(), { status: error.status, headers: error.headers })
}

const listPets: Operation = async (request, { store }) => {
  const query = checkListPetsQuery(readQuery(new URL(request.url), ['limit', 'status']))
  if (!query.ok) throw new ApiError('invalid_parameter', query.problems.join('; '))
  return HttpResponse.json(await store.list(query.value))
}

const createPet: Operation = async (request, { store, base, maxBodyBytes }) => {
  const body = await readJsonBody(request, maxBodyBytes)
  try {
    // Only shaped like a NewPet so far: create() checks it against the contract.
    const created = await store.create(body as NewPet)
    return HttpResponse.json(created, { status: 201, headers: { Location: `${base.path}/pets/${created.id}` } })
  } catch (error) {
    if (error instanceof PetValidationError) throw new ApiError('invalid_body', error.message)
    throw error
  }
}

const getPet: Operation = async (request, { store }) => {
  const id = checkPetId(lastSegment(request))
  if (!id.ok) throw new ApiError('invalid_parameter', id.problems.join('; '))
  const found = await store.get(id.value)
  if (found === undefined) throw new ApiError('pet_not_found', `pet ${id.value} does not exist`)
  return HttpResponse.json(found)
}

const notImplemented: Operation = async (request) => {
  throw new ApiError(
    'not_implemented',
    `${request.method} ${new URL(request.url).pathname} is not implemented: the interface does not show its shape`,
  )
}

function methodNotAllowed(allow: string): Operation {
  return async (request) => {
    throw new ApiError(
      'method_not_allowed',
      `${request.method} is not allowed on ${new URL(request.url).pathname}; allowed: ${allow}`,
      { Allow: allow },
    )
  }
}

const notFound: Operation = async (request, { base }) => {
  throw new ApiError(
    'not_found',
    `${new URL(request.url).pathname} does not exist; the endpoints are ${base.path}/pets and ${base.path}/pets/{petId}`,
  )
}

// The raw segment, percent-escapes and all: an id is digits, so anything escaped is not one.
function lastSegment(request: Request): string {
  return new URL(request.url).pathname.replace(/\/$/, '').split('/').pop() ?? ''
}
