/**
 * One sandbox's state, made in two steps. `configure` reads the options into what never changes
 * (budgets, keys, base path, mode) and `createParts` makes what holds what clients send (the
 * journal, scenarios, events, counters, the list cache and the budgets' pools): both at once.
 * `buildReady` then makes, once the seed is ready (a generated one loads faker first), the
 * tenants over that seed, the controls over the tenants, and the contexts the dispatcher's calls
 * run in, each given only what it uses.
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import { createClock, type Clock } from './state/clock.js'
import type { CheckpointPool } from './state/checkpoint-pool.js'
import {
  createCheckpointControls,
  createDataControls,
  createHoldControls,
  type HoldControls,
  createJournalControl,
  createScenarioControls,
  type Controls,
} from './admin/controls.js'
import { createCounters, type Counters } from './state/counters.js'
import { createDelays, type Delays } from './state/delays.js'
import { createEventBus, type EventBus } from './state/events.js'
import type { AdminOperation } from './admin/exchange.js'
import { createForwarding, type ForwardingState } from './state/forwarding-state.js'
import { healthOf } from './admin/health.js'
import { createHoldBook, type HoldBook } from './state/hold-book.js'
import { createJournal, type WritableJournal } from './state/request-journal.js'
import { createLiveControls } from './admin/live.js'
import { createNotices, type Notices } from './admin/notices.js'
import { documentOrigin } from './docs/served-document.js'
import { createJournalWriter } from './state/journal-writer.js'
import { createScenarioBook, createTraffic, type Traffic, type WritableScenarioBook } from './state/scenarios.js'
import { createStateControls } from './admin/state-document.js'
import { createTenants, labelTenant, tenantRefs, type TenantLabel, type Tenants } from './state/tenants.js'
import { createAuthenticator, DEFAULT_API_KEY, type Authenticate } from './api/auth.js'
import type { Pet } from './api/contract.js'
import type { ApiOperation } from './api/exchange.js'
import { createListCache, type ListCache } from './api/list-cache.js'
import type { Changes } from './api/store.js'
import { createRandom } from './api/random.js'
import { createCommit } from './commit.js'
import type { Calls } from './dispatch.js'
import { parseBaseUrl } from './http/base-url.js'
import type { BodySlots } from './http/body.js'
import type { CorsPolicy } from './http/cors.js'
import { pause } from './http/json-body.js'
import type { CoreRequest } from './http/http.js'
import type { RouteTable } from './http/routes.js'
import { resolveLimits, type Limits } from './limits.js'
import type { Hosting, SandboxOptions } from './sandbox-options.js'

/** What never changes once the options are read. */
export interface SandboxConfig {
  readonly limits: Limits
  readonly apiKeys: readonly string[]
  readonly defaultKey: string
  readonly isolated: boolean
  readonly base: { readonly path: string; readonly origin: string | undefined }
  readonly authenticate: Authenticate
  /** From another machine, the admin routes want one of the listed keys: never a key isolated mode accepts unlisted. */
  readonly authenticateAdmin: Authenticate
  readonly label: (key: string) => TenantLabel
  readonly version: string
}

export function configure(options: SandboxOptions): SandboxConfig {
  const apiKeys = Object.freeze([...(options.apiKeys ?? [DEFAULT_API_KEY])])
  const { maxBodyBytes, maxTenants, maxCreatedPets, journalLimit } = options
  const limits = resolveLimits({
    ...options.limits,
    ...(maxBodyBytes !== undefined && { bodyBytes: maxBodyBytes }),
    ...(maxTenants !== undefined && { tenants: maxTenants }),
    ...(maxCreatedPets !== undefined && { createdPetsPerTenant: maxCreatedPets }),
    ...(journalLimit !== undefined && { journalEntries: journalLimit }),
  })
  const isolated = options.isolate ?? false
  const defaultKey = apiKeys[0] ?? DEFAULT_API_KEY
  return {
    limits,
    apiKeys,
    defaultKey,
    isolated,
    base: parseBaseUrl(options.baseUrl),
    authenticate: createAuthenticator(
      apiKeys,
      isolated ? { pattern: options.apiKeyPattern, any: options.apiKeyPattern === undefined } : {},
    ),
    authenticateAdmin: createAuthenticator(apiKeys),
    label: (key) => labelTenant(key, defaultKey),
    version: options.version ?? 'unknown',
  }
}

