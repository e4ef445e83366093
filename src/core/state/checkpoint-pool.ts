/**
 * Named checkpoints: a tenant's data (pets and the id sequence, and its scenarios when asked)
 * saved under a name, to rewind to later. A presenter saves "before-checkout" after a rehearsal
 * and rewinds to it between audiences; `reset` still means the seed. Each tenant has its own book
 * (under --isolate, a key's); their number per tenant and their bytes in all tenants together
 * have budgets (`checkpoints`, `checkpointBytes`).
 *
 * May import: core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import * as z from 'zod'
import type { Pet, StoreState } from '../api/contract.js'
import { ApiError } from '../http/errors.js'
import type { ScenarioInput } from './shapes.js'

/** A name a URL path can carry as it is: `before-checkout`, `take.2`. */
export const CHECKPOINT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/** What a list of checkpoints shows of one. */
export interface CheckpointSummary {
  readonly name: string
  /** On the sandbox clock, ISO 8601. */
  readonly savedAt: string
  readonly pets: number
  readonly nextId: number
  /** Whether the checkpoint holds scenarios too, which a rewind puts back. */
  readonly scenarios: boolean
  /** What it weighs against the checkpointBytes budget: its data as JSON. */
  readonly bytes: number
}

/** A checkpoint whole: what a rewind restores, and what a state file keeps. */
export interface Checkpoint extends CheckpointSummary {
  readonly state: StoreState
  readonly scenarioInputs: readonly ScenarioInput[] | undefined
}

export interface CheckpointBook {
  list(): CheckpointSummary[]
  get(name: string): Checkpoint | undefined
  /** Every checkpoint whole, oldest first: for a state file. */
  all(): readonly Checkpoint[]
  /** Saves one under a name already checked; a name in use is refused unless `replace`. Throws ApiError past a budget. */
  save(checkpoint: Omit<Checkpoint, 'bytes'>, replace: boolean): CheckpointSummary
  remove(name: string): boolean
  /** Drops every checkpoint, giving their bytes back (a tenant evicted). */
  clear(): void
}

/** The bytes all tenants' checkpoints hold together, against `checkpointBytes`. */
export interface CheckpointPool {
  used: number
  readonly max: number
  /** Counts every save and removal: a state file saves when it moved. */
  readonly changes: { count: number }
}

/**
 * A checkpoint's name, the one rule: checked where a name enters (the route's body and the
 * in-process `checkpoint()` through admin/contract.ts's CheckpointInputSchema, a state's
 * checkpoints through its document's schema), so a save further in takes it as checked.
 */
export const CheckpointNameSchema = z.string().refine((name) => CHECKPOINT_NAME.test(name), {
  error: (issue) => {
    const name = String(issue.input)
    return `must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit, got ${JSON.stringify(name.length > 70 ? `${name.slice(0, 67)}...` : name)}`
  },
})

/** A checkpoint's weight: its pets and scenarios as the JSON a state file holds. */
export function checkpointBytes(state: StoreState, scenarios: readonly ScenarioInput[] | undefined): number {
  let bytes = 64 + String(state.nextId).length
  for (const pet of state.pets) bytes += petBytes(pet)
  return bytes + (scenarios === undefined ? 0 : JSON.stringify(scenarios).length)
}

// Counted without JSON.stringify of the whole list: a million pets would make one string of 80 MB.
function petBytes(pet: Pet): number {
  return JSON.stringify(pet).length + 1
}

export function createCheckpointBook(maxCount: number, pool: CheckpointPool): CheckpointBook {
  const byName = new Map<string, Checkpoint>()
  const summary = ({ state: _, scenarioInputs: __, ...rest }: Checkpoint): CheckpointSummary => rest
  return {
    list: () => [...byName.values()].map(summary),
    get: (name) => byName.get(name),
    all: () => [...byName.values()],
    // The name was checked where it entered (CheckpointNameSchema).
    save(given, replace) {
      const previous = byName.get(given.name)
      if (previous !== undefined && !replace) {
        throw new ApiError(
          'conflict',
          `checkpoint ${given.name} exists already (saved ${previous.savedAt}); send "replace": true to save over it, or choose another name`,
        )
      }
      if (previous === undefined && byName.size >= maxCount) {
        throw new ApiError(
          'insufficient_storage',
          `There are ${byName.size} checkpoints already, the most kept (the checkpoints limit); delete one first`,
        )
      }
      const bytes = checkpointBytes(given.state, given.scenarioInputs)
      const freed = previous?.bytes ?? 0
      if (pool.used - freed + bytes > pool.max) {
        throw new ApiError(
          'insufficient_storage',
          `This checkpoint weighs ${bytes} bytes, and the checkpoints hold ${pool.used} of ${pool.max} (the checkpointBytes limit); delete one first`,
        )
      }
      pool.used += bytes - freed
      const checkpoint: Checkpoint = { ...given, bytes }
      // A replaced name moves to the end: the list is in the order they were last saved.
      byName.delete(given.name)
      byName.set(given.name, checkpoint)
      pool.changes.count++
      return summary(checkpoint)
    },
    remove(name) {
      const checkpoint = byName.get(name)
      if (checkpoint === undefined) return false
      pool.used -= checkpoint.bytes
      byName.delete(name)
      pool.changes.count++
      return true
    },
    clear() {
      for (const checkpoint of byName.values()) pool.used -= checkpoint.bytes
      if (byName.size > 0) pool.changes.count++
      byName.clear()
    },
  }
}
