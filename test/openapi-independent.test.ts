/**
 * The OpenAPI document against an independent source (issue 17). openapi.json is generated from
 * the route table, and the other conformance checks (support/openapi-check.ts, and the property
 * tests through it) judge answers by that document: a wrong row would pass them all. Here the
 * document is judged by two things that never read the route table or the generator:
 *
 *   1. TABLE, written by hand from the interface spec and the pipeline's behaviour
 *      (src/core/dispatch.ts with its stages, and the server adapter): every operation the document must hold,
 *      the exact statuses each answers, the Error codes of each error status, and the headers its
 *      answers carry (always, sometimes, or at most documented).
 *   2. Recorded answers: real servers (startServer, port 0) driven over raw sockets by STIMULI,
 *      requests written to make an operation answer one status. Every stimulus is sent to every
 *      operation; each answer must be one the table allows (and the one the stimulus aims at,
 *      where it aims), and must validate, with ajv, against the document the server serves. Every
 *      (operation, status, code) of the table must be produced by some stimulus, or be listed in
 *      NOT_PRODUCED with the reason.
 *
 * The document is checked as committed (openapi.json, what the package ships) and as served
 * (GET /openapi.json, the generator's output today); test/openapi.test.ts holds the two equal.
 */
import { readFileSync } from 'node:fs'
import { once } from 'node:events'
import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { startServer, type RunningServer, type ServerOptions } from '../src/server.js'

// ---------------------------------------------------------------------------------------------
// 1. The hand-written table
// ---------------------------------------------------------------------------------------------

/** Every Error code the sandbox answers with (README, Errors). */
const CODES = [
  'bad_request',
  'invalid_parameter',
  'invalid_body',
  'unauthorized',
  'forbidden',
  'pet_not_found',
  'checkpoint_not_found',
  'hold_not_found',
  'not_found',
  'method_not_allowed',
  'request_timeout',
  'conflict',
  'gone',
  'payload_too_large',
  'uri_too_long',
  'unsupported_media_type',
  'expectation_failed',
  'too_many_requests',
  'headers_too_large',
  'internal_error',
  'not_implemented',
  'bad_gateway',
  'service_unavailable',
  'gateway_timeout',
  'insufficient_storage',
] as const
type Code = (typeof CODES)[number]
type Answers = Readonly<Partial<Record<number, readonly Code[]>>>

/**
 * Every documented operation, whatever its row. Decided before any route (a header sent twice,
 * HTTP/1.1 without Host, a Host not allowed, a Transfer-Encoding other than chunked, an Expect
 * other than 100-continue, a target past 8 KiB), or by the server's parser (headers too large or
 * too slow), or around every operation (a body over its budget, a method the path lacks, a
 * failure of the sandbox itself). Admin routes also refuse a cross-site Origin with 403.
 */
const EVERY: Answers = {
  400: ['bad_request'],
  403: ['forbidden'],
  405: ['method_not_allowed'],
  408: ['request_timeout'],
  413: ['payload_too_large'],
  414: ['uri_too_long'],
  417: ['expectation_failed'],
  431: ['headers_too_large'],
  500: ['internal_error'],
  501: ['not_implemented'],
}
/** A key required (API) or optional but checked when sent (admin). */
const KEY: Answers = { 401: ['unauthorized'] }
/** Admin routes (key optional): `?tenant=` names a tenant that may not exist. */
const TENANT_HANDLE: Answers = { 400: ['invalid_parameter'] }
/** Operations that read a JSON body. */
const JSON_BODY: Answers = { 400: ['invalid_body'], 415: ['unsupported_media_type'] }
/** A budget spent: the tenants cap, one large body at a time, the event stream readers. */
const BUSY: Answers = { 503: ['service_unavailable'] }
/** Scenarios, Prefer and the failure rate: a Prefer that cannot be honoured, and the failures simulated. */
const SIMULATED: Answers = {
  400: ['invalid_parameter'],
  401: ['unauthorized'],
  429: ['too_many_requests'],
  500: ['internal_error'],
  503: ['service_unavailable'],
}

/** The pet operations, forwarded (--upstream) to an upstream that cannot be reached or never answers. */
const FORWARDED: Answers = { 502: ['bad_gateway'], 504: ['gateway_timeout'] }

function answers(...parts: Answers[]): Readonly<Record<number, readonly Code[]>> {
  const merged: Record<number, Code[]> = {}
  for (const part of parts) {
    for (const [status, codes] of Object.entries(part)) {
      merged[Number(status)] = [...new Set([...(merged[Number(status)] ?? []), ...(codes ?? [])])].sort()
    }
  }
  return merged
}

const JSON_TYPE = 'application/json'

interface Success {
  readonly status: number
  /** The body's media type; none for an empty body. */
  readonly mediaType?: string
  /** Headers on every success answer. */
  readonly always?: readonly string[]
  /** Headers the document may describe, never on every answer. */
  readonly may?: readonly string[]
}

interface Row {
  readonly id: string
  readonly method: string
  /** API paths under the base path, admin paths from the root (admin-openapi.json writes them under /__sandbox). */
  readonly path: string
  readonly area: 'api' | 'admin'
  /** An area the interface names without a shape: answered 501, described by no document. */
  readonly placeholder?: boolean
  /** A target that reaches the operation. */
  readonly target: string
  /** A method its path does not answer (OPTIONS is a CORS preflight on the server). */
  readonly wrongMethod: string
  /** A body the operation takes, for those that read one. */
  readonly body?: string
  /**
   * What the target names, made first: sent without a key, on the same server, before each
   * request a stimulus sends the operation, and answered with `status` (its answer is not recorded).
   */
  readonly given?: { readonly method: string; readonly target: string; readonly body: string; readonly status: number }
  /** Scenarios, Prefer and the failure rate apply. */
  readonly simulated?: boolean
  readonly success?: Success
  /** Every status the operation answers, success included: the exact set. */
  readonly statuses: readonly number[]
  /** The Error codes of each error status: the exact sets. */
  readonly errors: Readonly<Record<number, readonly Code[]>>
  /** The operation's own headers on its answers: where always there, where sometimes. */
  readonly own?: {
    readonly names: readonly string[]
    readonly always: readonly number[]
    readonly sometimes: readonly number[]
  }
}

const NEW_PET = '{"name":"Rex","categoryId":1}'
const SCENARIO = '{"operation":"listPets","delayMs":0,"times":1}'
const STATE = '{"pets":[{"id":1,"name":"Biscuit","categoryId":1,"status":"available"}],"nextId":2}'
/** What every sandbox takes, an upstream or not. */
const FORWARD_NOTHING = '{"forward":[]}'
/** A checkpoint saved over whenever it exists: the name the checkpoint rows' targets use. */
const CHECKPOINT = '{"name":"cp","replace":true}'
const CHECKPOINT_SAVED = { method: 'POST', target: '/__sandbox/checkpoints', body: CHECKPOINT, status: 201 } as const
/** A hold made first; the request's target names it where it says `{given}` (its id, from the answer). */
const HOLD_ADDED = { method: 'POST', target: '/__sandbox/holds', body: '{"operation":"getPet"}', status: 201 } as const

/** An area the interface names without showing it: every call answers 501 once authenticated. */
function unimplemented(id: string, method: string, path: string, target: string, wrongMethod: string): Row {
  return {
    id,
    method,
    path,
    area: 'api',
    placeholder: true,
    target,
    wrongMethod,
    statuses: [400, 401, 403, 405, 408, 413, 414, 417, 431, 500, 501],
    errors: answers(EVERY, KEY),
  }
}

