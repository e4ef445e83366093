/**
 * One state format (issue 43, item 5): the dashboard's download (`GET /__sandbox/state`), a
 * `--state-file`, and a sandbox's `exportState()` are the same document, and each starts or loads
 * into the others, checkpoints included; the older `{pets, nextId}` is still taken where a state
 * is given; `--fixtures` given a state starts from its pets and says so in one line; every state
 * refused is refused whole, with the field or the budget named, and changes nothing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createSandboxCore, StateError } from '../src/index.js'
import { startServer, type RunningServer } from '../src/server.js'
import { createSandboxClient } from '../src/client.js'
import { readFixturesFile } from '../src/node/fixtures-file.js'
import { spawnCli, waitFor, type Cli } from './support/spawn-cli.js'

const AUTH = { Authorization: 'Bearer petstore-sandbox-key' }
const JSON_BODY = { 'Content-Type': 'application/json' }

interface Document {
  version: number
  savedAt: string
  nextId: number
  pets: { id: number; name: string; categoryId: number; status?: string }[]
  checkpoints: { name: string; savedAt: string; nextId: number; scenarios?: unknown[]; pets: unknown[] }[]
}

const folders: string[] = []
const processes: Cli[] = []
const servers: RunningServer[] = []

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

afterAll(async () => {
  for (const cli of processes)
    if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL')
  await Promise.all(processes.map((cli) => cli.exited))
  for (const folder of folders) rmSync(folder, { recursive: true, force: true })
})

function fileIn(name: string, text?: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'petstore-format-'))
  folders.push(folder)
  const path = join(folder, name)
  if (text !== undefined) writeFileSync(path, text)
  return path
}

/** The CLI as users run it, from the build; answers its origin once it listens. */
async function cli(args: string[]): Promise<{ cli: Cli; url: string }> {
  const started = spawnCli(['--port', '0', '--quiet', ...args])
  processes.push(started)
  const [, url = ''] = await waitFor(started, /listening on (http:\/\/\S+)\/v1/)
  return { cli: started, url }
}

async function stop(started: Cli): Promise<void> {
  started.child.kill('SIGTERM')
  expect(await started.exited).toBe(0)
}

async function server(options: Parameters<typeof startServer>[0] = {}): Promise<RunningServer> {
  const started = await startServer({ port: 0, ...options })
  servers.push(started)
  return started
}

const download = async (url: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${url}/__sandbox/state`, { headers })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toBe('application/json')
  return { text: await response.text() }
}
const documentAt = async (url: string, headers: Record<string, string> = {}) =>
  JSON.parse((await download(url, headers)).text) as Document

/** A document without its `savedAt`, which is the time of each download. */
const withoutSavedAt = ({ savedAt: _, ...rest }: Document) => rest

const upload = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/__sandbox/state`, { method: 'PUT', headers: { ...JSON_BODY, ...headers }, body })

async function createPet(url: string, name: string, headers: Record<string, string> = AUTH): Promise<void> {
  const response = await fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: { ...headers, ...JSON_BODY },
    body: JSON.stringify({ name, categoryId: 2 }),
  })
  expect(response.status).toBe(201)
}

async function checkpoint(url: string, body: unknown, headers: Record<string, string> = {}): Promise<void> {
  const response = await fetch(`${url}/__sandbox/checkpoints`, {
    method: 'POST',
    headers: { ...JSON_BODY, ...headers },
    body: JSON.stringify(body),
  })
  expect(response.status).toBe(201)
}

/** A server with a story: two pets made, a checkpoint with a scenario, a third pet after it. */
async function rehearsed(): Promise<RunningServer> {
  const started = await server()
  await createPet(started.url, 'Rehearsed')
  await createPet(started.url, 'Also rehearsed')
  started.sandbox.scenarios.add({ operation: 'listPets', delayMs: 1500 })
  await checkpoint(started.url, { name: 'before-checkout', scenarios: true })
  await createPet(started.url, 'On stage')
  return started
}

