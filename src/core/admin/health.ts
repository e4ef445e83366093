/**
 * What GET /__sandbox/health says: the version, uptime, pets, mode, tenants, the upstream and
 * the state file, and every budget of the one table beside its use now.
 *
 * May import: core/admin, core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import type { ListCache } from '../api/list-cache.js'
import type { BodySlots } from '../http/body.js'
import { ADMIN_PATH } from '../http/mounts.js'
import { LIMIT_NAMES, LIMITS, type LimitName, type Limits } from '../limits.js'
import type { CheckpointPool } from '../state/checkpoint-pool.js'
import type { SandboxHealth } from './contract.js'
import type { EventBus } from '../state/events.js'
import type { HoldBook } from '../state/hold-book.js'
import { forwardingOf, type ForwardingState } from '../state/forwarding-state.js'
import type { WritableJournal } from '../state/request-journal.js'
import type { WritableScenarioBook } from '../state/scenarios.js'
import type { Tenants } from '../state/tenants.js'

/** What the host knows of its own budgets' use (the server: connections); nothing in-process. */
export type HostUsage = () => Partial<Record<LimitName, number>>

/** What health says of a state file (`--state-file`). */
export interface StateFileHealth {
  readonly file: string
  readonly savedAt: string | null
  readonly error: string | null
  /** When it is written: every change before its answer, or at most once per interval. */
  readonly save: 'always' | 'interval'
  /** `always`: the change log's flushes since the start, and the changes they held (their batches). */
  readonly flushes: number
  readonly flushedChanges: number
}

/** Every part whose use a budget bounds, and what health says of the sandbox itself. */
export interface HealthParts {
  readonly version: string
  readonly startedAt: number
  readonly isolated: boolean
  readonly defaultKey: string
  readonly limits: Limits
  readonly tenants: Tenants
  readonly journal: WritableJournal
  readonly scenarios: WritableScenarioBook
  readonly events: EventBus
  readonly listCache: ListCache
  readonly created: { readonly used: number }
  readonly checkpointBytes: CheckpointPool
  readonly bodies: BodySlots
  readonly forwarding: ForwardingState
  /** Calls held now (beside the heldRequests budget) and holds that exist (beside the holds budget). */
  readonly holds: Pick<HoldBook, 'holding' | 'count'>
  readonly hostUsage: HostUsage
  /** The host's state file; none in-process. */
  readonly stateFile: () => StateFileHealth | null
}

export function healthOf(parts: HealthParts): SandboxHealth {
  const { tenants, forwarding } = parts
  return {
    status: 'ok',
    version: parts.version,
    uptimeSeconds: Math.round((Date.now() - parts.startedAt) / 1000),
    pets: tenants.storeFor(parts.defaultKey).count(),
    mode: parts.isolated ? 'isolated' : 'shared',
    tenants: tenants.count(),
    evictions: tenants.evictions(),
    dashboard: `${ADMIN_PATH}/`,
    upstream:
      forwarding.upstream === null
        ? null
        : {
            label: forwarding.upstream,
            forward: forwardingOf(forwarding).forward,
            record: forwarding.record,
            recorded: forwarding.recorded.pets,
          },
    stateFile: parts.stateFile(),
    limits: usageOf(parts),
  }
}

/** Each budget beside its use now; null for a budget that bounds one request, not a pool. */
function usageOf(parts: HealthParts): SandboxHealth['limits'] {
  const journal = parts.journal.usage()
  const used: Partial<Record<LimitName, number>> = {
    largeBodies: parts.bodies.large,
    tenants: parts.tenants.count(),
    createdPetsPerTenant: parts.tenants.mostCreated(),
    createdPets: parts.created.used,
    scenarios: parts.scenarios.list().length,
    checkpoints: parts.tenants.mostCheckpoints(),
    checkpointBytes: parts.checkpointBytes.used,
    journalEntries: journal.entries,
    journalBytes: journal.bytes,
    listCacheBytes: parts.listCache.bytes(),
    eventStreams: parts.events.count(),
    eventBacklogBytes: parts.events.largestBacklog(),
    upstreamRequests: parts.forwarding.exchanges.waiting,
    heldRequests: parts.holds.holding(),
    holds: parts.holds.count(),
    ...parts.hostUsage(),
  }
  return Object.fromEntries(
    LIMIT_NAMES.map((name) => [
      name,
      { budget: parts.limits[name], used: used[name] ?? null, unit: LIMITS[name].unit },
    ]),
  ) as SandboxHealth['limits']
}
