/**
 * The admin routes under `/__sandbox`, rows of the same route table as the API: reset, the
 * request journal, scenarios, state in and out, health. Each
 * does over HTTP what a sandbox method does in-process, through the same controls. A key in
 * `Authorization` is optional; when sent it is checked, and scopes reset, journal, scenarios
 * and state to that key's data (isolated mode).
 *
 * May import: other core files, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import {
  JournalEntrySchema,
  PetPageSchema,
  SandboxHealthSchema,
  ScenarioSchema,
  TenantSchema,
  TrafficSchema,
} from './admin-contract.js'
import { maskKey } from './auth.js'
import { PET_STATUSES, StoreStateSchema, type PetStatus } from './contract.js'
import { COUNTER_SECONDS } from './counters.js'
import { ApiError } from './errors.js'
import { json, noContent, type EventStream } from './http.js'
import { readQuery } from './query.js'
import type { Operation, Route } from './routes.js'
import { OPERATIONS, ScenarioError, ScenarioInputSchema, type ScenarioInput } from './scenarios.js'
import { healthOf, journalFor, resetState, restoreState, scenarioBookFor, snapshotState } from './state.js'
import { createTenantStore, StateError } from './store.js'

/** A whole number from a query parameter, within bounds, quoted as sent when it is not one. */
function whole(text: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (text === undefined) return fallback
  const number = Number(text)
  if (!/^[0-9]+$/.test(text) || number < min || number > max) {
    throw new ApiError(
      'invalid_parameter',
      `${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`,
    )
  }
  return number
}

/** A state export of a large generated collection is far above the API's body cap. */
export const MAX_STATE_BYTES = 64 * 1024 * 1024

const SCOPE = 'With a key in isolated mode: that key only.'

function admin(operation: Omit<Operation, 'key'>): Operation {
  return { key: 'optional', ...operation }
}

const reset = admin({
  id: 'resetSandbox',
  summary: 'Restore the seed and the id sequence; clear the journal and scenarios',
  description: SCOPE,
  errors: [],
  success: [{ status: 204, description: 'Reset' }],
  run({ state, key }) {
    resetState(state, key)
    return noContent()
  },
})

const listRequests = admin({
  id: 'listRequests',
  summary: 'The request journal, oldest first',
  description: SCOPE,
  errors: ['invalid_parameter'],
  parameters: () => [
    { name: 'operation', in: 'query', required: false, schema: { enum: [...OPERATIONS, 'none'] } },
    { name: 'method', in: 'query', required: false, schema: { type: 'string' } },
    { name: 'status', in: 'query', required: false, schema: { type: 'integer', minimum: 100, maximum: 599 } },
  ],
  success: [{ status: 200, description: 'Journal entries', schema: JournalEntrySchema.array() }],
  run({ target, state, key }) {
    const query = readQuery(target.query, ['operation', 'method', 'status'])
    const operations: readonly string[] = [...OPERATIONS, 'none']
    if (query.operation !== undefined && !operations.includes(query.operation)) {
      throw new ApiError(
        'invalid_parameter',
        `operation must be one of ${operations.join(', ')}, got ${JSON.stringify(query.operation)}`,
      )
    }
    if (query.status !== undefined && !/^[1-5]\d\d$/.test(query.status)) {
      throw new ApiError(
        'invalid_parameter',
        `status must be an HTTP status from 100 to 599, got ${JSON.stringify(query.status)}`,
      )
    }
    const operation = query.operation === 'none' ? null : query.operation
    const method = query.method?.toUpperCase()
    const status = query.status === undefined ? undefined : Number(query.status)
    return json(
      200,
      journalFor(state, key).filter(
        (entry) =>
          (operation === undefined || entry.operation === operation) &&
          (method === undefined || entry.method === method) &&
          (status === undefined || entry.status === status),
      ),
    )
  },
})

const listScenarios = admin({
  id: 'listScenarios',
  summary: 'The scenarios in force',
  description: SCOPE,
  errors: [],
  success: [{ status: 200, description: 'Scenarios, first come first served', schema: ScenarioSchema.array() }],
  run: ({ state, key }) => json(200, scenarioBookFor(state, key, false)?.list() ?? []),
})

const addScenario = admin({
  id: 'addScenario',
  summary: 'Add a scenario: the next calls of an operation fail and/or wait',
  description: SCOPE,
  body: {
    maxBytes: 'api',
    schema: ScenarioInputSchema,
    emptyHint: 'send a JSON scenario such as {"operation":"createPet","status":503}',
  },
  errors: ['invalid_body'],
  success: [{ status: 201, description: 'The scenario added', schema: ScenarioSchema }],
  run({ state, key, body }) {
    try {
      // Only JSON so far: add() checks it against the scenario schema.
      return json(201, (scenarioBookFor(state, key, true) ?? state.scenarios).add(body as ScenarioInput))
    } catch (error) {
      if (error instanceof ScenarioError) throw new ApiError('invalid_body', error.message)
      throw error
    }
  },
})

const clearScenarios = admin({
  id: 'clearScenarios',
  summary: 'Remove every scenario',
  description: SCOPE,
  errors: [],
  success: [{ status: 204, description: 'Cleared' }],
  run({ state, key }) {
    scenarioBookFor(state, key, false)?.clear()
    return noContent()
  },
})

const exportState = admin({
  id: 'exportState',
  summary: 'All pets and the next id',
  description: SCOPE,
  errors: [],
  success: [{ status: 200, description: 'The state', schema: StoreStateSchema }],
  run: ({ state, key }) => json(200, snapshotState(state, key)),
})

