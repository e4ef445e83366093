/**
 * What one sandbox holds once its seed is ready, and the controls over it (reset, state in and
 * out, health). The admin routes and the sandbox's methods both call these, so the two cannot
 * drift apart.
 *
 * May import: core/admin, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import type { Clock } from './clock.js'
import type { Counters } from './counters.js'
import type { Delays } from './delays.js'
import type { EventBus } from './events.js'
import { forwardingOf, type ForwardingState } from './forwarding.js'
import { checkStoreState, type StoreState } from '../api/contract.js'
import type { SandboxHealth, Scenario, ScenarioInput } from './contract.js'
import { checkpointNameProblem, type CheckpointPool, type CheckpointSummary } from './checkpoints.js'
import { ApiError } from '../http/errors.js'
import type { ListCache } from '../api/list-cache.js'
import { ADMIN_PATH } from '../http/mounts.js'
import { LIMIT_NAMES, LIMITS, type LimitName, type Limits } from '../limits.js'
import type { Notices } from './notices.js'
import type { WritableJournal, JournalEntry } from './journal.js'
import type { Traffic, WritableScenarioBook } from './scenarios.js'
import { createTenantStore, StateError } from '../api/store.js'
import type { Tenants } from './tenants.js'

/** A file the server ships (the reference page's scripts and styles), served by the core's asset route. */
export interface Asset {
  readonly type: string
  readonly bytes: Uint8Array
}

export interface SandboxState {
  readonly basePath: string
  readonly isolated: boolean
  readonly defaultKey: string
  /** Every budget, from the one table with the sandbox's own values on top. */
  readonly limits: Limits
  /** Where repeated events are logged, summarised. */
  readonly notices: Notices
  readonly tenants: Tenants
  readonly listCache: ListCache
  /** What the created pets of all tenants use of the createdPets budget. */
  readonly created: { used: number; readonly max: number }
  /** What all tenants' checkpoints weigh together, against the checkpointBytes budget. */
  readonly checkpointBytes: CheckpointPool
  /** Large bodies (state imports) being read or parsed now: the largeBodies budget's use. */
  readonly bodies: { large: number }
  /** What the host knows of its own budgets' use. */
  readonly hostUsage: HostUsage
  readonly journal: WritableJournal
  readonly scenarios: WritableScenarioBook
  readonly traffic: Traffic
  readonly delays: Delays
  readonly events: EventBus
  readonly counters: Counters
  /** Counts every change of data and checkpoints, in every tenant: what a state file watches. */
  readonly changes: { count: number }
  /** The host's state file, for health (`--state-file`); none in-process. */
  readonly stateFile: () => StateFileHealth | null
  /** Which operations the upstream answers (`--upstream`); always none in-process. */
  readonly forwarding: ForwardingState
  readonly clock: Clock
  readonly version: string
  readonly startedAt: number
  /** Files the host serves under /__sandbox/docs; none in-process. */
  readonly assets: (name: string) => Asset | undefined
}

/** What health says of a state file (`--state-file`). */
export interface StateFileHealth {
  readonly file: string
  readonly savedAt: string | null
  readonly error: string | null
}

/** Restores the seed and the id sequence, and clears the journal and scenarios; with a key in isolated mode, that key's only. */
export function resetState(state: SandboxState, key?: string): void {
  state.tenants.reset(key)
  const scoped = state.tenants.scope(key)
  if (scoped !== undefined) {
    state.journal.clearTenant(scoped)
  } else {
    state.journal.clear()
    state.scenarios.clear()
  }
  state.events.emit({ type: 'change', key: state.tenants.scope(key) })
}

/** All pets and the next id of a key's data. A key with no data yet reads the seed, creating no tenant. */
export function snapshotState(state: SandboxState, key = state.defaultKey): StoreState {
  return (state.tenants.existing(key) ?? createTenantStore(state.tenants.seed())).snapshot()
}

/** Replaces a key's pets and next id after checking every entry; throws StateError naming each bad field. */
export function restoreState(state: SandboxState, input: unknown, key = state.defaultKey): void {
  const checked = checkStoreState(input)
  if (!checked.ok) throw new StateError(`Invalid state: ${checked.problems.join('; ')}`)
  try {
    applyState(state, checked.value, key)
  } catch (error) {
    // Past the createdPets budget: in-process, a StateError like every other refusal of a state.
    if (error instanceof ApiError) throw new StateError(error.message)
    throw error
  }
}

/** Replaces a key's pets and next id with a state already checked. */
export function applyState(state: SandboxState, checked: StoreState, key = state.defaultKey): void {
  state.tenants.storeFor(key).restore(checked)
  state.events.emit({ type: 'change', key: state.tenants.scope(key) })
}

/**
 * In isolated mode a key scopes scenarios to that key; otherwise they are shared. Adding one
 * (`create`) makes the key's tenant; reading or clearing a key's scenarios makes nothing.
 */
export function scenarioBookFor(
  state: SandboxState,
  key: string | undefined,
  create: boolean,
): WritableScenarioBook | undefined {
  const scoped = state.tenants.scope(key)
  if (scoped === undefined) return state.scenarios
  return create ? state.tenants.scenariosFor(scoped) : state.tenants.existingScenarios(scoped)
}

/** The journal, or in isolated mode with a key that key's entries only. */
export function journalFor(state: SandboxState, key: string | undefined): JournalEntry[] {
  const scoped = state.tenants.scope(key)
  return scoped === undefined ? state.journal.all() : state.journal.forTenant(scoped)
}

