/**
 * Issue 41: recording a very large forwarded list works in slices, and the other clients are
 * answered meanwhile. Real processes: an upstream (node:http) serving a list of many pets, the
 * sandbox's CLI in front of it with --record and upstreamBodyBytes raised, and a client asking
 * getPet back to back. No clock bounds anything: the test counts getPet answers that arrive after
 * the upstream has sent its whole list and before the list's own answer reaches its client. A
 * recording that held the event loop would let none through but those of the list's transfer.
 */
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnCli, waitFor, type Cli } from './support/spawn-cli.js'

const AUTH = { Authorization: 'Bearer petstore-sandbox-key' }
const STATUSES = ['available', 'pending', 'sold'] as const
const COUNT = 200_000

function bigList(count: number): Buffer {
  const parts: string[] = []
  for (let id = 1; id <= count; id++) {
    parts.push(`{"id":${id},"name":"Pet ${id}","categoryId":${1 + (id % 7)},"status":"${STATUSES[id % 3]}"}`)
  }
  return Buffer.from(`[${parts.join(',')}]`)
}

describe('--record of a list of 200,000 pets', () => {
  let upstream: Server
  let sent = 0
  let sandbox: Cli
  let url = ''
  const body = bigList(COUNT)

  beforeAll(async () => {
    upstream = createServer((request, response) => {
      request.resume()
      response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.byteLength })
      response.end(body, () => {
        sent = performance.now()
      })
    })
    upstream.listen(0, '127.0.0.1')
    await once(upstream, 'listening')
    const { port } = upstream.address() as AddressInfo
    sandbox = spawnCli([
      ...['--port', '0', '--quiet', '--upstream', `http://127.0.0.1:${port}/v1`, '--forward', 'listPets'],
      ...['--record', '--limit', `upstreamBodyBytes=${32 * 1024 * 1024}`],
    ])
    ;[, url = ''] = await waitFor(sandbox, /listening on (http:\/\/\S+)\/v1/)
  })
  afterAll(async () => {
    sandbox.child.kill('SIGTERM')
    await sandbox.exited
    upstream.close()
  })

  it('keeps every pet, relays the list as sent, and answers other clients while it records', async () => {
    const answered: number[] = []
    const state = { done: false }
    const other = (async () => {
      while (!state.done) {
        const answer = await fetch(`${url}/v1/pets/7`, { headers: AUTH })
        await answer.arrayBuffer()
        expect([200, 404]).toContain(answer.status)
        answered.push(performance.now())
      }
    })()
    const list = await fetch(`${url}/v1/pets`, { headers: AUTH })
    const relayed = Buffer.from(await list.arrayBuffer())
    const listed = performance.now()
    state.done = true
    await other
    expect(list.status).toBe(200)
    expect(relayed.equals(body)).toBe(true)
    expect(sent).toBeGreaterThan(0)
    const meanwhile = answered.filter((at) => at > sent && at < listed).length
    expect(meanwhile).toBeGreaterThanOrEqual(20)

    // Every pet kept, and the journal says so.
    const health = (await (await fetch(`${url}/__sandbox/health`)).json()) as { pets: number }
    expect(health.pets).toBe(COUNT)
    const journal = (await (await fetch(`${url}/__sandbox/requests?operation=listPets`)).json()) as {
      recorded?: { pets: number; refused: string[] }
    }[]
    expect(journal.at(-1)?.recorded).toEqual({ pets: COUNT, refused: [] })
    const last = (await (await fetch(`${url}/__sandbox/forwarding`)).json()) as { recorded: number }
    // The seed's 32 pets were replaced by the upstream's pets of the same ids: all 200,000 changed.
    expect(last.recorded).toBe(COUNT)
  }, 120_000)

  it('answers from the recording once forwarding is off, in id order', async () => {
    const off = await fetch(`${url}/__sandbox/forwarding`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ forward: [] }),
    })
    expect(off.status).toBe(200)
    const pets = (await (await fetch(`${url}/v1/pets?limit=3&status=sold`, { headers: AUTH })).json()) as {
      id: number
      name: string
    }[]
    expect(pets.map((pet) => pet.id)).toEqual([2, 5, 8])
    const one = (await (await fetch(`${url}/v1/pets/199999`, { headers: AUTH })).json()) as { name: string }
    expect(one.name).toBe('Pet 199999')
  })
})
