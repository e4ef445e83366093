/**
 * What a sandbox is made from: the options a user gives (createSandbox, startServer and the
 * CLI's flags all land here, checked by options.ts) and what its host provides (the server, or
 * an in-process adapter).
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import type { Asset } from './admin/exchange.js'
import type { HostUsage, StateFileHealth } from './admin/health.js'
import type { Notices } from './admin/notices.js'
import type { ScenarioBook } from './state/scenarios.js'
import type { Pet } from './api/contract.js'
import type { Surface } from './http/http.js'
import type { AllowedHosts } from './http/local.js'
import type { LimitName } from './limits.js'
import type { KeptPersistence } from './persistence.js'
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
  /**
   * In a browser: keep the data (pets, the id sequence, the checkpoints, the scenarios) in the
   * browser's IndexedDB, shared by the tabs of the origin, and load it before the first answer.
   * `true` keeps it under the key `petstore-sandbox`; `{ key: 'my-demo' }` under another, so two
   * demos of one origin keep apart. A changed seed drops what was kept. The address parameter
   * `?petstore-reset` starts from the seed. Not in Node (use `--state-file` there), not with `isolate`.
   */
  persist?: boolean | { key?: string }
}

/** What a host that keeps the data elsewhere (a browser's storage) is handed before the first answer. */
export interface Kept {
  /** The shared data and its checkpoints, as a state file holds them; usable now, before any call is answered. */
  readonly persistence: KeptPersistence
  /** The scenarios: kept beside the data. */
  readonly scenarios: ScenarioBook
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
  /**
   * createSandbox with `persist`: runs once the seed is built and before any call is answered,
   * the facade's included, so the stored data is loaded first and no call sees the seed before it.
   * It should not reject: a failure to load is the host's to report.
   */
  readonly prepare?: (kept: Kept) => Promise<void>
  /** createSandbox with `persist`: told of every change of the data, the checkpoints or the scenarios. */
  readonly changed?: () => void
  /**
   * Server with --state-file, saving every change before its answer: told of each pet a create
   * adds, with the change count it moved to (core/api/store.ts Changes), so that it can append the
   * pet to its change log rather than write the whole state.
   */
  readonly inserted?: (pet: Pet, revision: number) => void
  /**
   * Server with --state-file, saving every change before its answer: resolves once every change up
   * to `revision` is on disk; rejects, saying why, when it could not be written. An answer that
   * reports a change waits for it (the dispatcher's commit stage).
   */
  readonly commit?: (revision: number) => Promise<void>
}
