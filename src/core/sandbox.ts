/**
 * createSandboxCore: one sandbox's data, settings and controls, and `handle`, the core every
 * adapter calls. Each call owns its data, so two sandboxes (two test files, two workers) never
 * see each other's pets. Platform-free: nothing here knows msw, Node or a browser.
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import { adminRoutes } from './admin/operations.js'
import type { SandboxHealth } from './admin/contract.js'
import { createAuthenticator, DEFAULT_API_KEY } from './api/auth.js'
import { parseBaseUrl } from './http/base-url.js'
import { createClock } from './admin/clock.js'
import type { Pet, StoreState } from './api/contract.js'
import { createCorsPolicy } from './http/cors.js'
import { createCounters } from './admin/counters.js'
import { createDelays } from './admin/delays.js'
import { createEventBus } from './admin/events.js'
import { createForwarding } from './admin/forwarding.js'
import { generatePets } from './api/generate.js'
import { createPipeline } from './pipeline.js'
import type { CoreRequest, CoreResponse, Surface } from './http/http.js'
import { createJournal, type RequestJournal } from './admin/journal.js'
import { resolveLimits, type LimitName, type Limits } from './limits.js'
import { checkSandboxOptions } from './options.js'
import { createListCache } from './api/list-cache.js'
import { createNotices, type Notices } from './admin/notices.js'
import { petRoutes } from './api/operations.js'
import { createRandom } from './api/random.js'
import { createRouteTable } from './http/routes.js'
import { createScenarioBook, createTraffic, type ScenarioBook } from './admin/scenarios.js'
import { bundledSeed, parseSeed } from './api/seed.js'
import type { AllowedHosts } from './http/local.js'
import { siteRoutes } from './docs/site.js'
import {
  applyState,
  deleteCheckpoint,
  healthOf,
  listCheckpoints,
  rewindToCheckpoint,
  saveCheckpoint,
  type StateFileHealth,
  resetState,
  restoreState,
  snapshotState,
  type Asset,
  type HostUsage,
  type SandboxState,
} from './admin/state.js'
import { asyncStore, StateError, type PetStore } from './api/store.js'
import type { CheckpointSummary } from './admin/checkpoints.js'
import { checkPersisted, persistedChunks } from './admin/persisted.js'
import { CheckpointInputSchema } from './admin/contract.js'
import { checkObject } from './api/contract.js'
import { checkpointBytes } from './admin/checkpoints.js'
import { pause } from './http/json-body.js'
import { ApiError } from './http/errors.js'
import { createTenants, labelTenant } from './admin/tenants.js'
import type { Upstream } from './upstream.js'

export interface SandboxOptions {
  /** Keys accepted as `Authorization: Bearer <key>`. Default: `["petstore-sandbox-key"]`. */
  apiKeys?: readonly string[]
  /**
   * Where the API is served. Default: any origin under the path `/v1`, so `/v1/pets` in a
   * browser and `https://any.host/v1/pets` in Node both match. Given as
   * `https://api.example.com/v1`, only that origin matches.
   */
  baseUrl?: string
  /** The seed, an array of Pets with unique ids. Default: the bundled `fixtures/pets.json`. */
  fixtures?: readonly Pet[]
  /** Seed this many generated pets instead (faker, deterministic under `randomSeed`). */
  generate?: number
  /** Largest accepted request body in bytes; larger ones get 413. Default: 16 KiB. Same as `limits.bodyBytes`. */
  maxBodyBytes?: number
  /**
   * Budgets by name, from the limits table (README, Limits): `{ journalBytes: 4 * 1024 * 1024 }`.
   * Each is checked against its range; the named options above win where both are given.
   */
  limits?: Partial<Record<LimitName, number>>
  /** How many requests the journal keeps; the oldest are dropped. Default: 1000. Same as `limits.journalEntries`. */
  journalLimit?: number
  /** Milliseconds before every response, or a `{ min, max }` range drawn at random. */
  delay?: number | { min: number; max: number }
  /** Share of authenticated calls, 0..1, that fail with a random 500 or 503. */
  failureRate?: number
  /** Seed for the random delays, failures and generated pets, so runs repeat. */
  randomSeed?: number
  /** Give each API key its own copy of the data. Any well-formed key is accepted unless `apiKeyPattern` is given. */
  isolate?: boolean
  /** In isolated mode, accept keys matching this pattern (in full) besides `apiKeys`. */
  apiKeyPattern?: RegExp
  /**
   * In isolated mode, how many keys' data are kept, the default key's included; past the cap the
   * least recently used one with no request in flight is evicted. Default: 1000.
   */
  maxTenants?: number
  /** Pets one key may create between two resets; the next create answers 507. Default: 1,000,000. */
  maxCreatedPets?: number
  /** The sandbox's clock starts here (ISO 8601 or a Date), e.g. after getPet's sunset. */
  now?: Date | string
  /** Reported by the health route; the server passes the package version. */
  version?: string
}