const labelled = (stability: 'experimental' | 'beta'): Row[] =>
  (['Get', 'Post', 'Put', 'Patch', 'Delete'] as const).map((name) =>
    // GET, HEAD, POST, PUT, PATCH and DELETE all answer here, OPTIONS is the server's preflight and
    // TRACE answers 501: a 405 takes another method, such as PROPFIND.
    unimplemented(
      `${stability}${name}`,
      name.toUpperCase(),
      `/${stability}/{endpoint}`,
      `/v1/${stability}/anything`,
      'PROPFIND',
    ),
  )

/**
 * An admin route: key optional (401 when a wrong one is sent), a tenant handle, the Origin rule.
 * Its target is its path, unless the path has a parameter.
 */
function admin(
  row: Omit<Row, 'area' | 'target' | 'errors'> & { readonly target?: string; readonly adds?: Answers },
): Row {
  const { adds = {}, target = row.path, ...rest } = row
  return { ...rest, area: 'admin', target, errors: answers(EVERY, KEY, TENANT_HANDLE, adds) }
}

const TABLE: readonly Row[] = [
  {
    id: 'listPets',
    method: 'GET',
    path: '/pets',
    area: 'api',
    target: '/v1/pets',
    wrongMethod: 'DELETE',
    simulated: true,
    success: { status: 200, mediaType: JSON_TYPE },
    statuses: [200, 400, 401, 403, 405, 408, 413, 414, 417, 429, 431, 500, 501, 502, 503, 504],
    // BUSY: a new key past the tenants cap while every tenant has a request in flight.
    errors: answers(EVERY, KEY, SIMULATED, FORWARDED, BUSY, { 400: ['invalid_parameter'] }),
  },
  {
    id: 'createPet',
    method: 'POST',
    path: '/pets',
    area: 'api',
    target: '/v1/pets',
    wrongMethod: 'DELETE',
    body: NEW_PET,
    simulated: true,
    success: { status: 201, mediaType: JSON_TYPE, always: ['Location'] },
    statuses: [201, 400, 401, 403, 405, 408, 413, 414, 415, 417, 429, 431, 500, 501, 502, 503, 504, 507],
    errors: answers(EVERY, KEY, JSON_BODY, SIMULATED, FORWARDED, BUSY, { 507: ['insufficient_storage'] }),
  },
  {
    id: 'getPet',
    method: 'GET',
    path: '/pets/{petId}',
    area: 'api',
    target: '/v1/pets/1',
    wrongMethod: 'DELETE',
    simulated: true,
    success: { status: 200, mediaType: JSON_TYPE },
    statuses: [200, 400, 401, 403, 404, 405, 408, 410, 413, 414, 417, 429, 431, 500, 501, 502, 503, 504],
    errors: answers(EVERY, KEY, SIMULATED, FORWARDED, BUSY, {
      400: ['invalid_parameter'],
      404: ['pet_not_found'],
      410: ['gone'],
    }),
    // Deprecation, Sunset and Link ride on every answer the operation gives: not on the answers
    // decided before the route is known (403 Host, 405, 408, 414, 417, 431, 501 Transfer-Encoding),
    // nor on a 400 bad_request or a 500 from outside the operation. The sandbox's own 502 and 504
    // for a forwarded getPet carry them; an answer relayed from the upstream carries the upstream's.
    own: {
      names: ['Deprecation', 'Sunset', 'Link'],
      always: [200, 401, 404, 410, 413, 429, 502, 503, 504],
      sometimes: [400, 500],
    },
  },
  unimplemented('getStoreOrders', 'GET', '/store/orders', '/v1/store/orders', 'POST'),
  ...labelled('experimental'),
  ...labelled('beta'),
  admin({
    id: 'resetSandbox',
    method: 'POST',
    path: '/__sandbox/reset',
    wrongMethod: 'GET',
    success: { status: 204 },
    // 507: with --state-file, a reset that could not be written to disk (the commit stage).
    statuses: [204, 400, 401, 403, 405, 408, 413, 414, 417, 431, 500, 501, 507],
    adds: { 507: ['insufficient_storage'] },
  }),
  admin({
    id: 'listRequests',
    method: 'GET',
    path: '/__sandbox/requests',
    wrongMethod: 'POST',
    success: { status: 200, mediaType: JSON_TYPE },
    statuses: [200, 400, 401, 403, 405, 408, 413, 414, 417, 431, 500, 501],
    // Its own: an unknown operation or status filter; the same code as an unknown tenant.
    adds: { 400: ['invalid_parameter'] },
  }),
  admin({
    id: 'listScenarios',
    method: 'GET',
    path: '/__sandbox/scenarios',
    wrongMethod: 'PUT',
    success: { status: 200, mediaType: JSON_TYPE },
    statuses: [200, 400, 401, 403, 405, 408, 413, 414, 417, 431, 500, 501],
  }),
  admin({
    id: 'addScenario',
    method: 'POST',
    path: '/__sandbox/scenarios',
    wrongMethod: 'PUT',
    body: SCENARIO,
    success: { status: 201, mediaType: JSON_TYPE },
    statuses: [201, 400, 401, 403, 405, 408, 413, 414, 415, 417, 431, 500, 501, 503],
    // BUSY: in isolated mode, a key's first scenario makes its tenant, refused past the cap when all are busy.
    adds: answers(JSON_BODY, BUSY),
  }),
  admin({
    id: 'clearScenarios',
    method: 'DELETE',
    path: '/__sandbox/scenarios',
    wrongMethod: 'PUT',
    success: { status: 204 },
    statuses: [204, 400, 401, 403, 405, 408, 413, 414, 417, 431, 500, 501],
  }),
  admin({
    id: 'exportState',
    method: 'GET',
    path: '/__sandbox/state',
    wrongMethod: 'POST',
    success: { status: 200, mediaType: JSON_TYPE },
    statuses: [200, 400, 401, 403, 405, 408, 413, 414, 417, 431, 500, 501],
  }),
  admin({
    id: 'importState',
    method: 'PUT',
    path: '/__sandbox/state',
    wrongMethod: 'POST',
    body: STATE,
    success: { status: 204 },
    statuses: [204, 400, 401, 403, 405, 408, 413, 414, 415, 417, 431, 500, 501, 503, 507],
    // BUSY: one large body at a time (largeBodies), and in isolated mode a new key's tenant.
    // 507: pets beyond the seed count against the createdPets budget.
    adds: answers(JSON_BODY, BUSY, { 507: ['insufficient_storage'] }),
  }),
  admin({
    id: 'health',
    method: 'GET',
    path: '/__sandbox/health',
    wrongMethod: 'POST',
    success: { status: 200, mediaType: JSON_TYPE },
    statuses: [200, 400, 401, 403, 405, 408, 413, 414, 417, 431, 500, 501],
  }),
  admin({
    id: 'listTenants',
    method: 'GET',
    path: '/__sandbox/tenants',
    wrongMethod: 'POST',
    success: { status: 200, mediaType: JSON_TYPE },
    statuses: [200, 400, 401, 403, 405, 408, 413, 414, 417, 431, 500, 501],
  }),
  admin({
    id: 'listAllPets',
    method: 'GET',
    path: '/__sandbox/pets',
    wrongMethod: 'POST',
    success: { status: 200, mediaType: JSON_TYPE },
    statuses: [200, 400, 401, 403, 405, 408, 413, 414, 417, 431, 500, 501],
    // Its own: offset, limit or status out of range.
    adds: { 400: ['invalid_parameter'] },
  }),
  admin({
    id: 'traffic',
    method: 'GET',
    path: '/__sandbox/traffic',
    wrongMethod: 'POST',
    success: { status: 200, mediaType: JSON_TYPE },
    statuses: [200, 400, 401, 403, 405, 408, 413, 414, 417, 431, 500, 501],
  }),
  admin({
    id: 'events',
    method: 'GET',
    path: '/__sandbox/events',
    wrongMethod: 'POST',
    success: { status: 200, mediaType: 'text/event-stream', may: ['Cache-Control'] },
    statuses: [200, 400, 401, 403, 405, 408, 413, 414, 417, 431, 500, 501, 503],
    // BUSY: the eventStreams budget.
    adds: BUSY,
  }),
  admin({
    id: 'getForwarding',
    method: 'GET',
    path: '/__sandbox/forwarding',
    wrongMethod: 'POST',
    success: { status: 200, mediaType: JSON_TYPE },
    statuses: [200, 400, 401, 403, 405, 408, 413, 414, 417, 431, 500, 501],
  }),
  admin({
    id: 'setForwarding',
    method: 'PUT',
    path: '/__sandbox/forwarding',
    wrongMethod: 'POST',
    body: FORWARD_NOTHING,
    success: { status: 200, mediaType: JSON_TYPE },
    statuses: [200, 400, 401, 403, 405, 408, 409, 413, 414, 415, 417, 431, 500, 501],
    // 409: forwarding an operation on a sandbox without an upstream.
    adds: answers(JSON_BODY, { 409: ['conflict'] }),
  }),
  admin({
    id: 'listCheckpoints',
    method: 'GET',
    path: '/__sandbox/checkpoints',
    wrongMethod: 'PUT',
    success: { status: 200, mediaType: JSON_TYPE },
    statuses: [200, 400, 401, 403, 405, 408, 413, 414, 417, 431, 500, 501],
  }),
  admin({
    id: 'saveCheckpoint',
    method: 'POST',
    path: '/__sandbox/checkpoints',
    wrongMethod: 'PUT',
    body: CHECKPOINT,
    // The name in the body exists already: the body replaces it, and one without replace is refused.
    given: CHECKPOINT_SAVED,
    success: { status: 201, mediaType: JSON_TYPE, always: ['Location'] },
    statuses: [201, 400, 401, 403, 405, 408, 409, 413, 414, 415, 417, 431, 500, 501, 503, 507],
    // 409: a name in use without "replace". 507: past the checkpoints or checkpointBytes limit.
    // BUSY: in isolated mode, a key's first checkpoint makes its tenant, refused past the cap when all are busy.
    adds: answers(JSON_BODY, BUSY, { 409: ['conflict'], 507: ['insufficient_storage'] }),
  }),
  admin({
    id: 'restoreCheckpoint',
    method: 'POST',
    path: '/__sandbox/checkpoints/{name}/restore',
    target: '/__sandbox/checkpoints/cp/restore',
    wrongMethod: 'GET',
    given: CHECKPOINT_SAVED,
    success: { status: 204 },
    // No 503: a checkpoint is found in its key's tenant before anything is rewound, so a rewind
    // never makes a tenant; a key without one has no checkpoint, and gets 404 (rewindToCheckpoint).
    statuses: [204, 400, 401, 403, 404, 405, 408, 413, 414, 417, 431, 500, 501, 507],
    // 507: a checkpoint's pets beyond the seed count against the createdPets budget.
    adds: { 404: ['checkpoint_not_found'], 507: ['insufficient_storage'] },
  }),
  admin({
    id: 'deleteCheckpoint',
    method: 'DELETE',
    path: '/__sandbox/checkpoints/{name}',
    target: '/__sandbox/checkpoints/cp',
    wrongMethod: 'PUT',
    given: CHECKPOINT_SAVED,
    success: { status: 204 },
    // 507: with --state-file, a removal that could not be written to disk (the commit stage).
    statuses: [204, 400, 401, 403, 404, 405, 408, 413, 414, 417, 431, 500, 501, 507],
    adds: { 404: ['checkpoint_not_found'], 507: ['insufficient_storage'] },
  }),
  admin({
    id: 'listHolds',
    method: 'GET',
    path: '/__sandbox/holds',
    wrongMethod: 'PUT',
    success: { status: 200, mediaType: JSON_TYPE },
    statuses: [200, 400, 401, 403, 405, 408, 413, 414, 417, 431, 500, 501],
  }),
  admin({
    id: 'addHold',
    method: 'POST',
    path: '/__sandbox/holds',
    wrongMethod: 'PUT',
    body: '{"operation":"getPet","times":1}',
    success: { status: 201, mediaType: JSON_TYPE, always: ['Location'] },
    statuses: [201, 400, 401, 403, 405, 408, 413, 414, 415, 417, 431, 500, 501],
    adds: JSON_BODY,
  }),
  admin({
    id: 'releaseHold',
    method: 'POST',
    path: '/__sandbox/holds/{id}/release',
    target: '/__sandbox/holds/{given}/release',
    wrongMethod: 'GET',
    body: '{}',
    given: HOLD_ADDED,
    success: { status: 200, mediaType: JSON_TYPE },
    statuses: [200, 400, 401, 403, 404, 405, 408, 413, 414, 415, 417, 431, 500, 501],
    // 400 invalid_parameter: an id that is not a whole number. 404: no hold of that id.
    adds: answers(JSON_BODY, { 400: ['invalid_parameter'], 404: ['hold_not_found'] }),
  }),
]

