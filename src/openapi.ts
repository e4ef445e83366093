/**
 * The OpenAPI 3.1 document, generated from the zod contract: the schemas come from
 * zod's JSON Schema output, never from a second hand-written copy. What is written here
 * is only what zod cannot know: the operations, their parameters, and every response
 * the handlers can give. `npm run openapi` writes it to openapi.json.
 */
import { z } from 'zod'
import { ErrorSchema, ListPetsQuerySchema, NewPetSchema, PetIdSchema, PetSchema, PetStatusSchema } from './contract.js'
import { ERROR_CODES, type ErrorCode } from './errors.js'
import { GET_PET_DEPRECATED_AT, GET_PET_SUNSET_AT, LABELLED_METHODS } from './handlers.js'
import { DEFAULT_API_KEY } from './auth.js'

type Json = Record<string, unknown>

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` })

export function createOpenApiDocument(): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Pet Store',
      version: '1.0.0',
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'An HTTP JSON interface for managing animals in a pet store, as served by petstore-sandbox. ' +
        `The sandbox accepts \`Authorization: Bearer ${DEFAULT_API_KEY}\` unless started with other keys.`,
    },
    servers: [
      { url: '/v1', description: 'This sandbox (relative to where this document is served)' },
      { url: 'https://api.example.com/v1', description: 'Production (placeholder for {base_url})' },
      { url: 'https://staging.api.example.com/v1', description: 'Staging (placeholder for {staging_base_url})' },
    ],
    security: [{ bearerAuth: [] }],
    tags: [{ name: 'pets', description: 'Animals in the store' }],
    paths: {
      '/pets': { get: listPets(), post: createPet() },
      '/pets/{petId}': { get: getPet() },
      '/store/orders': {
        get: notImplemented('getStoreOrders', 'The store orders area; its shape is not shown by the interface.'),
      },
      '/experimental/{endpoint}': labelled('experimental'),
      '/beta/{endpoint}': labelled('beta'),
    },
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key sent as a bearer credential.' },
      },
    },
  }
}

function componentSchemas(): Json {
  const uri = (id: string) => `#/components/schemas/${id}`
  // JSON Schema says nothing of int64; OpenAPI's format does. The int64 fields are exactly
  // those bounded by the safe-integer range.
  const override = ({ jsonSchema }: { jsonSchema: Json }) => {
    if (jsonSchema.type === 'integer' && jsonSchema.maximum === Number.MAX_SAFE_INTEGER) jsonSchema.format = 'int64'
  }
  const output = z.registry<{ id: string }>()
  output.add(PetStatusSchema, { id: 'PetStatus' }).add(PetSchema, { id: 'Pet' }).add(ErrorSchema, { id: 'Error' })
  // NewPet is what clients send: unknown fields are accepted (and dropped), `id` is refused.
  const input = z.registry<{ id: string }>()
  input.add(PetStatusSchema, { id: 'PetStatus' }).add(NewPetSchema, { id: 'NewPet' })
  const { schemas: outputs } = z.toJSONSchema(output, { target: 'draft-2020-12', io: 'output', uri, override })
  const { schemas: inputs } = z.toJSONSchema(input, { target: 'draft-2020-12', io: 'input', uri, override })
  const newPet = {
    ...strip(inputs.NewPet),
    not: { required: ['id'] },
    description: 'An animal to add. `id` is assigned by the service and may not be sent.',
  }
  return {
    PetStatus: strip(outputs.PetStatus),
    NewPet: newPet,
    Pet: strip(outputs.Pet),
    Error: strip(outputs.Error),
  }
}

// Component schemas live inside the document: their own $schema and $id would re-root refs.
function strip(schema: Json | undefined): Json {
  if (schema === undefined) throw new Error('Failed to build the OpenAPI document: a schema is missing')
  const { $schema: _schema, $id: _id, ...rest } = schema
  return rest
}

function queryParameter(name: 'limit' | 'status'): Json {
  const { properties } = z.toJSONSchema(ListPetsQuerySchema, { io: 'input' }) as { properties: Record<string, Json> }
  const { description, ...schema } = properties[name] ?? {}
  return {
    name,
    in: 'query',
    required: false,
    description,
    schema: name === 'status' ? schemaRef('PetStatus') : schema,
  }
}

/** The sandbox's Prefer header (RFC 7240): simulate a failure or a delay for one request. */
const PREFER = {
  name: 'Prefer',
  in: 'header',
  required: false,
  description:
    'Sandbox only: `code=<status>` answers with a simulated failure (401, 429, 500, 503; 404 for getPet), ' +
    '`delay=<ms>` waits first. Example: `Prefer: code=503, delay=1500`.',
  schema: { type: 'string' },
}

function listPets(): Json {
  return {
    operationId: 'listPets',
    summary: 'List animals',
    description: 'Returns animals ordered by id ascending, at most `limit` of them, filtered by `status`.',
    tags: ['pets'],
    parameters: [queryParameter('limit'), queryParameter('status'), PREFER],
    responses: {
      200: json('A JSON array of Pet', { type: 'array', items: schemaRef('Pet') }),
      ...commonErrors(['invalid_parameter', 'bad_request']),
    },
  }
}

