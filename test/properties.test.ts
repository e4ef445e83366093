/**
 * Property-based tests, in-process through msw's getResponse: generated requests of every
 * kind (valid, near-valid, garbage) against the interface's promises.
 */
import fc from 'fast-check'
import { compareNumber, isLosslessNumber, parse as parseLossless } from 'lossless-json'
import { getResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { createSandbox, DEFAULT_API_KEY, PET_STATUSES, type Pet, type Sandbox } from '../src/index.js'
import { violations } from './support/openapi-check.js'

// 200 cases each in npm test (about a fifth of the time); npm run test:rounds, a CI stage, runs
// 1,000. Every run draws new cases, so the default run keeps exploring too.
const RUNS = Number(process.env.PROPERTY_RUNS ?? 200)
const ORIGIN = 'https://petstore.test'
const FIRST_FREE_ID = 33

// Header values must be ISO-8859-1 without control characters, or Headers() refuses them.
const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)) })
const unicodeText = fc.string({ unit: 'binary', maxLength: 40 })

const authorization = fc.oneof(
  { weight: 6, arbitrary: fc.constant(`Bearer ${DEFAULT_API_KEY}`) },
  fc.constant(`bearer ${DEFAULT_API_KEY}`),
  fc.constant(undefined),
  headerText.map((text) => `Bearer ${text}`),
  headerText,
)

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  fc.constantFrom(
    'application/json; charset=utf-8',
    'application/merge-patch+json',
    'text/plain',
    'application/x-www-form-urlencoded',
  ),
  fc.constant(undefined),
  headerText,
)

const numberish = fc.oneof(
  fc.integer(),
  fc.maxSafeInteger(),
  fc.double(),
  fc.constantFrom(
    '1e400',
    '-1e400',
    '1.00000000000000001',
    '9007199254740993',
    '9007199254740990.9',
    '-0',
    '1e1',
    '0.0',
  ),
)

/** A NewPet body as JSON text: valid, near-valid, or not an object at all. */
const bodyText = fc.oneof(
  // valid and near-valid objects, written as text so odd number literals survive
  fc
    .record(
      {
        name: fc.oneof(unicodeText, fc.constant(''), fc.constant('   '), numberish, fc.constant(null)),
        categoryId: fc.oneof(numberish, unicodeText, fc.constant(null), fc.boolean()),
        status: fc.oneof(
          fc.constantFrom(...PET_STATUSES),
          fc.constantFrom('Sold', 'adopted', ''),
          fc.constant(null),
          fc.integer(),
        ),
        id: fc.oneof(fc.integer(), unicodeText),
        __proto__: fc.record({ polluted: fc.boolean() }),
        extra: fc.jsonValue(),
      },
      { requiredKeys: [] },
    )
    .map(
      (fields) =>
        `{${Object.entries(fields)
          .map(
            ([key, value]) =>
              `${JSON.stringify(key)}:${typeof value === 'string' && /^-?[\d.e]+$/.test(value) ? value : JSON.stringify(value)}`,
          )
          .join(',')}}`,
    ),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', ' ', 'null', '[]', '"Rex"', '{', '{"name":"a",}', '{"name":"a","name":"b","categoryId":1}'),
  fc
    .string({ minLength: 17_000, maxLength: 17_500 })
    .map((padding) => JSON.stringify({ name: 'Big', categoryId: 1, padding })),
)

// Not `.` or `..` (or `%2e`): fetch removes those before msw sees the URL, which can leave /v1
// altogether; the raw-socket tests in server.test.ts send them as they are.
const pathSegment = fc.webSegment().filter((segment) => !/^(?:\.|%2e){1,2}$/i.test(segment))

const pathArbitrary = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom('/v1/pets', '/v1/pets/', '/v1/pets/1', '/v1/pets/32', '/v1/pets/33', '/v1/pets/0'),
  },
  fc.oneof(fc.integer(), numberish, unicodeText).map((id) => `/v1/pets/${encodeURIComponent(String(id))}`),
  pathSegment.map((segment) => `/v1/pets/${segment}`),
  fc.array(pathSegment, { maxLength: 3 }).map((segments) => `/v1/${segments.join('/')}`),
  fc.constantFrom('/v1', '/v1/store/orders', '/v1/beta/x', '/v1/experimental/y', '/v1/pets/1/photos'),
)

