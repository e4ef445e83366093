/**
 * Holds: the next calls of an operation wait until a test releases them. In-process (a loading
 * state rendered with no timer), and over HTTP with the admin client (budget, release with a
 * status, clients that go away, reset and shutdown, one key's holds under --isolate), and the
 * dashboard's Release button in Chromium.
 */
import { setupServer } from 'msw/node'
import type { Browser } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createSandboxClient, SandboxClientError } from '../src/client.js'
import { createSandbox, HoldError, type Pet } from '../src/index.js'
import { startServer, type RunningServer } from '../src/server.js'
import { createHoldBook } from '../src/core/state/hold-book.js'
import { closeSharedContexts, sharedChromium } from './support/chromium.js'
import { needs } from './support/programs.js'

const KEY = 'petstore-sandbox-key'
const AUTH = { Authorization: `Bearer ${KEY}` }
const LIVE = { timeout: 10_000, interval: 20 }

/** A page's list of pets, as a front end keeps it: loading, then the pets or the error. */
function petList(apiUrl: string) {
  const view: { state: 'idle' | 'loading' | 'loaded' | 'failed'; names: string[]; error: string | undefined } = {
    state: 'idle',
    names: [],
    error: undefined,
  }
  const load = async () => {
    view.state = 'loading'
    const response = await fetch(`${apiUrl}/pets?limit=3`, { headers: AUTH })
    const body = (await response.json()) as Pet[] | { message: string }
    if (response.ok && Array.isArray(body)) {
      view.state = 'loaded'
      view.names = body.map((pet) => pet.name)
    } else {
      view.state = 'failed'
      view.error = (body as { message: string }).message
    }
  }
  return { view, load }
}

describe('in-process: sandbox.hold', () => {
  const sandbox = createSandbox({ baseUrl: 'https://petstore.test/v1' })
  const server = setupServer(...sandbox.handlers)
  beforeAll(() => {
    server.listen({ onUnhandledRequest: 'error' })
  })
  afterEach(() => sandbox.reset())
  afterAll(() => {
    server.close()
  })

  it('shows the loading state while the list is held, then the pets once released: no timer', async () => {
    const hold = sandbox.hold('listPets')
    const { view, load } = petList('https://petstore.test/v1')
    const loading = load()
    await hold.reached()
    expect(view.state).toBe('loading')
    expect(hold.holding()).toBe(1)
    expect(sandbox.holds()).toEqual([{ id: hold.id, operation: 'listPets', remaining: 0, holding: 1, caught: 1 }])
    hold.release()
    await loading
    expect(view).toEqual({ state: 'loaded', names: ['Biscuit', 'Luna', 'Captain Feathers'], error: undefined })
    expect(sandbox.holds()).toEqual([])
    const [entry] = sandbox.requests.all()
    expect(entry?.status).toBe(200)
    expect(entry?.heldMs).toBeGreaterThan(0)
  })

  it('answers a scenario status instead when the release carries one, and holds only its operation', async () => {
    const hold = sandbox.hold('listPets', { times: 2 })
    // getPet is not held: it answers at once.
    expect((await fetch('https://petstore.test/v1/pets/1', { headers: AUTH })).status).toBe(200)
    const { view, load } = petList('https://petstore.test/v1')
    const loading = load()
    await hold.reached()
    hold.release(503)
    await loading
    expect(view.state).toBe('failed')
    expect(view.error).toBe('Simulated by the sandbox (a released hold)')
    // Released means ended: the second call it would have caught answers at once.
    expect((await fetch('https://petstore.test/v1/pets', { headers: AUTH })).status).toBe(200)
  })

  it('refuses a wrong operation, times or status with a HoldError naming it, and holds nothing then', () => {
    expect(() => sandbox.hold('fetchPets' as never)).toThrow(HoldError)
    expect(() => sandbox.hold('listPets', { times: 0 })).toThrow(/times must be at least 1/)
    const hold = sandbox.hold('listPets')
    expect(() => {
      hold.release(404)
    }).toThrow(/404 is only a getPet answer/)
    expect(() => {
      hold.release(418)
    }).toThrow(HoldError)
    expect(sandbox.holds()).toHaveLength(1)
    hold.release()
    expect(() => {
      hold.release()
    }).toThrow(/no hold/)
  })

  it('holds at most 100 holds at once: the next is refused, naming the limit', () => {
    for (let i = 0; i < 100; i++) sandbox.hold('getPet')
    expect(() => sandbox.hold('getPet')).toThrow(/already 100 holds \(the holds limit\)/)
    sandbox.releaseHolds()
    expect(sandbox.holds()).toEqual([])
  })

  it('lets a held call go at a reset, answering from the seed', async () => {
    expect(
      (
        await fetch('https://petstore.test/v1/pets', {
          method: 'POST',
          headers: { ...AUTH, 'Content-Type': 'application/json' },
          body: '{"name":"Gone soon","categoryId":1}',
        })
      ).status,
    ).toBe(201)
    const hold = sandbox.hold('getPet')
    const asked = fetch('https://petstore.test/v1/pets/33', { headers: AUTH })
    await hold.reached()
    await sandbox.reset()
    expect((await asked).status).toBe(404)
    expect(sandbox.holds()).toEqual([])
  })
})

