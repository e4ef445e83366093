/**
 * createSandboxCore: one sandbox's data, settings and controls, and `handle`, the core every
 * adapter calls. Each call owns its data, so two sandboxes (two test files, two workers) never
 * see each other's pets. This file is the façade: the options are read in sandbox-state.ts
 * (configuration, then the parts that hold what clients send), the seed is loaded here, the
 * state file's format is persistence.ts's, and the request's way is dispatch.ts's.
 * Platform-free: nothing here knows msw, Node or a browser.
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import { adminRoutes } from './admin/operations.js'
import type { SandboxHealth } from './admin/contract.js'
import type { CheckpointSummary } from './state/checkpoint-pool.js'
import { CheckpointInputSchema } from './admin/contract.js'
import type { AdminOperation } from './admin/exchange.js'
import type { StateControls } from './admin/state-document.js'
import type { ScenarioBook } from './state/scenarios.js'
import type { Hold } from './admin/contract.js'
import { checkObject, type OperationId, type Pet, type StoreState } from './api/contract.js'
import type { ApiOperation } from './api/exchange.js'
import { generatePets } from './api/generate.js'
import { petRoutes } from './api/operations.js'
import { bundledSeed, parseSeed } from './api/seed.js'
import { asyncStore, StateError, type PetStore } from './api/store.js'
import type { RequestJournal } from './state/request-journal.js'
import { createCommit, withCommits } from './commit.js'
import { createDispatcher } from './dispatch.js'
import { siteRoutes } from './docs/site.js'
import { createCorsPolicy } from './http/cors.js'
import { ApiError } from './http/errors.js'
import { createHeadCheck } from './http/head.js'
import type { CoreRequest, CoreResponse } from './http/http.js'
import { createRouteTable, type Route } from './http/routes.js'
import type { Limits } from './limits.js'
import { checkSandboxOptions } from './options.js'
import { createKeptPersistence, createPersistence, type Persistence } from './persistence.js'
import type { Hosting, SandboxOptions } from './sandbox-options.js'
import { buildReady, configure, createParts, type CallSetup, type Ready, type SandboxConfig } from './sandbox-state.js'
import type { Authenticate } from './api/auth.js'

export type { Hosting, Persistence, SandboxOptions }

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
  /**
   * Replaces all pets and the next id, after checking every entry; throws StateError naming every bad field.
   * Given a state document (`exportState()`, `GET /__sandbox/state`), does what `importState` does.
   */
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
   * Holds the next calls of an operation (`times`, default 1): they wait, answering nothing, until
   * `release()`. For a loading state tested without a timer: `await hold.reached()`, assert, then
   * `hold.release()`. In isolated mode with `key`, that key's calls only. Throws HoldError naming a
   * wrong option.
   */
  hold(operation: OperationId, options?: HoldOptions): SandboxHold
  /** The holds in force (a key's own and the shared ones in isolated mode), each with the calls it holds now. */
  holds(key?: string): Hold[]
  /** Lets every held call go (each answers as usual) and ends every hold: reset and shutdown do it too. */
  releaseHolds(): void
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
  /**
   * One key's state (default: the shared data) as the state document's JSON text: its pets, next
   * id and checkpoints, the same `GET /__sandbox/state` answers and a `--state-file` holds. Saved
   * to a file, it starts a server: `npx petstore-sandbox --state-file state.json`.
   */
  exportState(key?: string): Promise<string>
  /**
   * Loads a state: a state document (`exportState()`, the dashboard's download, a `--state-file`),
   * as text or parsed, whose checkpoints replace the ones kept; or the older `{pets, nextId}`,
   * which leaves the checkpoints as they are. All of it is checked first, budgets included
   * (`stateBytes` for text): throws StateError naming every problem, and changes nothing.
   */
  importState(state: string | object, key?: string): Promise<void>
}

export interface HoldOptions {
  /** How many of the operation's next calls it catches (default 1, at most 1000). */
  readonly times?: number
  /** In isolated mode: the key whose calls it catches. */
  readonly key?: string
}

/** A hold made in-process (`sandbox.hold`). */
export interface SandboxHold {
  readonly id: number
  /** Resolves once the hold has caught a call (at once when it has; also once the hold is released). */
  reached(): Promise<void>
  /** The calls it holds now. */
  holding(): number
  /** Lets its calls go and ends it; with a scenario status (401, 429, 500, 503; 404 for getPet), they answer that failure. */
  release(status?: number): void
}

/** Thrown by `sandbox.hold` and a hold's `release` for a wrong option: the message names it. */
export class HoldError extends Error {
  override readonly name = 'HoldError'
}

