/**
 * The main entry, browser-safe (no Node built-ins): createSandbox, the sandbox's msw handlers,
 * and the contract. It builds nothing on import: the default sandbox is made on first use.
 * The HTTP server lives in `petstore-sandbox/server`.
 *
 * May import: the core, the msw adapter, and src/browser (whose storage loads only with `persist`).
 */
import type { HttpHandler } from 'msw'
import { parseBaseUrl } from './core/http/base-url.js'
import { createSandboxCore, type SandboxCore, type SandboxOptions } from './core/sandbox.js'
import { createPersistedCore } from './browser/persisted-sandbox.js'
import { createMswHandlers } from './msw/handlers.js'

export {
  CheckpointError,
  createSandboxCore,
  HoldError,
  type HoldOptions,
  type SandboxHold,
  type CheckpointOptions,
  type Hosting,
  type Persistence,
  type SandboxCore,
  type SandboxOptions,
} from './core/sandbox.js'
export type { CheckpointSummary } from './core/state/checkpoint-pool.js'
export type { CoreRequest, CoreResponse, RequestHeaders } from './core/http/http.js'
export { UpstreamFailure, type Upstream, type UpstreamFailureKind, type UpstreamRequest } from './core/upstream.js'
export type { Hold, SandboxHealth } from './core/admin/contract.js'
export { type PetStore, PetValidationError, StateError } from './core/api/store.js'
export { generatePets } from './core/api/generate.js'
export type { JournalEntry, JournalFilter, RequestJournal } from './core/state/request-journal.js'
export { SCENARIO_STATUSES, type Forwarding, type Scenario, type ScenarioInput } from './core/admin/contract.js'
export { ScenarioError, type ScenarioBook } from './core/state/scenarios.js'
export { FixtureError } from './core/api/seed.js'
export { DEFAULT_API_KEY } from './core/api/auth.js'
export { ERROR_CODES, ErrorSchema, type ErrorBody, type ErrorCode } from './core/http/errors.js'
export { LIMIT_NAMES, LIMITS, LimitError, type Limit, type LimitName, type Limits } from './core/limits.js'
export { GET_PET_DEPRECATED_AT, GET_PET_SUNSET_AT } from './core/api/operations.js'
export {
  LIST_LIMIT,
  ListPetsQuerySchema,
  NewPetSchema,
  OPERATIONS,
  PET_STATUSES,
  PetSchema,
  PetStatusSchema,
  type ListPetsQuery,
  type NewPet,
  type OperationId,
  type Pet,
  type PetStatus,
  type StoreState,
} from './core/api/contract.js'

/** A sandbox with its msw handlers: for `setupServer` in tests and `setupWorker` in a browser. */
export interface Sandbox extends SandboxCore {
  /** The msw handler of the API (one, for everything under the base URL): pass it to `setupServer` or `setupWorker`. */
  readonly handlers: readonly HttpHandler[]
  /** The msw handler of the admin routes under `/__sandbox`, for apps that reset or add scenarios over fetch. */
  readonly adminHandlers: readonly HttpHandler[]
}

/**
 * Creates an isolated Pet Store sandbox. In a browser, `persist: true` keeps its data in
 * IndexedDB across reloads and tabs (docs/static-demo.md).
 *
 * @example
 * const sandbox = createSandbox()
 * const server = setupServer(...sandbox.handlers)
 * beforeEach(() => sandbox.reset())
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const { persist } = options
  const core =
    persist === undefined || persist === false ? createSandboxCore(options) : createPersistedCore(options, persist)
  const { api, admin } = createMswHandlers(core, parseBaseUrl(options.baseUrl))
  return Object.freeze({ ...core, handlers: Object.freeze([api]), adminHandlers: Object.freeze([admin]) })
}

/**
 * One default sandbox, shared by everyone who imports this module: convenient for a quick
 * `setupServer(...handlers)` with `defaultSandbox.reset()` between tests. For state isolated per
 * test file or worker, call `createSandbox()` instead. Its seed is read on first use.
 */
export const defaultSandbox: Sandbox = createSandbox()

/** The handlers of `defaultSandbox`. */
export const handlers = defaultSandbox.handlers