describe('the hold book (src/core/state/hold-book.ts)', () => {
  it('counts a hold as reached once it caught a call, even after that call left', async () => {
    const book = createHoldBook(10, 10)
    const { id } = book.add(undefined, 'listPets', 1)
    const gone = new AbortController()
    const caught = book.take('listPets', undefined, () => gone.signal)
    gone.abort()
    expect(await caught?.until).toEqual({ gone: true })
    expect(book.list(undefined)).toEqual([{ id, operation: 'listPets', remaining: 0, holding: 0, caught: 1 }])
    // Resolves now: a test that asks after the call left does not wait for a call that never comes.
    await book.reached(id)
    expect(book.holding()).toBe(0)
  })
})

describe('over HTTP, with the admin client', () => {
  let server: RunningServer
  const client = () => createSandboxClient({ baseUrl: server.url })

  beforeAll(async () => {
    server = await startServer({ port: 0, limits: { heldRequests: 2 } })
  })
  afterEach(async () => {
    await client().reset()
  })
  afterAll(async () => {
    await server.close()
  })

  const holding = async (id: number) => (await client().holds.list()).find((hold) => hold.id === id)?.holding ?? 0

  it('holds, lists, releases, and the journal says how long each waited', async () => {
    const hold = await client().holds.add({ operation: 'listPets', times: 2 })
    expect(hold).toEqual({ id: hold.id, operation: 'listPets', remaining: 2, holding: 0, caught: 0 })
    const asked = [1, 2].map(() => fetch(`${server.apiUrl}/pets?limit=1`, { headers: AUTH }))
    await expect.poll(() => holding(hold.id), LIVE).toBe(2)
    // Nothing answered yet: the journal has no entry for them.
    expect(await client().requests()).toEqual([])
    const released = await client().holds.release(hold.id)
    expect(released).toMatchObject({ id: hold.id, holding: 2, caught: 2, remaining: 0 })
    expect((await Promise.all(asked)).map((answer) => answer.status)).toEqual([200, 200])
    const entries = await client().requests()
    expect(entries.map((entry) => entry.status)).toEqual([200, 200])
    for (const entry of entries) expect(entry.heldMs).toBeGreaterThan(0)
    expect(await client().holds.list()).toEqual([])
    // Released is ended: a second release is a 404 naming the hold.
    const again = await client()
      .holds.release(hold.id)
      .catch((error: unknown) => error)
    expect(again).toBeInstanceOf(SandboxClientError)
    expect(again).toMatchObject({ status: 404, code: 'hold_not_found' })
  })

  it('counts the holds that exist in health, beside their budget', async () => {
    expect((await client().health()).limits.holds).toEqual({ budget: 100, used: 0, unit: 'count' })
    const first = await client().holds.add({ operation: 'listPets' })
    await client().holds.add({ operation: 'createPet', times: 3 })
    expect((await client().health()).limits.holds).toEqual({ budget: 100, used: 2, unit: 'count' })
    await client().holds.release(first.id)
    expect((await client().health()).limits.holds).toEqual({ budget: 100, used: 1, unit: 'count' })
  })

  it('answers past the heldRequests budget with a JSON 503 at once, and counts it in health', async () => {
    const hold = await client().holds.add({ operation: 'listPets', times: 5 })
    const asked = [1, 2].map(() => fetch(`${server.apiUrl}/pets`, { headers: AUTH }))
    await expect.poll(() => holding(hold.id), LIVE).toBe(2)
    expect((await client().health()).limits.heldRequests).toEqual({ budget: 2, used: 2, unit: 'count' })
    const refused = await fetch(`${server.apiUrl}/pets`, { headers: AUTH })
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(await refused.json()).toEqual({
      code: 'service_unavailable',
      message: '2 requests are held already (the heldRequests limit); release a hold first',
      status: 503,
    })
    // The refused call was not caught: three left to catch.
    expect((await client().holds.list())[0]).toMatchObject({ remaining: 3, holding: 2 })
    await client().holds.release(hold.id, { status: 429 })
    const answers = await Promise.all(asked)
    expect(answers.map((answer) => answer.status)).toEqual([429, 429])
    expect(answers[0]?.headers.get('retry-after')).toBe('1')
  })

  it('takes a release with no body at all, and refuses a wrong one naming each field', async () => {
    const hold = await client().holds.add({ operation: 'getPet' })
    const wrong = await fetch(`${server.url}/__sandbox/holds/${hold.id}/release`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"status":418,"why":1}',
    })
    expect(wrong.status).toBe(400)
    const refusal = (await wrong.json()) as { code: string; message: string }
    expect(refusal.code).toBe('invalid_body')
    expect(refusal.message).toMatch(/status[\s\S]*why/)
    const badAdd = await fetch(`${server.url}/__sandbox/holds`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"operation":"fetchPets","times":1001}',
    })
    expect(badAdd.status).toBe(400)
    expect(((await badAdd.json()) as { message: string }).message).toMatch(
      /operation must be one of[\s\S]*times must be at most 1000/,
    )
    expect(await client().holds.list()).toHaveLength(1)
    const bare = await fetch(`${server.url}/__sandbox/holds/${hold.id}/release`, { method: 'POST' })
    expect(bare.status).toBe(200)
    const notANumber = await fetch(`${server.url}/__sandbox/holds/first/release`, { method: 'POST' })
    expect(notANumber.status).toBe(400)
  })

  it('drops a client that goes away from its hold, and records it as called off', async () => {
    const hold = await client().holds.add({ operation: 'createPet' })
    const gone = new AbortController()
    const asked = fetch(`${server.apiUrl}/pets`, {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'application/json' },
      body: '{"name":"Never kept","categoryId":1}',
      signal: gone.signal,
    }).catch((error: unknown) => error)
    await expect.poll(() => holding(hold.id), LIVE).toBe(1)
    gone.abort()
    expect(await asked).toMatchObject({ name: 'AbortError' })
    await expect.poll(() => holding(hold.id), LIVE).toBe(0)
    const [entry] = await client().requests()
    expect(entry).toMatchObject({ operation: 'createPet', status: 400 })
    // Nothing was created for a client that left.
    expect(await server.sandbox.pets.count()).toBe(32)
  })

  it('lets every held call go when the server shuts down', async () => {
    const other = await startServer({ port: 0 })
    await createSandboxClient({ baseUrl: other.url }).holds.add({ operation: 'listPets' })
    const asked = fetch(`${other.apiUrl}/pets?limit=1`, { headers: AUTH })
    await expect
      .poll(async () => (await createSandboxClient({ baseUrl: other.url }).holds.list())[0]?.holding, LIVE)
      .toBe(1)
    await other.close()
    expect((await asked).status).toBe(200)
  })
})

