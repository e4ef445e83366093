/**
 * What a state file keeps (`--state-file`): the shared data and its checkpoints, as text in
 * pieces for a save, and loaded back whole after every check, budgets included, so a file that
 * does not fit leaves the sandbox as it was. The host decides when to save and where; the format
 * is admin/persisted.ts's.
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import { checkpointBytes } from './state/checkpoint-pool.js'
import { checkPersisted, persistedChunks, type Persisted } from './admin/persisted.js'
import { StateError } from './api/store.js'
import { ApiError } from './http/errors.js'
import { pause } from './http/json-body.js'
import type { Controls } from './admin/controls.js'
import type { Tenants } from './state/tenants.js'
import type { Limits } from './limits.js'

/** The sandbox once its seed is built: what a save reads and a load replaces. */
export interface Loaded {
  readonly tenants: Tenants
  readonly controls: Controls
}

/** The shared data and its checkpoints, as a state file holds them. */
export interface Persistence {
  /** Moves on every change of data or checkpoints: a host saves when it moved. */
  revision(): number
  /**
   * The file's text now, in pieces: the data is taken in one step, then serialised a slice at a
   * time with a pause between, so a large state never holds the API for long. `taken` is told the
   * revision of the data taken, in that same step: the changes the text holds, exactly.
   */
  chunks(taken?: (revision: number) => void): AsyncIterable<string>
  /** Replaces the data and the checkpoints with a file's, after checking all of it; throws StateError naming every problem. */
  load(input: unknown): Promise<void>
}

/** The persistence a host keeps the data with (Hosting.prepare): never the sandbox's public one. */
export interface KeptPersistence extends Persistence {
  /**
   * load, for text that chunks() wrote and that the host shows unchanged since (a browser's
   * digest of its stored record): its pets were checked when they entered the store and are not
   * checked again (10,000 pets: 45-60 ms of a persisted page's first answer); the rest is.
   */
  loadWritten(input: unknown): Promise<void>
}

/** The sandbox's `persistence`: every input checked whole. */
export function createPersistence(
  whenReady: () => Promise<Loaded>,
  defaultKey: string,
  limits: Limits,
  changes: { readonly count: number },
): Persistence {
  const kept = createKeptPersistence(whenReady, defaultKey, limits, changes)
  return {
    revision: () => kept.revision(),
    chunks: (taken) => kept.chunks(taken),
    load: (input) => kept.load(input),
  }
}

export function createKeptPersistence(
  whenReady: () => Promise<Loaded>,
  defaultKey: string,
  limits: Limits,
  changes: { readonly count: number },
): KeptPersistence {
  const load = async (input: unknown, written: boolean) => {
    const { tenants, controls } = await whenReady()
    const checked = checkPersisted(input, 'the file', written)
    const problems = checked.ok ? budgetProblems(checked.value.checkpoints, limits) : [...checked.problems]
    if (!checked.ok || problems.length > 0) throw new StateError(problems.join('; '))
    try {
      controls.data.apply(checked.value.state, undefined)
    } catch (error) {
      if (error instanceof ApiError) throw new StateError(error.message)
      throw error
    }
    const book = tenants.checkpointsFor(defaultKey)
    book.clear()
    for (const checkpoint of checked.value.checkpoints) book.save(checkpoint, false)
  }
  return {
    revision: () => changes.count,
    async *chunks(taken) {
      const { tenants } = await whenReady()
      // One step: the data and the checkpoints as they are now, then serialised in slices.
      const view = tenants.storeFor(defaultKey).view()
      const checkpoints = tenants.existingCheckpoints(defaultKey)?.all() ?? []
      taken?.(changes.count)
      yield* persistedChunks(view, checkpoints, new Date().toISOString(), pause)
    },
    load: (input) => load(input, false),
    loadWritten: (input) => load(input, true),
  }
}

/** The checkpoint budgets a file must fit, checked before anything is replaced. */
function budgetProblems(checkpoints: Persisted['checkpoints'], limits: Limits): string[] {
  const problems: string[] = []
  if (checkpoints.length > limits.checkpoints) {
    problems.push(
      `the file holds ${checkpoints.length} checkpoints, more than the checkpoints limit (${limits.checkpoints}): start with --limit checkpoints=${checkpoints.length}`,
    )
  }
  const bytes = checkpoints.reduce(
    (sum, checkpoint) => sum + checkpointBytes(checkpoint.state, checkpoint.scenarioInputs),
    0,
  )
  if (bytes > limits.checkpointBytes) {
    problems.push(
      `the file's checkpoints weigh ${bytes} bytes, more than the checkpointBytes limit (${limits.checkpointBytes}): start with --limit checkpointBytes=${bytes}`,
    )
  }
  return problems
}
