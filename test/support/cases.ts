/**
 * The interface's response tables and every 400 case of the sandbox issue, as rows.
 * The same rows run in-process (setupServer) and over HTTP (startServer).
 */
import { DEFAULT_API_KEY } from '../../src/index.js'

export const AUTH = { Authorization: `Bearer ${DEFAULT_API_KEY}` }
export const JSON_BODY = { 'Content-Type': 'application/json' }

export interface Case {
  name: string
  method: string
  path: string
  headers?: Record<string, string>
  body?: string
  status: number
  /** For error responses: the expected Error code, and words the message must contain. */
  code?: string
  mentions?: string
  /** Extra response headers that must be present with these values. */
  expectHeaders?: Record<string, string | RegExp>
}

const DEPRECATION = {
  Deprecation: '@1767225600',
  Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  Link: '</v1/pets>; rel="successor-version"',
}

function post(name: string, body: string | undefined, mentions: string): Case {
  return {
    name,
    method: 'POST',
    path: '/v1/pets',
    headers: { ...AUTH, ...JSON_BODY },
    ...(body !== undefined && { body }),
    status: 400,
    code: 'invalid_body',
    mentions,
  }
}

function list(query: string, mentions: string): Case {
  return {
    name: `GET /v1/pets?${query} is refused`,
    method: 'GET',
    path: `/v1/pets?${query}`,
    headers: AUTH,
    status: 400,
    code: 'invalid_parameter',
    mentions,
  }
}