const importState = admin({
  id: 'importState',
  summary: 'Replace all pets and the next id',
  description: `Every entry is checked first; nothing is replaced when one is wrong. ${SCOPE}`,
  body: {
    maxBytes: MAX_STATE_BYTES,
    schema: StoreStateSchema,
    emptyHint: 'send a JSON state {"pets": [...], "nextId": n}',
  },
  errors: ['invalid_body'],
  success: [{ status: 204, description: 'Replaced' }],
  run({ state, key, body }) {
    try {
      restoreState(state, body, key)
    } catch (error) {
      if (error instanceof StateError) throw new ApiError('invalid_body', error.message)
      throw error
    }
    return noContent()
  },
})

const health = admin({
  id: 'health',
  summary: 'Version, uptime, pets, mode and tenants',
  errors: [],
  success: [{ status: 200, description: 'Health', schema: SandboxHealthSchema }],
  run: ({ state }) => json(200, healthOf(state)),
})

const TENANT_PARAMETER = {
  name: 'tenant',
  in: 'query',
  required: false,
  description: 'Isolated mode: a tenant handle from GET /__sandbox/tenants (instead of its key in Authorization)',
  schema: { type: 'string' },
}

const listTenants = admin({
  id: 'listTenants',
  summary: "Every key's data (tenant), least recently used first, named by a handle and the key masked",
  errors: [],
  success: [{ status: 200, description: 'Tenants', schema: TenantSchema.array() }],
  run: ({ state }) =>
    json(
      200,
      state.tenants.list().map(({ handle, key, store }) => ({
        id: handle,
        label: key === state.defaultKey ? 'default' : maskKey(key),
        pets: store.count(),
        createdSinceReset: store.createdCount(),
      })),
    ),
})

/** The dashboard's table: a page of the whole store, past the API's limit of 100. */
const MAX_PAGE = 1000

const listAllPets = admin({
  id: 'listAllPets',
  summary: 'A page of the whole store, in id order, pets created since the last reset marked',
  description: `offset from 0, limit 1 to ${MAX_PAGE} (default 50), status as for listPets. ${SCOPE} Reading makes no tenant.`,
  errors: ['invalid_parameter'],
  parameters: () => [
    { name: 'offset', in: 'query', required: false, schema: { type: 'integer', minimum: 0, default: 0 } },
    {
      name: 'limit',
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 50 },
    },
    { name: 'status', in: 'query', required: false, schema: { $ref: '#/components/schemas/PetStatus' } },
    TENANT_PARAMETER,
  ],
  success: [{ status: 200, description: 'One page', schema: PetPageSchema }],
  run({ target, state, key }) {
    const query = readQuery(target.query, ['offset', 'limit', 'status'])
    const offset = whole(query.offset, 'offset', 0, Number.MAX_SAFE_INTEGER, 0)
    const limit = whole(query.limit, 'limit', 1, MAX_PAGE, 50)
    const status = query.status
    if (status !== undefined && !(PET_STATUSES as readonly string[]).includes(status)) {
      throw new ApiError(
        'invalid_parameter',
        `status must be one of ${PET_STATUSES.join(', ')}, got ${JSON.stringify(status)}`,
      )
    }
    const store = state.tenants.existing(key ?? state.defaultKey) ?? createTenantStore(state.tenants.seed())
    const page = store.page(offset, limit, status as PetStatus | undefined)
    return json(200, { total: page.total, offset, limit, pets: page.pets })
  },
})

const traffic = admin({
  id: 'traffic',
  summary: 'API requests per second by status class, over the last five minutes',
  errors: [],
  success: [{ status: 200, description: 'Per-second counts, oldest first', schema: TrafficSchema }],
  run({ state }) {
    const now = Date.now()
    return json(200, { seconds: COUNTER_SECONDS, now, series: state.counters.series(now) })
  },
})

const events = admin({
  id: 'events',
  summary: 'Server-sent events: each API request (event: request) and each change of pet data (event: change)',
  description: `${SCOPE} A comment line every 15 s keeps the connection open.`,
  errors: [],
  parameters: () => [TENANT_PARAMETER],
  success: [{ status: 200, description: 'An event stream', mediaType: 'text/event-stream' }],
  run({ state, key }) {
    const scoped = state.isolated ? key : undefined
    const body: EventStream = {
      open(send) {
        send(': connected\n\n')
        const stop = state.events.subscribe((event) => {
          if (scoped !== undefined && event.key !== undefined && event.key !== scoped) return
          const tenant = event.key === undefined ? null : (state.tenants.handleOf(event.key) ?? null)
          const data =
            event.type === 'request' ? { ...event.entry, tenantId: state.isolated ? tenant : null } : { tenant }
          send(`event: ${event.type}\ndata: ${JSON.stringify(data)}\n\n`)
        })
        const ping = setInterval(() => {
          send(': ping\n\n')
        }, 15_000)
        return () => {
          stop()
          clearInterval(ping)
        }
      },
    }
    return {
      status: 200,
      headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store' },
      body,
    }
  },
})

export const adminRoutes: readonly Route[] = [
  { area: 'admin', path: '/reset', methods: { POST: reset } },
  { area: 'admin', path: '/requests', methods: { GET: listRequests } },
  { area: 'admin', path: '/scenarios', methods: { GET: listScenarios, POST: addScenario, DELETE: clearScenarios } },
  { area: 'admin', path: '/state', methods: { GET: exportState, PUT: importState } },
  { area: 'admin', path: '/health', methods: { GET: health } },
  { area: 'admin', path: '/tenants', methods: { GET: listTenants } },
  { area: 'admin', path: '/pets', methods: { GET: listAllPets } },
  { area: 'admin', path: '/traffic', methods: { GET: traffic } },
  { area: 'admin', path: '/events', methods: { GET: events } },
]
