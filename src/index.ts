/**
 * The browser-safe entry: no Node built-ins. The HTTP server lives in `petstore-sandbox/server`.
 */
import { createSandbox } from './sandbox.js'

export { createSandbox, type Sandbox, type SandboxHealth, type SandboxOptions } from './sandbox.js'
export { type PetStore, PetValidationError, StateError } from './store.js'
export { generatePets } from './generate.js'
export type { JournalEntry, JournalFilter, RequestJournal } from './journal.js'
export {
  OPERATIONS,
  SCENARIO_STATUSES,
  ScenarioError,
  type OperationId,
  type Scenario,
  type ScenarioBook,
  type ScenarioInput,
} from './scenarios.js'
export { FixtureError } from './seed.js'
export { DEFAULT_API_KEY } from './auth.js'
export { ERROR_CODES, type ErrorCode } from './errors.js'
export { GET_PET_DEPRECATED_AT, GET_PET_SUNSET_AT } from './handlers.js'
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
} from './contract.js'

/**
 * One default sandbox, created when this module is first imported and shared by everyone
 * who imports it: convenient for a quick `setupServer(...handlers)` with
 * `defaultSandbox.reset()` between tests. For state isolated per test file or worker,
 * call `createSandbox()` instead.
 */
export const defaultSandbox = createSandbox()

/** The handlers of `defaultSandbox`. */
export const handlers = defaultSandbox.handlers
