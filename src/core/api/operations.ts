/**
 * The API's rows of the route table: listPets, createPet and the deprecated getPet as plain
 * functions over the tenant's store, and the areas the interface names without showing (501).
 *
 * May import: core/api, core/http, core/limits.ts, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import * as z from 'zod'
import {
  checkListPetsQuery,
  checkNewPet,
  checkPetId,
  LIST_LIMIT,
  ListPetsQuerySchema,
  PetIdSchema,
} from './contract.js'
import { ApiError } from '../http/errors.js'
import { json, JSON_HEADERS } from '../http/http.js'
import { readQuery } from '../http/query.js'
import { METHODS } from '../http/routes.js'
import type { ApiExchange, ApiOperation, ApiRoute } from './exchange.js'
import type { TenantStore } from './store.js'

/**
 * getPet is deprecated with removal announced for 5 December 2030. The interface does not
 * say since when, so the sandbox states 1 January 2026 (RFC 9745 wants a date).
 */
export const GET_PET_DEPRECATED_AT = new Date('2026-01-01T00:00:00Z')
export const GET_PET_SUNSET_AT = new Date('2030-12-05T00:00:00Z')
const SUNSET_MS = GET_PET_SUNSET_AT.getTime()

const listPets: ApiOperation = {
  id: 'listPets',
  summary: 'List animals',
  description: 'Returns animals ordered by id ascending, at most `limit` of them, filtered by `status`.',
  key: 'required',
  simulated: true,
  petData: true,
  errors: ['invalid_parameter'],
  parameters: () => [queryParameter('limit'), queryParameter('status')],
  success: [
    {
      status: 200,
      description: 'A JSON array of Pet',
      schema: { arrayOf: 'Pet', maxItems: LIST_LIMIT.max },
    },
  ],
  run({ target, store }) {
    const query = checkListPetsQuery(readQuery(target.query, ['limit', 'status']))
    if (!query.ok) throw new ApiError('invalid_parameter', query.problems.join('; '))
    const body = held(store).listJson(query.value)
    return { status: 200, headers: JSON_HEADERS, body }
  },
}

function createPet(basePath: string): ApiOperation {
  return {
    id: 'createPet',
    summary: 'Add an animal',
    key: 'required',
    simulated: true,
    petData: true,
    writes: true,
    body: {
      limit: 'bodyBytes',
      schema: 'NewPet',
      emptyHint: 'send a JSON object with name and categoryId',
      example: { name: 'Rex', categoryId: 1, status: 'available' },
      check: (body) => {
        newPetOf(body)
      },
    },
    errors: ['invalid_body', 'insufficient_storage'],
    success: [
      {
        status: 201,
        description: 'The created Pet, with its assigned id',
        schema: 'Pet',
        headers: { Location: 'Where the new pet can be read: `/v1/pets/{id}`' },
      },
    ],
    run({ body, store }) {
      const created = held(store).insert(newPetOf(body))
      return json(201, created, { Location: `${basePath}/pets/${created.id}` })
    },
  }
}

/** The new pet a body holds, or the 400 naming every problem. */
function newPetOf(body: unknown) {
  const checked = checkNewPet(body)
  if (!checked.ok) throw new ApiError('invalid_body', checked.problems.join('; '))
  return checked.value
}

function getPet(basePath: string): ApiOperation {
  return {
    id: 'getPet',
    summary: 'Fetch one animal (deprecated)',
    description: `Deprecated: removal announced for ${GET_PET_SUNSET_AT.toUTCString()}. Use GET /pets with the status filter.`,
    deprecated: true,
    key: 'required',
    simulated: true,
    petData: true,
    headers: {
      Deprecation: `@${GET_PET_DEPRECATED_AT.getTime() / 1000}`,
      Sunset: GET_PET_SUNSET_AT.toUTCString(),
      Link: `<${basePath}/pets>; rel="successor-version"`,
    },
    errors: ['invalid_parameter', 'pet_not_found', 'gone'],
    parameters: () => [petIdParameter()],
    success: [{ status: 200, description: 'The Pet', schema: 'Pet' }],
    run({ params, now, store }: ApiExchange) {
      if (now() >= SUNSET_MS) {
        throw new ApiError(
          'gone',
          `getPet was removed on ${GET_PET_SUNSET_AT.toUTCString()}; use GET ${basePath}/pets with the status filter`,
        )
      }
      // The raw segment, percent-escapes and all: an id is digits, so anything escaped is not one.
      const id = checkPetId(params.petId ?? '')
      if (!id.ok) throw new ApiError('invalid_parameter', id.problems.join('; '))
      const found = held(store).getJson(id.value)
      if (found === undefined) throw new ApiError('pet_not_found', `pet ${id.value} does not exist`)
      return { status: 200, headers: JSON_HEADERS, body: found }
    },
  }
}

/** The store the pipeline holds for a `petData` operation; its absence is a bug, not a request's fault. */
function held(store: TenantStore | undefined): TenantStore {
  if (store === undefined) throw new Error('A pet operation ran without its tenant: mark it petData')
  return store
}

/** An area the interface names without showing its shape: every call answers 501 after authentication. */
function notImplemented(id: string, description: string, parameters?: ApiOperation['parameters']): ApiOperation {
  return {
    id,
    summary: 'Not implemented by the sandbox',
    description,
    key: 'required',
    errors: ['not_implemented'],
    ...(parameters && { parameters }),
    success: [],
    run({ request, target }) {
      throw new ApiError(
        'not_implemented',
        `${request.method} ${target.path} is not implemented: the interface does not show its shape`,
      )
    },
  }
}

function labelled(stability: 'experimental' | 'beta'): ApiRoute {
  const parameter = {
    name: 'endpoint',
    in: 'path',
    required: true,
    description: `Any ${stability} endpoint`,
    schema: { type: 'string' },
  }
  const operations = METHODS.map((method) => [
    method,
    notImplemented(
      `${stability}${method[0] ?? ''}${method.slice(1).toLowerCase()}`,
      `Endpoints labelled ${stability}; their shapes are not shown by the interface.`,
      () => [parameter],
    ),
  ])
  return {
    area: 'api',
    path: `/${stability}/{endpoint}`,
    methods: Object.fromEntries(operations) as ApiRoute['methods'],
  }
}

/** The API's routes under `basePath`. */
export function petRoutes(basePath: string): ApiRoute[] {
  return [
    { area: 'api', path: '/pets', methods: { GET: listPets, POST: createPet(basePath) } },
    { area: 'api', path: '/pets/{petId}', methods: { GET: getPet(basePath) } },
    {
      area: 'api',
      path: '/store/orders',
      methods: {
        GET: notImplemented('getStoreOrders', 'The store orders area; its shape is not shown by the interface.'),
      },
    },
    labelled('experimental'),
    labelled('beta'),
  ]
}

function queryParameter(name: 'limit' | 'status'): Record<string, unknown> {
  const { properties } = z.toJSONSchema(ListPetsQuerySchema, { io: 'input' }) as {
    properties: Record<string, Record<string, unknown>>
  }
  const { description, ...schema } = properties[name] ?? {}
  return {
    name,
    in: 'query',
    required: false,
    description,
    schema: name === 'status' ? { $ref: '#/components/schemas/PetStatus' } : schema,
  }
}

function petIdParameter(): Record<string, unknown> {
  const {
    description,
    $schema: _schema,
    ...schema
  } = z.toJSONSchema(PetIdSchema, { io: 'input' }) as Record<string, unknown>
  return { name: 'petId', in: 'path', required: true, description, schema: { ...schema, format: 'int64' } }
}
