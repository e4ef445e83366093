/**
 * The checkpoint routes under `/__sandbox/checkpoints`: list, save under a name, rewind, delete,
 * each over the data of the tenant a key scopes, through the same controls as the sandbox's
 * `checkpoint()`, `rewind()` and `deleteCheckpoint()`.
 *
 * May import: core/admin, core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { ApiError } from '../http/errors.js'
import { json, noContent } from '../http/http.js'
import { ADMIN_PATH } from '../http/mounts.js'
import { checkObject } from '../api/contract.js'
import { CHECKPOINT_NAME } from '../state/checkpoint-pool.js'
import { CheckpointInputSchema, CheckpointListSchema } from './contract.js'
import type { AdminRoute } from './exchange.js'
import { admin, SCOPE, TENANT_PARAMETER } from './rows.js'

const NAME_PARAMETER = {
  name: 'name',
  in: 'path',
  required: true,
  description: "The checkpoint's name",
  schema: { type: 'string', pattern: CHECKPOINT_NAME.source },
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
  writes: true,
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
  writes: true,
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
  writes: true,
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

export const checkpointRoutes: readonly AdminRoute[] = [
  { area: 'admin', path: '/checkpoints', methods: { GET: listCheckpointsRoute, POST: saveCheckpointRoute } },
  { area: 'admin', path: '/checkpoints/{name}', methods: { DELETE: deleteCheckpointRoute } },
  { area: 'admin', path: '/checkpoints/{name}/restore', methods: { POST: restoreCheckpointRoute } },
]