/** What the host knows of its own budgets' use (the server: connections); nothing in-process. */
export type HostUsage = () => Partial<Record<LimitName, number>>

/** Each budget beside its use now; null for a budget that bounds one request, not a pool. */
function usageOf(state: SandboxState): SandboxHealth['limits'] {
  const journal = state.journal.usage()
  const used: Partial<Record<LimitName, number>> = {
    largeBodies: state.bodies.large,
    tenants: state.tenants.count(),
    createdPetsPerTenant: state.tenants.mostCreated(),
    createdPets: state.created.used,
    scenarios: state.scenarios.list().length,
    checkpoints: state.tenants.mostCheckpoints(),
    checkpointBytes: state.checkpointBytes.used,
    journalEntries: journal.entries,
    journalBytes: journal.bytes,
    listCacheBytes: state.listCache.bytes(),
    eventStreams: state.events.count(),
    eventBacklogBytes: state.events.largestBacklog(),
    upstreamRequests: state.forwarding.exchanges.waiting,
    ...state.hostUsage(),
  }
  return Object.fromEntries(
    LIMIT_NAMES.map((name) => [
      name,
      { budget: state.limits[name], used: used[name] ?? null, unit: LIMITS[name].unit },
    ]),
  ) as SandboxHealth['limits']
}

export function healthOf(state: SandboxState): SandboxHealth {
  return {
    status: 'ok',
    version: state.version,
    uptimeSeconds: Math.round((Date.now() - state.startedAt) / 1000),
    pets: state.tenants.storeFor(state.defaultKey).count(),
    mode: state.isolated ? 'isolated' : 'shared',
    tenants: state.tenants.count(),
    evictions: state.tenants.evictions(),
    dashboard: `${ADMIN_PATH}/`,
    upstream:
      state.forwarding.upstream === null
        ? null
        : { label: state.forwarding.upstream, forward: forwardingOf(state.forwarding).forward },
    stateFile: state.stateFile(),
    limits: usageOf(state),
  }
}

/** Saves a key's data (and scenarios, when asked) as a checkpoint; in shared mode, everyone's. */
export function saveCheckpoint(
  state: SandboxState,
  key: string | undefined,
  input: { readonly name: string; readonly scenarios?: boolean | undefined; readonly replace?: boolean | undefined },
): CheckpointSummary {
  const owner = key ?? state.defaultKey
  const problem = checkpointNameProblem(input.name)
  if (problem !== undefined) throw new ApiError('invalid_body', problem)
  const data = snapshotState(state, owner)
  const scenarioInputs =
    input.scenarios === true ? (scenarioBookFor(state, key, false)?.list() ?? []).map(scenarioInputOf) : undefined
  const summary = state.tenants.checkpointsFor(owner).save(
    {
      name: input.name,
      savedAt: new Date(state.clock()).toISOString(),
      pets: data.pets.length,
      nextId: data.nextId,
      scenarios: scenarioInputs !== undefined,
      state: data,
      scenarioInputs,
    },
    input.replace === true,
  )
  state.events.emit({ type: 'checkpoints', key: state.tenants.scope(key) })
  return summary
}

/** A key's checkpoints, oldest saved first; none for a tenant that has none. */
export function listCheckpoints(state: SandboxState, key: string | undefined): CheckpointSummary[] {
  return state.tenants.existingCheckpoints(key ?? state.defaultKey)?.list() ?? []
}

/** Rewinds a key's data (and its scenarios, when the checkpoint holds them) to a checkpoint. */
export function rewindToCheckpoint(state: SandboxState, key: string | undefined, name: string): CheckpointSummary {
  const owner = key ?? state.defaultKey
  const checkpoint = state.tenants.existingCheckpoints(owner)?.get(name)
  if (checkpoint === undefined) throw checkpointNotFound(state, key, name)
  applyState(state, checkpoint.state, owner)
  if (checkpoint.scenarioInputs !== undefined) {
    const book = scenarioBookFor(state, key, true) ?? state.scenarios
    book.clear()
    for (const scenario of checkpoint.scenarioInputs) book.add(scenario)
  }
  const { state: _, scenarioInputs: __, ...summary } = checkpoint
  return summary
}

/** Deletes one of a key's checkpoints. */
export function deleteCheckpoint(state: SandboxState, key: string | undefined, name: string): void {
  const removed = state.tenants.existingCheckpoints(key ?? state.defaultKey)?.remove(name) === true
  if (!removed) throw checkpointNotFound(state, key, name)
  state.events.emit({ type: 'checkpoints', key: state.tenants.scope(key) })
}

function checkpointNotFound(state: SandboxState, key: string | undefined, name: string): ApiError {
  const names = listCheckpoints(state, key).map((checkpoint) => checkpoint.name)
  return new ApiError(
    'checkpoint_not_found',
    `checkpoint ${JSON.stringify(name)} does not exist; ${names.length === 0 ? 'there are none' : `there are ${names.join(', ')}`}`,
  )
}

/** A scenario as it was added, with the calls it has left: what a rewind adds again. */
function scenarioInputOf(scenario: Scenario): ScenarioInput {
  const { id: _, remaining, ...rest } = scenario
  return { ...rest, ...(remaining !== undefined && { times: remaining }) }
}
