/**
 * The OpenAPI 3.1 document, generated from the route table and the zod contract: paths,
 * operations and every response come from the rows (what a row needs, a key, a body, simulated
 * conditions, says which errors the pipeline can answer), schemas from zod's JSON Schema output.
 * `npm run openapi` writes it to openapi.json.
 *
 * May import: core/docs, core/admin, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import * as z from 'zod'
import { adminRoutes } from '../admin/operations.js'
import { DEFAULT_API_KEY } from '../api/auth.js'
import { NewPetSchema, PetSchema, PetStatusSchema } from '../api/contract.js'
import { ERROR_CODES, ErrorSchema, type ErrorCode } from '../http/errors.js'
import { ADMIN_PATH } from '../http/mounts.js'
import { petRoutes } from '../api/operations.js'
import { answeredBeforeRouting, ERROR_HEADERS, errorCodesOf } from '../http/answers.js'
import { RELAYED_CSP, VIOLATIONS_HEADER } from '../http/stages.js'
import { METHODS, type Area, type OperationSpec, type Route, type Success } from '../http/routes.js'
import { LIMITS } from '../limits.js'

type Json = Record<string, unknown>

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/**
 * The API's document, as the server serves it under `/v1` (GET /openapi.json, openapi.json): what
 * a client of the Pet Store can call, the three pet operations. The areas the interface names
 * without a shape (`/store/orders`, `/experimental/*`, `/beta/*`) answer 501 and are no operation
 * a client could use, so they are left out (docs/behaviour.md lists them); the admin routes have a
 * document of their own (createAdminOpenApiDocument), so a client generated from this one never
 * calls them under `/v1`.
 */
export function createOpenApiDocument(): Json {
  const routes = petRoutes('/v1').filter((route) => !placeholder(route))
  return {
    openapi: '3.1.0',
    info: info(
      'Pet Store',
      'An HTTP JSON interface for managing animals in a pet store, as served by petstore-sandbox. ' +
        `The sandbox accepts \`Authorization: Bearer ${DEFAULT_API_KEY}\` unless started with other keys. ` +
        `Its own admin routes (reset, journal, scenarios, state) are described apart, in \`${ADMIN_PATH}/openapi.json\`.`,
    ),
    servers: [
      { url: '/v1', description: 'This sandbox (relative to where this document is served)' },
      { url: 'https://api.example.com/v1', description: 'Production (placeholder for {base_url})' },
      { url: 'https://staging.api.example.com/v1', description: 'Staging (placeholder for {staging_base_url})' },
    ],
    security: [{ bearerAuth: [] }],
    tags: [{ name: 'pets', description: 'Animals in the store' }],
    paths: pathsOf(routes),
    components: {
      schemas: componentSchemas(),
      securitySchemes: BEARER,
    },
  }
}

/**
 * The admin routes' document (GET /__sandbox/openapi.json, admin-openapi.json): its server is
 * `/__sandbox`, so a generated client calls them where they are. A key is needed only from
 * another machine, which OpenAPI cannot say: the key is optional in the document, and each
 * operation's description ends by saying when it is needed.
 */
export function createAdminOpenApiDocument(): Json {
  const paths = pathsOf(adminRoutes)
  return {
    openapi: '3.1.0',
    info: info(
      'Pet Store sandbox: admin routes',
      "petstore-sandbox's own routes, beside the Pet Store API: reset, the request journal, scenarios, state, " +
        'checkpoints, health, forwarding. ' +
        KEY_NOTE,
    ),
    servers: [{ url: ADMIN_PATH, description: 'This sandbox (relative to where this document is served)' }],
    tags: [{ name: 'sandbox', description: 'Reset, journal, scenarios, state, checkpoints, health, forwarding' }],
    paths,
    components: {
      schemas: referenced(paths, componentSchemas()),
      securitySchemes: BEARER,
    },
  }
}