export interface CheckpointOptions {
  /** Save the scenarios too, which a rewind then puts back. */
  readonly scenarios?: boolean
  /** Save over a checkpoint of the same name. */
  readonly replace?: boolean
  /** In isolated mode: the key whose data to save. */
  readonly key?: string
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
  if (options.persist !== undefined && options.persist !== false && hosting.prepare === undefined) {
    throw new TypeError(
      "Failed to create the sandbox: persist is createSandbox's, in a browser, which keeps the data in IndexedDB; a core on its own keeps none (in Node use --state-file / startServer({ stateFile }))",
    )
  }
  const config = configure(options)
  const parts = createParts(config, options, hosting)
  const { limits, base } = config
  const routes: Route<ApiOperation | AdminOperation>[] = [...petRoutes(base.path), ...adminRoutes, ...siteRoutes()]
  const setup: CallSetup = {
    table: createRouteTable(base.path, routes),
    endpoints: routes
      .filter((route) => route.area === 'api' && Object.values(route.methods).some((operation) => operation.simulated))
      .map((route) => `${base.path}${route.path}`)
      .join(' and '),
    cors:
      hosting.surface === 'server'
        ? createCorsPolicy(routes, hosting.corsOrigins ?? [], hosting.trustProxy ?? false)
        : undefined,
    report: (error, request) => {
      console.error(`petstore-sandbox: unexpected failure on ${request.method} ${request.target}`, error)
    },
  }
  const { prepare } = hosting
  const seeded = loadSeed(
    options,
    (seed) => buildReady(config, parts, hosting, setup, seed),
    prepare &&
      (async (ready) => {
        // The persistence of the data just built: the seed's promise is still pending, so it must not wait for it.
        const persistence = createKeptPersistence(async () => ready, config.defaultKey, limits, parts.changes)
        await prepare({ persistence, scenarios: parts.scenarios })
      }),
  )
  const handle = createDispatcher({
    head: createHeadCheck({
      surface: hosting.surface,
      limits,
      allowedHosts: hosting.allowedHosts ?? [],
      trustProxy: hosting.trustProxy ?? false,
    }),
    table: setup.table,
    baseOrigin: base.origin,
    cors: setup.cors,
    ready: () => {
      const ready = seeded.now()
      return ready instanceof Promise ? ready.then((done) => done.calls) : ready.calls
    },
    report: setup.report,
  })
  const methods = facade(config, limits, parts, seeded, handle)
  if (hosting.commit === undefined) return methods
  // The methods that change the data or the checkpoints: each resolves once its change is on disk.
  return withCommits(methods, createCommit(parts.changes, hosting.commit), [
    'reset',
    'restore',
    'reseed',
    'checkpoint',
    'rewind',
    'deleteCheckpoint',
    'importState',
  ])
}

/**
 * The seed, ready now or soon. Given fixtures are checked at once, so a bad one fails
 * createSandbox. The bundled seed is read on first use (the main entry makes its default sandbox
 * on import, and must build nothing then); a generated seed loads faker first. With `prepare`
 * (a host that keeps the data) the seed is built at once and the sandbox is ready only once
 * `prepare` is done: every call, the dispatcher's and the facade's, waits for the stored data.
 */
function loadSeed(
  options: SandboxOptions,
  build: (seed: readonly Pet[]) => Ready,
  prepare?: (ready: Ready) => Promise<void>,
): { readonly now: () => Ready | Promise<Ready>; readonly later: () => Promise<Ready> } {
  const fixtures = options.fixtures === undefined ? undefined : parseSeed(options.fixtures)
  let ready: Ready | undefined
  let pending: Promise<Ready> | undefined
  if (options.generate !== undefined) pending = generatePets(options.generate, options.randomSeed).then(build)
  if (prepare !== undefined) {
    const built = pending ?? Promise.resolve().then(() => build(fixtures ?? bundledSeed()))
    pending = built.then(async (done) => {
      await prepare(done)
      return done
    })
  }
  pending = pending?.then((done) => (ready = done))
  const now = (): Ready | Promise<Ready> => ready ?? pending ?? (ready = build(fixtures ?? bundledSeed()))
  return { now, later: async () => now() }
}

