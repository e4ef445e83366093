/**
 * The admin client against a real server: every call does what its route does, keys scope what
 * they should, failures arrive as SandboxClientError or TypeError, and the built file loads nothing.
 */
import { readFileSync } from 'node:fs'
import ts from 'typescript'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createSandboxClient, SandboxClientError, type StoreState } from '../src/client.js'
import type { Pet } from '../src/index.js'
import { startServer, type RunningServer } from '../src/server.js'

const DEFAULT_KEY = 'petstore-sandbox-key'
const { version: VERSION } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string
}

let shared: RunningServer
let isolated: RunningServer

beforeAll(async () => {
  ;[shared, isolated] = await Promise.all([startServer({ port: 0 }), startServer({ port: 0, isolate: true })])
})

afterAll(async () => {
  await Promise.all([shared.close(), isolated.close()])
})

/** Calls the API itself, as the app under test would. */
async function api(server: RunningServer, key: string, method: string, path: string, body?: unknown) {
  return fetch(`${server.apiUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  })
}

async function createPet(server: RunningServer, key: string, name: string): Promise<Pet> {
  const response = await api(server, key, 'POST', '/pets', { name, categoryId: 1 })
  expect(response.status).toBe(201)
  return (await response.json()) as Pet
}

async function petStatus(server: RunningServer, key: string, id: number): Promise<number> {
  const response = await api(server, key, 'GET', `/pets/${id}`)
  await response.body?.cancel()
  return response.status
}

/** The rejection of a call, which must be a SandboxClientError. */
async function failureOf(call: Promise<unknown>): Promise<SandboxClientError> {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  )
  expect(error).toBeInstanceOf(SandboxClientError)
  return error as SandboxClientError
}

describe('reset', () => {
  it('restores the seed: a pet created through the API is gone', async () => {
    const sandbox = createSandboxClient({ baseUrl: shared.url })
    const pet = await createPet(shared, DEFAULT_KEY, 'Rex')
    expect(pet.id).toBeGreaterThan(32)
    expect(await petStatus(shared, DEFAULT_KEY, pet.id)).toBe(200)

    await expect(sandbox.reset()).resolves.toBeUndefined()

    expect(await petStatus(shared, DEFAULT_KEY, pet.id)).toBe(404)
    expect((await sandbox.health()).pets).toBe(32)
    // The id sequence is back too.
    expect((await createPet(shared, DEFAULT_KEY, 'Rex again')).id).toBe(33)
    await sandbox.reset()
  })

  it("with --isolate, resets only the client's key's data", async () => {
    const a = createSandboxClient({ baseUrl: isolated.url, key: 'worker-a' })
    const b = a.forKey('worker-b')
    expect([a.key, b.key]).toEqual(['worker-a', 'worker-b'])
    await Promise.all([a.reset(), b.reset()])

    const petOfA = await createPet(isolated, 'worker-a', 'Only for A')
    const petOfB = await createPet(isolated, 'worker-b', 'Only for B')
    // Each key counts its own ids from the same seed.
    expect([petOfA.id, petOfB.id]).toEqual([33, 33])

    await b.reset()
    expect(await petStatus(isolated, 'worker-b', 33)).toBe(404)
    const stillThere = await api(isolated, 'worker-a', 'GET', '/pets/33')
    expect(await stillThere.json()).toEqual(petOfA)

    await createPet(isolated, 'worker-b', 'B again')
    await a.reset()
    expect(await petStatus(isolated, 'worker-a', 33)).toBe(404)
    expect(await petStatus(isolated, 'worker-b', 33)).toBe(200)
  })
})

describe('scenarios', () => {
  const sandbox = () => createSandboxClient({ baseUrl: isolated.url, key: 'worker-s' })
  beforeEach(() => sandbox().reset())

  it('adds a scenario the API then plays: one 503 with Retry-After, then 200', async () => {
    const added = await sandbox().scenarios.add({ operation: 'listPets', status: 503, times: 1 })
    expect(added).toEqual({ id: expect.any(Number) as number, operation: 'listPets', status: 503, remaining: 1 })
    expect(await sandbox().scenarios.list()).toEqual([added])

    // Another key is not affected: the scenario belongs to worker-s.
    const other = await api(isolated, 'worker-other', 'GET', '/pets')
    expect(other.status).toBe(200)
    await other.body?.cancel()

    const failed = await api(isolated, 'worker-s', 'GET', '/pets')
    expect(failed.status).toBe(503)
    expect(failed.headers.get('retry-after')).toBe('1')
    expect(await failed.json()).toMatchObject({ code: 'service_unavailable', status: 503 })

    const next = await api(isolated, 'worker-s', 'GET', '/pets')
    expect(next.status).toBe(200)
    await next.body?.cancel()
    expect(await sandbox().scenarios.list()).toEqual([])
  })

  it('clears scenarios that last until cleared', async () => {
    await sandbox().scenarios.add({ operation: '*', status: 500 })
    for (let i = 0; i < 2; i++) expect(await petStatus(isolated, 'worker-s', 1)).toBe(500)
    expect(await sandbox().scenarios.list()).toHaveLength(1)

    await expect(sandbox().scenarios.clear()).resolves.toBeUndefined()

    expect(await sandbox().scenarios.list()).toEqual([])
    expect(await petStatus(isolated, 'worker-s', 1)).toBe(200)
  })

  it('rejects a scenario the sandbox cannot play with its 400', async () => {
    const error = await failureOf(sandbox().scenarios.add({ operation: 'listPets', status: 404 }))
    expect(error).toMatchObject({ status: 400, code: 'invalid_body', method: 'POST', path: '/__sandbox/scenarios' })
    expect(error.message).toContain('404 is only a getPet answer')
    expect(await sandbox().scenarios.list()).toEqual([])
  })
})

describe('requests', () => {
  it('returns the journal of the key, filtered by operation, method and status', async () => {
    const sandbox = createSandboxClient({ baseUrl: isolated.url, key: 'worker-r' })
    await sandbox.reset()
    await createPet(isolated, 'worker-r', 'Rex')
    const refused = await api(isolated, 'worker-r', 'POST', '/pets', { name: 'No category' })
    expect(refused.status).toBe(400)
    expect(await petStatus(isolated, 'worker-r', 1)).toBe(200)
    expect((await api(isolated, 'worker-r', 'GET', '/nowhere')).status).toBe(404)
    await createPet(isolated, 'worker-elsewhere', 'Not in this journal')

    expect((await sandbox.requests()).map((entry) => [entry.method, entry.path, entry.status])).toEqual([
      ['POST', '/v1/pets', 201],
      ['POST', '/v1/pets', 400],
      ['GET', '/v1/pets/1', 200],
      ['GET', '/v1/nowhere', 404],
    ])
    const created = await sandbox.requests({ operation: 'createPet', method: 'POST', status: 201 })
    expect(created).toHaveLength(1)
    expect(created[0]?.body).toEqual({ name: 'Rex', categoryId: 1 })
    expect((await sandbox.requests({ status: 400 })).map((entry) => entry.body)).toEqual([{ name: 'No category' }])
    expect((await sandbox.requests({ operation: null })).map((entry) => entry.path)).toEqual(['/v1/nowhere'])
    expect(await sandbox.requests({ operation: 'listPets' })).toEqual([])
  })
})

describe('state', () => {
  const client = () => createSandboxClient({ baseUrl: isolated.url, key: 'worker-st' })
  const bad = { pets: [{ id: 1, name: 'Rex', categoryId: 'x' }], nextId: 2 } as unknown as StoreState

  it('exports and imports the same state: the state document, checkpoints included', async () => {
    const sandbox = client()
    await sandbox.reset()
    // savedAt is the time of each export: the rest is the state.
    const state = async () => {
      const { savedAt, ...rest } = await sandbox.state.export()
      expect(savedAt).toMatch(/^\d{4}-\d\d-\d\dT/)
      return rest
    }
    const seed = await state()
    expect(seed.version).toBe(1)
    expect(seed.pets).toHaveLength(32)
    expect(seed.nextId).toBe(33)
    expect(seed.checkpoints).toEqual([])

    await createPet(isolated, 'worker-st', 'Saved')
    await sandbox.checkpoints.save('with-saved')
    const saved = await state()
    expect(saved.pets.at(-1)).toEqual({ id: 33, name: 'Saved', categoryId: 1 })
    expect(saved.checkpoints.map((checkpoint) => checkpoint.name)).toEqual(['with-saved'])
    await sandbox.reset()
    await sandbox.checkpoints.remove('with-saved')
    expect(await state()).toEqual(seed)

    await expect(sandbox.state.import(saved)).resolves.toBeUndefined()
    expect(await state()).toEqual(saved)
    expect(await petStatus(isolated, 'worker-st', 33)).toBe(200)

    // The older {pets, nextId}: the data replaced, the checkpoints left as they are.
    await expect(sandbox.state.import({ pets: seed.pets, nextId: seed.nextId })).resolves.toBeUndefined()
    expect(await state()).toEqual({ ...seed, checkpoints: saved.checkpoints })
  })

  it('refuses an invalid state with a 400 naming the field, and changes nothing', async () => {
    const sandbox = client()
    const { savedAt: _, ...before } = await sandbox.state.export()
    const error = await failureOf(sandbox.state.import(bad))
    expect(error).toMatchObject({ name: 'SandboxClientError', status: 400, code: 'invalid_body', method: 'PUT' })
    expect(error.message).toContain('pets.0.categoryId')
    const { savedAt: __, ...after } = await sandbox.state.export()
    expect(after).toEqual(before)
  })
})

describe('health', () => {
  it('reports the version, mode, pets and the dashboard', async () => {
    const health = await createSandboxClient({ baseUrl: isolated.url }).health()
    expect(health).toEqual({
      status: 'ok',
      version: VERSION,
      uptimeSeconds: expect.any(Number) as number,
      pets: 32,
      mode: 'isolated',
      tenants: expect.any(Number) as number,
      evictions: 0,
      dashboard: '/__sandbox/',
      upstream: null,
      stateFile: null,
      limits: expect.objectContaining({
        tenants: { budget: 1000, used: health.tenants, unit: 'count' },
        bodyBytes: { budget: 16 * 1024, used: null, unit: 'bytes' },
      }) as unknown,
    })
    expect((await createSandboxClient({ baseUrl: shared.url }).health()).mode).toBe('shared')
  })
})

describe('baseUrl', () => {
  it.each([
    ['the API URL, whose /v1 path is ignored', () => shared.apiUrl],
    ['a URL object', () => new URL(shared.apiUrl)],
    ['the origin with a trailing slash', () => `${shared.url}/`],
  ])('takes %s', async (_, baseUrl) => {
    expect((await createSandboxClient({ baseUrl: baseUrl() }).health()).status).toBe('ok')
  })

  it.each(['/v1', '127.0.0.1:3210', 'localhost:3210', 'ftp://127.0.0.1:3210', 'not a url', ''])(
    'refuses %j with a TypeError at creation',
    (baseUrl) => {
      expect(() => createSandboxClient({ baseUrl })).toThrow(TypeError)
      expect(() => createSandboxClient({ baseUrl })).toThrow(/is not an absolute http\(s\) URL/)
    },
  )
})

describe('keys and failures', () => {
  it('throws a 401 for a key the server does not accept, without the key in the message', async () => {
    const key = 'not-an-accepted-key-4711'
    const error = await failureOf(createSandboxClient({ baseUrl: shared.url, key }).reset())
    expect(error).toMatchObject({ status: 401, code: 'unauthorized', method: 'POST', path: '/__sandbox/reset' })
    expect(error.message).not.toContain(key)
    expect(error.message).not.toContain('4711')
    // The accepted key works on the same server.
    await expect(createSandboxClient({ baseUrl: shared.url, key: DEFAULT_KEY }).reset()).resolves.toBeUndefined()
  })

  it('refuses a key that is no bearer token at creation, without quoting it', () => {
    const key = 'worker 1\nsecret'
    let error: unknown
    try {
      createSandboxClient({ baseUrl: shared.url, key })
    } catch (thrown) {
      error = thrown
    }
    expect(error).toBeInstanceOf(TypeError)
    expect((error as TypeError).message).toContain('key is not a valid bearer token')
    expect((error as TypeError).message).not.toContain('secret')
    expect(() => createSandboxClient({ baseUrl: shared.url }).forKey('')).toThrow(TypeError)
  })

  it('sends the key as a bearer token through an injected fetch, called unbound', async () => {
    const seen: { url: string; headers: Headers; self: unknown }[] = []
    const fake = function (this: unknown, input: RequestInfo | URL, init?: RequestInit) {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
      seen.push({ url, headers: new Headers(init?.headers), self: this })
      return Promise.resolve(Response.json([]))
    } as typeof fetch
    const sandbox = createSandboxClient({ baseUrl: 'http://sandbox.test/v1', key: 'worker-1', fetch: fake })
    await sandbox.scenarios.list()
    await sandbox.forKey(undefined).requests({ method: 'POST' })
    expect(seen.map(({ url, headers, self }) => [url, headers.get('authorization'), self])).toEqual([
      ['http://sandbox.test/__sandbox/scenarios', 'Bearer worker-1', undefined],
      ['http://sandbox.test/__sandbox/requests?method=POST', null, undefined],
    ])
  })

  it.each([
    ['an HTML page', 502, 'Bad Gateway', 'text/html', '<html><body>Bad gateway</body></html>'],
    ['JSON that is not a sandbox Error', 502, 'Bad Gateway', 'application/json', '{"error":"upstream"}'],
    [
      'an Error body whose status is not the answer',
      500,
      '',
      'application/json',
      '{"code":"x","message":"y","status":418}',
    ],
  ])('answers %s with code unexpected_response', async (_, status, statusText, type, body) => {
    const fake: typeof fetch = () =>
      Promise.resolve(new Response(body, { status, statusText, headers: { 'Content-Type': type } }))
    const sandbox = createSandboxClient({ baseUrl: 'http://sandbox.test', key: 'worker-1', fetch: fake })
    const error = await failureOf(sandbox.health())
    expect(error).toMatchObject({ status, code: 'unexpected_response', method: 'GET', path: '/__sandbox/health' })
    expect(error.message).toContain(`GET http://sandbox.test/__sandbox/health answered ${status}`)
    expect(error.message).not.toContain('worker-1')
  })

  it('answers a 2xx without JSON with code unexpected_response', async () => {
    const fake: typeof fetch = () => Promise.resolve(new Response('<html></html>', { status: 200 }))
    const error = await failureOf(createSandboxClient({ baseUrl: 'http://sandbox.test', fetch: fake }).state.export())
    expect(error).toMatchObject({ status: 200, code: 'unexpected_response', path: '/__sandbox/state' })
  })

  it('rejects with a TypeError naming the URL when nothing answers', async () => {
    const gone = await startServer({ port: 0 })
    await gone.close()
    const sandbox = createSandboxClient({ baseUrl: gone.url, key: 'worker-1' })
    const error = await sandbox.health().then(
      () => undefined,
      (reason: unknown) => reason,
    )
    expect(error).toBeInstanceOf(TypeError)
    expect((error as TypeError).message).toBe(
      `Failed to reach the sandbox: GET ${gone.url}/__sandbox/health got no answer. Make sure the sandbox is running and baseUrl points at it (from a web page: that the page's origin is a local one, the only kind the admin routes answer).`,
    )
    expect((error as TypeError).cause).toBeInstanceOf(TypeError)
  })
})

describe('the module', () => {
  it('compiles to a file that imports nothing', () => {
    const source = readFileSync(new URL('../src/client.ts', import.meta.url), 'utf8')
    // The same per-file transform the build applies (isolatedModules, verbatimModuleSyntax).
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2023,
        verbatimModuleSyntax: true,
      },
    })
    expect(outputText).toContain('export function createSandboxClient')
    // A static import in any form (`import x from`, `import {}`, `import '...'`), a re-export, a dynamic import.
    expect(outputText).not.toMatch(/^\s*import\s*[^\s:(]|\bfrom\s*['"]|\bimport\s*\(|\brequire\s*\(/m)
  })
})
