/**
 * The hold routes under `/__sandbox/holds`: list, add, release. A test holds the next calls of an
 * operation, sees its page's loading state, then lets them go; the same controls as the sandbox's
 * `hold()`.
 *
 * May import: core/admin, core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { json } from '../http/http.js'
import { ADMIN_PATH } from '../http/mounts.js'
import { HoldInputSchema, HoldReleaseSchema, HoldSchema } from './contract.js'
import type { AdminRoute } from './exchange.js'
import { admin, whole } from './rows.js'

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

export const holdRoutes: readonly AdminRoute[] = [
  { area: 'admin', path: '/holds', methods: { GET: listHolds, POST: addHold } },
  { area: 'admin', path: '/holds/{id}/release', methods: { POST: releaseHold } },
]