/** A sandbox without its msw handlers: its data, its controls and `handle`. The server holds one of these. */
export interface SandboxCore {
  /** The data of the first API key (the only data, unless isolated), for arranging and inspecting state. */
  readonly pets: PetStore
  /** The accepted API keys. */
  readonly apiKeys: readonly string[]
  /** Every request the API answered, newest last; bounded by `journalLimit`. */
  readonly requests: RequestJournal
  /** Simulated failures and delays for the next calls. */
  readonly scenarios: ScenarioBook
  /** Whether each key has its own data. */
  readonly isolated: boolean
  /**
   * Restores the seed and the id sequence, and clears the journal and the scenarios. In
   * isolated mode with a key, does that for that key only: its data, journal entries and scenarios.
   */
  reset(key?: string): Promise<void>
  /** One key's own scenarios (isolated mode); the shared `scenarios` apply to every key. */
  scenariosFor(key: string): ScenarioBook | undefined
  /** The data of one key: its own in isolated mode, the shared data otherwise. */
  tenant(key: string): PetStore
  /** All pets and the next id of one key's data (default: the first API key's). */
  snapshot(key?: string): Promise<StoreState>
  /** Replaces all pets and the next id, after checking every entry; throws StateError naming every bad field. */
  restore(state: unknown, key?: string): Promise<void>
  /** Replaces the seed (e.g. a reloaded fixtures file) and resets every key's data to it. */
  reseed(fixtures: unknown, source?: string): Promise<void>
  /** The sandbox's current time. */
  now(): Date
  /** Version, uptime, pet count, mode, and every budget beside its use. */
  health(): Promise<SandboxHealth>
  /** Every budget in force: the limits table's defaults with this sandbox's options on top. */
  readonly limits: Limits
  /**
   * The core: answers one plain request (method, target as sent, headers, body bytes) with a
   * plain response, by every rule of the API and the admin routes. The msw handlers and the
   * HTTP server are thin adapters around it; write your own the same way.
   */
  handle(request: CoreRequest): Promise<CoreResponse>
  /** Ends every pending delay at once (their requests answer now): what a shutdown does last. */
  cutDelays(): void
  /**
   * Saves the data (pets and the id sequence) under a name, to rewind to later; with
   * `scenarios: true` the scenarios too. A name in use is refused unless `replace: true`.
   * In isolated mode with `key`, that key's data. Throws past the checkpoint budgets.
   */
  checkpoint(name: string, options?: CheckpointOptions): Promise<CheckpointSummary>
  /** Puts back the data a checkpoint holds (and its scenarios, if it holds them). `reset()` still means the seed. */
  rewind(name: string, key?: string): Promise<void>
  /** The checkpoints, oldest saved first. */
  checkpoints(key?: string): Promise<CheckpointSummary[]>
  /** Deletes a checkpoint; throws when there is none of that name. */
  deleteCheckpoint(name: string, key?: string): Promise<void>
  /** What a state file keeps (`--state-file`): the shared data and its checkpoints. */
  readonly persistence: Persistence
}

export interface CheckpointOptions {
  /** Save the scenarios too, which a rewind then puts back. */
  readonly scenarios?: boolean
  /** Save over a checkpoint of the same name. */
  readonly replace?: boolean
  /** In isolated mode: the key whose data to save. */
  readonly key?: string
}

/** The shared data and its checkpoints, as a state file holds them. */
export interface Persistence {
  /** Moves on every change of data or checkpoints: a host saves when it moved. */
  revision(): number
  /**
   * The file's text now, in pieces: the data is taken in one step, then serialised a slice at a
   * time with a pause between, so a large state never holds the API for long.
   */
  chunks(): AsyncIterable<string>
  /** Replaces the data and the checkpoints with a file's, after checking all of it; throws StateError naming every problem. */
  load(input: unknown): Promise<void>
}

/** What the host of the core provides and asks for: the server, or (by default) an in-process adapter. */
export interface Hosting {
  readonly surface: Surface
  /** Files under /__sandbox/docs that the host ships (the server's Swagger UI assets). */
  readonly assets?: (name: string) => Asset | undefined
  /** Server: Host names allowed besides local names and IP literals (`.example.com` with subdomains), or `all`. */
  readonly allowedHosts?: AllowedHosts
  /** Server: origins whose pages may call the API besides local ones, or `*` for any. */
  readonly corsOrigins?: readonly string[]
  /** The host's own summariser, so its notices and the core's share one window per kind. */
  readonly notices?: Notices
  /** Server: believe Forwarded and X-Forwarded-Proto/Host for the server's own origin. */
  readonly trustProxy?: boolean
  /** Server: the use of the budgets the host enforces (connections), for health. */
  readonly usage?: HostUsage
  /** The host logs each request: API answers then name their tenant (CoreResponse.tenant) in isolated mode. */
  readonly accessLog?: boolean
  /**
   * Server with `--upstream`: the service the forwarded operations go to, its label (what may be
   * shown: its origin), the transport, the operations forwarded from the start and its own key.
   * One per sandbox, server-wide, `--isolate` included; `GET/PUT /__sandbox/forwarding` switch it.
   */
  readonly upstream?: Upstream
  /** Server with --state-file: the file's last save and error, for health. */
  readonly stateFile?: () => StateFileHealth
}