/** What holds what clients send, and the budgets' pools: made with the sandbox, before its seed. */
export interface SandboxParts {
  readonly notices: Notices
  readonly delays: Delays
  readonly journal: WritableJournal
  readonly events: EventBus
  readonly counters: Counters
  readonly scenarios: WritableScenarioBook
  readonly traffic: Traffic
  readonly clock: Clock
  readonly forwarding: ForwardingState
  /** Calls waiting until a test releases them (POST /__sandbox/holds, `sandbox.hold`). */
  readonly holds: HoldBook
  /**
   * The holds' controls, built once for the routes and the sandbox's methods alike: they need no
   * seed, only the tenants' one rule for a key's scope, so they work before the seed is ready.
   */
  readonly holdControls: HoldControls
  readonly listCache: ListCache
  /** What the created pets of all tenants use of the createdPets budget. */
  readonly created: { used: number; readonly max: number }
  /** Counts every change of data and checkpoints, in every tenant: what a state file watches. */
  readonly changes: Changes
  readonly checkpointPool: CheckpointPool
  readonly bodies: BodySlots
  readonly startedAt: number
}

export function createParts(config: SandboxConfig, options: SandboxOptions, hosting: Hosting): SandboxParts {
  const { limits } = config
  const { changed, inserted } = hosting
  // Only a host that keeps the data elsewhere is told of changes: every other sandbox keeps the plain counter.
  const changes: Changes =
    changed === undefined ? { count: 0, ...(inserted !== undefined && { inserted }) } : watchedCount(changed, inserted)
  const events = createEventBus()
  const holds = createHoldBook(limits.heldRequests, limits.holds, (key) => {
    events.emit({ type: 'holds', key })
  })
  return {
    notices:
      hosting.notices ??
      createNotices((line: string) => {
        console.warn(`petstore-sandbox: ${line}`)
      }, limits.noticeWindowMs),
    delays: createDelays(),
    journal: createJournal(limits.journalEntries, config.isolated ? config.label : () => null, limits.journalBytes),
    events,
    counters: createCounters(),
    scenarios: changed === undefined ? createScenarioBook() : watchedScenarios(createScenarioBook(), changed),
    traffic: createTraffic(
      { delay: options.delay, failureRate: options.failureRate },
      createRandom(options.randomSeed),
    ),
    clock: createClock(options.now),
    forwarding: createForwarding(
      hosting.upstream?.label ?? null,
      hosting.upstream?.forward,
      hosting.upstream?.record === true,
      () => {
        events.emit({ type: 'forwarding', key: undefined })
      },
    ),
    holds,
    holdControls: createHoldControls({ of: tenantRefs(config.isolated, config.defaultKey) }, holds),
    listCache: createListCache(limits.listCacheBytes),
    created: { used: 0, max: limits.createdPets },
    changes,
    checkpointPool: { used: 0, max: limits.checkpointBytes, changes },
    bodies: { large: 0 },
    startedAt: Date.now(),
  }
}

/**
 * The change counter, telling the host at each move. The store and the checkpoints move it where
 * they change (count++), so a host that keeps the data hears of every change, in every path
 * (the API, the admin routes, the facade), without a list of those paths kept in step by hand.
 */
function watchedCount(changed: () => void, inserted: Changes['inserted']): Changes {
  return new WatchedCount(changed, inserted)
}

/** A class, so the accessor lives on its prototype (test/request-shape.test.ts holds src to that). */
class WatchedCount implements Changes {
  #count = 0
  readonly #changed: () => void
  readonly inserted: Changes['inserted']
  constructor(changed: () => void, inserted: Changes['inserted']) {
    this.#changed = changed
    this.inserted = inserted
  }
  get count(): number {
    return this.#count
  }
  set count(value: number) {
    this.#count = value
    this.#changed()
  }
}

/** The scenarios, telling the host of each change: added, cleared, or a counted one used. */
function watchedScenarios(book: WritableScenarioBook, changed: () => void): WritableScenarioBook {
  return {
    add(input) {
      const added = book.add(input)
      changed()
      return added
    },
    list: () => book.list(),
    clear() {
      book.clear()
      changed()
    },
    take(operation) {
      const taken = book.take(operation)
      if (taken?.remaining !== undefined) changed()
      return taken
    },
  }
}

/** A sandbox whose seed is ready: its tenants, its controls, and the contexts its calls run in. */
export interface Ready {
  readonly tenants: Tenants
  readonly controls: Controls
  readonly calls: Calls
}

/** What the calls share besides the state: the route table and the host's policies. */
export interface CallSetup {
  readonly table: RouteTable<ApiOperation | AdminOperation>
  readonly endpoints: string
  readonly cors: CorsPolicy | undefined
  readonly report: (error: unknown, request: CoreRequest) => void
}

