/**
 * The main entry, browser-safe (no Node built-ins): createSandbox, the sandbox's msw handlers,
 * and the contract. It builds nothing on import: the default sandbox is made on first use.
 * The HTTP server lives in `petstore-sandbox/server`.
 *
 * May import: the core and the msw adapter.
 */
import type { HttpHandler } from 'msw'
import { parseBaseUrl } from './core/base-url.js'
import { createSandboxCore, type SandboxCore, type SandboxOptions } from './core/sandbox.js'
import { createMswHandlers } from './msw/handlers.js'

export { createSandboxCore, type SandboxCore, type SandboxOptions } from './core/sandbox.js'
export type { CoreRequest, CoreResponse, RequestHeaders } from './core/http.js'
export type { SandboxHealth } from './core/admin-contract.js'
export { type PetStore, PetValidationError, StateError } from './core/store.js'
export { generatePets } from './core/generate.js'
export type { JournalEntry, JournalFilter, RequestJournal } from './core/journal.js'
export {
  OPERATIONS,
  SCENARIO_STATUSES,
  ScenarioError,
  type OperationId,
  type Scenario,
  type ScenarioBook,
  type ScenarioInput,
} from './core/scenarios.js'
export { FixtureError } from './core/seed.js'
export { DEFAULT_API_KEY } from './core/auth.js'
export { ERROR_CODES, type ErrorCode } from './core/errors.js'
export { LIMIT_NAMES, LIMITS, LimitError, type Limit, type LimitName, type Limits } from './core/limits.js'
export { GET_PET_DEPRECATED_AT, GET_PET_SUNSET_AT } from './core/pets.js'
export {
  ErrorSchema,
  LIST_LIMIT,
  ListPetsQuerySchema,
  NewPetSchema,
  PET_STATUSES,
  PetSchema,
  PetStatusSchema,
  type ErrorBody,
  type ListPetsQuery,
  type NewPet,
  type Pet,
  type PetStatus,
  type StoreState,
} from './core/contract.js'

/** A sandbox with its msw handlers: for `setupServer` in tests and `setupWorker` in a browser. */
export interface Sandbox extends SandboxCore {
  /** The msw handler of the API (one, for everything under the base URL): pass it to `setupServer` or `setupWorker`. */
  readonly handlers: readonly HttpHandler[]
  /** The msw handler of the admin routes under `/__sandbox`, for apps that reset or add scenarios over fetch. */
  readonly adminHandlers: readonly HttpHandler[]
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
  const core = createSandboxCore(options)
  return withHandlers(() => core, options.baseUrl)
}

function withHandlers(core: () => SandboxCore, baseUrl: string | undefined): Sandbox {
  const { api, admin } = createMswHandlers(core, parseBaseUrl(baseUrl))
  const handlers = Object.freeze([api])
  const adminHandlers = Object.freeze([admin])
  const delegate = <K extends keyof SandboxCore>(name: K) => ({ enumerable: true, get: () => core()[name] })
  const sandbox = { handlers, adminHandlers } as Sandbox
  for (const name of CORE_MEMBERS) Object.defineProperty(sandbox, name, delegate(name))
  return Object.freeze(sandbox)
}

// Every member of SandboxCore, delegated: `everyMember` fails to compile when one is added and not listed.
const CORE_MEMBERS = [
  'pets',
  'apiKeys',
  'requests',
  'scenarios',
  'isolated',
  'reset',
  'scenariosFor',
  'tenant',
  'snapshot',
  'restore',
  'reseed',
  'now',
  'health',
  'handle',
  'bodyLimit',
  'cutDelays',
  'limits',
] as const satisfies readonly (keyof SandboxCore)[]
const _everyMember: Exclude<keyof SandboxCore, (typeof CORE_MEMBERS)[number]> extends never ? true : never = true

/**
 * One default sandbox, made on first use and shared by everyone who imports this module:
 * convenient for a quick `setupServer(...handlers)` with `defaultSandbox.reset()` between
 * tests. For state isolated per test file or worker, call `createSandbox()` instead.
 */
export const defaultSandbox: Sandbox = withHandlers(
  (() => {
    let made: SandboxCore | undefined
    return () => (made ??= createSandboxCore())
  })(),
  undefined,
)

/** The handlers of `defaultSandbox`. */
export const handlers = defaultSandbox.handlers