/** The sandbox's methods, each a thin call into its controls. */
function facade(
  config: Pick<SandboxConfig, 'apiKeys' | 'defaultKey' | 'isolated' | 'authenticate'>,
  limits: Limits,
  parts: ReturnType<typeof createParts>,
  seeded: ReturnType<typeof loadSeed>,
  handle: (request: CoreRequest) => Promise<CoreResponse>,
): SandboxCore {
  const { apiKeys, defaultKey, isolated, authenticate } = config
  const controls = async () => (await seeded.later()).controls
  const tenants = async () => (await seeded.later()).tenants
  // Holds need no seed: the routes' own controls.
  const holds = parts.holdControls
  return {
    pets: asyncStore(async () => (await tenants()).storeFor(defaultKey)),
    apiKeys,
    requests: parts.journal,
    scenarios: parts.scenarios,
    isolated,
    async reset(key) {
      ;(await controls()).data.reset(key)
    },
    scenariosFor: (key) => {
      const ready = seeded.now()
      return ready instanceof Promise ? undefined : ready.tenants.scenariosFor(key)
    },
    tenant: (key) => asyncStore(async () => (await tenants()).storeFor(key)),
    snapshot: async (key) => (await controls()).data.snapshot(key),
    async restore(input, key) {
      const ready = await controls()
      // A state document (GET /__sandbox/state, exportState) means here what it means to importState.
      if (typeof input === 'object' && input !== null && Object.hasOwn(input, 'version')) {
        await importInto(ready.state, input, key)
        return
      }
      ready.data.restore(input, key)
    },
    async reseed(fixtures, source) {
      const seed = parseSeed(fixtures, source)
      ;(await tenants()).reseed(seed)
      parts.events.emit({ type: 'change', key: undefined })
    },
    now: () => new Date(parts.clock()),
    health: async () => (await controls()).health(),
    limits,
    handle,
    cutDelays: () => {
      parts.delays.cut()
    },
    hold(operation, options = {}) {
      const { key, ...rest } = options
      checkHoldKey(key, isolated, authenticate)
      const added = guardHold(() => holds.add(key, { operation, ...rest }))
      return {
        id: added.id,
        reached: () => holds.reached(added.id),
        holding: () => holds.list(key).find((hold) => hold.id === added.id)?.holding ?? 0,
        release(status) {
          guardHold(() => holds.release(key, added.id, status === undefined ? {} : { status }))
        },
      }
    },
    holds: (key) => holds.list(key),
    releaseHolds: () => {
      parts.holds.releaseAll()
    },
    checkpoint: async (name, options) =>
      guardApi(async () => {
        const { key, ...rest } = options ?? {}
        // The same checks as the route's body: a wrong option is named, not ignored.
        const checked = checkObject(CheckpointInputSchema, { name, ...rest }, 'options')
        if (!checked.ok) throw new ApiError('invalid_body', checked.problems.join('; '))
        return (await controls()).checkpoints.save(key, checked.value)
      }),
    async rewind(name, key) {
      const ready = await controls()
      await guardApi(() => ready.checkpoints.rewind(key, name))
    },
    checkpoints: async (key) => (await controls()).checkpoints.list(key),
    async deleteCheckpoint(name, key) {
      const ready = await controls()
      await guardApi(() => {
        ready.checkpoints.remove(key, name)
      })
    },
    persistence: createPersistence(seeded.later, defaultKey, limits, parts.changes),
    exportState: async (key) => (await controls()).state.text(key),
    importState: async (state, key) => importInto((await controls()).state, state, key),
  }
}

/** Loads a state (its text, or parsed), its refusal a StateError, as every other refusal of a state in-process. */
async function importInto(controlled: StateControls, state: unknown, key: string | undefined): Promise<void> {
  try {
    await (typeof state === 'string' ? controlled.loadText(state, key) : controlled.load(state, key, 'state'))
  } catch (error) {
    if (error instanceof ApiError) throw new StateError(error.message)
    throw error
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

/** Runs a hold control, turning its ApiError (a wrong option, a hold released already) into a HoldError. */
/**
 * A hold's key is one a call could come with: a non-empty string the sandbox accepts as a key.
 * Any other would catch no call, yet take a place in the holds budget.
 */
function checkHoldKey(key: unknown, isolated: boolean, authenticate: Authenticate): void {
  if (key === undefined) return
  if (typeof key !== 'string' || key === '') {
    const got =
      typeof key === 'string' ? 'an empty string' : key === null ? 'null' : `${typeof key} ${describeValue(key)}`
    throw new HoldError(`hold.key must be a non-empty string, an API key the sandbox accepts; got ${got}`)
  }
  if (!isolated) return
  try {
    authenticate(`Bearer ${key}`)
  } catch {
    throw new HoldError(
      `hold.key ${JSON.stringify(key)} is not a key the sandbox accepts: no call could come with it, so the hold would catch none`,
    )
  }
}

/** A short form of a value for a message: never the whole of a large one. */
function describeValue(value: unknown): string {
  try {
    const text = JSON.stringify(value)
    return text.length > 40 ? `${text.slice(0, 40)}…` : text
  } catch {
    return Object.prototype.toString.call(value)
  }
}

function guardHold<T>(run: () => T): T {
  try {
    return run()
  } catch (error) {
    if (error instanceof ApiError) throw new HoldError(error.message)
    throw error
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