/** Headers of an error status on any operation: always there, or there for some causes only. */
const STATUS_HEADERS: Readonly<Record<number, { always?: readonly string[]; sometimes?: readonly string[] }>> = {
  401: { always: ['WWW-Authenticate'] },
  405: { always: ['Allow'] },
  // RFC 7694: on a refused Content-Encoding; a refused Content-Type says nothing of codings.
  415: { sometimes: ['Accept-Encoding'] },
  429: { always: ['Retry-After'] },
  503: { always: ['Retry-After'] },
}

interface Expected {
  /** On every answer of the status: documented, and marked required. */
  readonly always: ReadonlySet<string>
  /** On some answers of the status: documented, never marked required. */
  readonly sometimes: ReadonlySet<string>
  /** Never documented as required; may be documented. */
  readonly may: ReadonlySet<string>
}

function headersOf(row: Row, status: number): Expected {
  const always = new Set<string>()
  const sometimes = new Set<string>()
  const may = new Set<string>()
  if (row.success?.status === status) {
    for (const name of row.success.always ?? []) always.add(name)
    for (const name of row.success.may ?? []) may.add(name)
  } else {
    for (const name of STATUS_HEADERS[status]?.always ?? []) always.add(name)
    for (const name of STATUS_HEADERS[status]?.sometimes ?? []) sometimes.add(name)
  }
  if (row.own !== undefined) {
    const into = row.own.always.includes(status) ? always : row.own.sometimes.includes(status) ? sometimes : may
    for (const name of row.own.names) into.add(name)
  }
  // On the answers to a Prefer the sandbox honoured, and on those relayed from an upstream: never on all of them.
  if (row.simulated === true) {
    may.add('Preference-Applied')
    may.add('Sandbox-Contract-Violations')
    may.add('Content-Security-Policy')
  }
  return { always, sometimes, may }
}

