/**
 * The request's stages one at a time, each called on its own as the dispatcher calls it
 * (src/core/dispatch.ts): the head checks, body intake, simulation, the forwarding stage,
 * recording, the admin gate, and what every answer gets last. The whole way is tested elsewhere
 * (core.test.ts, edges.test.ts, hardening.test.ts); here each stage's own rules.
 */
import { createTurns } from '../src/core/state/turns.js'
import { describe, expect, it } from 'vitest'
import { createCounters } from '../src/core/state/counters.js'
import { createDelays } from '../src/core/state/delays.js'
import { createEventBus, type SandboxEvent } from '../src/core/state/events.js'
import { admit, refuseOrigin, type AdminGate } from '../src/core/admin/gate.js'
import { createJournal } from '../src/core/state/request-journal.js'
import { createJournalWriter } from '../src/core/state/journal-writer.js'
import { createScenarioBook, createTraffic, NONE_APPLIED, simulate } from '../src/core/state/scenarios.js'
import { createTenants } from '../src/core/state/tenants.js'
import { createAuthenticator } from '../src/core/api/auth.js'
import { bundledSeed } from '../src/core/api/seed.js'
import { checkUnusedBody, checkWithinCap, takeBody } from '../src/core/http/body.js'
import { completeAnswer } from '../src/core/http/complete.js'
import { createCorsPolicy } from '../src/core/http/cors.js'
import { ApiError } from '../src/core/http/errors.js'
import { createHeadCheck } from '../src/core/http/head.js'
import type { BodyRead, CoreRequest, CoreResponse } from '../src/core/http/http.js'
import type { OperationSpec } from '../src/core/http/routes.js'
import { parseTarget, type Target } from '../src/core/http/target.js'
import { resolveLimits } from '../src/core/limits.js'
import { keyOfCall } from '../src/core/api-call.js'
import { climbingParameter, forward, type ForwardRecord, type Upstream } from '../src/core/upstream.js'

const limits = resolveLimits({})
const request = (overrides: Partial<CoreRequest> = {}): CoreRequest => ({
  method: 'GET',
  target: '/v1/pets',
  headers: { host: 'localhost' },
  body: null,
  ...overrides,
})
const target = (text: string): Target => parseTarget(text) as Target
/** What a stage threw, as its Error code; undefined when it threw nothing. */
function codeOf(run: () => unknown): string | undefined {
  try {
    run()
    return undefined
  } catch (error) {
    if (error instanceof ApiError) return error.code
    throw error
  }
}
async function codeOfAsync(run: () => Promise<unknown> | undefined): Promise<string | undefined> {
  try {
    await run()
    return undefined
  } catch (error) {
    if (error instanceof ApiError) return error.code
    throw error
  }
}

describe('the head checks', () => {
  const server = createHeadCheck({ surface: 'server', limits, allowedHosts: ['mybox.lan'], trustProxy: false })
  const inProcess = createHeadCheck({ surface: 'in-process', limits, allowedHosts: [], trustProxy: false })
  const refusal = (head: ReturnType<typeof server>) => head.refusal?.code

  it.each([
    ['TRACE', request({ method: 'TRACE' }), 'not_implemented'],
    ['CONNECT', request({ method: 'CONNECT', target: 'host:443' }), 'not_implemented'],
    ['a target past 8 KiB', request({ target: `/v1/pets?x=${'a'.repeat(8200)}` }), 'uri_too_long'],
    ['a target that is no path', request({ target: 'pets' }), 'bad_request'],
    ['Host sent twice', request({ headers: { host: ['localhost', 'evil.test'] } }), 'bad_request'],
    ['no Host on HTTP/1.1', request({ headers: {}, httpVersion: '1.1' }), 'bad_request'],
    ['a Host not allowed', request({ headers: { host: 'evil.test' } }), 'forbidden'],
    ['an absolute target on a host not allowed', request({ target: 'http://evil.test/v1/pets' }), 'forbidden'],
    [
      'Transfer-Encoding gzip',
      request({ headers: { host: 'localhost', 'transfer-encoding': 'gzip' } }),
      'not_implemented',
    ],
    ['an Expect it cannot meet', request({ headers: { host: 'localhost', expect: 'tea' } }), 'expectation_failed'],
  ])('refuses %s on a server', (_, sent, code) => {
    expect(refusal(server(sent))).toBe(code)
  })

  it('lets a good head through with its target read, and HTTP/1.0 without Host', () => {
    expect(server(request({ target: '/v1/pets?limit=2', headers: { host: 'mybox.lan:3210' } }))).toEqual({
      target: target('/v1/pets?limit=2'),
    })
    expect(server(request({ headers: {}, httpVersion: '1.0' })).refusal).toBeUndefined()
  })

  it('asks no Host in process, where a test holds the sandbox', () => {
    expect(inProcess(request({ headers: { host: 'evil.test' } })).refusal).toBeUndefined()
  })
})

