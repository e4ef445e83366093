/**
 * createSandbox: one set of stores, its settings, its handlers and its controls. Each call
 * owns its data, so two sandboxes (two test files, two workers) never see each other's pets.
 */
import type { HttpHandler } from 'msw'
import { createAdminHandlers } from './admin.js'
import { createAuthenticator, DEFAULT_API_KEY } from './auth.js'
import { parseBaseUrl } from './base-url.js'
import { createClock } from './clock.js'
import { checkStoreState, type Pet, type StoreState } from './contract.js'
import { generatePets } from './generate.js'
import { createHandlers } from './handlers.js'
import { createJournal, DEFAULT_JOURNAL_LIMIT, type RequestJournal } from './journal.js'
import { createRandom } from './random.js'
import { DEFAULT_MAX_BODY_BYTES } from './request.js'
import { createScenarioBook, createTraffic, type ScenarioBook } from './scenarios.js'
import { bundledSeed, parseSeed } from './seed.js'
import { createPetStore, StateError, type PetStore } from './store.js'
import { createTenants, DEFAULT_MAX_TENANTS } from './tenants.js'

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
  /** Largest accepted request body in bytes; larger ones get 413. Default: 16 KiB. */
  maxBodyBytes?: number
  /** How many requests the journal keeps; the oldest are dropped. Default: 1000. */
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
  /** In isolated mode, how many tenants are kept; the least recently used goes first. Default: 1000. */
  maxTenants?: number
  /** The sandbox's clock starts here (ISO 8601 or a Date), e.g. after getPet's sunset. */
  now?: Date | string
  /** Reported by the health route; the server passes the package version. */
  version?: string
}

export interface Sandbox {
  /** The MSW request handlers of the API: pass them to `setupServer` or `setupWorker`. */
  readonly handlers: readonly HttpHandler[]
  /** The admin routes under `/__sandbox`, as MSW handlers: the server serves them. */
  readonly adminHandlers: readonly HttpHandler[]
  /** The data of the first API key (the only data, unless isolated), for arranging and inspecting state. */
  readonly pets: PetStore
  /** The accepted API keys. */
  readonly apiKeys: readonly string[]
  /** Every request the handlers answered, newest last; bounded by `journalLimit`. */
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
  /** Replaces all pets and the next id, after checking every entry; throws StateError naming the first bad field. */
  restore(state: unknown, key?: string): Promise<void>
  /** Replaces the seed (e.g. a reloaded fixtures file) and resets every key's data to it. */
  reseed(fixtures: unknown, source?: string): Promise<void>
  /** The sandbox's current time. */
  now(): Date
  /** Version, uptime, pet count and mode. */
  health(): Promise<SandboxHealth>
}

export interface SandboxHealth {
  status: 'ok'
  version: string
  uptimeSeconds: number
  pets: number
  mode: 'shared' | 'isolated'
  tenants: number
}

/**
 * Creates an isolated Pet Store sandbox.
 *
 * @example
 * const sandbox = createSandbox()
 * const server = setupServer(...sandbox.handlers)
 * beforeEach(() => sandbox.reset())
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const apiKeys = Object.freeze([...(options.apiKeys ?? [DEFAULT_API_KEY])])
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new TypeError(`Failed to create the sandbox: maxBodyBytes must be a positive integer, got ${maxBodyBytes}`)
  }
  const isolated = options.isolate ?? false
  if (options.generate !== undefined && (!Number.isSafeInteger(options.generate) || options.generate < 0)) {
    throw new TypeError(`Failed to create the sandbox: generate must be a whole number, got ${options.generate}`)
  }
  const random = createRandom(options.randomSeed)
  const seed =
    options.generate !== undefined
      ? generatePets(options.generate, options.randomSeed)
      : options.fixtures === undefined
        ? bundledSeed()
        : parseSeed(options.fixtures)
  const defaultKey = apiKeys[0] ?? DEFAULT_API_KEY
  const tenants = createTenants({ seed, isolated, defaultKey, maxTenants: options.maxTenants ?? DEFAULT_MAX_TENANTS })
  const journal = createJournal(options.journalLimit ?? DEFAULT_JOURNAL_LIMIT)
  const scenarios = createScenarioBook()
  const clock = createClock(options.now)
  const startedAt = Date.now()
  const authenticate = createAuthenticator(
    apiKeys,
    isolated ? { pattern: options.apiKeyPattern, any: options.apiKeyPattern === undefined } : {},
  )
  const base = parseBaseUrl(options.baseUrl)

  const sandbox: Sandbox = {
    handlers: Object.freeze(
      createHandlers({
        tenants,
        authenticate,
        base,
        maxBodyBytes,
        journal,
        scenarios,
        traffic: createTraffic({ delay: options.delay, failureRate: options.failureRate }, random),
        clock,
        onUnexpectedError: (error, request) => {
          console.error(`petstore-sandbox: unexpected failure on ${request.method} ${request.url}`, error)
        },
      }),
    ),
    get adminHandlers() {
      return adminHandlers
    },
    pets: tenants.storeFor(defaultKey),
    apiKeys,
    requests: journal,
    scenarios,
    isolated,
    async reset(key) {
      await tenants.reset(key)
      if (key !== undefined && isolated) {
        journal.clearTenant(key)
      } else {
        journal.clear()
        scenarios.clear()
      }
    },
    scenariosFor: (key) => {
      tenants.storeFor(key)
      return tenants.scenariosFor(key)
    },
    tenant: (key) => tenants.storeFor(key),
    // A key that has no data yet reads the seed, without creating a tenant that could push out another.
    snapshot: (key) => (tenants.existing(key ?? defaultKey) ?? createPetStore(tenants.seed())).snapshot(),
    async restore(state, key) {
      const checked = checkStoreState(state)
      if (!checked.ok) throw new StateError(`Invalid state: ${checked.problems.join('; ')}`)
      await tenants.storeFor(key ?? defaultKey).restore(checked.value)
    },
    async reseed(fixtures, source) {
      await tenants.reseed(parseSeed(fixtures, source))
    },
    now: clock,
    async health() {
      return {
        status: 'ok',
        version: options.version ?? 'unknown',
        uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
        pets: await tenants.storeFor(defaultKey).count(),
        mode: isolated ? 'isolated' : 'shared',
        tenants: tenants.count(),
      }
    },
  }
  const adminHandlers = Object.freeze(createAdminHandlers({ sandbox, authenticate, base, maxBodyBytes, journal }))
  return sandbox
}