/** Table entries no request can produce from a working sandbox, with the reason. */
const NOT_PRODUCED: readonly { ids: readonly string[]; status: number; code: Code; why: string }[] = [
  {
    ids: TABLE.filter((row) => row.simulated !== true).map((row) => row.id),
    status: 500,
    code: 'internal_error',
    why:
      'answered only when the sandbox itself fails (an exception in the pipeline or the adapter); ' +
      'Prefer, scenarios and the failure rate simulate it on the pet operations only',
  },
  {
    ids: ['restoreCheckpoint'],
    status: 507,
    code: 'insufficient_storage',
    why:
      'needs the createdPets pool spent by another tenant after the checkpoint was saved (one request cannot arrange it); ' +
      'test/checkpoints.test.ts produces it',
  },
  {
    ids: ['resetSandbox', 'deleteCheckpoint'],
    status: 507,
    code: 'insufficient_storage',
    why:
      'answered only with --state-file on a disk that refuses the write (the commit stage), which no request can arrange; ' +
      'test/acknowledged.test.ts produces it on a full and on a read-only file system',
  },
]

describe('the hand-written table', () => {
  it.each(TABLE.map((row) => [row.id, row] as const))(
    '%s: its statuses are its success and its error statuses',
    (_, row) => {
      const fromParts = [...(row.success ? [row.success.status] : []), ...Object.keys(row.errors).map(Number)]
      expect([...row.statuses].sort((a, b) => a - b)).toEqual(fromParts.sort((a, b) => a - b))
      for (const [status, codes] of Object.entries(row.errors)) {
        expect(Number(status), `${row.id} ${codes.join(', ')}`).toBeGreaterThanOrEqual(400)
      }
    },
  )

  it('lists each operation once, and NOT_PRODUCED names only its entries', () => {
    expect(new Set(TABLE.map((row) => row.id)).size).toBe(TABLE.length)
    expect(new Set(TABLE.map((row) => `${row.method} ${row.path}`)).size).toBe(TABLE.length)
    for (const entry of NOT_PRODUCED) {
      for (const id of entry.ids) {
        expect(TABLE.find((row) => row.id === id)?.errors[entry.status], id).toContain(entry.code)
      }
    }
  })
})

// ---------------------------------------------------------------------------------------------
// The documents, read with a third-party validator (ajv), never with the generator's code
// ---------------------------------------------------------------------------------------------

type Json = Record<string, unknown>

interface Document {
  readonly name: string
  readonly json: Json
  /** The value at a JSON pointer, following $ref there. */
  at(pointer: string): unknown
  /** The pointer a $ref chain at this pointer ends at. */
  follow(pointer: string): string
  /** Validates a value against the schema at a pointer; the problems, or undefined. */
  validate(pointer: string, value: unknown): string | undefined
}

const escape = (part: string) => part.replaceAll('~', '~0').replaceAll('/', '~1')
const pointerOf = (...parts: (string | number)[]) => parts.map((part) => `/${escape(String(part))}`).join('')

function readDocument(name: string, json: Json): Document {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) })
  ajv.addSchema(json, 'document')
  const validators = new Map<string, ReturnType<typeof ajv.compile>>()
  const raw = (pointer: string): unknown => {
    let value: unknown = json
    for (const part of pointer.split('/').slice(1)) {
      const key = part.replaceAll('~1', '/').replaceAll('~0', '~')
      value = typeof value === 'object' && value !== null ? (value as Json)[key] : undefined
    }
    return value
  }
  const follow = (pointer: string): string => {
    let current = pointer
    for (let hops = 0; hops < 10; hops++) {
      const ref = (raw(current) as { $ref?: unknown } | undefined)?.$ref
      if (typeof ref !== 'string' || !ref.startsWith('#')) return current
      current = ref.slice(1)
    }
    return current
  }
  return {
    name,
    json,
    at: (pointer) => raw(follow(pointer)),
    follow,
    validate(pointer, value) {
      let validate = validators.get(pointer)
      if (validate === undefined) {
        validate = ajv.compile({ $ref: `document#${pointer}` })
        validators.set(pointer, validate)
      }
      return validate(value) ? undefined : ajv.errorsText(validate.errors)
    },
  }
}

/** The API's document (openapi.json) and the admin routes' (admin-openapi.json, under /__sandbox). */
interface Documents {
  readonly api: Document
  readonly admin: Document
}
const ADMIN = '/__sandbox'
const documentOf = (documents: Documents, row: Row) => (row.area === 'admin' ? documents.admin : documents.api)
const pathIn = (row: Row) => (row.area === 'admin' ? row.path.slice(ADMIN.length) : row.path)
const operationPointer = (row: Row) => pointerOf('paths', pathIn(row), row.method.toLowerCase())
const responsePointer = (document: Document, row: Row, status: number) =>
  document.follow(`${operationPointer(row)}${pointerOf('responses', status)}`)

/** The document's headers of a response, by lower-case name: the name as written, required or not, its pointer. */
function documentedHeaders(
  document: Document,
  response: string,
): Map<string, { name: string; required: boolean; pointer: string }> {
  const headers = new Map<string, { name: string; required: boolean; pointer: string }>()
  const object = document.at(`${response}/headers`)
  for (const name of Object.keys(typeof object === 'object' && object !== null ? object : {})) {
    const pointer = document.follow(`${response}${pointerOf('headers', name)}`)
    const header = document.at(pointer) as { required?: unknown } | undefined
    headers.set(name.toLowerCase(), { name, required: header?.required === true, pointer })
  }
  return headers
}

const mediaTypesOf = (document: Document, response: string): string[] => {
  const content = document.at(`${response}/content`)
  return Object.keys(typeof content === 'object' && content !== null ? content : {})
}

/** Everything about one operation where the document and the table disagree. */
function documentProblems(documents: Documents, row: Row): string[] {
  const document = documentOf(documents, row)
  const operation = document.at(operationPointer(row)) as { operationId?: unknown; responses?: Json } | undefined
  if (row.placeholder === true) {
    // A method a generator would make, which could only ever answer 501.
    return operation === undefined ? [] : [`${row.method} ${row.path} (${row.id}) is in ${document.name}`]
  }
  if (operation === undefined) return [`${row.method} ${row.path} (${row.id}) is not in ${document.name}`]
  const problems: string[] = []
  const where = (status: number) => `${row.id} ${status}`
  if (operation.operationId !== row.id)
    problems.push(`${row.method} ${row.path} is ${String(operation.operationId)}, not ${row.id}`)
  const documented = Object.keys(operation.responses ?? {}).map(Number)
  for (const status of row.statuses) if (!documented.includes(status)) problems.push(`${where(status)}: not documented`)
  for (const status of documented)
    if (!row.statuses.includes(status)) problems.push(`${where(status)}: documented, never answered`)
  for (const status of row.statuses.filter((candidate) => documented.includes(candidate))) {
    const response = responsePointer(document, row, status)
    const mediaTypes = mediaTypesOf(document, response)
    const codes = row.errors[status]
    if (codes !== undefined) {
      if (mediaTypes.join() !== JSON_TYPE)
        problems.push(`${where(status)}: media types ${mediaTypes.join(', ') || 'none'}, not ${JSON_TYPE}`)
      else {
        const schema = `${response}${pointerOf('content', JSON_TYPE, 'schema')}`
        for (const code of CODES) {
          const accepted = document.validate(schema, { code, message: 'm', status }) === undefined
          if (accepted && !codes.includes(code))
            problems.push(`${where(status)}: accepts code ${code}, which it never answers`)
          if (!accepted && codes.includes(code))
            problems.push(`${where(status)}: refuses code ${code}, which it answers`)
        }
        if (
          document.validate(schema, { code: codes[0], message: 'm', status: status === 400 ? 401 : 400 }) === undefined
        ) {
          problems.push(`${where(status)}: accepts an Error whose status is not ${status}`)
        }
      }
    } else if (row.success?.status === status) {
      const expected = row.success.mediaType === undefined ? [] : [row.success.mediaType]
      if (mediaTypes.join() !== expected.join()) {
        problems.push(
          `${where(status)}: media types ${mediaTypes.join(', ') || 'none'}, not ${expected.join(', ') || 'none'}`,
        )
      }
    }
    const headers = documentedHeaders(document, response)
    const expected = headersOf(row, status)
    for (const name of [...expected.always, ...expected.sometimes]) {
      if (!headers.has(name.toLowerCase())) problems.push(`${where(status)}: header ${name} is not documented`)
    }
    const known = new Map(
      [...expected.always, ...expected.sometimes, ...expected.may].map((name) => [name.toLowerCase(), name]),
    )
    for (const [lower, header] of headers) {
      const name = known.get(lower)
      if (name === undefined)
        problems.push(`${where(status)}: header ${header.name} is documented, but never on these answers`)
      else if (expected.always.has(name) && !header.required)
        problems.push(`${where(status)}: header ${name} is on every answer, but not marked required`)
      else if (!expected.always.has(name) && header.required)
        problems.push(`${where(status)}: header ${name} is marked required, but some answers go without it`)
    }
  }
  return problems
}