describe('body intake', () => {
  const createPet: OperationSpec = {
    id: 'createPet',
    summary: '',
    key: 'required',
    errors: [],
    success: [],
    body: { limit: 'bodyBytes', schema: 'NewPet', emptyHint: '' },
  }
  const importState: OperationSpec = {
    ...createPet,
    id: 'importState',
    body: { limit: 'stateBytes', schema: 'x', emptyHint: '' },
  }
  const readBody = (read: BodyRead) => () => Promise.resolve(read)
  const bytes = (text: string) => new TextEncoder().encode(text)

  it('refuses a content coding unread (415), and judges a declared length before reading', async () => {
    const coded = request({
      method: 'POST',
      headers: { 'content-encoding': 'gzip' },
      readBody: readBody({ body: bytes('x'), truncated: false }),
    })
    expect(await codeOfAsync(() => takeBody(coded, createPet, limits, { large: 0 }))).toBe('unsupported_media_type')
    let asked = false
    const declared = request({
      method: 'POST',
      headers: { 'content-length': String(limits.bodyBytes + 1) },
      readBody: () => {
        asked = true
        return Promise.resolve({ body: null, truncated: false })
      },
    })
    const [read] = await takeBody(declared, createPet, limits, { large: 0 })
    expect(read.truncated).toBe(true)
    expect(asked).toBe(false)
    expect(codeOf(() => checkWithinCap(read, limits.bodyBytes))).toBe('payload_too_large')
  })

  it('holds one large-body slot per state import, refuses the next (503), and gives it back', async () => {
    const slots = { large: 0 }
    const sent = request({ method: 'PUT', readBody: readBody({ body: bytes('{}'), truncated: false }) })
    const [, release] = await takeBody(sent, importState, limits, slots)
    expect(slots.large).toBe(1)
    expect(await codeOfAsync(() => takeBody(sent, importState, limits, slots))).toBe('service_unavailable')
    release()
    release()
    expect(slots.large).toBe(0)
  })

  it.each([
    ['a client gone mid-body', { body: null, truncated: false, incomplete: true }],
    ['a chunked framing that broke', { body: null, truncated: false, malformed: 'invalid character in chunk size' }],
  ])('answers %s with a 400, and frees the slot', async (_, read) => {
    const slots = { large: 0 }
    const sent = request({ method: 'PUT', readBody: readBody(read) })
    expect(await codeOfAsync(() => takeBody(sent, importState, limits, slots))).toBe('bad_request')
    expect(slots.large).toBe(0)
  })

  it('reads the chunked body of a route that takes none before it acts, and judges it', async () => {
    expect(checkUnusedBody(request(), limits)).toBeUndefined()
    const declared = request({ headers: { 'content-length': String(limits.bodyBytes + 1) } })
    expect(codeOf(() => checkUnusedBody(declared, limits))).toBe('payload_too_large')
    const chunked = (read: BodyRead) =>
      request({ headers: { 'transfer-encoding': 'chunked' }, readBody: readBody(read) })
    expect(
      await codeOfAsync(() => checkUnusedBody(chunked({ body: bytes('abc'), truncated: false }), limits)),
    ).toBeUndefined()
    expect(await codeOfAsync(() => checkUnusedBody(chunked({ body: bytes(''), truncated: true }), limits))).toBe(
      'payload_too_large',
    )
    expect(
      await codeOfAsync(() => checkUnusedBody(chunked({ body: null, truncated: false, malformed: 'x' }), limits)),
    ).toBe('bad_request')
  })
})

