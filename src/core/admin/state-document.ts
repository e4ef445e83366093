/**
 * A tenant's state in and out as one document (persisted.ts's format): `GET` and `PUT
 * /__sandbox/state`, and the sandbox's `exportState()` / `importState()`, which a browser demo
 * uses to export and load a state. The same text a `--state-file` holds, so a download starts a
 * server and a server's file loads into a page. A state is checked whole, budgets included,
 * before anything is replaced: a refused one changes nothing.
 *
 * May import: core/admin, core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import type { StoreState } from '../api/contract.js'
import type { TenantStore } from '../api/store.js'
import { ApiError } from '../http/errors.js'
import { SLICED_FROM_LENGTH } from '../http/json-body.js'
import { readJson, readJsonInSlices } from '../http/json.js'
import type { Limits } from '../limits.js'
import { checkpointBytes, type CheckpointPool } from '../state/checkpoint-pool.js'
import type { EventBus } from '../state/events.js'
import { checkPersistedInSlices, persistedChunks, type Persisted } from './persisted.js'
import type { Tenants } from '../state/tenants.js'

export interface StateControls {
  /** A key's data and checkpoints as the state document's text (the shared data's without a key). */
  text(key: string | undefined): Promise<string>
  /**
   * Replaces a key's data (and its checkpoints, given a document) with a parsed state, after
   * checking all of it; throws ApiError: 400 naming each bad field, 507 past a budget. Answers
   * which shape it was: the older `{pets, nextId}` leaves the checkpoints as they are.
   */
  load(input: unknown, key: string | undefined, subject?: string): Promise<Persisted['shape']>
  /** load() from text: the JSON read as a request body is, within the stateBytes budget. */
  loadText(text: string, key: string | undefined): Promise<Persisted['shape']>
}

interface StateParts {
  readonly tenants: Tenants
  /** The data controls' (controls.ts) reading and replacing of a key's data, no more. */
  readonly data: {
    apply(checked: StoreState, key: string | undefined): void
    read(key: string | undefined): Pick<TenantStore, 'view'>
  }
  readonly events: EventBus
  readonly limits: Limits
  readonly pool: CheckpointPool
  /** A turn for the requests waiting, between slices of a large state. */
  readonly pause: () => Promise<void>
}

export function createStateControls({ tenants, data, events, limits, pool, pause }: StateParts): StateControls {
  const load = async (input: unknown, key: string | undefined, subject = 'body') => {
    const checked = await checkPersistedInSlices(input, pause, subject)
    if (!checked.ok) throw new ApiError('invalid_body', `Invalid state: ${checked.problems.join('; ')}`)
    const { state, checkpoints, shape } = checked.value
    const { owner, scope } = tenants.of(key)
    if (shape === 'document') budgetCheck(checkpoints, tenants.existingCheckpoints(owner)?.all() ?? [], limits, pool)
    // The data first: its budget (createdPets) refuses before it replaces anything, and the
    // checkpoints' budgets were checked above, so nothing below can fail halfway.
    data.apply(state, key)
    if (shape === 'data') return shape
    const book = tenants.checkpointsFor(owner)
    book.clear()
    for (const checkpoint of checkpoints) book.save(checkpoint, false)
    events.emit({ type: 'checkpoints', key: scope })
    return shape
  }
  return {
    async text(key) {
      const { owner } = tenants.of(key)
      // One step: the data and the checkpoints as they are now, then serialised in slices.
      const view = data.read(key).view()
      const checkpoints = tenants.existingCheckpoints(owner)?.all() ?? []
      const pieces: string[] = []
      for await (const piece of persistedChunks(view, checkpoints, new Date().toISOString(), pause)) pieces.push(piece)
      return pieces.join('')
    },
    load,
    async loadText(text, key) {
      // Counted as UTF-8, as a request body is: the same budget, whichever way the state comes.
      const bytes = new TextEncoder().encode(text).byteLength
      if (bytes > limits.stateBytes) {
        throw new ApiError(
          'payload_too_large',
          `state is ${bytes} bytes, more than the stateBytes limit (${limits.stateBytes}); raise limits.stateBytes`,
        )
      }
      const reading =
        text.length < SLICED_FROM_LENGTH ? readJson(text, 'state') : await readJsonInSlices(text, 'state', pause)
      if (!reading.ok) throw new ApiError('invalid_body', reading.problems.join('; '))
      return load(reading.value, key, 'state')
    },
  }
}

/**
 * The checkpoint budgets a document must fit, checked before anything is replaced: how many one
 * tenant keeps, and the bytes all tenants' share (the ones it replaces given back first).
 */
function budgetCheck(
  incoming: Persisted['checkpoints'],
  replaced: readonly { readonly bytes: number }[],
  limits: Limits,
  pool: CheckpointPool,
): void {
  if (incoming.length > limits.checkpoints) {
    throw new ApiError(
      'insufficient_storage',
      `checkpoints holds ${incoming.length}, more than the checkpoints limit (${limits.checkpoints}): start with --limit checkpoints=${incoming.length}`,
    )
  }
  const bytes = incoming.reduce(
    (sum, checkpoint) => sum + checkpointBytes(checkpoint.state, checkpoint.scenarioInputs),
    0,
  )
  const freed = replaced.reduce((sum, checkpoint) => sum + checkpoint.bytes, 0)
  const room = pool.max - (pool.used - freed)
  if (bytes > room) {
    throw new ApiError(
      'insufficient_storage',
      `checkpoints weigh ${bytes} bytes, more than the ${Math.max(0, room)} left of the checkpointBytes limit, ${pool.max}, which the checkpoints of every key share: delete some, or start with a higher --limit checkpointBytes`,
    )
  }
}