/** The component schemas a document refers to, directly or through another one. */
function referenced(paths: Json, schemas: Record<string, Json>): Record<string, Json> {
  const used = new Set<string>()
  const visit = (node: unknown) => {
    for (const [, name] of JSON.stringify(node).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      if (name !== undefined && !used.has(name)) {
        used.add(name)
        visit(schemas[name])
      }
    }
  }
  visit(paths)
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)))
}

const info = (title: string, description: string) => ({
  title,
  version: '1.0.0',
  license: { name: 'MIT', identifier: 'MIT' },
  description,
})

const KEY_NOTE =
  'Key: none from this machine (a loopback client); from another machine (`--host 0.0.0.0`), send one of the ' +
  'API keys as `Authorization: Bearer <key>`.'

const BEARER = {
  bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key sent as a bearer credential.' },
}

const placeholder = (route: Route) =>
  Object.values(route.methods).every((operation) => operation.errors.includes('not_implemented'))

const documented = (route: Route) => Object.values(route.methods).some((operation) => operation.hidden !== true)

function pathsOf(routes: readonly Route[]): Json {
  return Object.fromEntries(routes.filter(documented).map((route) => [route.path, pathItem(route)]))
}

function pathItem(route: Route): Json {
  const operations = METHODS.flatMap((method) => {
    const operation = route.methods[method]
    return operation === undefined ? [] : [[method.toLowerCase(), operationObject(route, operation)] as const]
  })
  return Object.fromEntries(operations)
}

function operationObject(route: Route, operation: OperationSpec): Json {
  const admin = route.area === 'admin'
  const parameters = [...(operation.parameters?.() ?? []), ...(operation.simulated === true ? [PREFER] : [])]
  const listed = {
    ...Object.fromEntries(operation.success.map((success) => [success.status, successResponse(success)])),
    ...errorResponses(operation, route.area),
  }
  const own = operation.headers === undefined ? listed : withHeaders(listed, operation, route.area, operation.headers)
  const responses = operation.simulated === true ? withRelayedHeader(own) : own
  return {
    operationId: operation.id,
    summary: operation.summary,
    ...((operation.description !== undefined || admin) && {
      description: [operation.description, admin && keyNote(operation)].filter(Boolean).join('\n\n'),
    }),
    ...(operation.deprecated === true && { deprecated: true }),
    tags: [admin ? 'sandbox' : 'pets'],
    ...(operation.key === 'optional' && { security: [{}, { bearerAuth: [] }] }),
    ...(operation.key === 'none' && { security: [] }),
    ...(parameters.length > 0 && { parameters }),
    ...(operation.body !== undefined && {
      requestBody: {
        required: operation.body.optional !== true,
        content: {
          'application/json': {
            schema: bodySchema(operation.body.schema, 'input'),
            ...(operation.body.example !== undefined && { example: operation.body.example }),
          },
        },
      },
    }),
    responses,
  }
}

/**
 * A forwarded operation (--upstream) relays the upstream's answer, whatever its status, with a
 * count of its contract violations and a policy that runs nothing in it: on any response, never
 * on every one.
 */
function withRelayedHeader(responses: Record<string, Json>): Record<string, Json> {
  const count = {
    ...header(
      `Only on an answer relayed from the upstream (--upstream): how many ways it breaks the interface document, 0 when none, and "${LIMITS.contractProblems.value}+" when the check stopped at its bound (the contractProblems limit). Such an answer is the upstream's own: its status and body, which this document does not vouch for.`,
      { type: 'string', pattern: '^\\d+\\+?$' },
    ),
    required: false,
  }
  const policy = {
    ...header(
      "Only on an answer relayed from the upstream (--upstream): `sandbox`, so that nothing the upstream sent runs on the sandbox's origin, should a browser open it.",
      { type: 'string', const: RELAYED_CSP },
    ),
    required: false,
  }
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      {
        ...response,
        headers: {
          ...(response.headers as Json | undefined),
          [VIOLATIONS_HEADER]: count,
          'Content-Security-Policy': policy,
        },
      },
    ]),
  )
}