describe('simulation', () => {
  const simulation = (failureRate = 0) => ({
    scenarios: createScenarioBook(),
    traffic: createTraffic({ failureRate }, () => 0),
    delays: createDelays(),
  })

  it('applies nothing, without a promise, when nothing is set', () => {
    expect(simulate(simulation(), 'listPets', undefined, undefined)).toBe(NONE_APPLIED)
  })

  it("takes the key's own scenario before a shared one, once each", async () => {
    const sim = simulation()
    sim.scenarios.add({ operation: 'listPets', status: 503, times: 1 })
    const own = createScenarioBook()
    own.add({ operation: 'listPets', status: 429, times: 1 })
    await expect(simulate(sim, 'listPets', undefined, own)).rejects.toMatchObject({ code: 'too_many_requests' })
    await expect(simulate(sim, 'listPets', undefined, own)).rejects.toMatchObject({ code: 'service_unavailable' })
    expect(simulate(sim, 'listPets', undefined, own)).toBe(NONE_APPLIED)
  })

  it('refuses a Prefer it cannot honour before a scenario is used up, and says what it applied', async () => {
    const sim = simulation()
    sim.scenarios.add({ operation: 'getPet', status: 503, times: 1 })
    expect(codeOf(() => simulate(sim, 'getPet', 'code=418', undefined))).toBe('invalid_parameter')
    expect(sim.scenarios.list()).toHaveLength(1)
    expect(await simulate(simulation(), 'getPet', 'delay=0', undefined)).toEqual(['delay=0'])
  })

  it('fails a call the failure rate picks', () => {
    expect(codeOf(() => simulate(simulation(1), 'createPet', undefined, undefined))).toBe('internal_error')
  })
})

describe('the forwarding stage', () => {
  const getPet = { id: 'getPet' as const, summary: '', key: 'required' as const, errors: [], success: [] }
  const answering = (status: number, body: string, seen: { target?: string } = {}): Upstream => ({
    label: 'http://upstream.test',
    basePath: '/api',
    forward: ['getPet'],
    send: (sent) => {
      seen.target = sent.target
      return Promise.resolve({ status, headers: { 'content-type': 'application/json' }, body })
    },
  })
  const record = (): ForwardRecord => ({
    seen: { body: null, bytes: 0 },
    sent: false,
    violations: undefined,
    turn: undefined,
  })

  it('sends the target without the base path, relays the answer and records its violations', async () => {
    const seen: { target?: string } = {}
    const context = {
      upstream: answering(200, '{"id":1,"name":"x"}', seen),
      limits,
      basePath: '/v1',
      exchanges: { waiting: 0 },
      large: createTurns(),
    }
    const kept = record()
    const answer = await forward(
      context,
      getPet,
      request({ target: '/v1/pets/1' }),
      target('/v1/pets/1'),
      undefined,
      kept,
    )
    expect(seen.target).toBe('/pets/1')
    expect(answer.status).toBe(200)
    expect(kept.sent).toBe(true)
    expect(kept.violations?.problems).toEqual(['the body is not a Pet: body.categoryId is required'])
    expect(context.exchanges.waiting).toBe(0)
  })

  it('sends nothing past upstreamRequests waiting at once (503)', async () => {
    const context = {
      upstream: answering(200, '{}'),
      limits: resolveLimits({ upstreamRequests: 1 }),
      basePath: '/v1',
      exchanges: { waiting: 1 },
      large: createTurns(),
    }
    const kept = record()
    await expect(forward(context, getPet, request(), target('/v1/pets/1'), undefined, kept)).rejects.toMatchObject({
      code: 'service_unavailable',
    })
    expect(kept.sent).toBe(false)
  })

  it.each(['..', '%2e%2e', '%252F', 'a\\b', '..;x'])('refuses the parameter %s before anything is sent', (petId) => {
    expect(climbingParameter({ petId })?.code).toBe('invalid_parameter')
  })

  it.each(['1', 'abc', 'abc%20def', '...a'])('leaves the parameter %s to the upstream', (petId) => {
    expect(climbingParameter({ petId })).toBeUndefined()
  })
})