// ---------------------------------------------------------------------------------------------
// 2. Recorded answers
// ---------------------------------------------------------------------------------------------

const KEY_HEADER = 'Bearer petstore-sandbox-key'

interface Request {
  readonly method: string
  readonly target: string
  readonly headers: readonly (readonly [string, string])[]
  /** Sent as it is; Content-Length is added unless a length or a Transfer-Encoding is given. */
  readonly body?: string
  /** The headers never end: the request is left unfinished. */
  readonly unfinished?: boolean
}

interface Answer {
  readonly status: number
  /** By lower-case name. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** The request a stimulus starts from: the operation's method and target, its key (API) and its body. */
function base(row: Row, key: string | undefined = row.area === 'api' ? KEY_HEADER : undefined): Request {
  return {
    method: row.method,
    target: row.target,
    headers: [
      ['Host', '127.0.0.1'],
      ...(key === undefined ? [] : ([['Authorization', key]] as const)),
      ...(row.body === undefined ? [] : ([['Content-Type', JSON_TYPE]] as const)),
    ],
    ...(row.body !== undefined && { body: row.body }),
  }
}

const is = (name: string) => (header: readonly [string, string]) => header[0].toLowerCase() === name.toLowerCase()
const without = (request: Request, name: string): Request => ({
  ...request,
  headers: request.headers.filter((header) => !is(name)(header)),
})
const adding = (request: Request, name: string, value: string): Request => ({
  ...request,
  headers: [...request.headers, [name, value]],
})
const setting = (request: Request, name: string, value: string): Request => adding(without(request, name), name, value)

function requestText(request: Request): string {
  const lines = [
    `${request.method} ${request.target} HTTP/1.1`,
    ...request.headers.map(([name, value]) => `${name}: ${value}`),
  ]
  if (request.unfinished === true) return `${lines.join('\r\n')}\r\n`
  const framed = request.headers.some((header) => is('content-length')(header) || is('transfer-encoding')(header))
  if (request.body !== undefined && !framed) lines.push(`Content-Length: ${Buffer.byteLength(request.body)}`)
  lines.push('Connection: close')
  return `${lines.join('\r\n')}\r\n\r\n${request.body ?? ''}`
}

/** The first answer in the bytes, once whole; an event stream once its first bytes came. */
function parseAnswer(bytes: Buffer, closed: boolean): Answer | undefined {
  const end = bytes.indexOf('\r\n\r\n')
  if (end < 0) return undefined
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    const name = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
  }
  const rest = bytes.subarray(end + 4)
  const status = Number(statusLine.split(' ')[1])
  if (headers['content-type']?.startsWith('text/event-stream') === true) {
    return rest.length > 0 || closed ? { status, headers, body: rest.toString('utf8') } : undefined
  }
  const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length'])
  if (length === undefined) return closed ? { status, headers, body: rest.toString('utf8') } : undefined
  return rest.length >= length ? { status, headers, body: rest.subarray(0, length).toString('utf8') } : undefined
}

/** Sends a request over its own connection, and answers with the first answer (the connection is then dropped). */
function send(server: RunningServer, request: Request): Promise<Answer> {
  const { port } = new URL(server.url)
  const text = requestText(request)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1')
    let received = Buffer.alloc(0)
    let done = false
    const finish = (answer: Answer | undefined) => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      if (answer === undefined) reject(new Error(`no answer to ${text.split('\r\n')[0] ?? ''}`))
      else resolve(answer)
    }
    const timer = setTimeout(() => {
      finish(undefined)
    }, 10_000)
    socket.on('error', () => undefined)
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      const answer = parseAnswer(received, false)
      if (answer !== undefined) finish(answer)
    })
    socket.on('close', () => {
      finish(parseAnswer(received, true))
    })
    socket.write(text)
  })
}

type ServerName =
  | 'main'
  | 'slow'
  | 'sunset'
  | 'full'
  | 'oneCheckpoint'
  | 'noRoom'
  | 'tenants'
  | 'imports'
  | 'noStreams'
  | 'upstreamGone'
  | 'upstreamSilent'

const SERVER_OPTIONS: Record<ServerName, ServerOptions> = {
  main: {},
  // 408: headers must arrive within 200 ms.
  slow: { limits: { headersTimeoutMs: 200, requestTimeoutMs: 400 } },
  // 410: the sandbox clock past getPet's sunset (5 December 2030).
  sunset: { now: '2031-01-01T00:00:00Z' },
  // 507: no pet may be created.
  full: { maxCreatedPets: 0 },
  // 507: one checkpoint per tenant, the one saved first (CHECKPOINT_SAVED).
  oneCheckpoint: { limits: { checkpoints: 1 } },
  // 507: no pet beyond the seed, created or imported, in any key.
  noRoom: { limits: { createdPets: 0 } },
  // 503: the default key's tenant and one held busy fill the cap. Closing cuts the held request.
  tenants: { isolate: true, maxTenants: 2, limits: { shutdownTimeoutMs: 0 } },
  // 503: one state import held half-read fills the largeBodies budget.
  imports: { limits: { largeBodies: 1 } },
  // 503: no event stream reader allowed.
  noStreams: { limits: { eventStreams: 0 } },
  // 502 and 504: the pet operations forwarded to an upstream that resets every connection, and to
  // one that never answers (their URLs are set once those listen, in beforeAll).
  upstreamGone: { forward: 'all' },
  upstreamSilent: { forward: 'all', limits: { upstreamTimeoutMs: 100 } },
}

interface Aim {
  readonly status: number
  readonly code?: Code
}

interface Stimulus {
  readonly name: string
  readonly server: ServerName
  /** The request for an operation; undefined where the stimulus means nothing for it. */
  readonly request: (row: Row) => Request | undefined
  /** The answer it must get from an operation; undefined: any answer the table allows. */
  readonly aim: (row: Row) => Aim | undefined
  /** Sent to every operation at once (each waits out a timeout). */
  readonly parallel?: boolean
}

/** What a request with nothing wrong gets: the success, or 501 where the interface shows nothing. */
const valid = (row: Row): Aim =>
  row.success === undefined ? { status: 501, code: 'not_implemented' } : { status: row.success.status }
