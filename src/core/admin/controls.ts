/**
 * The sandbox's controls: reset, state in and out, scenarios, the journal, checkpoints and
 * forwarding, each over the data of the tenant a key scopes (tenants.ts: `of`). The admin routes
 * and the sandbox's in-process methods both call these, so the two cannot drift apart; each
 * group is given only the parts it works on.
 *
 * May import: core/admin, core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { checkObject, checkStoreState, type StoreState } from '../api/contract.js'
import { createTenantStore, StateError, type TenantStore } from '../api/store.js'
import { ApiError } from '../http/errors.js'
import type { CheckpointSummary } from '../state/checkpoint-pool.js'
import type { Clock } from '../state/clock.js'
import {
  HoldInputSchema,
  HoldReleaseSchema,
  type Hold,
  type SandboxHealth,
  type Scenario,
  type ScenarioInput,
} from './contract.js'
import type { EventBus } from '../state/events.js'
import type { ForwardingState } from '../state/forwarding-state.js'
import type { HoldBook } from '../state/hold-book.js'
import type { JournalEntry, JournalFilter, WritableJournal } from '../state/request-journal.js'
import { matchesFilter } from '../state/request-journal.js'
import type { LiveControls } from './live.js'
import type { StateControls } from './state-document.js'
import type { WritableScenarioBook } from '../state/scenarios.js'
import type { TenantLabel, Tenants } from '../state/tenants.js'

export interface DataControls {
  /** Restores the seed and the id sequence, and clears the journal and scenarios; with a key in isolated mode, that key's only. */
  reset(key: string | undefined): void
  /** All pets and the next id of a key's data. A key with no data yet reads the seed, creating no tenant. */
  snapshot(key: string | undefined): StoreState
  /** Replaces a key's pets and next id with a state already checked. */
  apply(checked: StoreState, key: string | undefined): void
  /** Replaces a key's pets and next id after checking every entry; throws StateError naming each bad field. */
  restore(input: unknown, key: string | undefined): void
  /** The store a key reads, without creating its tenant: the seed's when it has none. */
  read(key: string | undefined): TenantStore
  /** Every tenant, least recently used first (the default key's first), with its handle and counts. */
  tenants(): { handle: string; key: string; label: TenantLabel; pets: number; createdSinceReset: number }[]
}

export interface ScenarioControls {
  /** The scenarios a key's calls meet: its own in isolated mode (none until it adds one), else the shared ones. */
  list(key: string | undefined): Scenario[]
  /** Adds one; in isolated mode it makes the key's tenant. */
  add(key: string | undefined, input: ScenarioInput): Scenario
  clear(key: string | undefined): void
}

export interface CheckpointControls {
  save(
    key: string | undefined,
    input: { readonly name: string; readonly scenarios?: boolean | undefined; readonly replace?: boolean | undefined },
  ): CheckpointSummary
  list(key: string | undefined): CheckpointSummary[]
  rewind(key: string | undefined, name: string): CheckpointSummary
  remove(key: string | undefined, name: string): void
}

export interface HoldControls {
  /** Adds a hold after checking the input; throws ApiError invalid_body naming each wrong field. */
  add(key: string | undefined, input: unknown): Hold
  list(key: string | undefined): Hold[]
  /** Lets the hold's calls go (with a scenario status when the input has one) and ends it; 404 when none. */
  release(key: string | undefined, id: number, input: unknown): Hold
  /** Resolves once the hold has caught a call, or at once when it already holds one or is gone. */
  reached(id: number): Promise<void>
}

export interface Controls {
  readonly data: DataControls
  readonly scenarios: ScenarioControls
  readonly holds: HoldControls
  /** The journal, or in isolated mode with a key that key's entries only, filtered. */
  journal(key: string | undefined, filter: JournalFilter): JournalEntry[]
  readonly checkpoints: CheckpointControls
  /** A key's state as one document (state-document.ts): what GET and PUT /__sandbox/state carry. */
  readonly state: StateControls
  readonly forwarding: ForwardingState
  readonly live: LiveControls
  health(): SandboxHealth
  /** The key a `?tenant=` handle stands for, while that tenant exists. */
  readonly keyOfHandle: (handle: string) => string | undefined
}

interface DataParts {
  readonly tenants: Tenants
  readonly journal: WritableJournal
  readonly scenarios: WritableScenarioBook
  readonly events: EventBus
  readonly holds: HoldBook
}

export function createDataControls({ tenants, journal, scenarios, events, holds }: DataParts): DataControls {
  const apply = (checked: StoreState, key: string | undefined) => {
    const { owner, scope } = tenants.of(key)
    tenants.storeFor(owner).restore(checked)
    events.emit({ type: 'change', key: scope })
  }
  const read = (key: string | undefined) => tenants.existing(tenants.of(key).owner) ?? createTenantStore(tenants.seed())
  return {
    reset(key) {
      const { scope } = tenants.of(key)
      tenants.reset(key)
      // A held call answers from the data as it is now: the seed.
      holds.releaseAll(scope)
      if (scope !== undefined) {
        journal.clearTenant(scope)
      } else {
        journal.clear()
        scenarios.clear()
      }
      events.emit({ type: 'change', key: scope })
    },
    snapshot: (key) => read(key).snapshot(),
    apply,
    restore(input, key) {
      const checked = checkStoreState(input)
      if (!checked.ok) throw new StateError(`Invalid state: ${checked.problems.join('; ')}`)
      try {
        apply(checked.value, key)
      } catch (error) {
        // Past the createdPets budget: in-process, a StateError like every other refusal of a state.
        if (error instanceof ApiError) throw new StateError(error.message)
        throw error
      }
    },
    read,
    tenants: () =>
      tenants.list().map(({ handle, key, store }) => ({
        handle,
        key,
        label: tenants.labelOf(key),
        pets: store.count(),
        createdSinceReset: store.createdCount(),
      })),
  }
}

