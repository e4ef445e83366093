/**
 * Named checkpoints: saved, listed, rewound to and deleted over HTTP, from the admin client and
 * in-process; scoped to a key under --isolate; held to their budgets; and a refused request
 * changes nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CheckpointError, createSandbox, type Pet } from '../src/index.js'
import { startServer, type RunningServer } from '../src/server.js'
import { createSandboxClient, SandboxClientError } from '../src/client.js'

const JSON_BODY = { 'Content-Type': 'application/json' }

let server: RunningServer
const admin = (path: string, init: RequestInit = {}) => fetch(`${server.url}/__sandbox${path}`, init)
const save = (body: unknown, headers: Record<string, string> = {}) =>
  admin('/checkpoints', { method: 'POST', headers: { ...JSON_BODY, ...headers }, body: JSON.stringify(body) })
const create = async (name: string, key = 'petstore-sandbox-key') => {
  const response = await fetch(`${server.apiUrl}/pets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, ...JSON_BODY },
    body: JSON.stringify({ name, categoryId: 1 }),
  })
  expect(response.status).toBe(201)
  return (await response.json()) as Pet
}
const pets = async (key = 'petstore-sandbox-key') =>
  (await (
    await fetch(`${server.apiUrl}/pets?limit=100`, { headers: { Authorization: `Bearer ${key}` } })
  ).json()) as Pet[]

describe('checkpoints over HTTP', () => {
  beforeEach(async () => {
    server = await startServer({ port: 0, limits: { checkpoints: 3 } })
  })
  afterEach(async () => {
    await server.close()
  })

  it('saves the data under a name, lists it, and rewinds to it: pets and the next id', async () => {
    await create('Rex')
    const saved = await save({ name: 'before-checkout' })
    expect(saved.status).toBe(201)
    expect(saved.headers.get('location')).toBe('/__sandbox/checkpoints/before-checkout')
    const body = (await saved.json()) as Record<string, unknown>
    expect(body).toEqual({
      name: 'before-checkout',
      savedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as unknown,
      pets: 33,
      nextId: 34,
      scenarios: false,
      bytes: expect.any(Number) as unknown,
    })
    const atSave = await pets()

    await create('Max')
    await create('Bella')
    expect(await pets()).toHaveLength(35)

    const rewound = await admin('/checkpoints/before-checkout/restore', { method: 'POST' })
    expect(rewound.status).toBe(204)
    expect(await pets()).toEqual(atSave)
    // The id sequence went back too: the next pet gets 34 again.
    expect((await create('Again')).id).toBe(34)

    expect(await (await admin('/checkpoints')).json()).toEqual([body])
  })

  it('keeps checkpoints across a reset, which still goes back to the seed', async () => {
    await create('Rex')
    await save({ name: 'one' })
    expect((await admin('/reset', { method: 'POST' })).status).toBe(204)
    expect(await pets()).toHaveLength(32)
    expect(((await (await admin('/checkpoints')).json()) as { name: string }[]).map((each) => each.name)).toEqual([
      'one',
    ])
    await admin('/checkpoints/one/restore', { method: 'POST' })
    expect(await pets()).toHaveLength(33)
  })

  it('saves and puts back the scenarios only when asked', async () => {
    const scenario = { operation: 'createPet', status: 503, times: 2 }
    await admin('/scenarios', { method: 'POST', headers: JSON_BODY, body: JSON.stringify(scenario) })
    expect(((await (await save({ name: 'with', scenarios: true })).json()) as { scenarios: boolean }).scenarios).toBe(
      true,
    )
    await save({ name: 'without' })
    await admin('/scenarios', { method: 'DELETE' })

    await admin('/checkpoints/without/restore', { method: 'POST' })
    expect(await (await admin('/scenarios')).json()).toEqual([])
    await admin('/checkpoints/with/restore', { method: 'POST' })
    expect(await (await admin('/scenarios')).json()).toEqual([
      { id: expect.any(Number) as unknown, operation: 'createPet', status: 503, remaining: 2 },
    ])
  })

  it('refuses a name in use with 409 unless replace is true', async () => {
    await save({ name: 'demo' })
    await create('Rex')
    const again = await save({ name: 'demo' })
    expect(again.status).toBe(409)
    expect(await again.json()).toEqual({
      code: 'conflict',
      message: expect.stringMatching(/^checkpoint demo exists already \(saved .+\); send "replace": true/) as unknown,
      status: 409,
    })
    const replaced = await save({ name: 'demo', replace: true })
    expect(replaced.status).toBe(201)
    expect(((await replaced.json()) as { pets: number }).pets).toBe(33)
  })

  it('names every problem of a bad body at once, and saves nothing', async () => {
    const response = await save({ name: '../etc', scenarios: 'yes', colour: 'red' })
    expect(response.status).toBe(400)
    const { code, message, status } = (await response.json()) as { code: string; message: string; status: number }
    expect({ code, status }).toEqual({ code: 'invalid_body', status: 400 })
    expect(message).toContain('scenarios must be a boolean')
    expect(message).toContain('unknown field colour')
    expect(message).toContain(
      'name must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit, got "../etc"',
    )
    const missing = await save({})
    expect(((await missing.json()) as { message: string }).message).toBe('name is required')
    expect(await (await admin('/checkpoints')).json()).toEqual([])
  })

  it('answers 404 for a checkpoint there is none of, naming those there are', async () => {
    await save({ name: 'a' })
    for (const [method, path] of [
      ['POST', '/checkpoints/b/restore'],
      ['DELETE', '/checkpoints/b'],
    ] as const) {
      const response = await admin(path, { method })
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({
        code: 'checkpoint_not_found',
        message: 'Checkpoint "b" does not exist. The saved ones: "a".',
        status: 404,
      })
    }
  })

  it('deletes one', async () => {
    await save({ name: 'a' })
    await save({ name: 'b' })
    expect((await admin('/checkpoints/a', { method: 'DELETE' })).status).toBe(204)
    expect(((await (await admin('/checkpoints')).json()) as { name: string }[]).map((each) => each.name)).toEqual(['b'])
  })

  it('keeps at most the checkpoints budget: 507 past it, the list unchanged, and health counts them', async () => {
    for (const name of ['a', 'b', 'c']) expect((await save({ name })).status).toBe(201)
    const over = await save({ name: 'd' })
    expect(over.status).toBe(507)
    expect(((await over.json()) as { message: string }).message).toMatch(
      /^There are 3 checkpoints already, .*the checkpoints limit/,
    )
    expect(((await (await admin('/checkpoints')).json()) as unknown[]).length).toBe(3)
    // Replacing one is no new one.
    expect((await save({ name: 'a', replace: true })).status).toBe(201)
    const health = (await (await admin('/health')).json()) as {
      limits: Record<string, { budget: number; used: number | null }>
    }
    expect(health.limits.checkpoints).toEqual({ budget: 3, used: 3, unit: 'count' })
    expect(health.limits.checkpointBytes?.used).toBeGreaterThan(0)
  })
})

describe('checkpoints against the bytes budget', () => {
  afterEach(async () => {
    await server.close()
  })

  it('refuses a checkpoint heavier than what is left of checkpointBytes, and gives bytes back on delete', async () => {
    server = await startServer({ port: 0, limits: { checkpointBytes: 3000 } })
    expect((await save({ name: 'first' })).status).toBe(201)
    const second = await save({ name: 'second' })
    expect(second.status).toBe(507)
    expect(((await second.json()) as { message: string }).message).toMatch(/the checkpointBytes limit/)
    await admin('/checkpoints/first', { method: 'DELETE' })
    expect((await save({ name: 'second' })).status).toBe(201)
  })
})

describe('checkpoints under --isolate', () => {
  beforeEach(async () => {
    server = await startServer({ port: 0, isolate: true })
  })
  afterEach(async () => {
    await server.close()
  })

  it("belong to a key's tenant, like reset", async () => {
    await create('Only A', 'key-a')
    expect((await save({ name: 'mine' }, { Authorization: 'Bearer key-a' })).status).toBe(201)
    await create('Only B', 'key-b')

    const asB = await admin('/checkpoints', { headers: { Authorization: 'Bearer key-b' } })
    expect(await asB.json()).toEqual([])
    const missing = await admin('/checkpoints/mine/restore', {
      method: 'POST',
      headers: { Authorization: 'Bearer key-b' },
    })
    expect(missing.status).toBe(404)

    await create('Later A', 'key-a')
    await admin('/checkpoints/mine/restore', { method: 'POST', headers: { Authorization: 'Bearer key-a' } })
    expect((await pets('key-a')).map((pet) => pet.name).slice(-1)).toEqual(['Only A'])
    expect((await pets('key-b')).map((pet) => pet.name).slice(-1)).toEqual(['Only B'])
  })
})

describe('checkpoints and the createdPets budget', () => {
  afterEach(async () => {
    await server.close()
  })

  it('counts the pets a rewind brings back: a save, rewind and delete loop cannot grow a tenant', async () => {
    server = await startServer({ port: 0, isolate: true, limits: { createdPets: 3 } })
    const asA = { Authorization: 'Bearer key-a' }
    for (let round = 0; round < 3; round++) {
      while (
        (
          await fetch(`${server.apiUrl}/pets`, {
            method: 'POST',
            headers: { ...asA, ...JSON_BODY },
            body: '{"name":"More","categoryId":1}',
          })
        ).status === 201
      ) {
        // Until the budget says no.
      }
      await save({ name: 'loop', replace: true }, asA)
      expect((await admin('/checkpoints/loop/restore', { method: 'POST', headers: asA })).status).toBe(204)
      await admin('/checkpoints/loop', { method: 'DELETE', headers: asA })
    }
    // Three rounds, and still the seed plus the budget's three.
    expect(await pets('key-a')).toHaveLength(35)
  })

  it('refuses a rewind (507) when the pets it brings back no longer fit, changing nothing', async () => {
    server = await startServer({ port: 0, isolate: true, limits: { createdPets: 2 } })
    const asA = { Authorization: 'Bearer key-a' }
    await create('A1', 'key-a')
    await create('A2', 'key-a')
    await save({ name: 'two' }, asA)
    await admin('/reset', { method: 'POST', headers: asA })
    await create('B1', 'key-b')
    await create('B2', 'key-b')
    const refused = await admin('/checkpoints/two/restore', { method: 'POST', headers: asA })
    expect(refused.status).toBe(507)
    expect((await refused.json()) as { code: string; message: string }).toMatchObject({
      code: 'insufficient_storage',
      message: expect.stringMatching(
        /^This state holds 2 pets beyond the seed, and the sandbox has room for 0 more/,
      ) as unknown,
    })
    expect(await pets('key-a')).toHaveLength(32)
    // The same rule for a state import.
    const state = (await (await admin('/state', { headers: { Authorization: 'Bearer key-b' } })).json()) as unknown
    const imported = await admin('/state', {
      method: 'PUT',
      headers: { ...asA, ...JSON_BODY },
      body: JSON.stringify(state),
    })
    expect(imported.status).toBe(507)
  })
})

describe('checkpoints from the admin client', () => {
  beforeEach(async () => {
    server = await startServer({ port: 0 })
  })
  afterEach(async () => {
    await server.close()
  })

  it('saves, lists, restores and removes', async () => {
    const client = createSandboxClient({ baseUrl: server.url })
    await create('Rex')
    const saved = await client.checkpoints.save('rehearsal', { scenarios: true })
    expect(saved).toMatchObject({ name: 'rehearsal', pets: 33, nextId: 34, scenarios: true })
    await create('Max')
    await client.checkpoints.restore('rehearsal')
    expect(await pets()).toHaveLength(33)
    expect((await client.checkpoints.list()).map((each) => each.name)).toEqual(['rehearsal'])
    const conflict = await client.checkpoints.save('rehearsal').catch((error: unknown) => error)
    expect(conflict).toBeInstanceOf(SandboxClientError)
    expect(conflict).toMatchObject({ status: 409, code: 'conflict' })
    await client.checkpoints.remove('rehearsal')
    expect(await client.checkpoints.list()).toEqual([])
    await expect(client.checkpoints.restore('rehearsal')).rejects.toMatchObject({
      status: 404,
      code: 'checkpoint_not_found',
    })
  })
})

describe('checkpoints in-process', () => {
  it('checkpoint(name) and rewind(name), with errors that carry the code', async () => {
    const sandbox = createSandbox()
    await sandbox.pets.create({ name: 'Rex', categoryId: 1 })
    const saved = await sandbox.checkpoint('before')
    expect(saved).toMatchObject({ name: 'before', pets: 33, nextId: 34, scenarios: false })
    await sandbox.pets.create({ name: 'Max', categoryId: 1 })
    await sandbox.rewind('before')
    expect(await sandbox.pets.count()).toBe(33)
    expect((await sandbox.pets.create({ name: 'Again', categoryId: 1 })).id).toBe(34)
    expect((await sandbox.checkpoints()).map((each) => each.name)).toEqual(['before'])

    const conflict = await sandbox.checkpoint('before').catch((error: unknown) => error)
    expect(conflict).toBeInstanceOf(CheckpointError)
    expect(conflict).toMatchObject({ code: 'conflict' })
    await expect(sandbox.rewind('nope')).rejects.toMatchObject({ code: 'checkpoint_not_found' })
    await expect(sandbox.checkpoint('no spaces')).rejects.toMatchObject({ code: 'invalid_body' })

    await sandbox.reset()
    expect(await sandbox.pets.count()).toBe(32)
    await sandbox.deleteCheckpoint('before')
    expect(await sandbox.checkpoints()).toEqual([])
  })

  it('keeps each sandbox its own', async () => {
    const a = createSandbox()
    const b = createSandbox()
    await a.checkpoint('mine')
    expect(await b.checkpoints()).toEqual([])
  })
})