const only = (ids: readonly string[], aim: Aim) => (row: Row) => (ids.includes(row.id) ? aim : valid(row))
const padded = (target: string, parameter: string) => `${target}${target.includes('?') ? '&' : '?'}${parameter}`
const PET_DATA = ['listPets', 'createPet', 'getPet']
const SIMULATED_IDS = TABLE.filter((row) => row.simulated === true).map((row) => row.id)
const BODY_IDS = TABLE.filter((row) => row.body !== undefined).map((row) => row.id)

const prefer = (status: 401 | 429 | 500 | 503, code: Code): Stimulus => ({
  name: `Prefer: code=${status}`,
  server: 'main',
  request: (row) => adding(base(row), 'Prefer', `code=${status}`),
  aim: only(SIMULATED_IDS, { status, code }),
})

const STIMULI: readonly Stimulus[] = [
  { name: 'a valid request', server: 'main', request: (row) => base(row), aim: valid },
  {
    name: 'no Authorization header',
    server: 'main',
    request: (row) => without(base(row), 'Authorization'),
    aim: (row) => (row.area === 'api' ? { status: 401, code: 'unauthorized' } : valid(row)),
  },
  {
    name: 'a key the sandbox does not accept',
    server: 'main',
    request: (row) => setting(base(row), 'Authorization', 'Bearer not-a-key'),
    aim: () => ({ status: 401, code: 'unauthorized' }),
  },
  {
    name: 'Authorization sent twice',
    server: 'main',
    request: (row) => adding(setting(base(row), 'Authorization', KEY_HEADER), 'Authorization', KEY_HEADER),
    aim: () => ({ status: 400, code: 'bad_request' }),
  },
  {
    name: 'HTTP/1.1 without Host',
    server: 'main',
    request: (row) => without(base(row), 'Host'),
    aim: () => ({ status: 400, code: 'bad_request' }),
  },
  {
    name: 'a Host not allowed',
    server: 'main',
    request: (row) => setting(base(row), 'Host', 'evil.example'),
    aim: () => ({ status: 403, code: 'forbidden' }),
  },
  {
    name: 'an Origin on another site',
    server: 'main',
    request: (row) => adding(base(row), 'Origin', 'https://evil.example'),
    aim: (row) => (row.area === 'admin' ? { status: 403, code: 'forbidden' } : valid(row)),
  },
  {
    name: 'a method its path does not answer',
    server: 'main',
    request: (row) => ({ ...without(base(row), 'Content-Type'), method: row.wrongMethod, body: '' }),
    aim: () => ({ status: 405, code: 'method_not_allowed' }),
  },
  {
    name: 'a target of 9000 characters',
    server: 'main',
    request: (row) => ({ ...base(row), target: padded(row.target, `pad=${'a'.repeat(9000)}`) }),
    aim: () => ({ status: 414, code: 'uri_too_long' }),
  },
  {
    name: 'Expect: teapot',
    server: 'main',
    request: (row) => adding(base(row), 'Expect', 'teapot'),
    aim: () => ({ status: 417, code: 'expectation_failed' }),
  },
  {
    // Ending in chunked, the body is framed and the coding reaches the core; `gzip` alone is
    // answered the same (test/edges.test.ts).
    name: 'Transfer-Encoding: gzip, chunked',
    server: 'main',
    request: (row) => {
      const body = row.body ?? ''
      const chunks = body === '' ? '0\r\n\r\n' : `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`
      return { ...adding(base(row), 'Transfer-Encoding', 'gzip, chunked'), body: chunks }
    },
    aim: () => ({ status: 501, code: 'not_implemented' }),
  },
  {
    name: 'Content-Length: 10000000, past every body budget',
    server: 'main',
    request: (row) => ({ ...adding(base(row), 'Content-Length', '10000000'), body: '' }),
    aim: () => ({ status: 413, code: 'payload_too_large' }),
  },
  {
    name: '20 KB of headers',
    server: 'main',
    request: (row) => adding(base(row), 'X-Padding', 'x'.repeat(20_000)),
    aim: () => ({ status: 431, code: 'headers_too_large' }),
  },
  {
    name: 'headers that never end',
    server: 'slow',
    request: (row) => ({ ...base(row), unfinished: true }),
    aim: () => ({ status: 408, code: 'request_timeout' }),
    parallel: true,
  },
  {
    name: 'a ?tenant= handle that names no tenant',
    server: 'main',
    request: (row) => ({ ...base(row), target: padded(row.target, 'tenant=t-0000000000000000') }),
    aim: (row) => (row.area === 'admin' ? { status: 400, code: 'invalid_parameter' } : valid(row)),
  },
  {
    name: 'a text/plain body',
    server: 'main',
    request: (row) => ({ ...setting(base(row), 'Content-Type', 'text/plain'), body: row.body ?? 'hello' }),
    aim: only(BODY_IDS, { status: 415, code: 'unsupported_media_type' }),
  },
  {
    name: 'Content-Encoding: gzip',
    server: 'main',
    request: (row) => adding(base(row), 'Content-Encoding', 'gzip'),
    aim: only(BODY_IDS, { status: 415, code: 'unsupported_media_type' }),
  },
  {
    name: 'a JSON body of the wrong shape',
    server: 'main',
    // An empty object is a whole release (every field optional): an array is not one.
    request: (row) =>
      row.body === undefined ? undefined : { ...base(row), body: row.id === 'releaseHold' ? '[]' : '{}' },
    aim: () => ({ status: 400, code: 'invalid_body' }),
  },
  {
    name: 'Prefer: code=418',
    server: 'main',
    request: (row) => adding(base(row), 'Prefer', 'code=418'),
    aim: only(SIMULATED_IDS, { status: 400, code: 'invalid_parameter' }),
  },
  prefer(401, 'unauthorized'),
  prefer(429, 'too_many_requests'),
  prefer(500, 'internal_error'),
  prefer(503, 'service_unavailable'),
  {
    name: 'Prefer: code=404',
    server: 'main',
    request: (row) => adding(base(row), 'Prefer', 'code=404'),
    aim: (row) =>
      row.id === 'getPet'
        ? { status: 404, code: 'pet_not_found' }
        : row.simulated === true
          ? { status: 400, code: 'invalid_parameter' }
          : valid(row),
  },
  {
    name: 'a parameter the operation refuses',
    server: 'main',
    request: (row) => {
      const targets: Record<string, string> = {
        listPets: '/v1/pets?limit=0',
        getPet: '/v1/pets/abc',
        listRequests: '/__sandbox/requests?operation=bogus',
        listAllPets: '/__sandbox/pets?limit=0',
      }
      const target = targets[row.id]
      return target === undefined ? undefined : { ...base(row), target }
    },
    aim: () => ({ status: 400, code: 'invalid_parameter' }),
  },
  {
    name: 'a pet that does not exist',
    server: 'main',
    request: (row) => (row.id === 'getPet' ? { ...base(row), target: '/v1/pets/999999' } : undefined),
    aim: () => ({ status: 404, code: 'pet_not_found' }),
  },
  {
    name: "the sandbox clock past getPet's sunset",
    server: 'sunset',
    request: (row) => base(row),
    aim: only(['getPet'], { status: 410, code: 'gone' }),
  },
  {
    name: 'no pet may be created',
    server: 'full',
    request: (row) => base(row),
    aim: only(['createPet'], { status: 507, code: 'insufficient_storage' }),
  },
  {
    name: 'a new key while every tenant is busy',
    server: 'tenants',
    request: (row) => base(row, 'Bearer another-key'),
    aim: (row) =>
      // The new key has no tenant, so no checkpoint: deleting or rewinding one looks for it, and
      // makes no tenant.
      ['restoreCheckpoint', 'deleteCheckpoint'].includes(row.id)
        ? { status: 404, code: 'checkpoint_not_found' }
        : only([...PET_DATA, 'addScenario', 'importState', 'saveCheckpoint'], {
            status: 503,
            code: 'service_unavailable',
          })(row),
  },
  {
    name: 'a state import while another is read',
    server: 'imports',
    request: (row) => base(row),
    aim: only(['importState'], { status: 503, code: 'service_unavailable' }),
  },
  {
    name: 'forwarding asked of a sandbox without an upstream',
    server: 'main',
    request: (row) => (row.id === 'setForwarding' ? { ...base(row), body: '{"forward":["listPets"]}' } : undefined),
    aim: () => ({ status: 409, code: 'conflict' }),
  },
  {
    name: 'a checkpoint name in use, without replace',
    server: 'main',
    request: (row) => (row.id === 'saveCheckpoint' ? { ...base(row), body: '{"name":"cp"}' } : undefined),
    aim: () => ({ status: 409, code: 'conflict' }),
  },
  {
    name: 'a hold that does not exist',
    server: 'main',
    request: (row) =>
      row.id === 'releaseHold' ? { ...base(row), target: '/__sandbox/holds/999999/release' } : undefined,
    aim: () => ({ status: 404, code: 'hold_not_found' }),
  },
  {
    name: 'a hold id that is not a whole number',
    server: 'main',
    request: (row) =>
      row.id === 'releaseHold' ? { ...base(row), target: '/__sandbox/holds/first/release' } : undefined,
    aim: () => ({ status: 400, code: 'invalid_parameter' }),
  },
  {
    name: 'a checkpoint that does not exist',
    server: 'main',
    request: (row) => {
      const targets: Record<string, string> = {
        restoreCheckpoint: '/__sandbox/checkpoints/no-such-checkpoint/restore',
        deleteCheckpoint: '/__sandbox/checkpoints/no-such-checkpoint',
      }
      const target = targets[row.id]
      return target === undefined ? undefined : { ...base(row), target }
    },
    aim: () => ({ status: 404, code: 'checkpoint_not_found' }),
  },
  {
    name: 'a state with a pet beyond the seed, where the createdPets budget has no room',
    server: 'noRoom',
    request: (row) =>
      row.id === 'importState'
        ? {
            ...base(row),
            body: JSON.stringify({
              pets: Array.from({ length: 33 }, (_, index) => ({ id: index + 1, name: 'Pet', categoryId: 1 })),
              nextId: 34,
            }),
          }
        : undefined,
    aim: () => ({ status: 507, code: 'insufficient_storage' }),
  },
  {
    name: 'a checkpoint past the checkpoints limit',
    server: 'oneCheckpoint',
    request: (row) => (row.id === 'saveCheckpoint' ? { ...base(row), body: '{"name":"another"}' } : undefined),
    aim: () => ({ status: 507, code: 'insufficient_storage' }),
  },
  {
    name: 'a forwarded operation whose upstream resets the connection',
    server: 'upstreamGone',
    request: (row) => (PET_DATA.includes(row.id) ? base(row) : undefined),
    aim: () => ({ status: 502, code: 'bad_gateway' }),
  },
  {
    name: 'a forwarded operation whose upstream never answers',
    server: 'upstreamSilent',
    request: (row) => (PET_DATA.includes(row.id) ? base(row) : undefined),
    aim: () => ({ status: 504, code: 'gateway_timeout' }),
    parallel: true,
  },
  {
    name: 'an event stream past the eventStreams budget',
    server: 'noStreams',
    request: (row) => base(row),
    aim: only(['events'], { status: 503, code: 'service_unavailable' }),
  },
]