/** When an admin operation needs the key, in words a reader of the reference page sees. */
function keyNote(operation: OperationSpec): string {
  return operation.key === 'none' ? 'Key: none, from any machine.' : KEY_NOTE
}

/** The errors an operation can answer (answers.ts), grouped by status. */
function errorResponses(operation: OperationSpec, area: Area): Record<string, Json> {
  const codes = errorCodesOf(operation, area)
  const byStatus = new Map<number, ErrorCode[]>()
  for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
    if (!codes.has(code)) continue
    byStatus.set(ERROR_CODES[code], [...(byStatus.get(ERROR_CODES[code]) ?? []), code])
  }
  return Object.fromEntries([...byStatus].map(([status, statusCodes]) => [status, errorResponse(status, statusCodes)]))
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'A query parameter, path parameter, body, Prefer header or the request itself is invalid',
  401: 'The API key is missing or invalid',
  403: 'A Host name the sandbox does not answer, or (admin routes) a web page on another site',
  404: 'The animal, or the checkpoint, cannot be found',
  409: 'A checkpoint of that name exists already (replace: true saves over it), or forwarding asked of a sandbox started without an upstream (--upstream)',
  405: 'The path does not take this method; Allow lists those it takes',
  408: 'The request line, headers or body did not arrive in time',
  410: 'Past the sunset date (the sandbox clock, --now): the operation is removed',
  413: 'The request body is over the size cap',
  414: 'The request target is over the targetLength limit',
  415: 'The body was sent with a Content-Type other than JSON, or with a content coding',
  417: 'An Expect other than 100-continue',
  429: 'Simulated by a sandbox scenario or Prefer: too many requests',
  431: 'The request headers are over the size Node reads',
  500: 'A failure of the sandbox itself, or one it simulates; never of the request',
  501: 'The interface does not show this endpoint, or the request uses a method or Transfer-Encoding the sandbox does not support',
  502: 'Forwarded to the upstream (--upstream), which could not be reached, broke off its answer, answered over the upstreamBodyBytes budget, or answered with a Content-Encoding though asked for identity',
  503: 'Past a budget (tenants, large bodies, event readers, forwarded requests) or simulated by a scenario, Prefer or --failure-rate: unavailable',
  504: 'Forwarded to the upstream (--upstream), which gave no whole answer within the upstreamTimeoutMs budget',
  507: 'A budget is spent: the created pets (reset to make room), or the checkpoints (delete one)',
}

const ERROR_HEADER_SCHEMAS: Record<string, Json> = {
  'WWW-Authenticate': header('The bearer challenge', { type: 'string', pattern: '^Bearer ' }),
  Allow: header('The methods the path takes', { type: 'string' }),
  'Accept-Encoding': header('The content coding the sandbox reads: identity', { type: 'string' }),
  'Retry-After': header('Seconds to wait before retrying', { type: 'string', pattern: '^\\d+$' }),
}

function errorResponse(status: number, codes: readonly ErrorCode[]): Json {
  const headers: Record<string, Json> = {}
  for (const code of codes) {
    for (const [name, when] of Object.entries(ERROR_HEADERS[code] ?? {})) {
      const schema = ERROR_HEADER_SCHEMAS[name]
      if (schema !== undefined) headers[name] = { ...schema, required: when === 'always' }
    }
  }
  return json(
    ERROR_DESCRIPTIONS[status] ?? 'An error',
    { allOf: [schemaRef('Error'), { properties: { code: { enum: codes }, status: { const: status } } }] },
    Object.keys(headers).length === 0 ? undefined : headers,
  )
}