export function buildReady(
  config: SandboxConfig,
  parts: SandboxParts,
  hosting: Hosting,
  setup: CallSetup,
  seed: readonly Pet[],
): Ready {
  const tenants = createSandboxTenants(config, parts, seed)
  const controls = createControls(config, parts, hosting, tenants)
  const { limits } = config
  const bodies = parts.bodies
  const commit = hosting.commit === undefined ? undefined : createCommit(parts.changes, hosting.commit)
  return {
    tenants,
    controls,
    calls: {
      api: {
        // The API's rows are ApiOperations by construction: the table only joins them with the others.
        table: setup.table as RouteTable<ApiOperation>,
        endpoints: setup.endpoints,
        limits,
        authenticate: config.authenticate,
        tenants,
        isolated: config.isolated,
        simulation: { scenarios: parts.scenarios, traffic: parts.traffic, delays: parts.delays },
        forwarding: parts.forwarding,
        holds: parts.holds,
        forward:
          hosting.upstream === undefined
            ? undefined
            : {
                upstream: hosting.upstream,
                limits,
                basePath: config.base.path,
                exchanges: parts.forwarding.exchanges,
                large: parts.forwarding.large,
              },
        journalWriter: createJournalWriter({
          counters: parts.counters,
          journal: parts.journal,
          events: parts.events,
          tenants,
        }),
        clock: parts.clock,
        labelTenants: hosting.accessLog === true && config.isolated,
        bodies,
        jsonHeaders: new Map(),
        report: setup.report,
        commit,
      },
      admin: {
        table: setup.table as RouteTable<AdminOperation>,
        basePath: config.base.path,
        limits,
        gate: {
          cors: setup.cors,
          trustProxy: hosting.trustProxy ?? false,
          authenticate: config.authenticate,
          authenticateAdmin: config.authenticateAdmin,
        },
        controls,
        site: {
          defaultKey: config.defaultKey,
          basePath: config.base.path,
          // In-process no Host was checked, and there is no address to name.
          origin:
            hosting.surface === 'server'
              ? (request) => documentOrigin(request, hosting.trustProxy ?? false)
              : () => undefined,
          assets: hosting.assets ?? (() => undefined),
        },
        bodies,
        report: setup.report,
        commit,
      },
    },
  }
}

function createSandboxTenants(config: SandboxConfig, parts: SandboxParts, seed: readonly Pet[]): Tenants {
  const { limits } = config
  return createTenants({
    seed,
    isolated: config.isolated,
    defaultKey: config.defaultKey,
    maxTenants: limits.tenants,
    maxCreatedPets: limits.createdPetsPerTenant,
    budgets: { cache: parts.listCache, created: parts.created, petJson: new WeakMap(), changes: parts.changes },
    checkpoints: { max: limits.checkpoints, pool: parts.checkpointPool },
    onEvict: (key) => {
      parts.notices.notice(
        'eviction',
        `evicted the data of key ${config.label(key).label}, the least recently used of ${limits.tenants} tenants; that key starts again from the seed`,
      )
    },
  })
}

function createControls(config: SandboxConfig, parts: SandboxParts, hosting: Hosting, tenants: Tenants): Controls {
  const { journal, scenarios, events } = parts
  const data = createDataControls({ tenants, journal, scenarios, events, holds: parts.holds })
  const scenarioControls = createScenarioControls(tenants, scenarios)
  return {
    data,
    scenarios: scenarioControls,
    holds: parts.holdControls,
    journal: createJournalControl(tenants, journal),
    checkpoints: createCheckpointControls({ tenants, events, clock: parts.clock, data, scenarios: scenarioControls }),
    state: createStateControls({ tenants, data, events, limits: config.limits, pool: parts.checkpointPool, pause }),
    forwarding: parts.forwarding,
    live: createLiveControls({
      events,
      counters: parts.counters,
      tenants,
      limits: config.limits,
      notices: parts.notices,
    }),
    health: () =>
      healthOf({
        version: config.version,
        startedAt: parts.startedAt,
        isolated: config.isolated,
        defaultKey: config.defaultKey,
        limits: config.limits,
        tenants,
        journal,
        scenarios,
        events,
        listCache: parts.listCache,
        created: parts.created,
        checkpointBytes: parts.checkpointPool,
        bodies: parts.bodies,
        forwarding: parts.forwarding,
        holds: parts.holds,
        hostUsage: hosting.usage ?? (() => ({})),
        stateFile: hosting.stateFile ?? (() => null),
      }),
    keyOfHandle: (handle) => tenants.keyOf(handle),
  }
}
