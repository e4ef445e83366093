/**
 * THE behaviour table: what the sandbox answers, one row per request, each labelled by where its
 * rule comes from. The test suite runs every row against the sandbox in-process and over HTTP;
 * `petstore-sandbox verify` runs the same rows against a live server and the sandbox side by side.
 *
 * - `interface`: the interface document states it (401 without a key, `limit` at most 100, the
 *   `status` filter, the `id` assigned, `getPet` deprecated). A live server that differs drifts.
 * - `choice`: the document says "not shown" and the sandbox chose. Each such row names its item
 *   of "Where the interface is silent" (docs/behaviour.md and the README; a test holds the three
 *   equal). A live server that differs is a note: the sandbox should probably copy it there.
 *
 * Paths are under the API's base URL. `{petId}` is a pet the server has, `{missingId}` one it
 * has not. Rows marked `writes` create data wherever they are not refused: `verify` sends them
 * only with `--writes`; other rows that are not reads only with `--refused-writes` (`sendsOf`).
 *
 * May import: core/verify, core/admin, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import type { OperationId } from '../api/contract.js'

export type CaseSource = 'interface' | 'choice'

/** The items of "Where the interface is silent", in the docs' order and words. */
export const SILENT_TOPICS = [
  'Default status',
  'name constraints',
  'int64 fields',
  'Duplicate keys in a body',
  'Fields the service assigns',
  'Error code values',
  'Invalid query parameters',
  'Order and pagination',
  'Non-JSON bodies',
  'Request size',
  'Rate limits',
  'Deprecation date of getPet',
  'Location of a created pet',
  'Unknown paths, other methods, orders and labelled endpoints',
  'Trailing slash',
  'Request targets are routed as sent',
  'HEAD and OPTIONS',
  'Order of checks',
  'Authentication details',
] as const

export type SilentTopic = (typeof SILENT_TOPICS)[number]

export interface Case {
  readonly name: string
  readonly source: CaseSource
  /** A `choice` row: the item of "Where the interface is silent" that holds its rule. */
  readonly topic?: SilentTopic
  /** The pet operation the request reaches, when it reaches one: its answer is held to the document's. */
  readonly operation?: OperationId
  /**
   * The request could change data on a server that does not refuse it (a create, a method the
   * sandbox refuses with a key that works): verify sends it only with --writes.
   */
  readonly writes?: boolean
  readonly method: string
  /** Under the base URL, as sent. */
  readonly path: string
  /** The Authorization header for the key in use; none when left out. */
  readonly authorization?: (key: string) => string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
  /** What the sandbox answers. */
  readonly status: number
  /**
   * The document demands a refusal here (a 4xx), but the exact status is the sandbox's choice,
   * under this item: another 4xx from a live server is a note, a 2xx is drift.
   */
  readonly refusalTopic?: SilentTopic
  /** Error answers: the sandbox's code, and words its message contains (the test suite checks them). */
  readonly code?: string
  readonly mentions?: string
  /**
   * Headers the sandbox sends with these values. `{base}` is the base path (`/v1`), `{nextId}`
   * the id the next created pet gets.
   */
  readonly expectHeaders?: Readonly<Record<string, string | RegExp>>
  /** What the body holds beyond its shape: a list by the query's rules, the pet asked for, a pet created from the body. */
  readonly expect?: 'list' | 'pet' | 'created'
  /**
   * A list row: the same list as this path's under another `limit`. `limit` is a page size: the
   * shorter page is the start of the longer, and a page shorter than its limit is the whole list.
   */
  readonly sameListAs?: string
  /** Sent this many times in a row; every answer must be the sandbox's. */
  readonly repeat?: number
  /**
   * The target must reach the server exactly as written. A WHATWG URL (fetch, msw) removes
   * `%2e%2e` segments before sending: such a client cannot send this row (verify sends it raw).
   */
  readonly raw?: boolean
}