const queryArbitrary = fc
  .array(
    fc.tuple(
      fc.oneof({ weight: 3, arbitrary: fc.constantFrom('limit', 'status') }, fc.string({ maxLength: 8 })),
      fc.oneof(
        fc.integer({ min: -5, max: 120 }).map(String),
        numberish.map(String),
        fc.constantFrom(...PET_STATUSES, 'Sold'),
        unicodeText,
      ),
    ),
    { maxLength: 3 },
  )
  .map((pairs) => (pairs.length === 0 ? '' : `?${new URLSearchParams(pairs).toString()}`))

interface GeneratedRequest {
  method: string
  url: string
  headers: Record<string, string>
  body: string | undefined
}

/** A valid NewPet with one field swapped for an odd value: what careful clients still get wrong. */
const nearValidBody = fc
  .tuple(
    fc.record({
      name: fc.constantFrom('Rex', 'Pélé 🐕'),
      categoryId: fc.integer({ min: 1, max: 9 }),
      status: fc.constantFrom(...PET_STATUSES),
    }),
    fc.constantFrom('name', 'categoryId', 'status', 'id', 'none'),
    fc.oneof(numberish, unicodeText, fc.constant(null), fc.boolean()),
  )
  .map(([pet, field, odd]) => {
    const literal = typeof odd === 'string' && /^-?[\d.e]+$/.test(odd) ? odd : JSON.stringify(odd)
    const fields = Object.entries(pet).map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`)
    if (field === 'none') return `{${fields.join(',')}}`
    const others = fields.filter((entry) => !entry.startsWith(`"${field}"`))
    return `{${[...others, `${JSON.stringify(field)}:${literal}`].join(',')}}`
  })

const nearValidRequest: fc.Arbitrary<GeneratedRequest> = nearValidBody.map((body) => ({
  method: 'POST',
  url: `${ORIGIN}/v1/pets`,
  headers: { Authorization: `Bearer ${DEFAULT_API_KEY}`, 'Content-Type': 'application/json' },
  body,
}))

const anyRequest: fc.Arbitrary<GeneratedRequest> = fc
  .record({
    method: fc.constantFrom('GET', 'GET', 'POST', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
    path: pathArbitrary,
    query: queryArbitrary,
    authorization,
    contentType,
    body: fc.option(bodyText, { nil: undefined, freq: 5 }),
  })
  .map(({ method, path, query, authorization, contentType, body }) => ({
    method,
    url: `${ORIGIN}${path}${query}`,
    headers: {
      ...(authorization !== undefined && { Authorization: authorization }),
      ...(contentType !== undefined && { 'Content-Type': contentType }),
    },
    body: method === 'GET' || method === 'HEAD' ? undefined : body,
  }))

const requestArbitrary = fc.oneof({ weight: 3, arbitrary: anyRequest }, { weight: 1, arbitrary: nearValidRequest })

async function send(sandbox: Sandbox, request: GeneratedRequest): Promise<Response> {
  const response = await getResponse(
    [...sandbox.handlers],
    new Request(request.url, { method: request.method, headers: request.headers, body: request.body ?? null }),
  )
  if (response === undefined) throw new Error(`No handler answered ${request.method} ${request.url}`)
  return response
}

const params = { numRuns: RUNS }

/** An accepted body was stored exactly: the same strings, and numbers equal to their literals. */
function expectStoredAsSent(body: string, created: Pet): void {
  const sent = parseLossless(body) as Record<string, unknown>
  expect(created.name).toBe(sent.name)
  expect(created.status).toBe(sent.status)
  const literal = sent.categoryId
  expect(
    isLosslessNumber(literal) && compareNumber(literal.value, String(created.categoryId)),
    `categoryId ${String(literal)} stored as ${created.categoryId}`,
  ).toBe(0)
}

describe(`properties (${RUNS} generated cases each)`, () => {
  it('no request produces a 5xx; every non-2xx is an Error whose status is the HTTP status; all conform to openapi.json', async () => {
    const sandbox = createSandbox()
    // The one 5xx by design: 501 for the areas the interface does not show (issue 2).
    const notShown = /^\/v1\/(?:store\/orders|experimental\/[^/]+|beta\/[^/]+)\/?$/
    await fc.assert(
      fc.asyncProperty(requestArbitrary, async (request) => {
        const response = await send(sandbox, request)
        if (response.status === 501) expect(new URL(request.url).pathname).toMatch(notShown)
        else expect(response.status).toBeLessThan(500)
        if (response.status >= 300 && request.method !== 'HEAD') {
          const body = (await response.clone().json()) as Record<string, unknown>
          expect(Object.keys(body).sort()).toEqual(['code', 'message', 'status'])
          expect(body.status).toBe(response.status)
          expect(body.message).toEqual(expect.any(String))
        }
        expect(await violations(request.method, request.url, response)).toEqual([])
        if (response.status === 201) expectStoredAsSent(request.body ?? '', (await response.json()) as Pet)
      }),
      params,
    )
  }, 120_000)

  it('a rejected request leaves the store exactly as it was, id sequence included', async () => {
    const sandbox = createSandbox()
    const seed = JSON.stringify(await sandbox.pets.list())
    await fc.assert(
      fc.asyncProperty(requestArbitrary, async (request) => {
        await sandbox.reset()
        const response = await send(sandbox, request)
        if (response.status < 400) return
        expect(JSON.stringify(await sandbox.pets.list())).toBe(seed)
        expect((await sandbox.pets.create({ name: 'Probe', categoryId: 1 })).id).toBe(FIRST_FREE_ID)
      }),
      params,
    )
  }, 120_000)

  it('every valid NewPet round-trips: create, then get and list show exactly what was sent plus its id', async () => {
    const sandbox = createSandbox()
    const newPet = fc.record(
      {
        name: fc
          .string({ unit: 'grapheme', minLength: 1, maxLength: 100 })
          .filter((name) => /\S/.test(name) && name.length <= 255),
        categoryId: fc.maxSafeInteger(),
        status: fc.constantFrom(...PET_STATUSES),
      },
      { requiredKeys: ['name', 'categoryId'] },
    )
    const auth = { Authorization: `Bearer ${DEFAULT_API_KEY}` }
    await fc.assert(
      fc.asyncProperty(newPet, async (sent) => {
        await sandbox.reset()
        const created = await send(sandbox, {
          method: 'POST',
          url: `${ORIGIN}/v1/pets`,
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: JSON.stringify(sent),
        })
        expect(created.status).toBe(201)
        const expected = { id: FIRST_FREE_ID, ...sent }
        expect(await created.json()).toEqual(expected)
        const fetched = await send(sandbox, {
          method: 'GET',
          url: `${ORIGIN}/v1/pets/${FIRST_FREE_ID}`,
          headers: auth,
          body: undefined,
        })
        expect(await fetched.json()).toEqual(expected)
        const listed = await send(sandbox, {
          method: 'GET',
          url: `${ORIGIN}/v1/pets?limit=100`,
          headers: auth,
          body: undefined,
        })
        expect(((await listed.json()) as Pet[]).at(-1)).toEqual(expected)
        if (sent.status !== undefined) {
          const filtered = await send(sandbox, {
            method: 'GET',
            url: `${ORIGIN}/v1/pets?limit=100&status=${sent.status}`,
            headers: auth,
            body: undefined,
          })
          expect(((await filtered.json()) as Pet[]).at(-1)).toEqual(expected)
        }
      }),
      params,
    )
  }, 120_000)

  it('limit and status always return exactly the matching prefix of the id-ordered collection', async () => {
    const fixtures = fc.uniqueArray(
      fc.record(
        {
          id: fc.integer({ min: 1, max: 100_000 }),
          name: fc.constantFrom('Rex', 'Luna', 'Kiwi'),
          categoryId: fc.integer({ min: 1, max: 6 }),
          status: fc.constantFrom(...PET_STATUSES),
        },
        { requiredKeys: ['id', 'name', 'categoryId'] },
      ),
      { selector: (pet) => pet.id, maxLength: 150 },
    )
    const query = fc.record(
      { limit: fc.integer({ min: 1, max: 100 }), status: fc.constantFrom(...PET_STATUSES) },
      { requiredKeys: [] },
    )
    await fc.assert(
      fc.asyncProperty(fixtures, query, async (pets, { limit, status }) => {
        const sandbox = createSandbox({ fixtures: pets })
        const search = new URLSearchParams({
          ...(limit !== undefined && { limit: String(limit) }),
          ...(status !== undefined && { status }),
        })
        const response = await send(sandbox, {
          method: 'GET',
          url: `${ORIGIN}/v1/pets?${search.toString()}`,
          headers: { Authorization: `Bearer ${DEFAULT_API_KEY}` },
          body: undefined,
        })
        const expected = [...pets]
          .sort((a, b) => a.id - b.id)
          .filter((pet) => status === undefined || pet.status === status)
          .slice(0, limit ?? 20)
        expect(await response.json()).toEqual(expected)
      }),
      params,
    )
  }, 120_000)
})
