/**
 * The one budget table: the Limits table of docs/security-and-limits.md is it, health reports
 * each budget beside its use, and the pools it bounds (journal, list cache, created pets, tenants,
 * large bodies, event readers) hold their budgets under load, in-process and over HTTP.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it, vi } from 'vitest'
import { createSandbox, LIMITS, type Sandbox } from '../src/index.js'
import { startServer } from '../src/server.js'
import { createListCache } from '../src/core/api/list-cache.js'
import { createJournal } from '../src/core/state/request-journal.js'
import { createNotices } from '../src/core/admin/notices.js'
import { readJson, readJsonInSlices } from '../src/core/http/json.js'
import { checkStoreState } from '../src/core/api/contract.js'
import { sendTo } from './support/in-process.js'
import { refusal } from './support/cli-in-process.js'
import { spawnCli } from './support/spawn-cli.js'

const KEY = 'petstore-sandbox-key'

type Health = { limits: Record<string, { budget: number; used: number | null; unit: string }> }

const send = sendTo

const health = async (sandbox: Sandbox) =>
  (await (await send(sandbox, undefined, 'GET', '/__sandbox/health')).json()) as Health

describe('the Limits table of docs/security-and-limits.md', () => {
  const page = readFileSync(new URL('../docs/security-and-limits.md', import.meta.url), 'utf8')
  const start = page.indexOf('## Limits and caps')
  const next = page.indexOf('\n## ', start + 1)
  const section = start === -1 ? '' : page.slice(start, next === -1 ? undefined : next)
  const rows = [...section.matchAll(/^\| `(\w+)` +\| ([^|]+) \|/gm)].map((match) => [match[1], match[2]?.trim()])

  // The table's own way of writing a value: 16 KiB, 16 MiB, 1,000, 10,000 ms, 8,192 characters.
  const written = (value: number, unit: string): string => {
    if (unit === 'bytes') {
      if (value % (1024 * 1024) === 0) return `${value / 1024 / 1024} MiB`
      if (value % 1024 === 0) return `${value / 1024} KiB`
      return `${value} bytes`
    }
    const number = value.toLocaleString('en-US')
    return unit === 'count' ? number : `${number} ${unit}`
  }

  it('lists every budget of the code, in its order, with its default', () => {
    expect(rows).toEqual(Object.entries(LIMITS).map(([name, limit]) => [name, written(limit.value, limit.unit)]))
  })
})

describe('health', () => {
  it('reports each pool beside its budget, and the use moves with what clients do', async () => {
    const sandbox = createSandbox({ isolate: true, limits: { journalEntries: 3, tenants: 5 } })
    const before = await health(sandbox)
    expect(before.limits.journalEntries).toEqual({ budget: 3, used: 0, unit: 'count' })
    expect(before.limits.tenants).toEqual({ budget: 5, used: 1, unit: 'count' })
    for (const key of ['k-1', 'k-2', 'k-3', 'k-4']) {
      expect((await send(sandbox, key, 'POST', '/v1/pets', '{"name":"Rex","categoryId":1}')).status).toBe(201)
    }
    const after = await health(sandbox)
    expect(after.limits.journalEntries?.used).toBe(3)
    expect(after.limits.journalBytes?.used).toBeGreaterThan(0)
    expect(after.limits.tenants?.used).toBe(5)
    expect(after.limits.createdPets?.used).toBe(4)
    expect(after.limits.createdPetsPerTenant?.used).toBe(1)
    expect(after.limits.largeBodies?.used).toBe(0)
    expect(after.limits.eventStreams?.used).toBe(0)
    await sandbox.reset()
    expect((await health(sandbox)).limits.createdPets?.used).toBe(0)
  })

  it('refuses a budget that does not exist, or one out of its range, naming each', () => {
    expect(() => createSandbox({ limits: { journalBytes: -1, scenarios: 5 } })).toThrow(
      /journalBytes must be a whole number from 0 to \d+, got -1; scenarios is fixed at 100, got 5/,
    )
    expect(() => createSandbox({ limits: { nothing: 1 } as never })).toThrow(/nothing is not a limit/)
  })
})

describe('the pools', () => {
  it('the journal drops its oldest entries one for one, by count and by bytes', () => {
    const journal = createJournal(1000, () => null, 4096)
    const recorded = (target: string, padding: number) => ({
      time: 0,
      operation: null,
      method: 'GET',
      target,
      headers: { 'x-pad': 'a'.repeat(padding) },
      body: null,
      bodyBytes: 0,
      status: 200,
      durationMs: 1,
      tenant: undefined,
    })
    for (let index = 0; index < 50; index++) journal.add(recorded(`/v1/pets?n=${index}`, 500))
    const { entries, bytes } = journal.usage()
    expect(bytes).toBeLessThanOrEqual(4096)
    expect(entries).toBeGreaterThan(0)
    expect(entries).toBeLessThan(50)
    // The newest are kept, in order.
    expect(journal.all().map((entry) => entry.query.n)).toEqual(
      Array.from({ length: entries }, (_, index) => String(50 - entries + index)),
    )
    // One larger than the whole budget is not kept, and drops nothing.
    expect(journal.add(recorded('/big', 10_000))).toBe(false)
    expect(journal.usage().entries).toBe(entries)
  })

  it('the list cache keeps its byte budget across owners, dropping the least recently used', () => {
    const cache = createListCache(100)
    const [a, b] = [cache.newOwner(), cache.newOwner()]
    cache.set(a, 'x', 'a'.repeat(40))
    cache.set(b, 'x', 'b'.repeat(40))
    expect(cache.get(a, 'x')).toBe('a'.repeat(40))
    cache.set(b, 'y', 'c'.repeat(40))
    // b's first answer was the least recently used.
    expect(cache.get(b, 'x')).toBeUndefined()
    expect(cache.get(a, 'x')).toBe('a'.repeat(40))
    expect(cache.bytes()).toBe(80)
    cache.drop(a)
    expect(cache.get(a, 'x')).toBeUndefined()
    expect(cache.bytes()).toBe(40)
    cache.set(a, 'z', 'z'.repeat(101))
    expect(cache.bytes()).toBe(40)
  })

  it('the list cache keeps a list from its second ask on, per owner, and never without a budget', () => {
    const cache = createListCache(100)
    const [a, b] = [cache.newOwner(), cache.newOwner()]
    expect(cache.askedBefore(a, 'available:10')).toBe(false)
    expect(cache.askedBefore(b, 'available:10')).toBe(false)
    expect(cache.askedBefore(a, 'available:11')).toBe(false)
    expect(cache.askedBefore(a, 'available:10')).toBe(true)
    expect(cache.askedBefore(b, 'available:10')).toBe(true)
    const none = createListCache(0)
    const owner = none.newOwner()
    expect(none.askedBefore(owner, ':5')).toBe(false)
    expect(none.askedBefore(owner, ':5')).toBe(false)
  })

  it('a list asked once is answered right and not kept; asked again, it is kept until a write', async () => {
    const sandbox = createSandbox({ isolate: true, generate: 50, randomSeed: 1 })
    const list = async () => (await (await send(sandbox, 'key-a', 'GET', '/v1/pets?limit=20')).json()) as unknown[]
    const used = async () => (await health(sandbox)).limits.listCacheBytes?.used
    const first = await list()
    expect(first).toHaveLength(20)
    expect(await used()).toBe(0)
    expect(await list()).toEqual(first)
    const kept = await used()
    expect(kept).toBeGreaterThan(0)
    expect(await list()).toEqual(first)
    expect(await used()).toBe(kept)
    await send(sandbox, 'key-a', 'POST', '/v1/pets', '{"name":"Fresh","categoryId":1}')
    expect(await used()).toBe(0)
  })

  it('listPets answers stay within listCacheBytes, however many tenants ask, and stay right', async () => {
    const sandbox = createSandbox({
      isolate: true,
      generate: 200,
      randomSeed: 1,
      limits: { listCacheBytes: 64 * 1024 },
    })
    // Each list twice: a list is kept from its second ask on.
    for (let tenant = 0; tenant < 20; tenant++) {
      for (const limit of [5, 50, 100, 5, 50, 100]) {
        const response = await send(sandbox, `key-${tenant}`, 'GET', `/v1/pets?limit=${limit}`)
        expect(((await response.json()) as unknown[]).length).toBe(limit)
      }
    }
    const used = (await health(sandbox)).limits.listCacheBytes?.used ?? Infinity
    expect(used).toBeGreaterThan(0)
    expect(used).toBeLessThanOrEqual(64 * 1024)
    // A write drops the tenant's answers: the next list shows the new pet.
    await send(sandbox, 'key-0', 'POST', '/v1/pets', '{"name":"Fresh","categoryId":1}')
    const all = (await (await send(sandbox, 'key-0', 'GET', '/v1/pets?limit=100')).json()) as { name: string }[]
    expect(all).toHaveLength(100)
    const listed = (await sandbox.tenant('key-0').list()).map((pet) => pet.name)
    expect(listed.at(-1)).toBe('Fresh')
  })

  it('created pets in all tenants together hold the createdPets budget: then 507, and a reset gives them back', async () => {
    const sandbox = createSandbox({ isolate: true, limits: { createdPets: 2 } })
    const create = (key: string) => send(sandbox, key, 'POST', '/v1/pets', '{"name":"Rex","categoryId":1}')
    expect((await create('a')).status).toBe(201)
    expect((await create('b')).status).toBe(201)
    const refused = await create('c')
    expect(refused.status).toBe(507)
    expect(await refused.json()).toMatchObject({
      code: 'insufficient_storage',
      status: 507,
      message: expect.stringContaining('createdPets') as unknown,
    })
    expect(await sandbox.tenant('c').count()).toBe(32)
    await send(sandbox, 'a', 'POST', '/__sandbox/reset')
    expect((await create('c')).status).toBe(201)
  })

  it('evicting a tenant gives its created pets back to the pool', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    try {
      const sandbox = createSandbox({ isolate: true, limits: { createdPets: 1, tenants: 2 } })
      expect((await send(sandbox, 'a', 'POST', '/v1/pets', '{"name":"A","categoryId":1}')).status).toBe(201)
      // b evicts a (the cap holds the default key's tenant and one more).
      expect((await send(sandbox, 'b', 'POST', '/v1/pets', '{"name":"B","categoryId":1}')).status).toBe(201)
      expect((await health(sandbox)).limits.createdPets?.used).toBe(1)
    } finally {
      warn.mockRestore()
    }
  })
})

describe('large bodies', () => {
  it('reads one state import at a time: another meanwhile gets 503 with Retry-After, unread', async () => {
    const server = await startServer({ port: 0 })
    try {
      const pets = Array.from({ length: 60_000 }, (_, index) => ({
        id: index + 1,
        name: `Pet ${index}`,
        categoryId: 1,
        status: 'available',
      }))
      const big = JSON.stringify({ pets, nextId: 60_001 })
      const first = fetch(`${server.url}/__sandbox/state`, {
        method: 'PUT',
        body: big,
        headers: { 'Content-Type': 'application/json' },
      })
      // Wait until the first import holds its slot.
      await vi.waitFor(async () => {
        const now = (await (await fetch(`${server.url}/__sandbox/health`)).json()) as Health
        expect(now.limits.largeBodies?.used).toBe(1)
      })
      const second = await fetch(`${server.url}/__sandbox/state`, {
        method: 'PUT',
        body: '{"pets":[],"nextId":1}',
        headers: { 'Content-Type': 'application/json' },
      })
      expect(second.status).toBe(503)
      expect(second.headers.get('retry-after')).toBe('1')
      expect(await second.json()).toMatchObject({ code: 'service_unavailable', status: 503 })
      expect((await first).status).toBe(204)
      expect(await server.sandbox.pets.count()).toBe(60_000)
    } finally {
      await server.close()
    }
  })

  it('parses a large text in slices to the same answer as at once, problems included', async () => {
    const pets = Array.from({ length: 30_000 }, (_, index) => ({ id: index + 1, name: `P${index}`, categoryId: 2 }))
    const text = JSON.stringify({ pets, nextId: 30_001 })
    let pauses = 0
    const pause = async () => {
      pauses++
      await Promise.resolve()
    }
    expect(await readJsonInSlices(text, 'body', pause)).toEqual(readJson(text, 'body'))
    expect(pauses).toBeGreaterThan(0)
    const broken = `${text.slice(0, -20)},"x":1,"x":2}`
    expect(await readJsonInSlices(broken, 'body', pause)).toEqual(readJson(broken, 'body'))
  })

  it('names every problem of a state at once: a bad field, a repeated id and a low nextId', () => {
    const checked = checkStoreState({
      pets: [
        { id: 1, name: 'A', categoryId: 'x' },
        { id: 1, name: 'B', categoryId: 1 },
      ],
      nextId: 1,
    })
    expect(checked).toEqual({
      ok: false,
      problems: [
        'pets.0.categoryId must be an integer, got "x"',
        'pets.1.id is already used by pets.0',
        'nextId must be greater than the highest id, 1',
      ],
    })
  })
})

describe('notices', () => {
  it('logs the first of a kind, and counts the rest of its window in one line', () => {
    vi.useFakeTimers()
    try {
      const lines: string[] = []
      const notices = createNotices((line) => lines.push(line), 1000)
      for (let index = 0; index < 500; index++) notices.notice('eviction', `evicted ${index}`)
      notices.notice('overflow', 'closed a reader')
      expect(lines).toEqual(['evicted 0', 'closed a reader'])
      vi.advanceTimersByTime(1000)
      expect(lines).toEqual(['evicted 0', 'closed a reader', '499 more tenants evicted in the last 1 s'])
      notices.notice('eviction', 'evicted again')
      expect(lines.at(-1)).toBe('evicted again')
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('the CLI', () => {
  it('takes --limit name=value with units, and refuses an unknown name or a bad value with exit code 1', async () => {
    for (const [argument, message] of [
      ['nothing=1', /nothing is not a limit/],
      ['journalBytes=lots', /journalBytes must be name=value with a whole number \(or with KiB, MiB, GiB\)/],
      ['tenants=1', /tenants must be a whole number from 2 to/],
    ] as const) {
      const refused = await refusal(['--port', '0', '--limit', argument])
      expect(refused.code, argument).toBe(1)
      expect(refused.stderr, argument).toMatch(message)
    }
  })

  it('applies --limit values: health reports them', async () => {
    const cli = spawnCli(['--port', '0', '-q', '--limit', 'journalBytes=2MiB', '--limit', 'headersTimeoutMs=3s'])
    try {
      const { waitFor } = await import('./support/spawn-cli.js')
      const [, url] = await waitFor(cli, /listening on (http:\/\/[^/]+)\/v1/)
      const body = (await (await fetch(`${url ?? ''}/__sandbox/health`)).json()) as Health
      expect(body.limits.journalBytes?.budget).toBe(2 * 1024 * 1024)
      expect(body.limits.headersTimeoutMs?.budget).toBe(3000)
      expect(body.limits.connections?.used).toBe(1)
    } finally {
      cli.child.kill('SIGTERM')
      await cli.exited
    }
  })
})

describe('the key is never in what health says', () => {
  it('reports use without naming keys', async () => {
    const sandbox = createSandbox({ isolate: true })
    await send(sandbox, 'secret-key-1', 'GET', '/v1/pets')
    expect(JSON.stringify(await health(sandbox))).not.toContain('secret-key-1')
    expect(KEY).toBe(sandbox.apiKeys[0])
  })
})