/**
 * What sending a row may change on a server: nothing (`read`: GET, HEAD); nothing on a server that
 * keeps the interface, but a record on one that does not (`refused-write`: a write the document
 * says must be refused, such as a create without a key, which json-server stores); or data
 * (`write`: the rows marked `writes`). verify sends reads by default, refused writes with
 * --refused-writes, and both kinds of write with --writes.
 */
export type Sends = 'read' | 'refused-write' | 'write'

export function sendsOf(row: Case): Sends {
  if (row.writes === true) return 'write'
  return row.method === 'GET' || row.method === 'HEAD' ? 'read' : 'refused-write'
}

/** The credential of the key in use, as the interface shows it. */
export const bearer = (key: string): string => `Bearer ${key}`
export const JSON_BODY: Readonly<Record<string, string>> = { 'Content-Type': 'application/json' }

/** getPet's headers. The Deprecation date and the Link are the sandbox's; the Sunset is the document's removal date. */
export const DEPRECATION = {
  Deprecation: '@1767225600',
  Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  Link: '<{base}/pets>; rel="successor-version"',
} as const

/** A createPet row the document refuses (400): a body missing fields or holding invalid values. */
function refusedBody(name: string, body: string | undefined, mentions: string): Case {
  return {
    name,
    source: 'interface',
    operation: 'createPet',
    method: 'POST',
    path: '/pets',
    authorization: bearer,
    headers: JSON_BODY,
    ...(body !== undefined && { body }),
    status: 400,
    code: 'invalid_body',
    mentions,
  }
}

/**
 * A createPet row the sandbox refuses by its own rule, under `topic`. A server that accepts the
 * body creates a pet, so these are writes.
 */
function choiceBody(name: string, topic: SilentTopic, body: string, mentions: string): Case {
  return { ...refusedBody(name, body, mentions), source: 'choice', topic, writes: true }
}

/** A listPets query the document rules out: refused, with a 400 of the sandbox's choosing. */
function badQuery(query: string, mentions: string, source: CaseSource = 'interface'): Case {
  return {
    name: `GET /pets?${query} is refused`,
    source,
    ...(source === 'choice'
      ? { topic: 'Invalid query parameters' as const }
      : { refusalTopic: 'Invalid query parameters' as const }),
    operation: 'listPets',
    method: 'GET',
    path: `/pets?${query}`,
    authorization: bearer,
    status: 400,
    code: 'invalid_parameter',
    mentions,
  }
}

/** A getPet path segment that is no int64 the sandbox holds: 400, the sandbox's choice. */
function badPetId(segment: string, mentions: string): Case {
  return {
    name: `GET /pets/${segment} is refused`,
    source: 'choice',
    topic: 'int64 fields',
    operation: 'getPet',
    method: 'GET',
    path: `/pets/${segment}`,
    authorization: bearer,
    status: 400,
    code: 'invalid_parameter',
    mentions,
    expectHeaders: DEPRECATION,
  }
}

/** 401 on all three operations, before anything else: the document's first rule. */
function unauthorizedRows(): Case[] {
  const operations: [OperationId, string, string][] = [
    ['listPets', 'GET', '/pets'],
    ['createPet', 'POST', '/pets'],
    ['getPet', 'GET', '/pets/{petId}'],
  ]
  return operations.flatMap(([operation, method, path]): Case[] => {
    const row = (
      name: string,
      authorization: ((key: string) => string) | undefined,
      mentions: string,
      choice = false,
    ): Case => ({
      name: `${method} ${path} ${name}`,
      ...(choice
        ? { source: 'choice' as const, topic: 'Authentication details' as const }
        : { source: 'interface' as const }),
      operation,
      method,
      path,
      ...(authorization !== undefined && { authorization }),
      // A server that takes the key in any case would take this one: its body is refused anyway,
      // so the row creates nothing. The rows without a usable key send a pet the interface refuses.
      ...(method === 'POST' && { headers: JSON_BODY, body: choice ? '{}' : '{"name":"Rex","categoryId":1}' }),
      status: 401,
      code: 'unauthorized',
      mentions,
      expectHeaders: {
        'WWW-Authenticate': /^Bearer\b/,
        ...(operation === 'getPet' && DEPRECATION),
      },
    })
    return [
      row('without an Authorization header answers 401', undefined, 'Authorization header is missing'),
      row('with the Basic scheme answers 401', () => `Basic ${btoa('user:pass')}`, 'Bearer'),
      row('with an empty key answers 401', () => 'Bearer ', 'API key is empty'),
      row('with an unknown key answers 401', () => 'Bearer not-a-key', 'API key is not valid'),
      // The interface does not say whether keys match in any case: the sandbox's are exact.
      row(
        'with the key in another case answers 401',
        (key) => `Bearer ${otherCase(key)}`,
        'API key is not valid',
        true,
      ),
    ]
  })
}