describe('the state document', () => {
  it('is what GET /__sandbox/state answers: the version, the pets, the next id and the checkpoints', async () => {
    const started = await rehearsed()
    const document = await documentAt(started.url)
    expect(Object.keys(document)).toEqual(['version', 'savedAt', 'nextId', 'pets', 'checkpoints'])
    expect(document).toMatchObject({ version: 1, nextId: 36 })
    expect(document.savedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(document.pets.slice(-3).map((pet) => pet.name)).toEqual(['Rehearsed', 'Also rehearsed', 'On stage'])
    expect(document.checkpoints).toEqual([
      {
        name: 'before-checkout',
        savedAt: expect.any(String) as unknown,
        nextId: 35,
        scenarios: [{ operation: 'listPets', delayMs: 1500 }],
        pets: expect.any(Array) as unknown,
      },
    ])
    expect(document.checkpoints[0]?.pets).toHaveLength(34)
    // The admin client reads the same document.
    const exported = await createSandboxClient({ baseUrl: started.url }).state.export()
    expect(withoutSavedAt(exported as Document)).toEqual(withoutSavedAt(document))
  })

  it('downloaded, starts a server with --state-file: the same pets, next id and checkpoints', async () => {
    const started = await rehearsed()
    const { text } = await download(started.url)
    const file = fileIn('petstore-state.json', text)
    const restarted = await cli(['--state-file', file])
    expect(withoutSavedAt(await documentAt(restarted.url))).toEqual(withoutSavedAt(JSON.parse(text) as Document))
    // The checkpoint rewinds there as it did here: its pets, its next id and its scenario.
    const rewound = await fetch(`${restarted.url}/__sandbox/checkpoints/before-checkout/restore`, { method: 'POST' })
    expect(rewound.status).toBe(204)
    expect((await documentAt(restarted.url)).nextId).toBe(35)
    const scenarios = (await (await fetch(`${restarted.url}/__sandbox/scenarios`)).json()) as unknown[]
    expect(scenarios).toMatchObject([{ operation: 'listPets', delayMs: 1500 }])
    await stop(restarted.cli)
  })

  it("from a --state-file loads into another sandbox, and a sandbox's export starts a server", async () => {
    // A server's file, as --state-file wrote it, loads into an in-process (browser-safe) sandbox.
    const file = fileIn('demo.json')
    const first = await cli(['--state-file', file])
    await createPet(first.url, 'From the server')
    await checkpoint(first.url, { name: 'act-1' })
    await stop(first.cli)
    const written = readFileSync(file, 'utf8')
    const page = createSandboxCore()
    await page.importState(written)
    expect(withoutSavedAt(JSON.parse(await page.exportState()) as Document)).toEqual(
      withoutSavedAt(JSON.parse(written) as Document),
    )
    expect((await page.checkpoints()).map((saved) => saved.name)).toEqual(['act-1'])

    // What it makes next, exported, starts a server as it is.
    await page.pets.create({ name: 'Made in the page', categoryId: 3 })
    await page.checkpoint('act-2')
    const exported = await page.exportState()
    const restarted = await cli(['--state-file', fileIn('exported.json', exported)])
    const served = await documentAt(restarted.url)
    expect(withoutSavedAt(served)).toEqual(withoutSavedAt(JSON.parse(exported) as Document))
    expect(served.pets.slice(-2).map((pet) => pet.name)).toEqual(['From the server', 'Made in the page'])
    expect(served.checkpoints.map((saved) => saved.name)).toEqual(['act-1', 'act-2'])
    await stop(restarted.cli)
  })

  it('uploaded (PUT), replaces the pets, the next id and the checkpoints', async () => {
    const source = await rehearsed()
    const { text } = await download(source.url)
    const target = await server()
    await checkpoint(target.url, { name: 'replaced' })
    expect((await upload(target.url, text)).status).toBe(204)
    expect(withoutSavedAt(await documentAt(target.url))).toEqual(withoutSavedAt(JSON.parse(text) as Document))
  })

  it("under --isolate is the calling key's: its data and its checkpoints", async () => {
    const started = await server({ isolate: true })
    const asA = { Authorization: 'Bearer key-a' }
    await createPet(started.url, 'A only', asA)
    await checkpoint(started.url, { name: 'a-point' }, asA)
    const ofA = await documentAt(started.url, asA)
    expect(ofA.pets.at(-1)?.name).toBe('A only')
    expect(ofA.checkpoints.map((saved) => saved.name)).toEqual(['a-point'])
    const ofB = await documentAt(started.url, { Authorization: 'Bearer key-b' })
    expect(ofB.pets).toHaveLength(32)
    expect(ofB.checkpoints).toEqual([])
    // Uploaded as key-b: key-b's data and checkpoints, key-a's left as they were.
    const asB = { Authorization: 'Bearer key-b' }
    expect((await upload(started.url, JSON.stringify(ofA), asB)).status).toBe(204)
    expect(withoutSavedAt(await documentAt(started.url, asB))).toEqual(withoutSavedAt(ofA))
    expect(withoutSavedAt(await documentAt(started.url, asA))).toEqual(withoutSavedAt(ofA))
  })
})

describe('the older download, {pets, nextId}', () => {
  const older = (document: Document) => JSON.stringify({ pets: document.pets, nextId: document.nextId })

  it('is taken by PUT: the pets and the next id replaced, the checkpoints left as they are', async () => {
    const source = await rehearsed()
    const state = older(await documentAt(source.url))
    const target = await server()
    await checkpoint(target.url, { name: 'kept' })
    expect((await upload(target.url, state)).status).toBe(204)
    const after = await documentAt(target.url)
    expect({ pets: after.pets, nextId: after.nextId }).toEqual(JSON.parse(state))
    expect(after.checkpoints.map((saved) => saved.name)).toEqual(['kept'])
    expect(after.checkpoints[0]?.pets).toHaveLength(32)
  })

  it('starts a server with --state-file, with no checkpoints, and the file is written as a document at its first save', async () => {
    const source = await rehearsed()
    const state = older(await documentAt(source.url))
    const file = fileIn('older.json', state)
    const started = await cli(['--state-file', file])
    const document = await documentAt(started.url)
    expect({ pets: document.pets, nextId: document.nextId }).toEqual(JSON.parse(state))
    expect(document.checkpoints).toEqual([])
    // Left as it is until the data changes...
    expect(readFileSync(file, 'utf8')).toBe(state)
    await createPet(started.url, 'After the start')
    await stop(started.cli)
    // ...then saved in the one format.
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Document
    expect(saved).toMatchObject({ version: 1, nextId: 37, checkpoints: [] })
    expect(saved.pets.at(-1)?.name).toBe('After the start')
  })
})

describe('--fixtures given a state', () => {
  it('starts from its pets as the seed, and says in one line what it leaves and which flag keeps it', async () => {
    const source = await rehearsed()
    const { text } = await download(source.url)
    const file = fileIn('state.json', text)
    const started = await cli(['--fixtures', file])
    const document = await documentAt(started.url)
    expect(document.pets).toEqual((JSON.parse(text) as Document).pets)
    expect(document.nextId).toBe(36)
    expect(document.checkpoints).toEqual([])
    // The seed: a reset comes back to these pets.
    await createPet(started.url, 'Then more')
    expect((await fetch(`${started.url}/__sandbox/reset`, { method: 'POST' })).status).toBe(204)
    expect((await documentAt(started.url)).pets).toEqual(document.pets)
    await stop(started.cli)
    expect(started.cli.stderr()).toBe(
      `petstore-sandbox: ${file} is a saved state, not a list of pets: its 35 pets are the seed (a reset comes back to them); its nextId and its checkpoints (1) are not loaded: --state-file ${file} starts from the whole state\n`,
    )
  })

  it('names a bad pet of the state as it names one of a fixtures array', async () => {
    const file = fileIn('bad.json', '{"pets": [{"id": 1, "name": "", "categoryId": 1}], "nextId": 2}')
    const said: string[] = []
    await expect(readFixturesFile(file, (line) => said.push(line))).rejects.toThrow(
      `Invalid fixtures file ${file} (the pets of a saved state): entry 0 (id 1): name`,
    )
    expect(said).toEqual([])
  })
})

describe('a state refused', () => {
  const bad: [string, unknown, string][] = [
    ['a newer version', { version: 2, nextId: 33, pets: [], checkpoints: [] }, 'version must be 1, got 2'],
    ['no version with checkpoints', { nextId: 1, pets: [], checkpoints: [] }, 'version must be 1, got nothing'],
    [
      'an unknown field',
      { version: 1, nextId: 1, pets: [], checkpoints: [], scenarios: [] },
      'unknown field scenarios',
    ],
    [
      'a bad pet',
      { version: 1, nextId: 2, pets: [{ id: 1, name: 'Rex', categoryId: 'x' }], checkpoints: [] },
      'pets.0.categoryId',
    ],
    ['checkpoints not a list', { version: 1, nextId: 1, pets: [], checkpoints: {} }, 'checkpoints must be an array'],
    [
      'a savedAt whose day does not exist (as the now option refuses it)',
      { version: 1, savedAt: '2031-02-30T09:00:00.000Z', nextId: 1, pets: [], checkpoints: [] },
      'savedAt must be a date (ISO 8601), got "2031-02-30T09:00:00.000Z"',
    ],
    [
      'a bad checkpoint name',
      {
        version: 1,
        nextId: 1,
        pets: [],
        checkpoints: [{ name: '-x', savedAt: '2026-11-25T09:12:44.000Z', nextId: 1, pets: [] }],
      },
      'checkpoints.0.name must be 1 to 64 letters',
    ],
    [
      "a checkpoint's bad pet",
      {
        version: 1,
        nextId: 1,
        pets: [],
        checkpoints: [{ name: 'a', savedAt: '2026-11-25T09:12:44.000Z', nextId: 1, pets: [{ id: 5 }] }],
      },
      'checkpoints.0.pets.0.name',
    ],
    [
      "a checkpoint's bad scenario",
      {
        version: 1,
        nextId: 1,
        pets: [],
        checkpoints: [
          { name: 'a', savedAt: '2026-11-25T09:12:44.000Z', nextId: 1, pets: [], scenarios: [{ status: 418 }] },
        ],
      },
      'checkpoints.0.scenarios.0.status',
    ],
    [
      'the older shape with a bad next id',
      { pets: [{ id: 4, name: 'Rex', categoryId: 1 }], nextId: 2 },
      'nextId must be greater than the highest id, 4',
    ],
    ['an array', [], 'body must be a JSON object, got an array'],
  ]

  it.each(bad)('over PUT (%s): 400 naming the field, and nothing changed', async (_, body, named) => {
    const started = await rehearsed()
    const before = withoutSavedAt(await documentAt(started.url))
    const response = await upload(started.url, JSON.stringify(body))
    expect(response.status).toBe(400)
    const error = (await response.json()) as { code: string; message: string; status: number }
    expect(error).toMatchObject({ code: 'invalid_body', status: 400 })
    expect(error.message).toContain(named)
    expect(withoutSavedAt(await documentAt(started.url))).toEqual(before)
  })

  it.each(bad)('in-process (%s): a StateError naming the field, and nothing changed', async (_, body, named) => {
    const sandbox = createSandboxCore()
    await sandbox.checkpoint('kept')
    const before = withoutSavedAt(JSON.parse(await sandbox.exportState()) as Document)
    const refused = sandbox.importState(JSON.stringify(body))
    await expect(refused).rejects.toThrow(StateError)
    await expect(refused).rejects.toThrow(named.replace(/^body /, 'state '))
    expect(withoutSavedAt(JSON.parse(await sandbox.exportState()) as Document)).toEqual(before)
  })

  it('past the checkpoints budget: 507 naming it, and nothing changed', async () => {
    const source = await rehearsed()
    await checkpoint(source.url, { name: 'second' })
    const { text } = await download(source.url)
    const target = await server({ limits: { checkpoints: 1 } })
    await checkpoint(target.url, { name: 'kept' })
    const before = withoutSavedAt(await documentAt(target.url))
    const response = await upload(target.url, text)
    expect(response.status).toBe(507)
    expect(((await response.json()) as { message: string }).message).toMatch(
      /^checkpoints holds 2, more than the checkpoints limit \(1\)/,
    )
    expect(withoutSavedAt(await documentAt(target.url))).toEqual(before)
  })

  it("past the checkpointBytes budget, the other keys' checkpoints counted: 507 naming it, and nothing changed", async () => {
    // What a checkpoint of the seed weighs, measured: the budget then holds one and a half.
    const measure = await server()
    await checkpoint(measure.url, { name: 'seed' })
    const [{ bytes } = { bytes: 0 }] = (await (await fetch(`${measure.url}/__sandbox/checkpoints`)).json()) as {
      bytes: number
    }[]
    const max = Math.floor(bytes * 1.5)
    const started = await server({ isolate: true, limits: { checkpointBytes: max } })
    const asA = { Authorization: 'Bearer key-a' }
    const asB = { Authorization: 'Bearer key-b' }
    await checkpoint(started.url, { name: 'a-point' }, asA)
    const ofA = await documentAt(started.url, asA)
    const before = withoutSavedAt(await documentAt(started.url, asB))
    const response = await upload(started.url, JSON.stringify(ofA), asB)
    expect(response.status).toBe(507)
    expect(((await response.json()) as { message: string }).message).toContain(`the checkpointBytes limit, ${max}`)
    expect(withoutSavedAt(await documentAt(started.url, asB))).toEqual(before)
    // Key a's own upload gives its checkpoint's bytes back first: it fits.
    expect((await upload(started.url, JSON.stringify(ofA), asA)).status).toBe(204)
  })

  it('in-process, text past stateBytes or not JSON: a StateError naming it, and nothing changed', async () => {
    const sandbox = createSandboxCore({ limits: { stateBytes: 64 } })
    const before = await sandbox.exportState()
    await expect(sandbox.importState(before)).rejects.toThrow(
      new RegExp(
        `^state is ${new TextEncoder().encode(before).byteLength} bytes, more than the stateBytes limit \\(64\\)`,
      ),
    )
    await expect(sandbox.importState('{"pets": [')).rejects.toThrow(StateError)
    expect(withoutSavedAt(JSON.parse(await sandbox.exportState()) as Document)).toEqual(
      withoutSavedAt(JSON.parse(before) as Document),
    )
  })
})