describe('recording', () => {
  const parts = () => {
    const events = createEventBus()
    const seen: SandboxEvent[] = []
    events.subscribe((event) => seen.push(event))
    const tenants = createTenants({
      seed: bundledSeed(),
      isolated: true,
      defaultKey: 'k',
      maxTenants: 10,
      maxCreatedPets: 10,
      budgets: { cache: undefined, created: { used: 0, max: 10 } },
      checkpoints: { max: 1, pool: { used: 0, max: 1000, changes: { count: 0 } } },
      onEvict: () => undefined,
    })
    const counters = createCounters()
    const journal = createJournal(10)
    return { writer: createJournalWriter({ counters, journal, events, tenants }), counters, journal, seen }
  }
  const recorded = (status: number) => ({
    time: 0,
    operation: 'createPet' as const,
    method: 'POST',
    target: '/v1/pets',
    headers: {},
    body: null,
    bodyBytes: 0,
    status,
    durationMs: 1,
    tenant: 'worker-1',
  })

  it('counts, journals and announces a request, and a change of data only when it changed it', () => {
    const { writer, counters, journal, seen } = parts()
    writer.write(recorded(201), true)
    writer.write(recorded(400), false)
    expect(journal.all().map((entry) => entry.status)).toEqual([201, 400])
    expect(counters.series(Date.now()).reduce((sum, second) => sum + second.c2xx + second.c4xx, 0)).toBe(2)
    expect(seen.map((event) => event.type)).toEqual(['request', 'change', 'request'])
    expect(seen[1]).toEqual({ type: 'change', key: 'worker-1' })
  })
})