function successResponse(success: Success): Json {
  const headers =
    success.headers === undefined
      ? undefined
      : Object.fromEntries(
          Object.entries(success.headers).map(([name, description]) => [name, header(description, { type: 'string' })]),
        )
  if (success.schema === undefined) {
    // A body without a JSON schema (an event stream) still says its media type.
    const content = success.mediaType === undefined ? undefined : { [success.mediaType]: {} }
    return { description: success.description, ...(headers && { headers }), ...(content && { content }) }
  }
  return json(success.description, bodySchema(success.schema, 'output'), headers)
}

function bodySchema(schema: Success['schema'] & {}, io: 'input' | 'output'): Json {
  if (typeof schema === 'string') return schemaRef(schema)
  if ('arrayOf' in schema) {
    return {
      type: 'array',
      items: schemaRef(schema.arrayOf),
      ...(schema.maxItems !== undefined && { maxItems: schema.maxItems }),
    }
  }
  return strip(z.toJSONSchema(schema, { target: 'draft-2020-12', io, override: int64 }))
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

// JSON Schema says nothing of int64; OpenAPI's format does. The int64 fields are exactly
// those bounded by the safe-integer range.
function int64({ jsonSchema }: { jsonSchema: Json }): void {
  if (jsonSchema.type === 'integer' && jsonSchema.maximum === Number.MAX_SAFE_INTEGER) jsonSchema.format = 'int64'
}

function componentSchemas(): Record<string, Json> {
  const uri = (id: string) => `#/components/schemas/${id}`
  const output = z.registry<{ id: string }>()
  output.add(PetStatusSchema, { id: 'PetStatus' }).add(PetSchema, { id: 'Pet' }).add(ErrorSchema, { id: 'Error' })
  // NewPet is what clients send: unknown fields are accepted (and dropped), `id` is refused.
  const input = z.registry<{ id: string }>()
  input.add(PetStatusSchema, { id: 'PetStatus' }).add(NewPetSchema, { id: 'NewPet' })
  const { schemas: outputs } = z.toJSONSchema(output, { target: 'draft-2020-12', io: 'output', uri, override: int64 })
  const { schemas: inputs } = z.toJSONSchema(input, { target: 'draft-2020-12', io: 'input', uri, override: int64 })
  // The refusal of `id` is said in words, not as `not: {required: [id]}`: Swagger UI rendered that
  // as `never`, and test generators read it as "id is required". The behaviour table keeps the rule.
  const newPet = {
    ...strip(inputs.NewPet),
    description:
      'An animal to add. `id` is assigned by the service: a body that sends one is refused with 400 invalid_body. ' +
      'Fields the interface does not name are ignored.',
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

function json(description: string, schema: Json, headers?: Json): Json {
  return { description, ...(headers && { headers }), content: { 'application/json': { schema } } }
}

function header(description: string, schema: Json): Json {
  return { description, required: true, schema }
}

function withHeaders(
  responses: Record<string, Json>,
  operation: OperationSpec,
  area: Area,
  headers: Readonly<Record<string, string>>,
): Record<string, Json> {
  const schemas = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      header(
        HEADER_DESCRIPTIONS[name] ?? name,
        name === 'Link' ? { type: 'string' } : { type: 'string', const: value },
      ),
    ]),
  )
  // Every answer once the operation is known carries them; a status that may be answered before
  // (a bad target, a Host not allowed, a parser's 431) has them only sometimes.
  const optional = Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [name, { ...schema, required: false }]),
  )
  const sometimes = new Set(
    [...errorCodesOf(operation, area)].filter(answeredBeforeRouting).map((code) => String(ERROR_CODES[code])),
  )
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      {
        ...response,
        headers: { ...(response.headers as Json | undefined), ...(sometimes.has(status) ? optional : schemas) },
      },
    ]),
  )
}

const HEADER_DESCRIPTIONS: Record<string, string> = {
  Deprecation: 'RFC 9745: when the operation was deprecated',
  Sunset: 'RFC 8594: when the operation will be removed',
  Link: 'The replacement: GET /pets with the status filter',
}
