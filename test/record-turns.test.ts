/**
 * Issue 50: large forwarded answers take turns (src/core/state/turns.ts), one at a time from the
 * answer check through the recording. First createTurns alone; then the built CLI in front of a
 * local upstream that streams a list of 15,000 pets (about 1 MB) in 256 KiB chunks, with
 * --forward listPets --record, asked for the list four times at once while another client asks
 * getPet back to back. The four must each get the whole list, every getPet a 200, and the data
 * each pet once, with health's `recorded` at the list's length, not a multiple of it.
 *
 * Why `recorded` and not the data: the store merges by id (api/record.ts, mergeById), so the data
 * holds each pet once with or without turns; what four recordings at once got wrong is the count.
 * Each compared the list with the store before any of them had merged, found every pet new, and
 * added it to health's and GET /__sandbox/forwarding's `recorded` (keep.ts): about four times the
 * list. The comparison only yields between slices of 5,000 pets (PETS_PER_SLICE), so a list of a
 * few thousand is compared and merged in one step, and four such recordings count it once even
 * without turns: hence 15,000 pets here. Nothing is timed and nothing sleeps: each wait is for
 * an answer or an event.
 *
 * How sure each part is: with take() resolving at once for everyone, the createTurns test fails
 * every time. The end-to-end test failed in 6 of 11 runs (`recorded` 24,998 to 39,998 for 15,000):
 * the sandbox reads the four answers' ends between the first one's slices, so whether two
 * recordings overlap is up to timing. It catches the double counting only when they overlap.
 */
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTurns, type Release } from '../src/core/state/turns.js'
import { SLICED_FROM_LENGTH } from '../src/core/http/json-body.js'
import { spawnCli, waitFor, type Cli } from './support/spawn-cli.js'

const AUTH = { Authorization: 'Bearer petstore-sandbox-key' }
const STATUSES = ['available', 'pending', 'sold'] as const
const COUNT = 15_000
const AT_ONCE = 4
const CHUNK = 256 * 1024
const MiB = 1024 * 1024

/** Lets every promise callback queued so far run (a macrotask: all microtasks go first). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('createTurns', () => {
  it('gives the turn to one holder at a time, the waiters first come first served', async () => {
    const turns = createTurns()
    expect(turns.busy).toBe(0)
    const order: string[] = []
    const releases = new Map<string, Release>()
    const take = (name: string) =>
      turns.take().then((release) => {
        order.push(name)
        releases.set(name, release)
      })
    const a = take('a')
    const b = take('b')
    const c = take('c')
    await settle()
    // The first holds it; the other two wait, in line.
    expect(order).toEqual(['a'])
    expect(turns.busy).toBe(3)
    await a
    const d = take('d')
    await settle()
    expect(order).toEqual(['a'])
    expect(turns.busy).toBe(4)

    releases.get('a')?.()
    await b
    await settle()
    expect(order).toEqual(['a', 'b'])
    expect(turns.busy).toBe(3)

    // A second release of a's turn gives nothing away: b still holds it alone.
    releases.get('a')?.()
    await settle()
    expect(order).toEqual(['a', 'b'])
    expect(turns.busy).toBe(3)

    releases.get('b')?.()
    await c
    releases.get('b')?.()
    await settle()
    expect(order).toEqual(['a', 'b', 'c'])
    expect(turns.busy).toBe(2)

    releases.get('c')?.()
    await d
    expect(order).toEqual(['a', 'b', 'c', 'd'])
    expect(turns.busy).toBe(1)
    releases.get('d')?.()
    releases.get('d')?.()
    expect(turns.busy).toBe(0)

    // Free again: the next taker holds it at once, and its release frees it.
    const again = await turns.take()
    expect(turns.busy).toBe(1)
    const e = take('e')
    await settle()
    expect(order).toEqual(['a', 'b', 'c', 'd'])
    again()
    await e
    expect(order).toEqual(['a', 'b', 'c', 'd', 'e'])
    releases.get('e')?.()
    expect(turns.busy).toBe(0)
  })

  it('keeps turns apart per queue', async () => {
    const one = createTurns()
    const two = createTurns()
    const held = await one.take()
    let got = false
    const other = two.take().then((release) => {
      got = true
      return release
    })
    await settle()
    expect(got).toBe(true)
    ;(await other)()
    held()
    expect(one.busy + two.busy).toBe(0)
  })
})

interface Pet {
  id: number
  name: string
  categoryId: number
  status?: string
}

/** The upstream's list: names unlike the seed's, so every one of the seed's ids 1-32 changes too. */
function upstreamPets(): Pet[] {
  const pets: Pet[] = []
  for (let id = 1; id <= COUNT; id++) {
    pets.push({ id, name: `Upstream pet ${id}`, categoryId: 1 + (id % 7), status: STATUSES[id % 3] ?? 'sold' })
  }
  return pets
}