describe('under --isolate', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0, isolate: true })
  })
  afterAll(async () => {
    await server.close()
  })

  it("holds one key's calls only, and shows a key its own holds", async () => {
    const alice = createSandboxClient({ baseUrl: server.url, key: 'alice-key' })
    const bob = createSandboxClient({ baseUrl: server.url, key: 'bob-key' })
    const hold = await alice.holds.add({ operation: 'listPets' })
    expect(await bob.holds.list()).toEqual([])
    // Bob's call is not held.
    expect((await fetch(`${server.apiUrl}/pets`, { headers: { Authorization: 'Bearer bob-key' } })).status).toBe(200)
    const asked = fetch(`${server.apiUrl}/pets`, { headers: { Authorization: 'Bearer alice-key' } })
    await expect.poll(async () => (await alice.holds.list())[0]?.holding, LIVE).toBe(1)
    const refused = await bob.holds.release(hold.id).catch((error: unknown) => error)
    expect(refused).toMatchObject({ status: 404 })
    await alice.holds.release(hold.id)
    expect((await asked).status).toBe(200)
  })

  it("lets a key's calls go from a shared hold at that key's reset, and keeps the hold for the others", async () => {
    const shared = await createSandboxClient({ baseUrl: server.url }).holds.add({ operation: 'getPet', times: 3 })
    const alice = createSandboxClient({ baseUrl: server.url, key: 'alice-key' })
    const asked = fetch(`${server.apiUrl}/pets/1`, { headers: { Authorization: 'Bearer alice-key' } })
    await expect.poll(async () => (await alice.holds.list())[0]?.holding, LIVE).toBe(1)
    await alice.reset()
    expect((await asked).status).toBe(200)
    expect(await createSandboxClient({ baseUrl: server.url }).holds.list()).toEqual([
      { id: shared.id, operation: 'getPet', remaining: 2, holding: 0, caught: 1 },
    ])
    await createSandboxClient({ baseUrl: server.url }).holds.release(shared.id)
  })
})