/** The key with the case of every letter swapped: another key, unless it has no letters. */
export function otherCase(key: string): string {
  return key.replace(/[a-z]+|[A-Z]+/g, (run) => (run === run.toLowerCase() ? run.toUpperCase() : run.toLowerCase()))
}

export const cases: readonly Case[] = [
  ...unauthorizedRows(),
  {
    name: 'authentication comes before query validation',
    source: 'choice',
    topic: 'Order of checks',
    operation: 'listPets',
    method: 'GET',
    path: '/pets?limit=0',
    status: 401,
    code: 'unauthorized',
    mentions: 'Authorization',
  },
  {
    name: 'authentication comes before body validation',
    source: 'choice',
    topic: 'Order of checks',
    operation: 'createPet',
    method: 'POST',
    path: '/pets',
    headers: JSON_BODY,
    body: '{"name":',
    status: 401,
    code: 'unauthorized',
    mentions: 'Authorization',
  },
  {
    name: 'the Bearer scheme is matched in any case',
    source: 'choice',
    topic: 'Authentication details',
    operation: 'listPets',
    method: 'GET',
    path: '/pets?limit=1',
    authorization: (key) => `bEARER ${key}`,
    status: 200,
    expect: 'list',
  },

  // listPets
  {
    name: 'GET /pets answers 200 with at most 20 pets',
    source: 'interface',
    operation: 'listPets',
    method: 'GET',
    path: '/pets',
    authorization: bearer,
    status: 200,
    expect: 'list',
  },
  ...[1, 7, 100].map((limit): Case => ({
    name: `GET /pets?limit=${limit} answers at most ${limit} pet${limit === 1 ? '' : 's'} of the same list`,
    source: 'interface',
    operation: 'listPets',
    method: 'GET',
    path: `/pets?limit=${limit}`,
    authorization: bearer,
    status: 200,
    expect: 'list',
    sameListAs: '/pets',
  })),
  ...(['available', 'pending', 'sold'] as const).map((status): Case => ({
    name: `GET /pets?status=${status} answers only ${status} pets`,
    source: 'interface',
    operation: 'listPets',
    method: 'GET',
    path: `/pets?status=${status}&limit=100`,
    authorization: bearer,
    status: 200,
    expect: 'list',
    sameListAs: `/pets?status=${status}`,
  })),
  {
    name: 'GET /pets?status=available&limit=3 filters before the limit',
    source: 'interface',
    operation: 'listPets',
    method: 'GET',
    path: '/pets?status=available&limit=3',
    authorization: bearer,
    status: 200,
    expect: 'list',
    sameListAs: '/pets?status=available',
  },
  {
    name: 'GET /pets lists pets by id, the first page only',
    source: 'choice',
    topic: 'Order and pagination',
    operation: 'listPets',
    method: 'GET',
    path: '/pets?limit=100',
    authorization: bearer,
    status: 200,
    expect: 'list',
  },
  {
    name: 'GET /pets ignores unknown query parameters',
    source: 'choice',
    topic: 'Invalid query parameters',
    operation: 'listPets',
    method: 'GET',
    path: '/pets?page=2&sort=name',
    authorization: bearer,
    status: 200,
    expect: 'list',
    sameListAs: '/pets',
  },
  {
    name: 'GET /pets/ with a trailing slash is the list',
    source: 'choice',
    topic: 'Trailing slash',
    operation: 'listPets',
    method: 'GET',
    path: '/pets/',
    authorization: bearer,
    status: 200,
    expect: 'list',
  },
  {
    name: 'GET /pets answers ten calls in a row',
    source: 'choice',
    topic: 'Rate limits',
    operation: 'listPets',
    method: 'GET',
    path: '/pets?limit=1',
    authorization: bearer,
    status: 200,
    expect: 'list',
    repeat: 10,
  },
  {
    name: 'HEAD /pets answers as GET does, without a body',
    source: 'choice',
    topic: 'HEAD and OPTIONS',
    method: 'HEAD',
    path: '/pets',
    authorization: bearer,
    status: 200,
  },
  badQuery('limit=0', 'limit must be at least 1'),
  badQuery('limit=101', 'limit must be at most 100'),
  badQuery('limit=-1', 'limit must be at least 1'),
  badQuery('limit=abc', 'limit must be an integer'),
  badQuery('limit=1.5', 'limit must be an integer'),
  badQuery('status=Sold', 'status must be one of available, pending, sold'),
  badQuery('status=adopted', 'status must be one of available, pending, sold'),
  badQuery('limit=1e1', 'limit must be an integer', 'choice'),
  badQuery('limit=', 'limit must be an integer', 'choice'),
  badQuery('limit=%2B5', 'limit must be an integer', 'choice'),
  badQuery('limit=5&limit=6', 'limit must be given at most once', 'choice'),
  badQuery('status=', 'status must be one of available, pending, sold', 'choice'),

  // createPet, refused as the document says: no pet is made, so these run by default
  refusedBody('a POST without a body is refused', undefined, 'body is required'),
  refusedBody('an empty body is refused', '', 'body is required'),
  refusedBody('a body of only white space is refused', '  \n ', 'body is required'),
  refusedBody('malformed JSON is refused', '{"name": "Rex",', 'body is not valid JSON'),
  refusedBody('a JSON null body is refused', 'null', 'body must be a JSON object, got null'),
  refusedBody(
    'a JSON array body is refused',
    '[{"name":"Rex","categoryId":1}]',
    'body must be a JSON object, got an array',
  ),
  refusedBody('a JSON string body is refused', '"Rex"', 'body must be a JSON object, got a string'),
  refusedBody('a JSON number body is refused', '42', 'body must be a JSON object, got an integer'),
  refusedBody('a body that is a huge number is refused', '1e400', 'body must be a JSON object, got a number'),
  refusedBody(
    'an empty object is refused naming both required fields',
    '{}',
    'name is required; categoryId is required',
  ),
  refusedBody('a missing name is refused', '{"categoryId":1}', 'name is required'),
  refusedBody('a numeric name is refused', '{"name":5,"categoryId":1}', 'name must be a string, got 5'),
  refusedBody('a null name is refused', '{"name":null,"categoryId":1}', 'name must be a string, got null'),
  refusedBody('a missing categoryId is refused', '{"name":"Rex"}', 'categoryId is required'),
  refusedBody(
    'a string categoryId is refused',
    '{"name":"Rex","categoryId":"1"}',
    'categoryId must be an integer, got "1"',
  ),
  refusedBody(
    'a fractional categoryId is refused',
    '{"name":"Rex","categoryId":1.5}',
    'categoryId must be an integer, got 1.5',
  ),
  refusedBody(
    'a boolean categoryId is refused',
    '{"name":"Rex","categoryId":true}',
    'categoryId must be an integer, got true',
  ),
  refusedBody(
    'a null categoryId is refused',
    '{"name":"Rex","categoryId":null}',
    'categoryId must be an integer, got null',
  ),
  refusedBody(
    'a categoryId of 1e400 is refused',
    '{"name":"Rex","categoryId":1e400}',
    'categoryId must be an integer from -9007199254740991 to 9007199254740991, got 1e400',
  ),
  refusedBody(
    'an unknown status is refused',
    '{"name":"Rex","categoryId":1,"status":"adopted"}',
    'status must be one of available, pending, sold, got "adopted"',
  ),
  refusedBody(
    'a status in the wrong case is refused',
    '{"name":"Rex","categoryId":1,"status":"Sold"}',
    'status must be one of available, pending, sold, got "Sold"',
  ),
  refusedBody(
    'a null status is refused',
    '{"name":"Rex","categoryId":1,"status":null}',
    'status must be one of available, pending, sold, got null',
  ),
  {
    name: 'a form-encoded body is refused',
    source: 'interface',
    refusalTopic: 'Non-JSON bodies',
    operation: 'createPet',
    method: 'POST',
    path: '/pets',
    authorization: bearer,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'name=Rex&categoryId=1',
    status: 415,
    code: 'unsupported_media_type',
    mentions: 'Content-Type must be application/json',
  },

  // getPet
  {
    name: 'GET /pets/{petId} answers the pet, deprecated',
    source: 'interface',
    operation: 'getPet',
    method: 'GET',
    path: '/pets/{petId}',
    authorization: bearer,
    status: 200,
    expect: 'pet',
    expectHeaders: DEPRECATION,
  },
  {
    name: 'GET /pets/{missingId} answers 404, deprecated',
    source: 'interface',
    operation: 'getPet',
    method: 'GET',
    path: '/pets/{missingId}',
    authorization: bearer,
    status: 404,
    code: 'pet_not_found',
    mentions: 'does not exist',
    expectHeaders: DEPRECATION,
  },
  {
    name: 'GET /pets/0 answers 404',
    source: 'interface',
    operation: 'getPet',
    method: 'GET',
    path: '/pets/0',
    authorization: bearer,
    status: 404,
    code: 'pet_not_found',
    mentions: 'pet 0 does not exist',
  },
  badPetId('abc', 'petId must be an integer, got "abc"'),
  badPetId('1.5', 'petId must be an integer'),
  badPetId('1e1', 'petId must be an integer'),
  badPetId(
    '99999999999999999999',
    'petId must be an integer from -9007199254740991 to 9007199254740991, got 99999999999999999999',
  ),
  {
    name: 'GET /pets/%2e%2e/pets/1 is no path: dot segments are not removed',
    source: 'choice',
    raw: true,
    topic: 'Request targets are routed as sent',
    method: 'GET',
    path: '/pets/%2e%2e/pets/1',
    authorization: bearer,
    status: 404,
    code: 'not_found',
    mentions: 'does not exist',
  },

  // The rest of the base URL
  {
    name: 'DELETE /pets/{missingId} answers 405 with Allow',
    source: 'choice',
    topic: 'Unknown paths, other methods, orders and labelled endpoints',
    // A server with a DELETE would delete: sent only with --writes, and never to a pet it has.
    writes: true,
    method: 'DELETE',
    path: '/pets/{missingId}',
    authorization: bearer,
    status: 405,
    code: 'method_not_allowed',
    mentions: 'DELETE is not allowed',
    expectHeaders: { Allow: 'GET, HEAD' },
  },
  {
    name: 'PUT /pets answers 405 with Allow',
    source: 'choice',
    topic: 'Unknown paths, other methods, orders and labelled endpoints',
    writes: true,
    method: 'PUT',
    path: '/pets',
    authorization: bearer,
    headers: JSON_BODY,
    body: '{}',
    status: 405,
    code: 'method_not_allowed',
    mentions: 'PUT is not allowed',
    expectHeaders: { Allow: 'GET, HEAD, POST' },
  },
  ...['GET /store/orders', 'GET /experimental/pets', 'POST /beta/anything'].map((request): Case => {
    const [method = '', path = ''] = request.split(' ')
    return {
      name: `${request} answers 501`,
      source: 'choice',
      topic: 'Unknown paths, other methods, orders and labelled endpoints',
      ...(method !== 'GET' && { writes: true }),
      method,
      path,
      authorization: bearer,
      status: 501,
      code: 'not_implemented',
      mentions: path === '/store/orders' ? '/v1/store/orders' : 'not implemented',
    }
  }),
  {
    name: 'POST /store/orders answers 405 with Allow',
    source: 'choice',
    topic: 'Unknown paths, other methods, orders and labelled endpoints',
    writes: true,
    method: 'POST',
    path: '/store/orders',
    authorization: bearer,
    status: 405,
    code: 'method_not_allowed',
    mentions: 'POST is not allowed',
    expectHeaders: { Allow: 'GET, HEAD' },
  },
  ...['/beta/a/b', '/owners', '/pets/1/photos'].map((path): Case => ({
    name: `GET ${path} answers 404`,
    source: 'choice',
    topic: 'Unknown paths, other methods, orders and labelled endpoints',
    method: 'GET',
    path,
    authorization: bearer,
    status: 404,
    code: 'not_found',
    mentions: 'does not exist',
  })),
  {
    name: 'an unknown path without a key answers 401 first',
    source: 'choice',
    topic: 'Order of checks',
    method: 'GET',
    path: '/owners',
    status: 401,
    code: 'unauthorized',
    mentions: 'Authorization',
  },

  // Writes: a pet is made, or would be on a server that accepts the body. Sent with --writes.
  {
    name: 'POST /pets answers 201 with the pet and its new id, readable again',
    source: 'interface',
    operation: 'createPet',
    writes: true,
    method: 'POST',
    path: '/pets',
    authorization: bearer,
    headers: JSON_BODY,
    body: '{"name":"Rex","categoryId":1,"status":"pending"}',
    status: 201,
    expect: 'created',
    expectHeaders: { Location: '{base}/pets/{nextId}' },
  },
  {
    name: 'POST /pets without a status stores none',
    source: 'choice',
    topic: 'Default status',
    operation: 'createPet',
    writes: true,
    method: 'POST',
    path: '/pets',
    authorization: bearer,
    headers: JSON_BODY,
    body: '{"name":"Nameless Status","categoryId":3}',
    status: 201,
    expect: 'created',
  },
  {
    name: 'POST /pets answers a Location for the new pet',
    source: 'choice',
    topic: 'Location of a created pet',
    operation: 'createPet',
    writes: true,
    method: 'POST',
    path: '/pets',
    authorization: bearer,
    headers: JSON_BODY,
    body: '{"name":"Located","categoryId":2,"status":"sold"}',
    status: 201,
    expect: 'created',
    expectHeaders: { Location: '{base}/pets/{nextId}' },
  },
  choiceBody('an empty name is refused', 'name constraints', '{"name":"","categoryId":1}', 'name must not be empty'),
  choiceBody(
    'a blank name is refused',
    'name constraints',
    '{"name":"   ","categoryId":1}',
    'name must contain a non-space character',
  ),
  choiceBody(
    'a name over 255 characters is refused',
    'name constraints',
    JSON.stringify({ name: 'x'.repeat(256), categoryId: 1 }),
    'name must be at most 255 characters',
  ),
  choiceBody(
    'a categoryId of 2^53 is refused',
    'int64 fields',
    '{"name":"Rex","categoryId":9007199254740992}',
    'categoryId must be at most 9007199254740991, got 9007199254740992',
  ),
  choiceBody(
    'a categoryId of -2^53 is refused',
    'int64 fields',
    '{"name":"Rex","categoryId":-9007199254740992}',
    'categoryId must be at least -9007199254740991, got -9007199254740992',
  ),
  choiceBody(
    'a fractional categoryId that would round to an integer is refused',
    'int64 fields',
    '{"name":"Rex","categoryId":1.00000000000000001}',
    'categoryId must be an integer from -9007199254740991 to 9007199254740991, got 1.00000000000000001',
  ),
  choiceBody(
    'a categoryId that would round into the safe range is refused',
    'int64 fields',
    '{"name":"Rex","categoryId":9007199254740990.9}',
    'got 9007199254740990.9',
  ),
  choiceBody(
    'a categoryId of 2^53+1 is refused',
    'int64 fields',
    '{"name":"Rex","categoryId":9007199254740993}',
    'got 9007199254740993',
  ),
  choiceBody(
    'a body with a duplicated key is refused',
    'Duplicate keys in a body',
    '{"name":"Rex","name":"Max","categoryId":1}',
    'body has the key "name" twice (at name)',
  ),
  choiceBody(
    'a body with a key repeated with an equal value is refused too',
    'Duplicate keys in a body',
    '{"name":"Rex","name":"Rex","categoryId":1}',
    'body has the key "name" twice (at name)',
  ),
  choiceBody(
    'every duplicated key is reported at once',
    'Duplicate keys in a body',
    '{"name":"Rex","name":"Max","categoryId":1,"categoryId":2}',
    'body has the key "name" twice (at name); body has the key "categoryId" twice (at categoryId)',
  ),
  choiceBody(
    'a body nested 5,000 deep is called nested too deeply, not invalid',
    'Duplicate keys in a body',
    `{"name":"Rex","categoryId":1,"x":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    'body is nested too deeply: more than 100 levels of arrays and objects',
  ),
  choiceBody(
    'a body that sets id is refused',
    'Fields the service assigns',
    '{"id":7,"name":"Rex","categoryId":1}',
    'id is assigned by the service',
  ),
  {
    ...choiceBody(
      'a body over 16 KiB is refused as 413',
      'Request size',
      JSON.stringify({ name: 'Big', categoryId: 1, padding: 'x'.repeat(20_000) }),
      'body must be at most 16384 bytes',
    ),
    status: 413,
    code: 'payload_too_large',
  },
  // Last: a broken percent-escape has crashed a server (Prism 5's mock), and no row should come after that.
  badPetId('%E0%A4%A', 'petId must be an integer'),
]

/** Every item of "Where the interface is silent" a row refers to: its topic, its refusal's, and error codes. */
export function topicsOf(row: Case): SilentTopic[] {
  return [
    ...(row.topic === undefined ? [] : [row.topic]),
    ...(row.refusalTopic === undefined ? [] : [row.refusalTopic]),
    ...(row.code === undefined ? [] : ['Error code values' as const]),
    ...Object.keys(row.expectHeaders ?? {}).flatMap((name) => {
      const topic = HEADER_RULES[name.toLowerCase()]?.topic
      return topic === undefined ? [] : [topic]
    }),
  ]
}

/**
 * The headers verify compares, and whose rule each is: the document's (JSON; getPet deprecated,
 * removed on 5 December 2030), or the sandbox's under an item. Deprecation's presence is the
 * document's, its date the sandbox's.
 */
export const HEADER_RULES: Readonly<
  Record<string, { readonly source: CaseSource; readonly topic?: SilentTopic; readonly presence?: CaseSource }>
> = {
  'content-type': { source: 'interface' },
  deprecation: { source: 'choice', topic: 'Deprecation date of getPet', presence: 'interface' },
  sunset: { source: 'interface' },
  link: { source: 'choice', topic: 'Deprecation date of getPet' },
  'www-authenticate': { source: 'choice', topic: 'Authentication details' },
  allow: { source: 'choice', topic: 'Unknown paths, other methods, orders and labelled endpoints' },
  location: { source: 'choice', topic: 'Location of a created pet' },
}
