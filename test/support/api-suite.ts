/**
 * The behaviour of the three operations, written once and run against any transport:
 * in-process through setupServer, or over real HTTP against startServer.
 */
import { beforeAll, afterAll, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_API_KEY, type Pet, type SandboxCore } from '../../src/index.js'
import bundled from '../../fixtures/pets.json' with { type: 'json' }
import { bearer, cases, JSON_BODY, type Case } from '../../src/core/verify/cases.js'
import { requestHeaders } from '../../src/core/verify/run.js'
import { checkedFetch } from './openapi-check.js'

export interface Target {
  /** Origin the requests go to, e.g. https://petstore.test or http://127.0.0.1:PORT. */
  origin: string
  sandbox: SandboxCore
  close(): Promise<void>
}

const seededCount = bundled.length
const firstFreeId = Math.max(...bundled.map((pet) => pet.id)) + 1
const AUTH = { Authorization: bearer(DEFAULT_API_KEY) }

/** A row's path and headers filled in for the seed: pet 1 exists, pet 9999 does not; the base is /v1. */
const fill = (text: string) =>
  text
    .replaceAll('{base}', '/v1')
    .replace('{petId}', '1')
    .replace('{missingId}', '9999')
    .replace('{nextId}', String(firstFreeId))

export function describeApi(transport: string, start: () => Promise<Target>): void {
  describe(`the Pet Store API (${transport})`, () => {
    let target: Target
    // Every response is checked against openapi.json on the way.
    const call = (method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) =>
      checkedFetch(`${target.origin}${path}`, { method, ...init })

    beforeAll(async () => {
      target = await start()
    })
    afterAll(async () => {
      await target.close()
    })
    beforeEach(async () => {
      await target.sandbox.reset()
    })

    // Rows a fetch client cannot send as written are sent raw in test/server.test.ts and by verify.
    describe.each(cases.filter((row) => row.raw !== true))('$name', (row: Case) => {
      it(`answers ${row.status}${row.code === undefined ? '' : ` ${row.code}`}, and a rejection changes nothing`, async () => {
        const before = await target.sandbox.pets.list()
        const response = await call(row.method, `/v1${fill(row.path)}`, {
          headers: requestHeaders(row, DEFAULT_API_KEY),
          ...(row.body !== undefined && { body: row.body }),
        })
        const body: unknown = row.method === 'HEAD' ? await response.text() : await response.json()

        expect(response.status).toBe(row.status)
        expect(response.headers.get('content-type')).toMatch(/^application\/json/)
        if (row.method === 'HEAD') expect(body).toBe('')
        for (const [name, value] of Object.entries(row.expectHeaders ?? {})) {
          expect(response.headers.get(name), name).toMatch(value instanceof RegExp ? value : exactly(fill(value)))
        }
        if (row.status >= 400) {
          expect(body).toEqual({ code: row.code, message: expect.any(String) as unknown, status: row.status })
          expect((body as { message: string }).message).toContain(row.mentions)
          expect(await target.sandbox.pets.list()).toEqual(before)
          // The id sequence did not move either: the next pet gets the first free id.
          expect((await target.sandbox.pets.create({ name: 'Probe', categoryId: 1 })).id).toBe(firstFreeId)
        }
      })
    })

    describe('listPets', () => {
      it('returns the first 20 pets by id when no limit is given', async () => {
        const pets = (await (await call('GET', '/v1/pets', { headers: AUTH })).json()) as Pet[]
        expect(pets.map((pet) => pet.id)).toEqual(bundled.slice(0, 20).map((pet) => pet.id))
        expect(pets).toEqual(bundled.slice(0, 20))
      })

      it.each([1, 7, 100])('returns exactly min(limit, count) pets for limit=%i', async (limit) => {
        const pets = (await (await call('GET', `/v1/pets?limit=${limit}`, { headers: AUTH })).json()) as Pet[]
        expect(pets).toEqual(bundled.slice(0, Math.min(limit, seededCount)))
      })

      it.each(['available', 'pending', 'sold'] as const)('filters by status=%s, ordered by id', async (status) => {
        const pets = (await (
          await call('GET', `/v1/pets?status=${status}&limit=100`, { headers: AUTH })
        ).json()) as Pet[]
        const expected = bundled.filter((pet) => pet.status === status)
        expect(expected.length).toBeGreaterThan(0)
        expect(pets).toEqual(expected)
      })

      it('applies the limit after the status filter', async () => {
        const pets = (await (await call('GET', '/v1/pets?status=available&limit=3', { headers: AUTH })).json()) as Pet[]
        expect(pets).toEqual(bundled.filter((pet) => pet.status === 'available').slice(0, 3))
      })

      it('includes pets created later, in id order', async () => {
        await target.sandbox.pets.create({ name: 'Late', categoryId: 2, status: 'sold' })
        const pets = (await (await call('GET', '/v1/pets?status=sold&limit=100', { headers: AUTH })).json()) as Pet[]
        expect(pets.at(-1)).toEqual({ id: firstFreeId, name: 'Late', categoryId: 2, status: 'sold' })
        expect(pets.map((pet) => pet.id)).toEqual([...pets.map((pet) => pet.id)].sort((a, b) => a - b))
      })
    })

    describe('createPet', () => {
      it('stores the pet with the next id and returns it, readable through getPet and listPets', async () => {
        const response = await call('POST', '/v1/pets', {
          headers: { ...AUTH, ...JSON_BODY },
          body: JSON.stringify({ name: 'Rex', categoryId: 4, status: 'pending' }),
        })
        const created = (await response.json()) as Pet
        expect(response.status).toBe(201)
        expect(created).toEqual({ id: firstFreeId, name: 'Rex', categoryId: 4, status: 'pending' })
        expect(response.headers.get('location')).toBe(`/v1/pets/${firstFreeId}`)

        const fetched = await call('GET', `/v1/pets/${firstFreeId}`, { headers: AUTH })
        expect(await fetched.json()).toEqual(created)
        expect(await target.sandbox.pets.count()).toBe(seededCount + 1)
      })

      it('leaves status out when the body leaves it out', async () => {
        const response = await call('POST', '/v1/pets', {
          headers: { ...AUTH, ...JSON_BODY },
          body: '{"name":"Nameless Status","categoryId":3}',
        })
        expect(await response.json()).toEqual({ id: firstFreeId, name: 'Nameless Status', categoryId: 3 })
      })

      it('ignores unknown fields and keeps only the NewPet fields', async () => {
        const response = await call('POST', '/v1/pets', {
          headers: { ...AUTH, 'Content-Type': 'application/json; charset=utf-8' },
          body: '{"name":"Extra","categoryId":1,"color":"brown","__proto__":{"admin":true}}',
        })
        expect(response.status).toBe(201)
        expect(await response.json()).toEqual({ id: firstFreeId, name: 'Extra', categoryId: 1 })
        expect(await target.sandbox.pets.get(firstFreeId)).toEqual({ id: firstFreeId, name: 'Extra', categoryId: 1 })
      })

      it('keeps unicode names exactly', async () => {
        const name = 'Pélé 🐕 ペット'
        const response = await call('POST', '/v1/pets', {
          headers: { ...AUTH, ...JSON_BODY },
          body: JSON.stringify({ name, categoryId: 1 }),
        })
        expect(((await response.json()) as Pet).name).toBe(name)
        expect((await target.sandbox.pets.get(firstFreeId))?.name).toBe(name)
      })

      it('refuses a body over the size cap with 413, storing nothing', async () => {
        const response = await call('POST', '/v1/pets', {
          headers: { ...AUTH, ...JSON_BODY },
          body: JSON.stringify({ name: 'Big', categoryId: 1, padding: 'x'.repeat(20_000) }),
        })
        expect(response.status).toBe(413)
        expect(await response.json()).toEqual({
          code: 'payload_too_large',
          message: 'body must be at most 16384 bytes',
          status: 413,
        })
        expect(await target.sandbox.pets.count()).toBe(seededCount)
      })

      it('gives 200 parallel creates 200 distinct ids, all readable afterwards', async () => {
        const responses = await Promise.all(
          Array.from({ length: 200 }, (_, index) =>
            call('POST', '/v1/pets', {
              headers: { ...AUTH, ...JSON_BODY },
              body: JSON.stringify({ name: `Clone ${index}`, categoryId: 1 }),
            }),
          ),
        )
        expect(responses.map((response) => response.status)).toEqual(Array(200).fill(201))
        const created = (await Promise.all(responses.map((response) => response.json()))) as Pet[]
        const ids = created.map((pet) => pet.id)
        expect(new Set(ids).size).toBe(200)
        expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => firstFreeId + i))

        const readBack = await Promise.all(
          created.map(
            async (pet) => (await call('GET', `/v1/pets/${pet.id}`, { headers: AUTH })).json() as Promise<Pet>,
          ),
        )
        expect(readBack).toEqual(created)
        expect(await target.sandbox.pets.count()).toBe(seededCount + 200)
      })
    })

    describe('reset', () => {
      it('restores the seed byte for byte, and the id sequence', async () => {
        const read = async () => (await call('GET', '/v1/pets?limit=100', { headers: AUTH })).text()
        const pristine = await read()
        for (const name of ['One', 'Two', 'Three']) {
          await call('POST', '/v1/pets', {
            headers: { ...AUTH, ...JSON_BODY },
            body: JSON.stringify({ name, categoryId: 1 }),
          })
        }
        expect(await read()).not.toBe(pristine)

        await target.sandbox.reset()

        expect(await read()).toBe(pristine)
        const next = await call('POST', '/v1/pets', {
          headers: { ...AUTH, ...JSON_BODY },
          body: '{"name":"Again","categoryId":1}',
        })
        expect(((await next.json()) as Pet).id).toBe(firstFreeId)
      })
    })
  })
}

function exactly(value: string): RegExp {
  return new RegExp(`^${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)
}