describe.skipIf(!needs('chromium'))("the dashboard's held requests, in headless Chromium", () => {
  let server: RunningServer
  let browser: Browser

  beforeAll(async () => {
    ;[server, browser] = await Promise.all([startServer({ port: 0 }), sharedChromium()])
  }, 60_000)
  afterAll(async () => {
    await closeSharedContexts()
    await server.close()
  })

  it('lists a held call as it arrives, and its Release button lets it answer', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    await page.goto(`${server.url}/__sandbox/`)
    const list = page.locator('#holds')
    await expect.poll(() => list.innerText(), LIVE).toBe('No holds: every call is answered when it comes.')
    // The event stream is open: the hold added next reaches the page live.
    await expect.poll(() => page.locator('#connection').innerText(), LIVE).toBe('Live updates: on')

    const hold = await createSandboxClient({ baseUrl: server.url }).holds.add({ operation: 'getPet', times: 2 })
    await expect.poll(() => list.innerText(), LIVE).toMatch(/^getPet: 0 calls waiting, 2 more to catch/)
    const asked = fetch(`${server.apiUrl}/pets/2`, { headers: AUTH })
    await expect.poll(() => list.innerText(), LIVE).toMatch(/^getPet: 1 call waiting, 1 more to catch/)

    await page.getByRole('button', { name: `Release hold ${hold.id}, getPet` }).click()
    const answer = await asked
    expect(answer.status).toBe(200)
    expect(((await answer.json()) as Pet).id).toBe(2)
    await expect.poll(() => list.innerText(), LIVE).toBe('No holds: every call is answered when it comes.')
    await expect
      .poll(() => page.locator('#status').innerText(), LIVE)
      .toBe(`Released hold ${hold.id}: its getPet calls answer now.`)
    // The journal row of the held call is there, with how long it waited.
    const [entry] = await createSandboxClient({ baseUrl: server.url }).requests()
    expect(entry?.heldMs).toBeGreaterThan(0)
    await context.close()
  })
})
