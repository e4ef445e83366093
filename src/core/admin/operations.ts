/**
 * The admin routes under `/__sandbox`, rows of the same route table as the API: reset, the
 * request journal, scenarios, state in and out, health, forwarding, tenants, the pets' pages, the
 * traffic and the event stream here; the checkpoints' and the holds' rows in their own files
 * (checkpoint-routes.ts, hold-routes.ts), joined in `adminRoutes`. Each
 * does over HTTP what a sandbox method does in-process, through the same controls. A key in
 * `Authorization` is optional; when sent it is checked, and scopes reset, journal, scenarios
 * and state to that key's data (isolated mode).
 *
 * May import: core/admin, core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import * as z from 'zod'
import {
  ForwardingInputSchema,
  ForwardingSchema,
  JournalEntrySchema,
  JournalFilterSchema,
  PetPageSchema,
  SandboxHealthSchema,
  ScenarioInputSchema,
  StateDocumentSchema,
  StateInputSchema,
  ScenarioSchema,
  TenantSchema,
  TrafficSchema,
  type ScenarioInput,
} from './contract.js'
// The page's status filter is listPets's (the same statuses), and checkObject words every
// problem as the API's errors are worded: one way to read input for every route.
import { checkObject, PET_STATUSES, type PetStatus } from '../api/contract.js'
import { ApiError } from '../http/errors.js'
import { json, JSON_HEADERS, noContent } from '../http/http.js'
import { readQuery } from '../http/query.js'
import type { AdminRoute } from './exchange.js'
import { checkpointRoutes } from './checkpoint-routes.js'
import { holdRoutes } from './hold-routes.js'
import { admin, SCOPE, TENANT_PARAMETER, whole } from './rows.js'
import { forwardingOf, readForwardInput } from '../state/forwarding-state.js'
import { ScenarioError } from '../state/scenarios.js'

const reset = admin({
  id: 'resetSandbox',
  writes: true,
  summary: 'Restore the seed and the id sequence; clear the journal and scenarios',
  description: SCOPE,
  errors: [],
  success: [{ status: 204, description: 'Reset' }],
  run({ controls, key }) {
    controls.data.reset(key)
    return noContent()
  },
})

const listRequests = admin({
  id: 'listRequests',
  summary: 'The request journal, oldest first',
  description: SCOPE,
  errors: ['invalid_parameter'],
  parameters: () => queryParameters(JournalFilterSchema),
  success: [{ status: 200, description: 'Journal entries', schema: JournalEntrySchema.array() }],
  run({ target, controls, key }) {
    const query = readQuery(target.query, ['operation', 'method', 'status'])
    // Query values are text: a status of digits is read as the number the schema checks.
    const input = {
      ...query,
      ...(query.status !== undefined && /^[0-9]+$/.test(query.status) && { status: Number(query.status) }),
    }
    const filter = checkObject(JournalFilterSchema, input, 'query')
    if (!filter.ok) throw new ApiError('invalid_parameter', filter.problems.join('; '))
    return json(200, controls.journal(key, filter.value))
  },
})

/** A schema's fields as OpenAPI query parameters, each with its description. */
function queryParameters(schema: z.ZodObject): Record<string, unknown>[] {
  const { properties = {} } = z.toJSONSchema(schema, { io: 'input' }) as {
    properties?: Record<string, Record<string, unknown>>
  }
  return Object.entries(properties).map(([name, { description, ...property }]) => ({
    name,
    in: 'query',
    required: false,
    ...(description !== undefined && { description }),
    schema: property,
  }))
}

const listScenarios = admin({
  id: 'listScenarios',
  summary: 'The scenarios in force',
  description: SCOPE,
  errors: [],
  success: [{ status: 200, description: 'Scenarios, first come first served', schema: ScenarioSchema.array() }],
  run: ({ controls, key }) => json(200, controls.scenarios.list(key)),
})

