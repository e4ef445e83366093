/**
 * The sandbox controls, each through its admin route (in-process through getResponse, and
 * over HTTP against startServer) and through its sandbox method.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { getResponse } from 'msw'
import { describe, expect, it, vi } from 'vitest'
import {
  createSandbox,
  generatePets,
  LIMITS,
  PetSchema,
  type Pet,
  type SandboxCore,
  type SandboxOptions,
} from '../src/index.js'
import { startServer } from '../src/server.js'
import { expectConforms } from './support/openapi-check.js'
import { spawnNode } from './support/spawn-cli.js'

const KEY = 'petstore-sandbox-key'
const { version: VERSION } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string
}
const AUTH = { Authorization: `Bearer ${KEY}` }
const JSON_HEADERS = { ...AUTH, 'Content-Type': 'application/json' }

interface Target {
  sandbox: SandboxCore
  send(method: string, path: string, init?: { headers?: Record<string, string>; body?: string }): Promise<Response>
  close(): Promise<void>
}

const transports: [string, (options?: SandboxOptions) => Promise<Target>][] = [
  [
    'in-process',
    async (options) => {
      const sandbox = createSandbox(options)
      const handlers = [...sandbox.handlers, ...sandbox.adminHandlers]
      return {
        sandbox,
        async send(method, path, init = {}) {
          const url = `https://petstore.test${path}`
          const response = await getResponse(handlers, new Request(url, { method, ...init }))
          if (response === undefined) throw new Error(`nothing answered ${method} ${path}`)
          await expectConforms(method, url, response)
          return response
        },
        close: async () => undefined,
      }
    },
  ],
  [
    'over HTTP',
    async (options) => {
      const server = await startServer({ port: 0, ...options })
      return {
        sandbox: server.sandbox,
        async send(method, path, init = {}) {
          const url = `${server.url}${path}`
          const response = await fetch(url, { method, ...init })
          await expectConforms(method, url, response)
          return response
        },
        close: () => server.close(),
      }
    },
  ],
]

async function using<T>(make: () => Promise<Target>, body: (target: Target) => Promise<T>): Promise<T> {
  const target = await make()
  try {
    return await body(target)
  } finally {
    await target.close()
  }
}

const createPet = (target: Target, name: string, headers: Record<string, string> = {}) =>
  target.send('POST', '/v1/pets', {
    headers: { ...JSON_HEADERS, ...headers },
    body: JSON.stringify({ name, categoryId: 1 }),
  })

describe.each(transports)('sandbox controls (%s)', (transport, make) => {
  describe('request journal', () => {
    it('records each answered request with its operation, redacted key, parsed body, status and duration', async () => {
      await using(make, async (target) => {
        await target.send('GET', '/v1/pets?limit=2&status=sold', { headers: AUTH })
        await createPet(target, 'Journaled')
        const sent = Date.now()
        await target.send('GET', '/v1/pets/1', { headers: { Authorization: 'Bearer wrong-key' } })
        const answered = Date.now()

        const response = await target.send('GET', '/__sandbox/requests')
        expect(response.status).toBe(200)
        const entries = (await response.json()) as Record<string, unknown>[]
        expect(entries.map((entry) => [entry.operation, entry.method, entry.path, entry.status])).toEqual([
          ['listPets', 'GET', '/v1/pets', 200],
          ['createPet', 'POST', '/v1/pets', 201],
          ['getPet', 'GET', '/v1/pets/1', 401],
        ])
        expect(entries[0]?.query).toEqual({ limit: '2', status: 'sold' })
        expect(entries[1]?.body).toEqual({ name: 'Journaled', categoryId: 1 })
        expect((entries[1]?.headers as Record<string, string>).authorization).toBe('Bearer [redacted]')
        expect(JSON.stringify(entries)).not.toContain(KEY)
        expect(JSON.stringify(entries)).not.toContain('wrong-key')
        expect(entries[2]?.durationMs).toEqual(expect.any(Number))
        // Stamped while it was answered, on the sandbox's clock (the real one here).
        const time = new Date(entries[2]?.time as string).getTime()
        expect(time).toBeGreaterThanOrEqual(sent)
        expect(time).toBeLessThanOrEqual(answered)

        expect(target.sandbox.requests.filter({ operation: 'createPet' }).map((entry) => entry.status)).toEqual([201])
        const filtered = await target.send('GET', '/__sandbox/requests?operation=getPet&status=401')
        expect(((await filtered.json()) as unknown[]).length).toBe(1)
      })
    })

    it('never records a credential, whatever the header looks like', async () => {
      await using(make, async (target) => {
        await target.send('GET', '/v1/pets', { headers: { Authorization: KEY } })
        await target.send('GET', '/v1/pets', {
          headers: { Authorization: `Token  ${KEY}`, 'Proxy-Authorization': 'Basic c2VjcmV0' },
        })
        const entries = target.sandbox.requests.all()
        expect(entries.map((entry) => entry.headers.authorization)).toEqual(['[redacted]', 'Token [redacted]'])
        expect(entries[1]?.headers['proxy-authorization']).toBe('Basic [redacted]')
        expect(JSON.stringify(entries)).not.toMatch(new RegExp(`${KEY}|c2VjcmV0`))
      })
    })

    it('keeps only the newest journalLimit entries', async () => {
      await using(
        () => make({ journalLimit: 3 }),
        async (target) => {
          for (let i = 0; i < 10; i++) await target.send('GET', `/v1/pets?limit=${i + 1}`, { headers: AUTH })
          const entries = (await (await target.send('GET', '/__sandbox/requests')).json()) as {
            id: number
            query: unknown
          }[]
          expect(entries.map((entry) => entry.id)).toEqual([8, 9, 10])
          expect(entries.at(-1)?.query).toEqual({ limit: '10' })
        },
      )
    })

    it('is cleared by reset, with or without a key in shared mode', async () => {
      await using(make, async (target) => {
        await target.send('GET', '/v1/pets', { headers: AUTH })
        expect(target.sandbox.requests.all()).toHaveLength(1)
        expect((await target.send('POST', '/__sandbox/reset')).status).toBe(204)
        expect(await (await target.send('GET', '/__sandbox/requests')).json()).toEqual([])

        await target.send('GET', '/v1/pets', { headers: AUTH })
        target.sandbox.scenarios.add({ status: 503 })
        expect((await target.send('POST', '/__sandbox/reset', { headers: AUTH })).status).toBe(204)
        expect(target.sandbox.requests.all()).toEqual([])
        expect(target.sandbox.scenarios.list()).toEqual([])
      })
    })
  })

  describe('scenarios', () => {
    it('makes the next N calls of an operation fail, storing nothing, then lets calls through', async () => {
      await using(make, async (target) => {
        const added = await target.send('POST', '/__sandbox/scenarios', {
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ operation: 'createPet', status: 503, times: 2, retryAfterSeconds: 7 }),
        })
        expect(added.status).toBe(201)
        expect(await added.json()).toEqual({
          id: 1,
          operation: 'createPet',
          status: 503,
          remaining: 2,
          retryAfterSeconds: 7,
        })

        for (let i = 0; i < 2; i++) {
          const failed = await createPet(target, 'Blocked')
          expect(failed.status).toBe(503)
          expect(failed.headers.get('retry-after')).toBe('7')
          expect(await failed.json()).toEqual({
            code: 'service_unavailable',
            message: 'Simulated by the sandbox (scenario 1)',
            status: 503,
          })
        }
        expect((await target.send('GET', '/v1/pets', { headers: AUTH })).status).toBe(200)
        expect(await target.sandbox.pets.count()).toBe(32)
        expect((await createPet(target, 'Through')).status).toBe(201)
        expect(await (await target.send('GET', '/__sandbox/scenarios')).json()).toEqual([])
      })
    })

    it('fails every operation until cleared, with the right extra headers', async () => {
      await using(make, async (target) => {
        target.sandbox.scenarios.add({ status: 429 })
        const limited = await target.send('GET', '/v1/pets/1', { headers: AUTH })
        expect(limited.status).toBe(429)
        expect(limited.headers.get('retry-after')).toBe('1')
        expect(limited.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT')
        expect((await target.send('GET', '/v1/pets', { headers: AUTH })).status).toBe(429)
        expect((await target.send('DELETE', '/__sandbox/scenarios')).status).toBe(204)
        expect((await target.send('GET', '/v1/pets', { headers: AUTH })).status).toBe(200)

        target.sandbox.scenarios.add({ operation: 'getPet', status: 401, times: 1 })
        const revoked = await target.send('GET', '/v1/pets/1', { headers: AUTH })
        expect(revoked.status).toBe(401)
        expect(revoked.headers.get('www-authenticate')).toMatch(/^Bearer /)
      })
    })

    it('delays calls of an operation', async () => {
      await using(make, async (target) => {
        target.sandbox.scenarios.add({ operation: 'listPets', delayMs: 300, times: 1 })
        const started = performance.now()
        expect((await target.send('GET', '/v1/pets', { headers: AUTH })).status).toBe(200)
        expect(performance.now() - started).toBeGreaterThanOrEqual(290)
      })
    })

    it('delays only as many calls as the scenario says', async () => {
      await using(make, async (target) => {
        // A minute: the first call answers only when the test cuts the delays, so the second one
        // answering first shows it was not delayed, however slow the machine.
        target.sandbox.scenarios.add({ operation: 'listPets', delayMs: 60_000, times: 1 })
        let firstAnswered = false
        const first = target.send('GET', '/v1/pets', { headers: AUTH }).then((response) => {
          firstAnswered = true
          return response
        })
        // Used up: the sandbox took it for the first call, and began that call's delay in the same step.
        await vi.waitFor(
          () => {
            expect(target.sandbox.scenarios.list()).toEqual([])
          },
          { timeout: 10_000, interval: 20 },
        )
        expect((await target.send('GET', '/v1/pets', { headers: AUTH })).status).toBe(200)
        expect(firstAnswered).toBe(false)
        target.sandbox.cutDelays()
        expect((await first).status).toBe(200)
      })
    })

    it('refuses an invalid Prefer before any scenario is used up', async () => {
      await using(make, async (target) => {
        target.sandbox.scenarios.add({ operation: 'listPets', status: 503, times: 1 })
        for (const prefer of ['code=418', 'delay=fast', 'delay=60001']) {
          const refused = await target.send('GET', '/v1/pets', { headers: { ...AUTH, Prefer: prefer } })
          expect(refused.status, prefer).toBe(400)
        }
        expect(target.sandbox.scenarios.list()).toMatchObject([{ remaining: 1 }])
        expect((await target.send('GET', '/v1/pets', { headers: AUTH })).status).toBe(503)
      })
    })

    it('refuses more than 100 scenarios', async () => {
      await using(make, async (target) => {
        for (let i = 0; i < 100; i++) target.sandbox.scenarios.add({ delayMs: 0 })
        const refused = await target.send('POST', '/__sandbox/scenarios', {
          headers: { 'Content-Type': 'application/json' },
          body: '{"status":500}',
        })
        expect(refused.status).toBe(400)
        expect(await refused.json()).toMatchObject({
          message: 'there are already 100 scenarios; clear them before adding more',
        })
      })
    })

    it('honours Prefer: code= and delay= per request, and says so in Preference-Applied', async () => {
      await using(make, async (target) => {
        const failed = await target.send('GET', '/v1/pets', { headers: { ...AUTH, Prefer: 'code=503' } })
        expect(failed.status).toBe(503)
        expect(failed.headers.get('preference-applied')).toBe('code=503')

        const started = performance.now()
        const slow = await target.send('GET', '/v1/pets?limit=1', {
          headers: { ...AUTH, Prefer: 'delay=200, respond-async' },
        })
        expect(slow.status).toBe(200)
        expect(performance.now() - started).toBeGreaterThanOrEqual(190)
        expect(slow.headers.get('preference-applied')).toBe('delay=200')

        const refused = await target.send('GET', '/v1/pets', { headers: { ...AUTH, Prefer: 'code=418' } })
        expect(refused.status).toBe(400)
        expect(await refused.json()).toEqual({
          code: 'invalid_parameter',
          message: 'Prefer code=418 cannot be simulated for listPets; use one of 401, 429, 500, 503',
          status: 400,
        })
        const created = await createPet(target, 'Preferred', { Prefer: 'code=500' })
        expect(created.status).toBe(500)
        expect(await target.sandbox.pets.count()).toBe(32)
      })
    })
  })

  describe('state in and out', () => {
    it('exports all pets and the id sequence, and replaces them', async () => {
      await using(make, async (target) => {
        await createPet(target, 'Extra')
        // The state document: what --state-file holds and exportState() gives.
        const exported = (await (await target.send('GET', '/__sandbox/state')).json()) as {
          version: number
          pets: Pet[]
          nextId: number
          checkpoints: unknown[]
        }
        expect(exported).toMatchObject({ version: 1, nextId: 34, checkpoints: [] })
        expect(exported.pets).toHaveLength(33)
        expect(await target.sandbox.exportState()).toMatch(/^\{\n "version": 1,\n "savedAt": "[^"]+",\n "nextId": 34,/)

        const state = {
          pets: [
            { id: 7, name: 'Seven', categoryId: 2 },
            { id: 3, name: 'Three', categoryId: 1, status: 'sold' },
          ],
          nextId: 100,
        }
        const put = await target.send('PUT', '/__sandbox/state', {
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(state),
        })
        expect(put.status).toBe(204)
        expect(await (await target.send('GET', '/v1/pets', { headers: AUTH })).json()).toEqual([
          state.pets[1],
          state.pets[0],
        ])
        expect(((await (await createPet(target, 'Hundred')).json()) as Pet).id).toBe(100)

        // restore() takes the document as importState does.
        await target.sandbox.restore(exported)
        expect(await target.sandbox.snapshot()).toEqual({ pets: exported.pets, nextId: exported.nextId })
        await target.sandbox.reset()
        expect(await target.sandbox.pets.count()).toBe(32)
      })
    })

    it('names a bad field, a duplicate id and a bad nextId in one answer, and changes nothing', async () => {
      await using(make, async (target) => {
        const before = await target.sandbox.snapshot()
        const put = await target.send('PUT', '/__sandbox/state', {
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            pets: [
              { id: 1, name: 'One', categoryId: 'x' },
              { id: 1, name: 'Again', categoryId: 1 },
              { id: 5, name: 'Five', categoryId: 1 },
            ],
            nextId: 2,
          }),
        })
        expect(put.status).toBe(400)
        expect(await put.json()).toEqual({
          code: 'invalid_body',
          status: 400,
          message:
            'Invalid state: pets.0.categoryId must be an integer, got "x"; pets.1.id is already used by pets.0; nextId must be greater than the highest id, 5',
        })
        expect(await target.sandbox.snapshot()).toEqual(before)
      })
    })

    it('names the first 100 problems of a state full of them, says there are more, and changes nothing', async () => {
      await using(make, async (target) => {
        const before = await target.sandbox.snapshot()
        // 300,000 empty pets, three problems each: the check stops after the first 100.
        const put = await target.send('PUT', '/__sandbox/state', {
          headers: { 'Content-Type': 'application/json' },
          body: `{"pets":[${Array(300_000).fill('{}').join(',')}],"nextId":1}`,
        })
        expect(put.status).toBe(400)
        const body = (await put.json()) as { code: string; status: number; message: string }
        expect(body).toMatchObject({ code: 'invalid_body', status: 400 })
        const problems = body.message.replace(/^Invalid state: /, '').split('; ')
        expect(problems).toHaveLength(101)
        expect(problems.slice(0, 3)).toEqual([
          'pets.0.id is required',
          'pets.0.name is required',
          'pets.0.categoryId is required',
        ])
        expect(problems[99]).toBe('pets.33.id is required')
        expect(problems[100]).toBe('and more problems: the check stops at 100')
        expect(await target.sandbox.snapshot()).toEqual(before)
      })
    })
  })

  describe('health', () => {
    it('answers 200 with version, uptime, pet count and mode', async () => {
      await using(make, async (target) => {
        const response = await target.send('GET', '/__sandbox/health')
        expect(response.status).toBe(200)
        const health = (await response.json()) as { limits: Record<string, { budget: number; used: number | null }> }
        expect(health).toEqual({
          status: 'ok',
          version: transport === 'over HTTP' ? VERSION : 'unknown',
          uptimeSeconds: expect.any(Number) as unknown,
          pets: 32,
          mode: 'shared',
          tenants: 1,
          evictions: 0,
          dashboard: '/__sandbox/',
          upstream: null,
          stateFile: null,
          limits: expect.any(Object) as unknown,
        })
        // Every budget of the table, at its default, beside its use now.
        expect(Object.keys(health.limits).sort()).toEqual(Object.keys(LIMITS).sort())
        for (const [name, row] of Object.entries(LIMITS)) {
          expect(health.limits[name]?.budget, name).toBe(row.value)
        }
        expect(health.limits.tenants?.used).toBe(1)
        expect(health.limits.bodyBytes?.used).toBeNull()
        expect(health.limits.connections?.used).toBe(transport === 'over HTTP' ? 1 : null)
      })
    })
  })

  describe('sunset rehearsal', () => {
    it('answers getPet with 410 Gone past the sunset, pointing at the replacement', async () => {
      await using(
        () => make({ now: '2030-12-05T00:00:01Z' }),
        async (target) => {
          const response = await target.send('GET', '/v1/pets/1', { headers: AUTH })
          expect(response.status).toBe(410)
          expect(await response.json()).toEqual({
            code: 'gone',
            message: 'getPet was removed on Thu, 05 Dec 2030 00:00:00 GMT; use GET /v1/pets with the status filter',
            status: 410,
          })
          expect(response.headers.get('link')).toBe('</v1/pets>; rel="successor-version"')
          expect((await target.send('GET', '/v1/pets', { headers: AUTH })).status).toBe(200)
          expect(target.sandbox.now().getUTCFullYear()).toBe(2030)
        },
      )
    })

    it('still answers getPet the second before the sunset', async () => {
      await using(
        () => make({ now: '2030-12-04T23:59:58Z' }),
        async (target) => {
          expect((await target.send('GET', '/v1/pets/1', { headers: AUTH })).status).toBe(200)
        },
      )
    })
  })

  describe('isolated tenants', () => {
    it('gives each key its own data; a reset with a key resets only that key', async () => {
      await using(
        () => make({ isolate: true }),
        async (target) => {
          await createPet(target, 'Mine', { Authorization: 'Bearer worker-a' })
          const seenBy = async (key: string) =>
            (
              (await (
                await target.send('GET', '/v1/pets?limit=100', { headers: { Authorization: `Bearer ${key}` } })
              ).json()) as Pet[]
            ).length
          expect(await seenBy('worker-a')).toBe(33)
          expect(await seenBy('worker-b')).toBe(32)

          await createPet(target, 'Theirs', { Authorization: 'Bearer worker-b' })
          const reset = await target.send('POST', '/__sandbox/reset', { headers: { Authorization: 'Bearer worker-a' } })
          expect(reset.status).toBe(204)
          expect(await seenBy('worker-a')).toBe(32)
          expect(await seenBy('worker-b')).toBe(33)

          const journal = (await (
            await target.send('GET', '/__sandbox/requests', { headers: { Authorization: 'Bearer worker-b' } })
          ).json()) as { path: string }[]
          expect(journal.every((entry) => entry.path.startsWith('/v1/pets'))).toBe(true)
          expect(journal).toHaveLength(3)

          expect((await target.send('POST', '/__sandbox/reset')).status).toBe(204)
          expect(await seenBy('worker-b')).toBe(32)
          expect(await (await target.send('GET', '/__sandbox/health')).json()).toMatchObject({ mode: 'isolated' })
        },
      )
    })

    it('gives each key its own scenarios when added with that key', async () => {
      await using(
        () => make({ isolate: true }),
        async (target) => {
          const added = await target.send('POST', '/__sandbox/scenarios', {
            headers: { 'Content-Type': 'application/json', Authorization: 'Bearer worker-2' },
            body: '{"operation":"listPets","status":500,"times":1}',
          })
          expect(added.status).toBe(201)
          const status = async (key: string) =>
            (await target.send('GET', '/v1/pets', { headers: { Authorization: `Bearer ${key}` } })).status
          expect(await status('worker-1')).toBe(200)
          expect(await status('worker-2')).toBe(500)
          expect(await status('worker-2')).toBe(200)
          expect(target.sandbox.scenarios.list()).toEqual([])
        },
      )
    })

    it('reads the state of a key without creating a tenant that could push out another', async () => {
      await using(
        () => make({ isolate: true, maxTenants: 2 }),
        async (target) => {
          await createPet(target, 'Kept', { Authorization: 'Bearer worker-a' })
          for (const key of ['b', 'c', 'd']) {
            const state = (await (
              await target.send('GET', '/__sandbox/state', { headers: { Authorization: `Bearer worker-${key}` } })
            ).json()) as { pets: unknown[] }
            expect(state.pets).toHaveLength(32)
          }
          expect(await target.sandbox.tenant('worker-a').count()).toBe(33)
        },
      )
    })

    it('accepts only keys matching apiKeyPattern, besides apiKeys', async () => {
      await using(
        () => make({ isolate: true, apiKeyPattern: /worker-\d+/ }),
        async (target) => {
          const status = async (key: string) =>
            (await target.send('GET', '/v1/pets', { headers: { Authorization: `Bearer ${key}` } })).status
          expect(await status('worker-7')).toBe(200)
          expect(await status(KEY)).toBe(200)
          expect(await status('worker-7x')).toBe(401)
          expect(await status('intruder')).toBe(401)
        },
      )
    })
  })

  describe('bad input to the admin routes answers a 400 naming the problem, and changes nothing', () => {
    const rows: [string, string, string | undefined, Record<string, string>, number, string, string][] = [
      ['POST', '/__sandbox/scenarios', '{', {}, 400, 'invalid_body', 'body is not valid JSON'],
      ['POST', '/__sandbox/scenarios', '[]', {}, 400, 'invalid_body', 'scenario must be a JSON object, got an array'],
      [
        'POST',
        '/__sandbox/scenarios',
        '{"operation":"deletePet","status":503}',
        {},
        400,
        'invalid_body',
        'operation must be one of listPets, createPet, getPet, *, got "deletePet"',
      ],
      [
        'POST',
        '/__sandbox/scenarios',
        '{"status":503,"times":-1}',
        {},
        400,
        'invalid_body',
        'times must be at least 1, got -1',
      ],
      [
        'POST',
        '/__sandbox/scenarios',
        '{"status":503,"times":1.5}',
        {},
        400,
        'invalid_body',
        'times must be an integer, got 1.5',
      ],
      [
        'POST',
        '/__sandbox/scenarios',
        '{"status":"503"}',
        {},
        400,
        'invalid_body',
        'status must be one of 401, 404, 429, 500, 503, got "503"',
      ],
      [
        'POST',
        '/__sandbox/scenarios',
        '{"status":418}',
        {},
        400,
        'invalid_body',
        'status must be one of 401, 404, 429, 500, 503, got 418',
      ],
      ['POST', '/__sandbox/scenarios', '{}', {}, 400, 'invalid_body', 'status or delayMs is required'],
      ['POST', '/__sandbox/scenarios', '{"status":503,"when":"now"}', {}, 400, 'invalid_body', 'unknown field when'],
      ['POST', '/__sandbox/scenarios', '{"delayMs":-5}', {}, 400, 'invalid_body', 'delayMs must be at least 0, got -5'],
      [
        'POST',
        '/__sandbox/scenarios',
        '{"delayMs":600000}',
        {},
        400,
        'invalid_body',
        'delayMs must be at most 60000, got 600000',
      ],
      [
        'POST',
        '/__sandbox/scenarios',
        '{"operation":"listPets","status":404}',
        {},
        400,
        'invalid_body',
        'status 404 is only a getPet answer',
      ],
      ['PUT', '/__sandbox/state', '{', {}, 400, 'invalid_body', 'body is not valid JSON'],
      [
        'PUT',
        '/__sandbox/state',
        '{"pets":"none","nextId":1}',
        {},
        400,
        'invalid_body',
        'pets must be an array, got "none"',
      ],
      [
        'PUT',
        '/__sandbox/state',
        '{"pets":[{"id":1,"name":"a","categoryId":1},{"id":2,"categoryId":"x"}],"nextId":3}',
        {},
        400,
        'invalid_body',
        'pets.1.name is required; pets.1.categoryId must be an integer, got "x"',
      ],
      [
        'PUT',
        '/__sandbox/state',
        '{"pets":[{"id":1,"name":"a","categoryId":1},{"id":1,"name":"b","categoryId":1}],"nextId":3}',
        {},
        400,
        'invalid_body',
        'pets.1.id is already used by pets.0',
      ],
      [
        'PUT',
        '/__sandbox/state',
        '{"pets":[{"id":5,"name":"a","categoryId":1}],"nextId":5}',
        {},
        400,
        'invalid_body',
        'nextId must be greater than the highest id, 5',
      ],
      [
        'PUT',
        '/__sandbox/state',
        '{"pets":[],"nextId":-1}',
        {},
        400,
        'invalid_body',
        'nextId must be at least 1, got -1',
      ],
      ['PUT', '/__sandbox/state', '{"pets":[]}', {}, 400, 'invalid_body', 'nextId is required'],
      [
        'GET',
        '/__sandbox/requests?operation=deletePet',
        undefined,
        {},
        400,
        'invalid_parameter',
        'operation must be one of listPets, createPet, getPet, none, got "deletePet"',
      ],
      [
        'GET',
        '/__sandbox/requests?status=abc',
        undefined,
        {},
        400,
        'invalid_parameter',
        'status must be an integer, got "abc"',
      ],
      [
        'POST',
        '/__sandbox/reset',
        undefined,
        { Authorization: 'Bearer not-a-key' },
        401,
        'unauthorized',
        'API key is not valid',
      ],
      [
        'GET',
        '/__sandbox/reset',
        undefined,
        {},
        405,
        'method_not_allowed',
        'GET is not allowed on /__sandbox/reset; allowed: POST',
      ],
      ['PATCH', '/__sandbox/scenarios', '{}', {}, 405, 'method_not_allowed', 'allowed: GET, HEAD, POST, DELETE'],
      ['POST', '/__sandbox/state', '{}', {}, 405, 'method_not_allowed', 'allowed: GET, HEAD, PUT'],
      ['DELETE', '/__sandbox/health', undefined, {}, 405, 'method_not_allowed', 'allowed: GET, HEAD'],
    ]

    it.each(rows)('%s %s %s', async (method, path, body, headers, status, code, message) => {
      await using(make, async (target) => {
        await createPet(target, 'Before')
        const before = await target.sandbox.snapshot()
        const response = await target.send(method, path, {
          headers: { 'Content-Type': 'application/json', ...headers },
          ...(body !== undefined && { body }),
        })
        expect(response.status).toBe(status)
        expect(await response.json()).toEqual({ code, message: expect.stringContaining(message) as unknown, status })
        expect(await target.sandbox.snapshot()).toEqual(before)
        expect(target.sandbox.scenarios.list()).toEqual([])
      })
    })
  })
})

describe('isolated tenants, end to end', () => {
  it("8 parallel clients with 8 keys each create and list, and none sees another one's pets", async () => {
    const server = await startServer({ port: 0, isolate: true })
    try {
      const clients = Array.from({ length: 8 }, (_, worker) => async () => {
        const headers = { Authorization: `Bearer e2e-worker-${worker}`, 'Content-Type': 'application/json' }
        const created: number[] = []
        for (let i = 0; i < 5; i++) {
          const response = await fetch(`${server.apiUrl}/pets`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ name: `Worker ${worker} pet ${i}`, categoryId: worker + 1 }),
          })
          created.push(((await response.json()) as Pet).id)
        }
        const listed = (await (await fetch(`${server.apiUrl}/pets?limit=100`, { headers })).json()) as Pet[]
        return { worker, created, listed }
      })
      const results = await Promise.all(clients.map((client) => client()))
      for (const { worker, created, listed } of results) {
        // Every tenant starts from the same seed, so each sees ids 33..37 as its own.
        expect(created).toEqual([33, 34, 35, 36, 37])
        expect(listed).toHaveLength(37)
        const foreign = listed.filter((pet) => pet.id > 32 && !pet.name.startsWith(`Worker ${worker} `))
        expect(foreign).toEqual([])
      }
    } finally {
      await server.close()
    }
  })
})

describe('in-process options', () => {
  it('a failure rate with a seed fails the same calls every run', async () => {
    const statuses = async () => {
      const sandbox = createSandbox({ failureRate: 0.3, randomSeed: 42 })
      const result: number[] = []
      for (let i = 0; i < 40; i++) {
        const response = await getResponse(
          [...sandbox.handlers],
          new Request('https://a.test/v1/pets', { headers: AUTH }),
        )
        result.push(response?.status ?? 0)
      }
      return result
    }
    const first = await statuses()
    expect(await statuses()).toEqual(first)
    expect(first.filter((status) => status !== 200).length).toBeGreaterThan(3)
    expect(new Set(first)).toEqual(new Set([200, 500, 503]))
  })

  it('a seeded failure rate fails the same calls over HTTP as in-process', async () => {
    const inProcess = createSandbox({ failureRate: 0.3, randomSeed: 7 })
    const server = await startServer({ port: 0, failureRate: 0.3, randomSeed: 7 })
    try {
      const overHttp: number[] = []
      const local: number[] = []
      for (let i = 0; i < 30; i++) {
        const response = await fetch(`${server.apiUrl}/pets`, { headers: AUTH })
        await expectConforms('GET', `${server.apiUrl}/pets`, response)
        overHttp.push(response.status)
        local.push(
          (await getResponse([...inProcess.handlers], new Request('https://a.test/v1/pets', { headers: AUTH })))
            ?.status ?? 0,
        )
      }
      expect(overHttp).toEqual(local)
      expect(overHttp.some((status) => status >= 500)).toBe(true)
    } finally {
      await server.close()
    }
  })

  it('a delay delays every response over HTTP too', async () => {
    const server = await startServer({ port: 0, delay: 150 })
    try {
      const started = performance.now()
      const response = await fetch(`${server.apiUrl}/pets/1`, { headers: AUTH })
      expect(response.status).toBe(200)
      expect(performance.now() - started).toBeGreaterThanOrEqual(145)
    } finally {
      await server.close()
    }
  })

  it('a delay range delays every response within the range', async () => {
    // The sandbox's clock for delays, not the wall clock: no test bounds a duration from above.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      const sandbox = createSandbox({ delay: { min: 50, max: 80 }, randomSeed: 1 })
      for (let i = 0; i < 3; i++) {
        let answered = false
        const response = getResponse(
          [...sandbox.handlers],
          new Request('https://a.test/v1/pets', { headers: AUTH }),
        ).then((answer) => {
          answered = true
          return answer
        })
        await vi.advanceTimersByTimeAsync(49)
        expect(answered, 'answered before the range began').toBe(false)
        await vi.advanceTimersByTimeAsync(31)
        expect(answered, 'not answered by the end of the range').toBe(true)
        expect((await response)?.status).toBe(200)
      }
    } finally {
      vi.useRealTimers()
    }
  })

  it('generates believable pets, the same for the same seed', async () => {
    const one = createSandbox({ generate: 50, randomSeed: 9 })
    const two = createSandbox({ generate: 50, randomSeed: 9 })
    const pets = await one.pets.list()
    expect(pets).toHaveLength(50)
    expect(await two.pets.list()).toEqual(pets)
    for (const pet of pets) expect(PetSchema.parse(pet)).toEqual(pet)
    expect(new Set(pets.map((pet) => pet.status)).size).toBeGreaterThanOrEqual(3)
    expect(await generatePets(50, 10)).not.toEqual(pets)
  })

  it('imports and exports a state of 150,000 pets, far past what a spread into Math.max survives', async () => {
    const sandbox = createSandbox()
    const pets = Array.from({ length: 150_000 }, (_, index) => ({ id: index + 1, name: `Pet ${index}`, categoryId: 1 }))
    const handlers = [...sandbox.adminHandlers]
    const put = await getResponse(
      handlers,
      new Request('https://a.test/__sandbox/state', {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ pets, nextId: 150_001 }),
      }),
    )
    expect(put?.status).toBe(204)
    expect(await sandbox.pets.count()).toBe(150_000)
    expect((await sandbox.snapshot()).nextId).toBe(150_001)
  }, 30_000)

  it('refuses bad generate and maxTenants options at once', () => {
    expect(() => createSandbox({ generate: -1 })).toThrow('generate must be an integer from 0 to 2000000, got -1')
    expect(() => createSandbox({ generate: 1.5 })).toThrow('generate must be an integer from 0 to 2000000, got 1.5')
    expect(() => createSandbox({ isolate: true, maxTenants: Number.NaN })).toThrow(
      'maxTenants must be an integer from 2 to 1000000, got NaN',
    )
    // Every problem in one message.
    expect(() => createSandbox({ isolate: true, maxTenants: 1, generate: -1 })).toThrow(
      'Failed to create the sandbox: generate must be an integer from 0 to 2000000, got -1; maxTenants must be an integer from 2 to 1000000, got 1',
    )
  })

  it('holds createSandbox and startServer to the same options, the ones that need each other included', async () => {
    const pattern = /^w-\d+$/
    expect(() => createSandbox({ apiKeyPattern: pattern })).toThrow('apiKeyPattern needs isolate')
    await expect(startServer({ port: 0, apiKeyPattern: pattern })).rejects.toThrow('apiKeyPattern needs isolate')
    expect(() => createSandbox({ generate: 5, fixtures: [] })).toThrow('use fixtures or generate, not both')
    await expect(startServer({ port: 0, corsOrigins: ['app.example.com'] })).rejects.toThrow(
      'app.example.com is not an origin',
    )
    // A server always serves the API under /v1: a baseUrl from JavaScript is refused, not half-used.
    await expect(startServer({ port: 0, baseUrl: '/api/v1' } as never)).rejects.toThrow(
      'baseUrl is not a startServer option',
    )
    const accepted = createSandbox({ isolate: true, apiKeyPattern: pattern })
    expect(accepted.isolated).toBe(true)
  })

  it("a pending delay keeps a closed server's process alive only until the shutdown bound cuts it", async () => {
    // A 60 s delay against a 100 ms shutdown bound: were the delay not cut, the test would time out.
    const script = `
      const { startServer } = await import(${JSON.stringify(new URL('../dist/src/server.js', import.meta.url).href)})
      const server = await startServer({ port: 0, shutdownTimeoutMs: 100 })
      const answer = fetch(server.apiUrl + '/pets', { headers: { Authorization: 'Bearer ${KEY}', Prefer: 'delay=60000' } })
        .then((response) => 'answered ' + response.status, (error) => 'cut: ' + error.message)
      // Until the server has the request: it waits in its delay from then on.
      while (server.inFlight() === 0) await new Promise((resolve) => setImmediate(resolve))
      console.log('in flight ' + server.inFlight())
      await server.close()
      console.log(await answer)
    `
    const child = spawnNode(['--input-type=module', '-e', script])
    expect(await child.exited, child.stderr()).toBe(0)
    expect(child.stdout()).toMatch(/^in flight 1\ncut: /)
  })

  it('a delayed answer arrives in a plain Node script, with no test runner keeping it alive', async () => {
    const script = `
      const { setupServer } = await import('msw/node')
      const { createSandbox } = await import(${JSON.stringify(new URL('../dist/src/index.js', import.meta.url).href)})
      const sandbox = createSandbox({ delay: 300 })
      const server = setupServer(...sandbox.handlers)
      server.listen()
      const response = await fetch('https://petstore.test/v1/pets/1', {
        headers: { Authorization: 'Bearer ${KEY}', Prefer: 'delay=200' },
      })
      console.log(response.status, (await response.json()).id)
      server.close()
    `
    const child = spawnNode(['--input-type=module', '-e', script], {}, fileURLToPath(new URL('..', import.meta.url)))
    expect(await child.exited, child.stderr()).toBe(0)
    expect(child.stdout()).toBe('200 1\n')
  })

  it('restore() refuses a bad state naming the index and field, and keeps the data', async () => {
    const sandbox = createSandbox()
    await expect(
      sandbox.restore({
        pets: [
          { id: 1, name: 'a', categoryId: 1 },
          { id: 2, name: '', categoryId: 1 },
        ],
        nextId: 3,
      }),
    ).rejects.toThrow('Invalid state: pets.1.name must not be empty')
    expect(await sandbox.pets.count()).toBe(32)
  })

  it('reseed() replaces the seed, and reset() then restores the new one', async () => {
    const sandbox = createSandbox()
    await sandbox.reseed([{ id: 5, name: 'New seed', categoryId: 1 }])
    await sandbox.pets.create({ name: 'Later', categoryId: 1 })
    await sandbox.reset()
    expect(await sandbox.pets.list()).toEqual([{ id: 5, name: 'New seed', categoryId: 1 }])
    await expect(sandbox.reseed([{ id: 'x' }], 'pets.json')).rejects.toThrow('Invalid pets.json: entry 0')
  })
})