function createPet(): Json {
  return {
    operationId: 'createPet',
    summary: 'Add an animal',
    tags: ['pets'],
    parameters: [PREFER],
    requestBody: { required: true, content: { 'application/json': { schema: schemaRef('NewPet') } } },
    responses: {
      201: json('The created Pet, with its assigned id', schemaRef('Pet'), {
        Location: header('Where the new pet can be read: `/v1/pets/{id}`', { type: 'string' }),
      }),
      ...commonErrors(['invalid_body', 'bad_request']),
      415: error('The body was sent with a Content-Type other than JSON', ['unsupported_media_type']),
    },
  }
}

function getPet(): Json {
  const deprecation = {
    Deprecation: header('RFC 9745: when the operation was deprecated', {
      type: 'string',
      const: `@${GET_PET_DEPRECATED_AT.getTime() / 1000}`,
    }),
    Sunset: header('RFC 8594: when the operation will be removed', {
      type: 'string',
      const: GET_PET_SUNSET_AT.toUTCString(),
    }),
    Link: header('The replacement: GET /pets with the status filter', { type: 'string' }),
  }
  const { description, ...idSchema } = z.toJSONSchema(PetIdSchema, { io: 'input' }) as Json
  return {
    operationId: 'getPet',
    summary: 'Fetch one animal (deprecated)',
    description: `Deprecated: removal announced for ${GET_PET_SUNSET_AT.toUTCString()}. Use GET /pets with the status filter.`,
    deprecated: true,
    tags: ['pets'],
    parameters: [
      { name: 'petId', in: 'path', required: true, description, schema: { ...strip(idSchema), format: 'int64' } },
      PREFER,
    ],
    responses: withHeaders(
      {
        200: json('The Pet', schemaRef('Pet')),
        ...commonErrors(['invalid_parameter', 'bad_request']),
        404: error('The animal cannot be found', ['pet_not_found']),
        410: error('Past the sunset date (the sandbox clock, --now): the operation is removed', ['gone']),
      },
      deprecation,
    ),
  }
}

function notImplemented(operationId: string, description: string, extra: Json = {}): Json {
  return {
    operationId,
    summary: 'Not implemented by the sandbox',
    description,
    ...extra,
    responses: {
      401: unauthorized(),
      413: error('The request body is over the size cap', ['payload_too_large']),
      500: error('A failure of the sandbox itself', ['internal_error']),
      501: error('The interface does not show this endpoint, so the sandbox does not implement it', [
        'not_implemented',
      ]),
    },
  }
}

function labelled(stability: 'experimental' | 'beta'): Json {
  const parameter = {
    name: 'endpoint',
    in: 'path',
    required: true,
    description: `Any ${stability} endpoint`,
    schema: { type: 'string' },
  }
  return Object.fromEntries(
    LABELLED_METHODS.map((method) => [
      method,
      notImplemented(
        `${stability}${method[0]?.toUpperCase() ?? ''}${method.slice(1)}`,
        `Endpoints labelled ${stability}; their shapes are not shown by the interface.`,
        { parameters: [parameter], 'x-stability-level': stability },
      ),
    ]),
  )
}

function commonErrors(badRequestCodes: ErrorCode[]): Json {
  const retryAfter = { 'Retry-After': header('Seconds to wait before retrying', { type: 'string', pattern: '^\\d+$' }) }
  return {
    400: error('A query parameter, path parameter, body or the request itself is invalid', badRequestCodes),
    401: unauthorized(),
    413: error('The request body is over the size cap', ['payload_too_large']),
    429: error('Simulated by a sandbox scenario or Prefer: too many requests', ['too_many_requests'], retryAfter),
    500: error('A failure of the sandbox itself, or one it simulates; never of the request', ['internal_error']),
    503: error(
      'Simulated by a sandbox scenario, Prefer or --failure-rate: unavailable',
      ['service_unavailable'],
      retryAfter,
    ),
  }
}

function unauthorized(): Json {
  return error('The API key is missing or invalid', ['unauthorized'], {
    'WWW-Authenticate': header('The bearer challenge', { type: 'string', pattern: '^Bearer ' }),
  })
}

/** An Error response whose `code` is one of `codes` and whose `status` is the HTTP status. */
function error(description: string, codes: ErrorCode[], headers?: Json): Json {
  const statuses = new Set(codes.map((code) => ERROR_CODES[code]))
  if (statuses.size !== 1) throw new Error(`Failed to build the OpenAPI document: ${codes.join()} differ in status`)
  const [status] = statuses
  return json(
    description,
    {
      allOf: [schemaRef('Error'), { properties: { code: { enum: codes }, status: { const: status } } }],
    },
    headers,
  )
}

function json(description: string, schema: Json, headers?: Json): Json {
  return { description, ...(headers && { headers }), content: { 'application/json': { schema } } }
}

function header(description: string, schema: Json): Json {
  return { description, required: true, schema }
}

function withHeaders(responses: Record<string, Json>, headers: Json): Json {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      { ...response, headers: { ...(response.headers as Json | undefined), ...headers } },
    ]),
  )
}
