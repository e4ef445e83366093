/**
 * --record with --upstream, with real processes: sandbox B (the CLI, spawned) forwards to
 * sandbox A (a real server) and keeps the pets A's answers carry; once forwarding is off B
 * answers from them, and after a restart with --state-file. A drifted upstream's pets are left
 * out, and the journal says why. Under --isolate a call records into its key's data.
 * test/record-first-try.test.ts runs docs/honest.md's example and holds the keys' rules.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createSandboxClient } from '../src/client.js'
import type { Pet } from '../src/index.js'
import { startServer, type RunningServer } from '../src/server.js'
import { closeSharedContexts, sharedChromium } from './support/chromium.js'
import { needs } from './support/programs.js'
import { spawnCli, waitFor, type Cli } from './support/spawn-cli.js'

const KEY = 'petstore-sandbox-key'
const AUTH = { Authorization: `Bearer ${KEY}` }
const UPSTREAM_KEY = 'upstream-secret-key-42'
const A_PETS: Pet[] = [
  { id: 7, name: 'Upstream Seven', categoryId: 2, status: 'sold' },
  { id: 120, name: 'Upstream Rex', categoryId: 1, status: 'available' },
  { id: 121, name: 'Upstream Mia', categoryId: 3 },
]

const running: Cli[] = []
const folders: string[] = []

afterEach(async () => {
  for (const cli of running.splice(0)) {
    cli.child.kill('SIGTERM')
    await cli.exited
  }
})
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true })
})

async function startB(args: string[]): Promise<{ cli: Cli; url: string }> {
  const cli = spawnCli(['--port', '0', '--quiet', ...args])
  running.push(cli)
  const [, url = ''] = await waitFor(cli, /listening on (http:\/\/\S+)\/v1/)
  return { cli, url }
}

const listed = async (url: string, headers: Record<string, string> = AUTH) =>
  (await (await fetch(`${url}/v1/pets?limit=100`, { headers })).json()) as Pet[]

describe('--record, B in front of A', () => {
  let a: RunningServer
  beforeAll(async () => {
    a = await startServer({ port: 0, fixtures: A_PETS, apiKeys: [UPSTREAM_KEY] })
  })
  afterAll(async () => {
    await a.close()
  })

  it("keeps A's pets: B serves them once forwarding is off, and after a restart with --state-file", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'petstore-record-'))
    folders.push(folder)
    const file = join(folder, 'state.json')
    const b = await startB([
      '--upstream',
      a.apiUrl,
      '--forward',
      'all',
      '--record',
      '--upstream-key',
      UPSTREAM_KEY,
      '--state-file',
      file,
    ])
    const admin = createSandboxClient({ baseUrl: b.url })
    expect(await admin.forwarding.get()).toMatchObject({ record: true, recorded: 0 })

    // Through B while forwarded: A's pets, as A has them.
    expect(await listed(b.url)).toEqual(A_PETS)
    expect((await fetch(`${b.url}/v1/pets/121`, { headers: AUTH })).status).toBe(200)
    const [list, get] = await admin.requests()
    expect(list).toMatchObject({ operation: 'listPets', forwarded: true, recorded: { pets: 3, refused: [] } })
    // The same pet again changes nothing: it is counted once.
    expect(get).toMatchObject({ operation: 'getPet', recorded: { pets: 1, refused: [] } })
    expect(await admin.forwarding.get()).toMatchObject({ recorded: 3 })

    // Forwarding off: B answers from what it recorded, over its own seed (id 7 replaced, the
    // others added), and its id sequence moved past the largest.
    expect(await admin.forwarding.set({ forward: [] })).toMatchObject({ forward: [], record: true })
    const own = await listed(b.url)
    expect(own).toHaveLength(34)
    expect(own.find((pet) => pet.id === 7)).toEqual(A_PETS[0])
    expect(own.slice(-2)).toEqual(A_PETS.slice(1))
    const created = await fetch(`${b.url}/v1/pets`, {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'application/json' },
      body: '{"name":"Made in B","categoryId":1}',
    })
    expect(((await created.json()) as Pet).id).toBe(122)

    // A restart with the state file alone: the recorded demo is still there.
    await admin.health()
    await expect
      .poll(async () => ((await admin.health()).stateFile?.savedAt ?? null) !== null, { timeout: 10_000, interval: 25 })
      .toBe(true)
    running.pop()?.child.kill('SIGTERM')
    await b.cli.exited
    const again = await startB(['--state-file', file])
    const restarted = await listed(again.url)
    expect(restarted.find((pet) => pet.id === 121)).toEqual(A_PETS[2])
    expect(restarted.find((pet) => pet.id === 122)?.name).toBe('Made in B')
    // Nothing recorded holds a credential: neither the upstream's key nor the client's.
    const saved = readFileSync(file, 'utf8')
    expect(saved).not.toContain(UPSTREAM_KEY)
    expect(saved).not.toContain(KEY)
  })

  it('records nothing until switched on, and switches on alone through PUT /__sandbox/forwarding', async () => {
    const b = await startB(['--upstream', a.apiUrl, '--forward', 'listPets', '--upstream-key', UPSTREAM_KEY])
    const admin = createSandboxClient({ baseUrl: b.url })
    expect(await listed(b.url)).toEqual(A_PETS)
    expect((await admin.requests())[0]?.recorded).toBeNull()
    expect(await admin.forwarding.set({ record: true })).toMatchObject({ forward: ['listPets'], record: true })
    expect(await listed(b.url)).toEqual(A_PETS)
    expect((await admin.requests())[1]?.recorded).toEqual({ pets: 3, refused: [] })
    // A field left out stays as it is.
    expect(await admin.forwarding.set([])).toMatchObject({ forward: [], record: true })
    expect((await listed(b.url)).find((pet) => pet.id === 120)).toEqual(A_PETS[1])
  })
})

describe('a drifted upstream', () => {
  let drifted: Server
  let url: string
  beforeAll(async () => {
    drifted = createServer((_request, response) => {
      response.setHeader('Content-Type', 'application/json')
      response.end(
        JSON.stringify([
          { id: 50, name: 'Kept', categoryId: 1 },
          { id: '51', name: 'A string id', categoryId: 1 },
          { id: 52, name: '', categoryId: 1 },
          { id: 53, name: 'No category' },
          // A name the interface lets through, past the store's 255 characters.
          { id: 54, name: 'x'.repeat(256), categoryId: 1 },
        ]),
      )
    })
    await new Promise<void>((resolve) => drifted.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(drifted.address() as { port: number }).port}/v1`
  })
  afterAll(async () => {
    await new Promise((resolve) => drifted.close(resolve))
  })

  it('keeps only the pets that pass the interface and the store rules, and the journal says why each other was not', async () => {
    const b = await startB(['--upstream', url, '--forward', 'listPets', '--record'])
    const admin = createSandboxClient({ baseUrl: b.url })
    expect((await fetch(`${b.url}/v1/pets`, { headers: AUTH })).status).toBe(200)
    const [entry] = await admin.requests()
    expect(entry?.recorded?.pets).toBe(1)
    const refused = entry?.recorded?.refused ?? []
    expect(refused).toHaveLength(4)
    expect(refused[0]).toMatch(/^item 1 not recorded: .*id/)
    expect(refused[1]).toMatch(/^pet 52 not recorded: .*name/)
    expect(refused[2]).toMatch(/^pet 53 not recorded: .*categoryId/)
    expect(refused[3]).toMatch(/^pet 54 not recorded: name must be at most 255 characters/)
    await admin.forwarding.set([])
    const own = await listed(b.url)
    expect(own.map((pet) => pet.id)).toContain(50)
    expect(own.map((pet) => pet.id)).not.toContain(52)
    expect(own).toHaveLength(33)
  })

  it('records nothing past the createdPets budget, and says so', async () => {
    const b = await startB(['--upstream', url, '--forward', 'listPets', '--record', '--limit', 'createdPets=0'])
    const admin = createSandboxClient({ baseUrl: b.url })
    expect((await fetch(`${b.url}/v1/pets`, { headers: AUTH })).status).toBe(200)
    const [entry] = await admin.requests()
    expect(entry?.recorded?.pets).toBe(0)
    expect(entry?.recorded?.refused.at(-1)).toMatch(/^nothing recorded: .*createdPets/)
    await admin.forwarding.set([])
    expect(await listed(b.url)).toHaveLength(32)
  })
})

describe('--record under --isolate', () => {
  let a: RunningServer
  beforeAll(async () => {
    a = await startServer({ port: 0, fixtures: A_PETS, apiKeys: [KEY, 'alice-key', 'Other_Key9'] })
  })
  afterAll(async () => {
    await a.close()
  })

  it("records a call into its key's data; a call with a key the sandbox refuses records nothing, and says why", async () => {
    // Without --upstream-key the upstream judges the client's key; B reads it only to scope.
    const b = await startB([
      '--upstream',
      a.apiUrl,
      '--forward',
      'listPets',
      '--record',
      '--isolate',
      '--api-key-pattern',
      '^[a-z-]+$',
    ])
    const admin = createSandboxClient({ baseUrl: b.url })
    expect(await listed(b.url, { Authorization: 'Bearer alice-key' })).toEqual(A_PETS)
    // A key B refuses, which A takes: A answers, B records nothing for it.
    expect(await listed(b.url, { Authorization: 'Bearer Other_Key9' })).toEqual(A_PETS)
    const entries = await admin.requests()
    expect(entries[0]?.recorded).toEqual({ pets: 3, refused: [] })
    expect(entries[1]?.recorded).toEqual({
      pets: 0,
      refused: [
        "nothing recorded: under --isolate a call records into its own key's data, and the sandbox itself refuses this call's key (API key is not valid): give the caller a key both the upstream and the sandbox take (--api-key, --api-key-pattern)",
      ],
    })
    await admin.forwarding.set([])
    expect((await listed(b.url, { Authorization: 'Bearer alice-key' })).find((pet) => pet.id === 120)).toEqual(
      A_PETS[1],
    )
    expect((await listed(b.url, { Authorization: 'Bearer bob-key' })).find((pet) => pet.id === 120)).toBeUndefined()
  })
})

describe.skipIf(!needs('chromium'))("the dashboard's record box, in headless Chromium", () => {
  let a: RunningServer
  let b: RunningServer
  let browser: Browser
  beforeAll(async () => {
    a = await startServer({ port: 0, fixtures: A_PETS })
    ;[b, browser] = await Promise.all([
      startServer({ port: 0, upstream: a.apiUrl, forward: ['listPets'] }),
      sharedChromium(),
    ])
  }, 60_000)
  afterAll(async () => {
    await closeSharedContexts()
    await Promise.all([a.close(), b.close()])
  })

  it('switches recording on, and counts the pets recorded', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    await page.goto(`${b.url}/__sandbox/`)
    const box = page.getByLabel("Record the upstream's pets")
    await expect.poll(() => box.isVisible(), { timeout: 10_000, interval: 50 }).toBe(true)
    expect(await box.isChecked()).toBe(false)
    await box.check()
    await expect
      .poll(async () => (await createSandboxClient({ baseUrl: b.url }).forwarding.get()).record, { timeout: 10_000 })
      .toBe(true)
    expect((await fetch(`${b.apiUrl}/pets`, { headers: AUTH })).status).toBe(200)
    // Health, polled every 5 s, brings the count: waited for, not slept on.
    await expect
      .poll(() => page.locator('#recorded').innerText(), { timeout: 15_000, interval: 100 })
      .toMatch(/^3 pets recorded since the start\./)
    await context.close()
  }, 30_000)
})