const IN_PROCESS: Hosting = { surface: 'in-process' }

/**
 * Creates a sandbox's core, the part every adapter shares.
 *
 * @example
 * const core = createSandboxCore()
 * const response = await core.handle({ method: 'GET', target: '/v1/pets', headers: {}, body: null })
 * response.status // 401: no key
 */
export function createSandboxCore(options: SandboxOptions = {}, hosting: Hosting = IN_PROCESS): SandboxCore {
  checkSandboxOptions(options)
  const apiKeys = Object.freeze([...(options.apiKeys ?? [DEFAULT_API_KEY])])
  const { maxBodyBytes, maxTenants, maxCreatedPets, journalLimit } = options
  const limits = resolveLimits({
    ...options.limits,
    ...(maxBodyBytes !== undefined && { bodyBytes: maxBodyBytes }),
    ...(maxTenants !== undefined && { tenants: maxTenants }),
    ...(maxCreatedPets !== undefined && { createdPetsPerTenant: maxCreatedPets }),
    ...(journalLimit !== undefined && { journalEntries: journalLimit }),
  })
  const notices =
    hosting.notices ??
    createNotices((line: string) => {
      console.warn(`petstore-sandbox: ${line}`)
    }, limits.noticeWindowMs)
  const delays = createDelays()
  const isolated = options.isolate ?? false
  const base = parseBaseUrl(options.baseUrl)
  const random = createRandom(options.randomSeed)
  const authenticate = createAuthenticator(
    apiKeys,
    isolated ? { pattern: options.apiKeyPattern, any: options.apiKeyPattern === undefined } : {},
  )
  const defaultKey = apiKeys[0] ?? DEFAULT_API_KEY
  const label = (key: string) => labelTenant(key, defaultKey)
  const journal = createJournal(limits.journalEntries, isolated ? label : () => null, limits.journalBytes)
  const events = createEventBus()
  const counters = createCounters()
  const scenarios = createScenarioBook()
  const traffic = createTraffic({ delay: options.delay, failureRate: options.failureRate }, random)
  const clock = createClock(options.now)
  const startedAt = Date.now()
  const { upstream } = hosting
  const forwarding = createForwarding(upstream?.label ?? null, upstream?.forward)

  const listCache = createListCache(limits.listCacheBytes)
  const created = { used: 0, max: limits.createdPets }
  const changes = { count: 0 }
  const checkpointPool = { used: 0, max: limits.checkpointBytes, changes }
  const build = (seed: readonly Pet[]): SandboxState => ({
    basePath: base.path,
    isolated,
    defaultKey,
    limits,
    notices,
    listCache,
    created,
    bodies: { large: 0 },
    hostUsage: hosting.usage ?? (() => ({})),
    changes,
    checkpointBytes: checkpointPool,
    stateFile: hosting.stateFile ?? (() => null),
    tenants: createTenants({
      seed,
      isolated,
      defaultKey,
      maxTenants: limits.tenants,
      maxCreatedPets: limits.createdPetsPerTenant,
      budgets: { cache: listCache, created, petJson: new WeakMap(), changes },
      checkpoints: { max: limits.checkpoints, pool: checkpointPool },
      onEvict: (key) => {
        notices.notice(
          'eviction',
          `evicted the data of key ${label(key).label}, the least recently used of ${limits.tenants} tenants; that key starts again from the seed`,
        )
      },
    }),
    journal,
    scenarios,
    traffic,
    delays,
    events,
    counters,
    forwarding,
    clock,
    version: options.version ?? 'unknown',
    startedAt,
    assets: hosting.assets ?? (() => undefined),
  })
  // Given fixtures are checked now, so a bad one fails createSandbox. The bundled seed is read on
  // first use (the main entry makes its default sandbox on import, and must build nothing then);
  // a generated seed loads faker first.
  const fixtures = options.fixtures === undefined ? undefined : parseSeed(options.fixtures)
  let ready: SandboxState | undefined
  let pending: Promise<SandboxState> | undefined
  const { generate } = options
  if (generate !== undefined) {
    pending = generatePets(generate, options.randomSeed).then((pets) => (ready = build(pets)))
  }
  const state = (): SandboxState | Promise<SandboxState> =>
    ready ?? pending ?? (ready = build(fixtures ?? bundledSeed()))
  const whenReady = async (): Promise<SandboxState> => state()

  const routes = [...petRoutes(base.path), ...adminRoutes, ...siteRoutes()]
  const pipeline = createPipeline({
    table: createRouteTable(base.path, routes),
    basePath: base.path,
    baseOrigin: base.origin,
    surface: hosting.surface,
    limits,
    authenticate,
    // From another machine, the admin routes want one of these keys: never a key isolated mode accepts unlisted.
    authenticateAdmin: createAuthenticator(apiKeys),
    state,
    allowedHosts: hosting.allowedHosts ?? [],
    trustProxy: hosting.trustProxy ?? false,
    labelTenants: hosting.accessLog === true,
    cors:
      hosting.surface === 'server'
        ? createCorsPolicy(routes, hosting.corsOrigins ?? [], hosting.trustProxy ?? false)
        : undefined,
    onUnexpectedError: (error, request) => {
      console.error(`petstore-sandbox: unexpected failure on ${request.method} ${request.target}`, error)
    },
    upstream,
  })

  return {
    pets: asyncStore(async () => (await whenReady()).tenants.storeFor(defaultKey)),
    apiKeys,
    requests: journal,
    scenarios,
    isolated,
    async reset(key) {
      resetState(await whenReady(), key)
    },
    scenariosFor: (key) => {
      const current = state()
      return current instanceof Promise ? undefined : current.tenants.scenariosFor(key)
    },
    tenant: (key) => asyncStore(async () => (await whenReady()).tenants.storeFor(key)),
    snapshot: async (key) => snapshotState(await whenReady(), key),
    async restore(input, key) {
      restoreState(await whenReady(), input, key)
    },
    async reseed(fixtures, source) {
      const seed = parseSeed(fixtures, source)
      ;(await whenReady()).tenants.reseed(seed)
      events.emit({ type: 'change', key: undefined })
    },
    now: () => new Date(clock()),
    health: async () => healthOf(await whenReady()),
    limits,
    handle: (request) => pipeline.handle(request),
    cutDelays: () => {
      delays.cut()
    },
    checkpoint: async (name, options) =>
      guardApi(async () => {
        const { key, ...rest } = options ?? {}
        // The same checks as the route's body: a wrong option is named, not ignored.
        const checked = checkObject(CheckpointInputSchema, { name, ...rest }, 'options')
        if (!checked.ok) throw new ApiError('invalid_body', checked.problems.join('; '))
        return saveCheckpoint(await whenReady(), key, checked.value)
      }),
    async rewind(name, key) {
      const ready = await whenReady()
      await guardApi(() => rewindToCheckpoint(ready, key, name))
    },
    checkpoints: async (key) => listCheckpoints(await whenReady(), key),
    async deleteCheckpoint(name, key) {
      const ready = await whenReady()
      await guardApi(() => {
        deleteCheckpoint(ready, key, name)
      })
    },
    persistence: {
      revision: () => changes.count,
      async *chunks() {
        const ready = await whenReady()
        // One step: the data and the checkpoints as they are now, then serialised in slices.
        const view = ready.tenants.storeFor(ready.defaultKey).view()
        const checkpoints = ready.tenants.existingCheckpoints(ready.defaultKey)?.all() ?? []
        yield* persistedChunks(view, checkpoints, new Date().toISOString(), pause)
      },
      async load(input) {
        const ready = await whenReady()
        const checked = checkPersisted(input)
        const problems = checked.ok ? [] : [...checked.problems]
        // The budgets, before anything is replaced: a file that does not fit leaves the sandbox as it was.
        if (checked.ok) {
          const { checkpoints } = checked.value
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
        }
        if (!checked.ok || problems.length > 0) throw new StateError(problems.join('; '))
        try {
          applyState(ready, checked.value.state)
        } catch (error) {
          if (error instanceof ApiError) throw new StateError(error.message)
          throw error
        }
        const book = ready.tenants.checkpointsFor(ready.defaultKey)
        book.clear()
        for (const checkpoint of checked.value.checkpoints) book.save(checkpoint, false)
      },
    },
  }
}

/** Thrown by the in-process checkpoint methods: the message an admin route would answer with, and its code. */
export class CheckpointError extends Error {
  override readonly name = 'CheckpointError'
  constructor(
    message: string,
    /** The Error code the admin route answers: conflict, checkpoint_not_found, insufficient_storage, invalid_body. */
    readonly code: string,
  ) {
    super(message)
  }
}

/** Runs a checkpoint control, turning its ApiError into a CheckpointError for in-process callers. */
async function guardApi<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof ApiError) throw new CheckpointError(error.message, error.code)
    throw error
  }
}