export const cases: Case[] = [
  // 401 on all three operations, before anything else
  ...[
    ['GET', '/v1/pets'],
    ['POST', '/v1/pets'],
    ['GET', '/v1/pets/1'],
  ].flatMap(([method = '', path = '']): Case[] => {
    const deprecated = path === '/v1/pets/1' ? DEPRECATION : {}
    const row = (name: string, headers: Record<string, string>, mentions: string): Case => ({
      name: `${method} ${path} ${name}`,
      method,
      path,
      headers: { ...headers, ...(method === 'POST' && JSON_BODY) },
      ...(method === 'POST' && { body: '{"name":"Rex","categoryId":1}' }),
      status: 401,
      code: 'unauthorized',
      mentions,
      expectHeaders: { 'WWW-Authenticate': /^Bearer\b/, ...deprecated },
    })
    return [
      row('without an Authorization header answers 401', {}, 'Authorization header is missing'),
      row('with the Basic scheme answers 401', { Authorization: `Basic ${btoa('user:pass')}` }, 'Bearer'),
      row('with an empty key answers 401', { Authorization: 'Bearer ' }, 'API key is empty'),
      row('with an unknown key answers 401', { Authorization: 'Bearer not-a-key' }, 'API key is not valid'),
      row(
        'with a key that only differs in case answers 401',
        { Authorization: `Bearer ${DEFAULT_API_KEY.toUpperCase()}` },
        'API key is not valid',
      ),
    ]
  }),
  {
    name: 'authentication comes before query validation',
    method: 'GET',
    path: '/v1/pets?limit=0',
    status: 401,
    code: 'unauthorized',
    mentions: 'Authorization',
  },
  {
    name: 'authentication comes before body validation',
    method: 'POST',
    path: '/v1/pets',
    headers: JSON_BODY,
    body: '{"name":',
    status: 401,
    code: 'unauthorized',
    mentions: 'Authorization',
  },
  {
    name: 'the Bearer scheme is matched case-insensitively',
    method: 'GET',
    path: '/v1/pets?limit=1',
    headers: { Authorization: `bEARER ${DEFAULT_API_KEY}` },
    status: 200,
  },

  // listPets
  { name: 'GET /v1/pets answers 200', method: 'GET', path: '/v1/pets', headers: AUTH, status: 200 },
  {
    name: 'GET /v1/pets ignores unknown query parameters',
    method: 'GET',
    path: '/v1/pets?page=2&sort=name',
    headers: AUTH,
    status: 200,
  },
  {
    name: 'GET /v1/pets/ with a trailing slash answers 200',
    method: 'GET',
    path: '/v1/pets/',
    headers: AUTH,
    status: 200,
  },
  list('limit=0', 'limit must be at least 1'),
  list('limit=101', 'limit must be at most 100'),
  list('limit=-1', 'limit must be at least 1'),
  list('limit=abc', 'limit must be an integer'),
  list('limit=1.5', 'limit must be an integer'),
  list('limit=1e1', 'limit must be an integer'),
  list('limit=', 'limit must be an integer'),
  list('limit=%2B5', 'limit must be an integer'),
  list('limit=5&limit=6', 'limit must be given at most once'),
  list('status=Sold', 'status must be one of available, pending, sold'),
  list('status=adopted', 'status must be one of available, pending, sold'),
  list('status=', 'status must be one of available, pending, sold'),

  // createPet
  {
    name: 'POST /v1/pets answers 201 with a Location',
    method: 'POST',
    path: '/v1/pets',
    headers: { ...AUTH, ...JSON_BODY },
    body: '{"name":"Rex","categoryId":1,"status":"available"}',
    status: 201,
    expectHeaders: { Location: '/v1/pets/33' },
  },
  post('a POST without a body is refused', undefined, 'body is required'),
  post('an empty body is refused', '', 'body is required'),
  post('a body of only white space is refused', '  \n ', 'body is required'),
  post('malformed JSON is refused', '{"name": "Rex",', 'body is not valid JSON'),
  post('a JSON null body is refused', 'null', 'body must be a JSON object, got null'),
  post('a JSON array body is refused', '[{"name":"Rex","categoryId":1}]', 'body must be a JSON object, got an array'),
  post('a JSON string body is refused', '"Rex"', 'body must be a JSON object, got a string'),
  post('a JSON number body is refused', '42', 'body must be a JSON object, got an integer'),
  post('an empty object is refused naming both required fields', '{}', 'name is required; categoryId is required'),
  post('a missing name is refused', '{"categoryId":1}', 'name is required'),
  post('a numeric name is refused', '{"name":5,"categoryId":1}', 'name must be a string, got 5'),
  post('a null name is refused', '{"name":null,"categoryId":1}', 'name must be a string, got null'),
  post('an empty name is refused', '{"name":"","categoryId":1}', 'name must not be empty'),
  post('a blank name is refused', '{"name":"   ","categoryId":1}', 'name must contain a non-space character'),
  post(
    'a name over 255 characters is refused',
    JSON.stringify({ name: 'x'.repeat(256), categoryId: 1 }),
    'name must be at most 255 characters',
  ),
  post('a missing categoryId is refused', '{"name":"Rex"}', 'categoryId is required'),
  post('a string categoryId is refused', '{"name":"Rex","categoryId":"1"}', 'categoryId must be an integer, got "1"'),
  post(
    'a fractional categoryId is refused',
    '{"name":"Rex","categoryId":1.5}',
    'categoryId must be an integer, got 1.5',
  ),
  post(
    'a boolean categoryId is refused',
    '{"name":"Rex","categoryId":true}',
    'categoryId must be an integer, got true',
  ),
  post('a null categoryId is refused', '{"name":"Rex","categoryId":null}', 'categoryId must be an integer, got null'),
  post(
    'a categoryId of 2^53 is refused',
    '{"name":"Rex","categoryId":9007199254740992}',
    'categoryId must be at most 9007199254740991, got 9007199254740992',
  ),
  post(
    'a categoryId of -2^53 is refused',
    '{"name":"Rex","categoryId":-9007199254740992}',
    'categoryId must be at least -9007199254740991, got -9007199254740992',
  ),
  post(
    'a categoryId of 1e400 is refused',
    '{"name":"Rex","categoryId":1e400}',
    'categoryId must be an integer from -9007199254740991 to 9007199254740991, got 1e400',
  ),
  post(
    'a fractional categoryId that would round to an integer is refused',
    '{"name":"Rex","categoryId":1.00000000000000001}',
    'categoryId must be an integer from -9007199254740991 to 9007199254740991, got 1.00000000000000001',
  ),
  post(
    'a categoryId that would round into the safe range is refused',
    '{"name":"Rex","categoryId":9007199254740990.9}',
    'got 9007199254740990.9',
  ),
  post('a categoryId of 2^53+1 is refused', '{"name":"Rex","categoryId":9007199254740993}', 'got 9007199254740993'),
  post(
    'a body with a duplicated key is refused',
    '{"name":"Rex","name":"Max","categoryId":1}',
    'body has the key "name" twice (at name)',
  ),
  post(
    'a body with a key repeated with an equal value is refused too',
    '{"name":"Rex","name":"Rex","categoryId":1}',
    'body has the key "name" twice (at name)',
  ),
  post(
    'a body nested 5,000 deep is called nested too deeply, not invalid',
    `{"name":"Rex","categoryId":1,"x":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    'body is nested too deeply: more than 100 levels of arrays and objects',
  ),
  post(
    'every duplicated key is reported at once',
    '{"name":"Rex","name":"Max","categoryId":1,"categoryId":2}',
    'body has the key "name" twice (at name); body has the key "categoryId" twice (at categoryId)',
  ),
  post('a body that is a huge number is refused', '1e400', 'body must be a JSON object, got a number'),
  post(
    'an unknown status is refused',
    '{"name":"Rex","categoryId":1,"status":"adopted"}',
    'status must be one of available, pending, sold, got "adopted"',
  ),
  post(
    'a status in the wrong case is refused',
    '{"name":"Rex","categoryId":1,"status":"Sold"}',
    'status must be one of available, pending, sold, got "Sold"',
  ),
  post(
    'a null status is refused',
    '{"name":"Rex","categoryId":1,"status":null}',
    'status must be one of available, pending, sold, got null',
  ),
  post('a body that sets id is refused', '{"id":7,"name":"Rex","categoryId":1}', 'id is assigned by the service'),
  {
    name: 'a form-encoded body is refused as 415',
    method: 'POST',
    path: '/v1/pets',
    headers: { ...AUTH, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'name=Rex&categoryId=1',
    status: 415,
    code: 'unsupported_media_type',
    mentions: 'Content-Type must be application/json',
  },

  // getPet
  {
    name: 'GET /v1/pets/1 answers 200 with deprecation headers',
    method: 'GET',
    path: '/v1/pets/1',
    headers: AUTH,
    status: 200,
    expectHeaders: DEPRECATION,
  },
  {
    name: 'GET /v1/pets/9999 answers 404 with deprecation headers',
    method: 'GET',
    path: '/v1/pets/9999',
    headers: AUTH,
    status: 404,
    code: 'pet_not_found',
    mentions: 'pet 9999 does not exist',
    expectHeaders: DEPRECATION,
  },
  {
    name: 'GET /v1/pets/0 answers 404',
    method: 'GET',
    path: '/v1/pets/0',
    headers: AUTH,
    status: 404,
    code: 'pet_not_found',
    mentions: 'pet 0 does not exist',
  },
  {
    name: 'GET /v1/pets/abc is refused with deprecation headers',
    method: 'GET',
    path: '/v1/pets/abc',
    headers: AUTH,
    status: 400,
    code: 'invalid_parameter',
    mentions: 'petId must be an integer, got "abc"',
    expectHeaders: DEPRECATION,
  },
  {
    name: 'GET /v1/pets/1.5 is refused',
    method: 'GET',
    path: '/v1/pets/1.5',
    headers: AUTH,
    status: 400,
    code: 'invalid_parameter',
    mentions: 'petId must be an integer',
  },
  {
    name: 'GET /v1/pets/1e1 is refused',
    method: 'GET',
    path: '/v1/pets/1e1',
    headers: AUTH,
    status: 400,
    code: 'invalid_parameter',
    mentions: 'petId must be an integer',
  },
  {
    name: 'GET /v1/pets/99999999999999999999 is refused',
    method: 'GET',
    path: '/v1/pets/99999999999999999999',
    headers: AUTH,
    status: 400,
    code: 'invalid_parameter',
    mentions: 'petId must be an integer from -9007199254740991 to 9007199254740991, got 99999999999999999999',
  },
  {
    name: 'GET /v1/pets/%E0%A4%A (a broken escape) is refused',
    method: 'GET',
    path: '/v1/pets/%E0%A4%A',
    headers: AUTH,
    status: 400,
    code: 'invalid_parameter',
    mentions: 'petId must be an integer',
  },

  // The rest of /v1
  {
    name: 'DELETE /v1/pets/1 answers 405 with Allow',
    method: 'DELETE',
    path: '/v1/pets/1',
    headers: AUTH,
    status: 405,
    code: 'method_not_allowed',
    mentions: 'DELETE is not allowed',
    expectHeaders: { Allow: 'GET, HEAD' },
  },
  {
    name: 'PUT /v1/pets answers 405 with Allow',
    method: 'PUT',
    path: '/v1/pets',
    headers: { ...AUTH, ...JSON_BODY },
    body: '{}',
    status: 405,
    code: 'method_not_allowed',
    mentions: 'PUT is not allowed',
    expectHeaders: { Allow: 'GET, HEAD, POST' },
  },
  {
    name: 'GET /v1/store/orders answers 501',
    method: 'GET',
    path: '/v1/store/orders',
    headers: AUTH,
    status: 501,
    code: 'not_implemented',
    mentions: '/v1/store/orders',
  },
  {
    name: 'GET /v1/experimental/pets answers 501',
    method: 'GET',
    path: '/v1/experimental/pets',
    headers: AUTH,
    status: 501,
    code: 'not_implemented',
    mentions: 'not implemented',
  },
  {
    name: 'POST /v1/beta/anything answers 501',
    method: 'POST',
    path: '/v1/beta/anything',
    headers: AUTH,
    status: 501,
    code: 'not_implemented',
    mentions: 'not implemented',
  },
  {
    name: 'POST /v1/store/orders answers 405 with Allow',
    method: 'POST',
    path: '/v1/store/orders',
    headers: AUTH,
    status: 405,
    code: 'method_not_allowed',
    mentions: 'POST is not allowed',
    expectHeaders: { Allow: 'GET, HEAD' },
  },
  {
    name: 'GET /v1/beta/a/b (two segments) answers 404',
    method: 'GET',
    path: '/v1/beta/a/b',
    headers: AUTH,
    status: 404,
    code: 'not_found',
    mentions: 'does not exist',
  },
  {
    name: 'GET /v1/owners answers 404',
    method: 'GET',
    path: '/v1/owners',
    headers: AUTH,
    status: 404,
    code: 'not_found',
    mentions: '/v1/owners does not exist',
  },
  {
    name: 'GET /v1/pets/1/photos answers 404',
    method: 'GET',
    path: '/v1/pets/1/photos',
    headers: AUTH,
    status: 404,
    code: 'not_found',
    mentions: 'does not exist',
  },
  {
    name: 'an unknown path without a key answers 401 first',
    method: 'GET',
    path: '/v1/owners',
    status: 401,
    code: 'unauthorized',
    mentions: 'Authorization',
  },
]