/** Where the recorded answers break the table or the document. */
function answerProblems(row: Row, stimulus: Stimulus, answer: Answer, documents: Documents): string[] {
  const document = documentOf(documents, row)
  const problems: string[] = []
  let body: unknown
  const mediaType = answer.headers['content-type']?.split(';')[0]?.trim() ?? ''
  if (mediaType === JSON_TYPE) {
    try {
      body = JSON.parse(answer.body)
    } catch {
      return [`${row.id} ${answer.status}: the body is not JSON: ${answer.body.slice(0, 80)}`]
    }
  }
  const code = (body as { code?: unknown } | undefined)?.code
  const label = `${row.id} ${answer.status}${typeof code === 'string' ? ` ${code}` : ''}`
  // (a) the hand-written table, and the answer the stimulus aims at
  const aim = stimulus.aim(row)
  if (aim !== undefined && (aim.status !== answer.status || (aim.code !== undefined && aim.code !== code))) {
    problems.push(`${label}: expected ${aim.status}${aim.code === undefined ? '' : ` ${aim.code}`}`)
  }
  if (!row.statuses.includes(answer.status)) problems.push(`${label}: the table has no ${answer.status}`)
  const codes = row.errors[answer.status]
  if (codes !== undefined) {
    if (typeof code !== 'string' || !(codes as readonly string[]).includes(code)) {
      problems.push(`${label}: the table's codes for ${answer.status} are ${codes.join(', ')}`)
    }
    if ((body as { status?: unknown } | undefined)?.status !== answer.status)
      problems.push(`${label}: Error.status differs`)
  }
  for (const name of headersOf(row, answer.status).always) {
    if (answer.headers[name.toLowerCase()] === undefined) problems.push(`${label}: header ${name} is missing`)
  }
  // (b) the document's response for the status, by ajv; a placeholder has none (docs/behaviour.md)
  if (row.placeholder === true) return problems
  const response = responsePointer(document, row, answer.status)
  if (document.at(response) === undefined)
    return [...problems, `${label}: the document does not declare ${answer.status}`]
  const declared = mediaTypesOf(document, response)
  if (answer.body === '') {
    if (declared.length > 0) problems.push(`${label}: the document declares a body (${declared.join(', ')}), none came`)
  } else if (!declared.includes(mediaType)) {
    problems.push(`${label}: the document does not declare ${mediaType || 'no media type'}`)
  } else {
    const schema = `${response}${pointerOf('content', mediaType, 'schema')}`
    if (document.at(schema) !== undefined) {
      const invalid = document.validate(schema, mediaType === JSON_TYPE ? body : answer.body)
      if (invalid !== undefined) problems.push(`${label}: the body does not match the document: ${invalid}`)
    }
  }
  // (c) the document's headers: the required ones there, each one sent valid
  for (const header of documentedHeaders(document, response).values()) {
    const value = answer.headers[header.name.toLowerCase()]
    if (value === undefined) {
      if (header.required) problems.push(`${label}: header ${header.name}, required by the document, is missing`)
      continue
    }
    const schema = `${header.pointer}/schema`
    const invalid = document.at(schema) === undefined ? undefined : document.validate(schema, value)
    if (invalid !== undefined) problems.push(`${label}: header ${header.name}=${value}: ${invalid}`)
  }
  return problems
}

// ---------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------

