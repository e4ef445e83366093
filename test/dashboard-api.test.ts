/**
 * The admin routes the dashboard reads: the whole store page by page, the tenants by handle,
 * the per-second traffic counters, and the live event stream.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startServer, type RunningServer } from '../src/server.js'
import { checkedFetch } from './support/openapi-check.js'
import { eventText } from './support/event-stream.js'

const KEY = 'petstore-sandbox-key'
const AUTH = { Authorization: `Bearer ${KEY}` }
const JSON_TYPE = { 'Content-Type': 'application/json' }

interface Page {
  total: number
  offset: number
  limit: number
  pets: { id: number; created: boolean; status?: string }[]
}

describe('GET /__sandbox/pets', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ port: 0, generate: 100_000, randomSeed: 3 })
  })
  afterAll(() => server.close())

  it('pages through the whole store, past the API limit of 100', async () => {
    const first = (await (await checkedFetch(`${server.url}/__sandbox/pets?limit=1000`)).json()) as Page
    expect(first).toMatchObject({ total: 100_000, offset: 0, limit: 1000 })
    expect(first.pets.map((pet) => pet.id)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1))
    const last = (await (await checkedFetch(`${server.url}/__sandbox/pets?offset=99990&limit=50`)).json()) as Page
    expect(last.pets.map((pet) => pet.id)).toEqual(Array.from({ length: 10 }, (_, i) => 99_991 + i))
  })

  it('marks pets created since the last reset, after the seed, and filters by status', async () => {
    await fetch(`${server.apiUrl}/pets`, {
      method: 'POST',
      headers: { ...AUTH, ...JSON_TYPE },
      body: '{"name":"New","categoryId":1,"status":"sold"}',
    })
    const page = (await (await checkedFetch(`${server.url}/__sandbox/pets?offset=99999&limit=5`)).json()) as Page
    expect(page.total).toBe(100_001)
    expect(page.pets).toEqual([
      expect.objectContaining({ id: 100_000, created: false }),
      { id: 100_001, name: 'New', categoryId: 1, status: 'sold', created: true },
    ])
    const sold = (await (await checkedFetch(`${server.url}/__sandbox/pets?status=sold&limit=1000`)).json()) as Page
    expect(sold.pets.every((pet) => pet.status === 'sold')).toBe(true)
    await server.sandbox.reset()
  })

  it.each([
    ['limit=0', 'limit must be an integer from 1 to 1000, got "0"'],
    ['limit=1001', 'limit must be an integer from 1 to 1000, got "1001"'],
    ['offset=-1', 'offset must be an integer from 0'],
    ['status=lost', 'status must be one of available, pending, sold, got "lost"'],
    ['tenant=t99', 'tenant "t99" does not exist'],
  ])('refuses %s with a 400 naming it', async (query, message) => {
    const response = await checkedFetch(`${server.url}/__sandbox/pets?${query}`)
    expect(response.status).toBe(400)
    expect(((await response.json()) as { message: string }).message).toContain(message)
  })
})

describe('tenants, traffic and events', () => {
  let server: RunningServer
  beforeAll(async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    server = await startServer({ port: 0, isolate: true })
  })
  afterAll(async () => {
    await server.close()
    vi.restoreAllMocks()
  })

  it('tells keys that differ only at the end apart, and lists the default key first', async () => {
    const isolated = await startServer({ port: 0, isolate: true })
    try {
      for (const key of ['worker-2', 'worker-1']) {
        const answer = await fetch(`${isolated.apiUrl}/pets?limit=1`, { headers: { Authorization: `Bearer ${key}` } })
        expect(answer.status).toBe(200)
      }
      // The default key's tenant is used last, so the least recently used order alone would list it last.
      expect(
        (await fetch(`${isolated.apiUrl}/pets?limit=1`, { headers: { Authorization: `Bearer ${KEY}` } })).status,
      ).toBe(200)
      const tenants = (await (await fetch(`${isolated.url}/__sandbox/tenants`)).json()) as { label: string }[]
      expect(tenants.map((tenant) => tenant.label)).toEqual([
        'default',
        'wo*****2 (8 characters)',
        'wo*****1 (8 characters)',
      ])
    } finally {
      await isolated.close()
    }
  })

  it('lists tenants by handle with the key masked, and scopes admin routes by ?tenant=', async () => {
    await fetch(`${server.apiUrl}/pets`, {
      method: 'POST',
      headers: { Authorization: 'Bearer worker-secret-7', ...JSON_TYPE },
      body: '{"name":"Mine","categoryId":2}',
    })
    const tenants = (await (await checkedFetch(`${server.url}/__sandbox/tenants`)).json()) as {
      id: string
      label: string
      pets: number
      createdSinceReset: number
    }[]
    expect(JSON.stringify(tenants)).not.toContain('worker-secret-7')
    const worker = tenants.find((tenant) => tenant.label !== 'default')
    expect(worker).toMatchObject({ label: 'work********-7 (15 characters)', pets: 33, createdSinceReset: 1 })
    const page = (await (
      await checkedFetch(`${server.url}/__sandbox/pets?offset=32&tenant=${worker?.id ?? ''}`)
    ).json()) as Page
    expect(page.pets).toEqual([{ id: 33, name: 'Mine', categoryId: 2, created: true }])
    // Given twice, even as the same handle, ?tenant= is refused as any repeated parameter is, and
    // the reset changes nothing.
    const twice = await fetch(`${server.url}/__sandbox/reset?tenant=${worker?.id ?? ''}&tenant=${worker?.id ?? ''}`, {
      method: 'POST',
    })
    expect(twice.status).toBe(400)
    expect(await twice.json()).toEqual({
      code: 'invalid_parameter',
      message: 'tenant must be given at most once, got 2 values',
      status: 400,
    })
    expect(await server.sandbox.tenant('worker-secret-7').count()).toBe(33)
    expect((await fetch(`${server.url}/__sandbox/reset?tenant=${worker?.id ?? ''}`, { method: 'POST' })).status).toBe(
      204,
    )
    expect(await server.sandbox.tenant('worker-secret-7').count()).toBe(32)
    expect(await server.sandbox.tenant(KEY).count()).toBe(32)
  })

  it('counts API requests per second by status class', async () => {
    // A server of its own: the other tests' requests would count too.
    const counting = await startServer({ port: 0 })
    try {
      await fetch(`${counting.apiUrl}/pets`, { headers: AUTH })
      await fetch(`${counting.apiUrl}/pets`)
      await fetch(`${counting.apiUrl}/pets/1`, { headers: AUTH })
      const traffic = (await (await checkedFetch(`${counting.url}/__sandbox/traffic`)).json()) as {
        seconds: number
        series: { t: number; c2xx: number; c4xx: number; c5xx: number }[]
      }
      expect(traffic.seconds).toBe(300)
      expect(traffic.series).toHaveLength(300)
      const totals = traffic.series.reduce(
        (sum, second) => ({ ok: sum.ok + second.c2xx, bad: sum.bad + second.c4xx, failed: sum.failed + second.c5xx }),
        { ok: 0, bad: 0, failed: 0 },
      )
      expect(totals).toEqual({ ok: 2, bad: 1, failed: 0 })
    } finally {
      await counting.close()
    }
  })

  it('streams each request and each change as server-sent events', async () => {
    const controller = new AbortController()
    const response = await fetch(`${server.url}/__sandbox/events`, { signal: controller.signal })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const events = eventText(response)
    const { until } = events
    await until(/: connected/)
    await fetch(`${server.apiUrl}/pets`, {
      method: 'POST',
      headers: { Authorization: 'Bearer streamer-1', ...JSON_TYPE },
      body: '{"name":"Live","categoryId":1}',
    })
    await until(/event: change\ndata: \{"tenant":"t-[0-9a-f]{16}"\}/)
    await until(/event: request\ndata: .*"operation":"createPet"/)
    const request = /event: request\ndata: (.*)\n/.exec(events.text())?.[1] ?? '{}'
    expect(JSON.parse(request)).toMatchObject({
      method: 'POST',
      status: 201,
      tenant: 'st*******1 (10 characters)',
      headers: expect.objectContaining({ authorization: 'Bearer [redacted]' }) as unknown,
    })
    expect(events.text()).not.toContain('streamer-1')
    controller.abort()
  })

  it('ends open event streams at once when the server closes', async () => {
    const closing = await startServer({ port: 0 })
    const response = await fetch(`${closing.url}/__sandbox/events`)
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    await reader.read()
    await closing.close()
    for (;;) {
      const { done } = await reader.read()
      if (done) break
    }
    expect(closing.inFlight()).toBe(0)
  })
})