describe('the admin gate', () => {
  const cors = createCorsPolicy([], [], false)
  const gate: AdminGate = {
    cors,
    trustProxy: false,
    authenticate: createAuthenticator(['listed'], { any: true }),
    authenticateAdmin: createAuthenticator(['listed']),
  }
  const reset: OperationSpec = { id: 'resetSandbox', summary: '', key: 'optional', errors: [], success: [] }
  const handles = (handle: string) => (handle === 't-1' ? 'worker-1' : undefined)

  it("refuses a page from another site, but not a shipped file, nor this machine's own pages", () => {
    const fromElsewhere = request({ headers: { host: 'localhost:3210', origin: 'http://evil.test' } })
    expect(
      codeOf(() => {
        refuseOrigin(gate, fromElsewhere, 'admin', reset)
      }),
    ).toBe('forbidden')
    expect(
      codeOf(() => {
        refuseOrigin(gate, fromElsewhere, 'admin', { ...reset, shipped: true })
      }),
    ).toBeUndefined()
    const local = request({ headers: { host: 'localhost:3210', origin: 'http://localhost:5173' } })
    expect(
      codeOf(() => {
        refuseOrigin(gate, local, 'admin', reset)
      }),
    ).toBeUndefined()
    const own = request({ headers: { host: 'mybox.lan:3210', origin: 'http://mybox.lan:3210' } })
    expect(
      codeOf(() => {
        refuseOrigin(gate, own, 'admin', reset)
      }),
    ).toBeUndefined()
  })

  it('wants a listed key from another machine, and reads a ?tenant= handle', () => {
    const lan = (headers: Record<string, string>) => request({ headers, remoteAddress: '192.168.1.9' })
    expect(codeOf(() => admit(gate, lan({}), target('/__sandbox/reset'), 'admin', reset, handles))).toBe('unauthorized')
    expect(
      codeOf(() =>
        admit(gate, lan({ authorization: 'Bearer made-up' }), target('/__sandbox/reset'), 'admin', reset, handles),
      ),
    ).toBe('unauthorized')
    expect(
      admit(gate, lan({ authorization: 'Bearer listed' }), target('/__sandbox/reset'), 'admin', reset, handles),
    ).toEqual({
      key: 'listed',
      elsewhere: true,
    })
    const here = request({ remoteAddress: '127.0.0.1' })
    expect(admit(gate, here, target('/__sandbox/reset?tenant=t-1'), 'admin', reset, handles)).toEqual({
      key: 'worker-1',
      elsewhere: false,
    })
    expect(codeOf(() => admit(gate, here, target('/__sandbox/reset?tenant=t-9'), 'admin', reset, handles))).toBe(
      'invalid_parameter',
    )
  })
})

describe('what every answer gets last', () => {
  const stream: CoreResponse = {
    status: 200,
    headers: { 'Content-Type': 'text/event-stream' },
    body: { open: () => () => undefined },
  }

  it('adds nosniff, drops a stream for HEAD, and marks a poll of the admin routes', () => {
    const answer = completeAnswer(request({ method: 'HEAD' }), stream, 'admin', undefined)
    expect(answer.headers['X-Content-Type-Options']).toBe('nosniff')
    expect(answer.body).toBeNull()
    expect(answer.polling).toBe(true)
    expect(
      completeAnswer(request(), { status: 200, headers: {}, body: '[]' }, 'api', undefined).polling,
    ).toBeUndefined()
  })

  it('adds CORS for an allowed Origin on a server, and Vary for any other', () => {
    const cors = createCorsPolicy([], [], false)
    const local = completeAnswer(request({ headers: { origin: 'http://localhost:5173' } }), stream, 'api', cors)
    expect(local.headers['Access-Control-Allow-Origin']).toBe('http://localhost:5173')
    const other = completeAnswer(request({ headers: { origin: 'http://evil.test' } }), stream, 'api', cors)
    expect(other.headers['Access-Control-Allow-Origin']).toBeUndefined()
    expect(other.headers.Vary).toBe('Origin')
  })
})

describe("the API's key, by its row", () => {
  const authenticate = createAuthenticator(['k1'])
  const sent = (authorization?: string) =>
    request({ headers: authorization === undefined ? { host: 'localhost' } : { host: 'localhost', authorization } })

  it('asks a valid key of a required row (401), checks an optional one only when sent, and reads none for none', () => {
    expect(codeOf(() => keyOfCall('required', authenticate, sent(), true))).toBe('unauthorized')
    expect(keyOfCall('required', authenticate, sent('Bearer k1'), true)).toBe('k1')
    expect(keyOfCall('optional', authenticate, sent(), true)).toBeUndefined()
    expect(codeOf(() => keyOfCall('optional', authenticate, sent('Bearer nope'), true))).toBe('unauthorized')
    expect(keyOfCall('none', authenticate, sent('Bearer nope'), true)).toBeUndefined()
  })

  it('never refuses a call whose credential the upstream judges: the key when accepted, else none', () => {
    expect(keyOfCall('required', authenticate, sent('Bearer nope'), false)).toBeUndefined()
    expect(keyOfCall('required', authenticate, sent('Bearer k1'), false)).toBe('k1')
  })
})