const addScenario = admin({
  id: 'addScenario',
  summary: 'Add a scenario: the next calls of an operation fail and/or wait',
  description: SCOPE,
  makesTenant: true,
  body: {
    limit: 'bodyBytes',
    schema: ScenarioInputSchema,
    emptyHint: 'send a JSON scenario such as {"operation":"createPet","status":503}',
  },
  errors: ['invalid_body'],
  success: [{ status: 201, description: 'The scenario added', schema: ScenarioSchema }],
  run({ controls, key, body }) {
    try {
      // Only JSON so far: add() checks it against the scenario schema.
      return json(201, controls.scenarios.add(key, body as ScenarioInput))
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
  run({ controls, key }) {
    controls.scenarios.clear(key)
    return noContent()
  },
})

const STATE_DOCUMENT =
  'The state document: `version` (1), `savedAt`, `nextId`, `pets` and `checkpoints`, the same a `--state-file` holds and a browser sandbox exports (`exportState()`).'

const exportState = admin({
  id: 'exportState',
  summary: 'All pets, the next id and the checkpoints, as a state document',
  description: `${STATE_DOCUMENT} It starts a server as it is (\`--state-file\`), and loads back here or into a browser sandbox (\`importState()\`). ${SCOPE}`,
  errors: [],
  success: [{ status: 200, description: 'The state document', schema: StateDocumentSchema }],
  run: async ({ controls, key }) => ({ status: 200, headers: JSON_HEADERS, body: await controls.state.text(key) }),
})

const importState = admin({
  id: 'importState',
  writes: true,
  makesTenant: true,
  summary: 'Replace all pets, the next id and the checkpoints',
  description:
    `${STATE_DOCUMENT} Its checkpoints replace the ones kept. The older download, \`{"pets": [...], "nextId": n}\` alone, is taken too: ` +
    `it replaces the pets and the next id, and leaves the checkpoints as they are. ` +
    `Every entry is checked first, and every problem named at once; nothing is replaced when one is wrong, or when the checkpoints do not fit their budgets. ` +
    `A large state is parsed and checked in slices, so other requests go on meanwhile. ${SCOPE}`,
  body: {
    limit: 'stateBytes',
    schema: StateInputSchema,
    emptyHint: 'send a state document (GET /__sandbox/state), or {"pets": [...], "nextId": n}',
  },
  errors: ['invalid_body', 'insufficient_storage'],
  success: [{ status: 204, description: 'Replaced' }],
  async run({ controls, key, body }) {
    await controls.state.load(body, key)
    return noContent()
  },
})

const health = admin({
  id: 'health',
  summary: 'Version, uptime, pets, mode and tenants',
  errors: [],
  success: [{ status: 200, description: 'Health', schema: SandboxHealthSchema }],
  run: ({ controls }) => json(200, controls.health()),
})

const FORWARDING_SCOPE =
  'One set for the whole server (with a key in isolated mode too); a reset leaves it as it is. Without --upstream, nothing is forwarded.'

const getForwarding = admin({
  id: 'getForwarding',
  summary: 'Which operations the upstream (--upstream) answers; the sandbox answers the rest',
  description: FORWARDING_SCOPE,
  errors: [],
  success: [{ status: 200, description: 'The upstream and the operations forwarded', schema: ForwardingSchema }],
  run: ({ controls }) => json(200, forwardingOf(controls.forwarding)),
})

const setForwarding = admin({
  id: 'setForwarding',
  summary: 'Choose the operations the upstream answers, and whether their pets are recorded, from now on',
  description: `${FORWARDING_SCOPE} \`forward\`, \`record\` or both; a field left out stays as it is. An unknown operation name is a 400 naming it; forwarding anything, or recording, without an upstream is a 409.`,
  body: {
    limit: 'bodyBytes',
    schema: ForwardingInputSchema,
    emptyHint: 'send {"forward": ["listPets", "getPet"]}, {"forward": "all"}, {"forward": []} or {"record": true}',
  },
  errors: ['invalid_body', 'conflict'],
  success: [{ status: 200, description: 'The upstream and the operations forwarded now', schema: ForwardingSchema }],
  run({ controls, body }) {
    const { forward, record } = readForwardInput(body)
    // Both checked before either changes: a refused record leaves forward as it was.
    if (record === true && controls.forwarding.upstream === null) controls.forwarding.setRecord(true)
    if (forward !== undefined) controls.forwarding.set(forward)
    if (record !== undefined) controls.forwarding.setRecord(record)
    return json(200, forwardingOf(controls.forwarding))
  },
})

const listTenants = admin({
  id: 'listTenants',
  summary: "Every key's data (tenant), least recently used first, named by a handle and the key masked",
  errors: [],
  success: [{ status: 200, description: 'Tenants', schema: TenantSchema.array() }],
  run: ({ controls }) =>
    json(
      200,
      controls.data.tenants().map(({ handle, label, pets, createdSinceReset }) => ({
        id: handle,
        ...label,
        pets,
        createdSinceReset,
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
  run({ target, controls, key }) {
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
    const page = controls.data.read(key).page(offset, limit, status as PetStatus | undefined)
    return json(200, { total: page.total, offset, limit, pets: page.pets })
  },
})

const traffic = admin({
  id: 'traffic',
  summary: 'API requests per second by status class, over the last five minutes',
  errors: [],
  success: [{ status: 200, description: 'Per-second counts, oldest first', schema: TrafficSchema }],
  run: ({ controls }) => json(200, controls.live.traffic(Date.now())),
})

const events = admin({
  id: 'events',
  summary:
    'Server-sent events: each API request (event: request), each change of pet data (event: change), of the checkpoints (event: checkpoints), of the holds (event: holds) and of what is forwarded or recorded (event: forwarding)',
  description:
    `${SCOPE} A comment line every 15 s keeps the connection open. A reader whose unsent bytes pass the ` +
    'eventBacklogBytes budget gets a last `event: overflow` and is closed; past the eventStreams budget, 503.',
  errors: ['service_unavailable'],
  parameters: () => [TENANT_PARAMETER],
  success: [{ status: 200, description: 'An event stream', mediaType: 'text/event-stream' }],
  run: ({ controls, key }) => controls.live.events(key),
})

export const adminRoutes: readonly AdminRoute[] = [
  { area: 'admin', path: '/reset', methods: { POST: reset } },
  { area: 'admin', path: '/requests', methods: { GET: listRequests } },
  { area: 'admin', path: '/scenarios', methods: { GET: listScenarios, POST: addScenario, DELETE: clearScenarios } },
  { area: 'admin', path: '/state', methods: { GET: exportState, PUT: importState } },
  { area: 'admin', path: '/health', methods: { GET: health } },
  { area: 'admin', path: '/tenants', methods: { GET: listTenants } },
  { area: 'admin', path: '/pets', methods: { GET: listAllPets } },
  { area: 'admin', path: '/traffic', methods: { GET: traffic } },
  { area: 'admin', path: '/events', methods: { GET: events } },
  { area: 'admin', path: '/forwarding', methods: { GET: getForwarding, PUT: setForwarding } },
  ...checkpointRoutes,
  ...holdRoutes,
]