const committedFile = (file: string) =>
  readDocument(file, JSON.parse(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')) as Json)
const committed: Documents = { api: committedFile('openapi.json'), admin: committedFile('admin-openapi.json') }
const servers = {} as Record<ServerName, RunningServer>
let served: Documents
/** Every answer recorded, for the coverage check at the end. */
const recorded: { row: Row; stimulus: Stimulus; answer: Answer }[] = []
let heldTenant: Promise<unknown> | undefined
let heldImport: ReturnType<typeof connect> | undefined

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5000
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Upstreams that fail: one resets every connection, one holds every connection and never answers. */
const upstreamSockets: Socket[] = []
const upstreams = [
  createNetServer((socket) => {
    socket.on('error', () => undefined)
    socket.destroy()
  }),
  createNetServer((socket) => {
    socket.on('error', () => undefined)
    upstreamSockets.push(socket)
  }),
]

beforeAll(async () => {
  const [gone, silent] = await Promise.all(
    upstreams.map(async (upstream) => {
      upstream.listen(0, '127.0.0.1')
      await once(upstream, 'listening')
      return `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`
    }),
  )
  SERVER_OPTIONS.upstreamGone = { ...SERVER_OPTIONS.upstreamGone, upstream: gone }
  SERVER_OPTIONS.upstreamSilent = { ...SERVER_OPTIONS.upstreamSilent, upstream: silent }
  for (const [name, options] of Object.entries(SERVER_OPTIONS) as [ServerName, ServerOptions][]) {
    servers[name] = await startServer({ port: 0, ...options })
  }
  const fetched = async (path: string) =>
    readDocument(`GET ${path}`, (await (await fetch(`${servers.main.url}${path}`)).json()) as Json)
  served = { api: await fetched('/openapi.json'), admin: await fetched(`${ADMIN}/openapi.json`) }
  // tenants: a request of held-key waits (its tenant held) while the stimuli run.
  const listPets = TABLE.find((row) => row.id === 'listPets') as Row
  heldTenant = send(servers.tenants, adding(base(listPets, 'Bearer held-key'), 'Prefer', 'delay=30000')).catch(
    () => undefined,
  )
  await until(async () => (await servers.tenants.sandbox.health()).tenants === 2, 'held-key to hold its tenant')
  // imports: a state import whose body never finishes holds the one large-body slot.
  const { port } = new URL(servers.imports.url)
  heldImport = connect(Number(port), '127.0.0.1')
  heldImport.on('error', () => undefined)
  heldImport.write(
    'PUT /__sandbox/state HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"pets":[',
  )
  await until(
    async () => (await servers.imports.sandbox.health()).limits.largeBodies.used === 1,
    'the held import to take the large-body slot',
  )
})

afterAll(async () => {
  // The held import ends: the rest of its declared body (not JSON), then its answer.
  const held = heldImport
  if (held !== undefined) {
    const answered = new Promise((resolve) => held.once('data', resolve).once('close', resolve))
    held.write(' '.repeat(1000 - '{"pets":['.length))
    await answered
    held.destroy()
  }
  await Promise.all(Object.values(servers).map((server) => server.close()))
  for (const socket of upstreamSockets) socket.destroy()
  for (const upstream of upstreams) upstream.close()
  await heldTenant
})

describe.each([
  ['openapi.json and admin-openapi.json as committed', () => committed],
  ['the documents as served', () => served],
])('%s, against the hand-written table', (_, documents) => {
  const operationsOf = (document: Document, prefix: string) =>
    Object.entries((document.json.paths ?? {}) as Record<string, Json>).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(method))
        .map(
          ([method, operation]) =>
            `${(operation as { operationId?: string }).operationId ?? '?'}: ${method.toUpperCase()} ${prefix}${path}`,
        ),
    )
  const rows = (area: Row['area']) =>
    TABLE.filter((row) => row.area === area && row.placeholder !== true)
      .map((row) => `${row.id}: ${row.method} ${row.path}`)
      .sort()

  it('hold exactly the operations of the table: the API in one, the admin routes in the other', () => {
    expect(operationsOf(documents().api, '').sort()).toEqual(rows('api'))
    expect(operationsOf(documents().admin, ADMIN).sort()).toEqual(rows('admin'))
  })

  it('give the admin routes their own server, so a generated client calls them under /__sandbox', () => {
    // As served, the sandbox's own address comes first (http://host/__sandbox): the same path.
    const paths = (document: Json) =>
      (document.servers as { url: string }[]).map((server) => new URL(server.url, 'http://h').pathname)
    expect((documents().admin.json.servers as { url: string }[]).at(-1)).toEqual(
      expect.objectContaining({ url: ADMIN }),
    )
    expect(new Set(paths(documents().admin.json))).toEqual(new Set([ADMIN]))
    expect(new Set(paths(documents().api.json))).toEqual(new Set(['/v1']))
  })

  it.each(TABLE.map((row) => [row.id, row] as const))(
    '%s: the statuses, Error codes and headers of the table',
    (_, row) => {
      expect(documentProblems(documents(), row)).toEqual([])
    },
  )
})

describe('recorded answers', () => {
  // The servers' notices of what the stimuli do (a refused event stream reader): expected here.
  beforeAll(() => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined)
  })
  afterAll(() => {
    vi.restoreAllMocks()
  })
  afterEach(async () => {
    await servers.main.sandbox.reset()
  })

  it.each(STIMULI.map((stimulus) => [stimulus.name, stimulus] as const))(
    '%s: each answer is the table’s and validates against the served document',
    async (_, stimulus) => {
      const server = servers[stimulus.server]
      const problems: string[] = []
      const one = async (row: Row): Promise<void> => {
        let request = stimulus.request(row)
        if (request === undefined) return
        try {
          if (row.given !== undefined) {
            const { method, target, body, status } = row.given
            const given = await send(server, {
              method,
              target,
              headers: [
                ['Host', '127.0.0.1'],
                ['Content-Type', JSON_TYPE],
              ],
              body,
            })
            if (given.status !== status)
              problems.push(`${row.id}: ${method} ${target} first answered ${given.status}, not ${status}`)
            const made = given.status < 300 ? (JSON.parse(given.body) as { id?: unknown }).id : undefined
            if (request.target.includes('{given}')) {
              request = {
                ...request,
                target: request.target.replace('{given}', typeof made === 'number' ? String(made) : '0'),
              }
            }
          }
          const answer = await send(server, request)
          recorded.push({ row, stimulus, answer })
          problems.push(...answerProblems(row, stimulus, answer, served))
        } catch (error) {
          problems.push(`${row.id}: ${(error as Error).message}`)
        }
      }
      if (stimulus.parallel === true) await Promise.all(TABLE.map(one))
      else for (const row of TABLE) await one(row)
      expect(problems).toEqual([])
    },
  )

  // Runs after the stimuli above, from what they recorded.
  it('produces every (operation, status, code) of the table, except those NOT_PRODUCED says why', () => {
    const produced = new Set(
      recorded.map(({ row, answer }) => {
        const code = answer.status >= 400 ? (JSON.parse(answer.body) as { code?: string }).code : 'success'
        return `${row.id} ${answer.status} ${code ?? '?'}`
      }),
    )
    const excused = new Map<string, string>(
      NOT_PRODUCED.flatMap((entry) => entry.ids.map((id) => [`${id} ${entry.status} ${entry.code}`, entry.why])),
    )
    const missing: string[] = []
    const stale: string[] = []
    for (const row of TABLE) {
      const entries = [
        ...(row.success ? [`${row.id} ${row.success.status} success`] : []),
        ...Object.entries(row.errors).flatMap(([status, codes]) => codes.map((code) => `${row.id} ${status} ${code}`)),
      ]
      for (const entry of entries) {
        if (excused.has(entry)) {
          if (produced.has(entry)) stale.push(`${entry} was produced: remove it from NOT_PRODUCED`)
        } else if (!produced.has(entry)) missing.push(entry)
      }
    }
    expect(missing, 'no stimulus produced these').toEqual([])
    expect(stale).toEqual([])
  })
})