describe(`--record of ${AT_ONCE} large listPets answers at once`, () => {
  const pets = upstreamPets()
  const body = Buffer.from(JSON.stringify(pets))
  let upstream: Server
  let asked = 0
  let sandbox: Cli
  let url = ''

  beforeAll(async () => {
    // In 256 KiB chunks, each after the last is taken (as bench/record-large.mjs streams it); the
    // last chunk of each list waits until all four have been asked, so the four answers reach
    // the sandbox close together and, but for turns, their checks and recordings overlap.
    const held: (() => void)[] = []
    upstream = createServer((request, response) => {
      request.resume()
      if (request.method !== 'GET' || !request.url?.startsWith('/v1/pets')) {
        response.writeHead(404).end()
        return
      }
      asked++
      response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.byteLength })
      void (async () => {
        const last = body.byteLength - CHUNK
        for (let at = 0; at < last; at += CHUNK) {
          if (!response.write(body.subarray(at, Math.min(at + CHUNK, last)))) await once(response, 'drain')
        }
        held.push(() => response.end(body.subarray(last)))
        if (held.length === AT_ONCE) for (const end of held.splice(0)) end()
      })()
    })
    upstream.listen(0, '127.0.0.1')
    await once(upstream, 'listening')
    const { port } = upstream.address() as AddressInfo
    sandbox = spawnCli([
      ...['--port', '0', '--quiet', '--upstream', `http://127.0.0.1:${port}/v1`, '--forward', 'listPets'],
      ...['--record', '--limit', `upstreamBodyBytes=${4 * MiB}`],
    ])
    ;[, url = ''] = await waitFor(sandbox, /listening on (http:\/\/\S+)\/v1/)
  })
  afterAll(async () => {
    sandbox.child.kill('SIGTERM')
    await sandbox.exited
    upstream.close()
  })

  it('relays each whole list, answers getPet throughout, and records each pet once', async () => {
    // Large enough to be checked and recorded in slices, taking turns; over the default cap.
    expect(body.byteLength).toBeGreaterThan(2 * SLICED_FROM_LENGTH)
    expect(body.byteLength).toBeGreaterThan(1 * MiB)

    const probes: number[] = []
    const state = { done: false }
    const prober = (async () => {
      while (!state.done) {
        const answer = await fetch(`${url}/v1/pets/7`, { headers: AUTH })
        await answer.arrayBuffer()
        probes.push(answer.status)
      }
    })()
    const lists = await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        const answer = await fetch(`${url}/v1/pets`, { headers: AUTH })
        return { status: answer.status, body: Buffer.from(await answer.arrayBuffer()) }
      }),
    )
    state.done = true
    await prober

    expect(asked).toBe(AT_ONCE)
    expect(lists.map((list) => list.status)).toEqual(Array(AT_ONCE).fill(200))
    for (const list of lists) expect(list.body.equals(body)).toBe(true)
    expect(probes.length).toBeGreaterThan(0)
    expect(probes.filter((status) => status !== 200)).toEqual([])

    // Each recording kept every pet of its list (the journal's `recorded` counts those kept,
    // changed or not)...
    const journal = (await (await fetch(`${url}/__sandbox/requests?operation=listPets`)).json()) as {
      status: number
      forwarded: boolean
      recorded?: { pets: number; refused: string[] }
    }[]
    expect(journal).toHaveLength(AT_ONCE)
    for (const entry of journal) {
      expect(entry).toMatchObject({ status: 200, forwarded: true, recorded: { pets: COUNT, refused: [] } })
    }

    // ...but the pets recorded (new or changed) are the list's, once: the first recording wrote
    // them all and the three after it found them there already.
    const health = (await (await fetch(`${url}/__sandbox/health`)).json()) as {
      pets: number
      upstream: { recorded: number } | null
    }
    const forwarding = (await (await fetch(`${url}/__sandbox/forwarding`)).json()) as { recorded: number }
    expect({ pets: health.pets, recorded: health.upstream?.recorded, forwarding: forwarding.recorded }).toEqual({
      pets: COUNT,
      recorded: COUNT,
      forwarding: COUNT,
    })

    // The data holds each of the upstream's pets exactly once, as sent, in id order.
    const exported = (await (await fetch(`${url}/__sandbox/state`)).json()) as { pets: Pet[]; nextId: number }
    expect(exported.pets).toHaveLength(COUNT)
    expect(new Set(exported.pets.map((pet) => pet.id)).size).toBe(COUNT)
    expect(exported.pets).toEqual(pets)
    expect(exported.nextId).toBe(COUNT + 1)
  }, 120_000)

  it('answers from the recording once forwarding is off', async () => {
    const off = await fetch(`${url}/__sandbox/forwarding`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ forward: [] }),
    })
    expect(off.status).toBe(200)
    const first = (await (await fetch(`${url}/v1/pets?limit=3`, { headers: AUTH })).json()) as Pet[]
    expect(first.map((pet) => pet.name)).toEqual(['Upstream pet 1', 'Upstream pet 2', 'Upstream pet 3'])
    const last = (await (await fetch(`${url}/v1/pets/${COUNT}`, { headers: AUTH })).json()) as Pet
    expect(last).toEqual(pets.at(-1))
    // Asked again with forwarding off, the upstream is not: it answered the four lists only.
    expect(asked).toBe(AT_ONCE)
  })
})