export function createScenarioControls(tenants: Tenants, shared: WritableScenarioBook): ScenarioControls {
  /** In isolated mode a key's own book (made when `create`); otherwise the shared one. */
  const bookFor = (key: string | undefined, create: boolean): WritableScenarioBook | undefined => {
    const { scope } = tenants.of(key)
    if (scope === undefined) return shared
    return create ? tenants.scenariosFor(scope) : tenants.existingScenarios(scope)
  }
  return {
    list: (key) => bookFor(key, false)?.list() ?? [],
    add: (key, input) => (bookFor(key, true) ?? shared).add(input),
    clear(key) {
      bookFor(key, false)?.clear()
    },
  }
}

export function createHoldControls(tenants: Pick<Tenants, 'of'>, holds: HoldBook): HoldControls {
  return {
    add(key, input) {
      const checked = checkObject(HoldInputSchema, input, 'hold')
      if (!checked.ok) throw new ApiError('invalid_body', checked.problems.join('; '))
      return holds.add(tenants.of(key).scope, checked.value.operation, checked.value.times)
    },
    list: (key) => holds.list(tenants.of(key).scope),
    release(key, id, input) {
      const checked = checkObject(HoldReleaseSchema, input ?? {}, 'release')
      if (!checked.ok) throw new ApiError('invalid_body', checked.problems.join('; '))
      const { scope } = tenants.of(key)
      const { status } = checked.value
      const hold = holds.list(scope).find((candidate) => candidate.id === id)
      if (status === 404 && hold !== undefined && hold.operation !== 'getPet') {
        throw new ApiError(
          'invalid_body',
          `release.status: 404 is only a getPet answer; hold ${id} holds ${hold.operation}`,
        )
      }
      return holds.release(scope, id, status)
    },
    reached: (id) => holds.reached(id),
  }
}

export function createJournalControl(tenants: Tenants, journal: WritableJournal): Controls['journal'] {
  return (key, filter) => {
    const { scope } = tenants.of(key)
    const entries = scope === undefined ? journal.all() : journal.forTenant(scope)
    return entries.filter((entry) => matchesFilter(entry, filter))
  }
}

interface CheckpointParts {
  readonly tenants: Tenants
  readonly events: EventBus
  readonly clock: Clock
  readonly data: DataControls
  readonly scenarios: ScenarioControls
}

export function createCheckpointControls({
  tenants,
  events,
  clock,
  data,
  scenarios,
}: CheckpointParts): CheckpointControls {
  const list = (key: string | undefined) => tenants.existingCheckpoints(tenants.of(key).owner)?.list() ?? []
  const notFound = (key: string | undefined, name: string) => {
    const names = list(key).map((checkpoint) => checkpoint.name)
    return new ApiError(
      'checkpoint_not_found',
      `Checkpoint ${JSON.stringify(name)} does not exist. ${names.length === 0 ? 'No checkpoint is saved' : `The saved ones: ${names.map((saved) => JSON.stringify(saved)).join(', ')}`}.`,
    )
  }
  return {
    save(key, input) {
      const { owner, scope } = tenants.of(key)
      const state = data.snapshot(key)
      const scenarioInputs = input.scenarios === true ? scenarios.list(key).map(scenarioInputOf) : undefined
      const summary = tenants.checkpointsFor(owner).save(
        {
          name: input.name,
          savedAt: new Date(clock()).toISOString(),
          pets: state.pets.length,
          nextId: state.nextId,
          scenarios: scenarioInputs !== undefined,
          state,
          scenarioInputs,
        },
        input.replace === true,
      )
      events.emit({ type: 'checkpoints', key: scope })
      return summary
    },
    list,
    rewind(key, name) {
      const checkpoint = tenants.existingCheckpoints(tenants.of(key).owner)?.get(name)
      if (checkpoint === undefined) throw notFound(key, name)
      data.apply(checkpoint.state, key)
      if (checkpoint.scenarioInputs !== undefined) {
        scenarios.clear(key)
        for (const scenario of checkpoint.scenarioInputs) scenarios.add(key, scenario)
      }
      const { state: _, scenarioInputs: __, ...summary } = checkpoint
      return summary
    },
    remove(key, name) {
      const { owner, scope } = tenants.of(key)
      if (tenants.existingCheckpoints(owner)?.remove(name) !== true) throw notFound(key, name)
      events.emit({ type: 'checkpoints', key: scope })
    },
  }
}

/** A scenario as it was added, with the calls it has left: what a rewind adds again. */
function scenarioInputOf(scenario: Scenario): ScenarioInput {
  const { id: _, remaining, ...rest } = scenario
  return { ...rest, ...(remaining !== undefined && { times: remaining }) }
}
