/**
 * The admin routes under `/__sandbox`, rows of the same route table as the API: reset, the
 * request journal, scenarios, state in and out, health, forwarding. Each
 * does over HTTP what a sandbox method does in-process, through the same controls. A key in
 * `Authorization` is optional; when sent it is checked, and scopes reset, journal, scenarios
 * and state to that key's data (isolated mode).
 *
 * May import: core/admin, core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import * as z from 'zod'
import {
  CheckpointInputSchema,
  CheckpointListSchema,
  ForwardingInputSchema,
  ForwardingSchema,
  HoldInputSchema,
  HoldReleaseSchema,
  HoldSchema,
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
import { checkObject, PET_STATUSES, type PetStatus } from '../api/contract.js'
import { ApiError } from '../http/errors.js'
import { json, JSON_HEADERS, noContent } from '../http/http.js'
import { ADMIN_PATH } from '../http/mounts.js'
import { readQuery } from '../http/query.js'
import type { AdminOperation, AdminRoute } from './exchange.js'
import { forwardingOf, readForwardInput } from '../state/forwarding-state.js'
import { ScenarioError } from '../state/scenarios.js'

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

const SCOPE = 'With a key in isolated mode: that key only.'

function admin(operation: Omit<AdminOperation, 'key'>): AdminOperation {
  return { key: 'optional', ...operation }
}

const reset = admin({
  id: 'resetSandbox',
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

const TENANT_PARAMETER = {
  name: 'tenant',
  in: 'query',
  required: false,
  description: `Isolated mode: a tenant handle from GET ${ADMIN_PATH}/tenants (instead of its key in Authorization)`,
  schema: { type: 'string' },
}

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

const NAME_PARAMETER = {
  name: 'name',
  in: 'path',
  required: true,
  description: "The checkpoint's name",
  schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' },
}

const listCheckpointsRoute = admin({
  id: 'listCheckpoints',
  summary: 'The checkpoints, oldest saved first, with their times and pet counts',
  description: SCOPE,
  errors: [],
  parameters: () => [TENANT_PARAMETER],
  success: [{ status: 200, description: 'The checkpoints', schema: CheckpointListSchema }],
  run: ({ controls, key }) => json(200, controls.checkpoints.list(key)),
})

const saveCheckpointRoute = admin({
  id: 'saveCheckpoint',
  summary: 'Save the data (pets and the id sequence, and the scenarios if asked) under a name',
  description: `A name in use is refused (409) unless "replace" is true. The reset keeps checkpoints. ${SCOPE}`,
  makesTenant: true,
  body: {
    limit: 'bodyBytes',
    schema: CheckpointInputSchema,
    emptyHint: 'send a JSON checkpoint such as {"name":"before-checkout"}',
  },
  errors: ['invalid_body', 'conflict', 'insufficient_storage'],
  success: [
    {
      status: 201,
      description: 'Saved',
      schema: CheckpointListSchema.element,
      headers: { Location: 'The checkpoint: its restore and delete are under it' },
    },
  ],
  run({ controls, key, body }) {
    // The name's rule is in the schema: every problem at once, the name's among them.
    const checked = checkObject(CheckpointInputSchema, body, 'body')
    if (!checked.ok) throw new ApiError('invalid_body', checked.problems.join('; '))
    const summary = controls.checkpoints.save(key, checked.value)
    return json(201, summary, { Location: `${ADMIN_PATH}/checkpoints/${summary.name}` })
  },
})

const restoreCheckpointRoute = admin({
  id: 'restoreCheckpoint',
  summary: 'Rewind the data (and the scenarios, if saved with it) to a checkpoint',
  description: `The journal stays as it is. ${SCOPE}`,
  errors: ['checkpoint_not_found', 'insufficient_storage'],
  parameters: () => [NAME_PARAMETER],
  success: [{ status: 204, description: 'Rewound' }],
  run({ controls, key, params }) {
    controls.checkpoints.rewind(key, params.name ?? '')
    return noContent()
  },
})

const deleteCheckpointRoute = admin({
  id: 'deleteCheckpoint',
  summary: 'Delete a checkpoint',
  description: SCOPE,
  errors: ['checkpoint_not_found'],
  parameters: () => [NAME_PARAMETER],
  success: [{ status: 204, description: 'Deleted' }],
  run({ controls, key, params }) {
    controls.checkpoints.remove(key, params.name ?? '')
    return noContent()
  },
})

const HOLD_SCOPE = 'With a key in isolated mode: that key only (a hold added with no key holds every key).'

const listHolds = admin({
  id: 'listHolds',
  summary: 'The holds, each with how many calls it holds now',
  description: `Wait for \`holding\` to reach what a test expects, instead of sleeping. ${HOLD_SCOPE}`,
  errors: [],
  success: [{ status: 200, description: 'The holds, oldest first', schema: HoldSchema.array() }],
  run: ({ controls, key }) => json(200, controls.holds.list(key)),
})

const addHold = admin({
  id: 'addHold',
  summary: 'Hold the next calls of an operation: they wait, answering nothing, until the hold is released',
  description:
    `Calls held across the sandbox have a budget (heldRequests): past it a call is answered 503 at once. ` +
    `A client that goes away is dropped from its hold; a reset and a shutdown release every hold. ${HOLD_SCOPE}`,
  body: {
    limit: 'bodyBytes',
    schema: HoldInputSchema,
    emptyHint: 'send a JSON hold such as {"operation":"listPets","times":1}',
  },
  errors: ['invalid_body'],
  success: [
    {
      status: 201,
      description: 'The hold added',
      schema: HoldSchema,
      headers: { Location: 'The hold: its release is under it' },
    },
  ],
  run({ controls, key, body }) {
    const hold = controls.holds.add(key, body)
    return json(201, hold, { Location: `${ADMIN_PATH}/holds/${hold.id}` })
  },
})

const ID_PARAMETER = {
  name: 'id',
  in: 'path',
  required: true,
  description: "The hold's id, from POST /__sandbox/holds",
  schema: { type: 'integer', minimum: 1 },
}

const releaseHold = admin({
  id: 'releaseHold',
  summary: "Let the hold's calls go, and end it",
  description:
    'The held calls answer as usual; with `status`, each answers that simulated failure instead. ' +
    `The body may be empty. ${HOLD_SCOPE}`,
  body: { limit: 'bodyBytes', schema: HoldReleaseSchema, emptyHint: 'send {} or {"status":503}', optional: true },
  errors: ['invalid_parameter', 'invalid_body', 'hold_not_found'],
  parameters: () => [ID_PARAMETER],
  success: [{ status: 200, description: 'The hold as it was when released', schema: HoldSchema }],
  run({ controls, key, params, body }) {
    const id = whole(params.id, 'id', 1, Number.MAX_SAFE_INTEGER, 0)
    return json(200, controls.holds.release(key, id, body ?? {}))
  },
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
  { area: 'admin', path: '/checkpoints', methods: { GET: listCheckpointsRoute, POST: saveCheckpointRoute } },
  { area: 'admin', path: '/checkpoints/{name}', methods: { DELETE: deleteCheckpointRoute } },
  { area: 'admin', path: '/checkpoints/{name}/restore', methods: { POST: restoreCheckpointRoute } },
  { area: 'admin', path: '/holds', methods: { GET: listHolds, POST: addHold } },
  { area: 'admin', path: '/holds/{id}/release', methods: { POST: releaseHold } },
]
