/**
 * The interface contract as zod schemas: the one source of the TypeScript types,
 * of request validation, of the data model's schema and (later) of the OpenAPI document.
 * Nothing in here knows about HTTP.
 *
 * May import: core/api, core/http, core/limits.ts, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import * as z from 'zod'
import { InexactNumber, preview } from '../http/json.js'
import { drain, drainInSlices } from './slices.js'

export const PET_STATUSES = ['available', 'pending', 'sold'] as const

/** The interface's three operations: what the journal, scenarios, forwarding and the contract check call them. */
export const OPERATIONS = ['listPets', 'createPet', 'getPet'] as const
export type OperationId = (typeof OPERATIONS)[number]

/** Limits of `GET /pets?limit=`, as the interface gives them. */
export const LIST_LIMIT = { min: 1, max: 100, default: 20 } as const

/**
 * The interface leaves the constraints on `name` open. A blank name is almost
 * certainly a client bug, and an unbounded one lets a single request bloat the
 * store, so the sandbox takes 1..255 characters with at least one non-space.
 */
const NAME_MAX_LENGTH = 255

export const PetStatusSchema = z.enum(PET_STATUSES).meta({ description: 'Availability of the animal' })

// z.int() is the safe-integer range: int64 values JavaScript cannot hold exactly
// are rejected instead of being silently rounded.
const Int64Schema = z.int()

export const PetSchema = z.object({
  id: Int64Schema.min(1).meta({ description: 'Unique identifier assigned by the service on creation' }),
  name: z.string().min(1, { abort: true }).max(NAME_MAX_LENGTH).regex(/\S/).meta({ description: "The animal's name" }),
  categoryId: Int64Schema.meta({ description: 'Identifier of the category the animal belongs to' }),
  status: PetStatusSchema.optional(),
})

export const NewPetSchema = PetSchema.omit({ id: true })

export const ListPetsQuerySchema = z.object({
  limit: z
    .int()
    .min(LIST_LIMIT.min)
    .max(LIST_LIMIT.max)
    .default(LIST_LIMIT.default)
    .meta({ description: 'Maximum number of animals returned' }),
  status: PetStatusSchema.optional(),
})

export const PetIdSchema = Int64Schema.meta({ description: 'Identifier of the animal' })
// Built once: a zod schema is costly to build and free to reuse.
const PetIdParameterSchema = z.object({ petId: PetIdSchema })

// One past the largest safe id is what a store whose ids ran out exports: it must import back.
const NextIdSchema = z
  .number()
  .min(1)
  .max(Number.MAX_SAFE_INTEGER + 1)
  .multipleOf(1)
  .meta({ description: `The id the next created pet gets; ${Number.MAX_SAFE_INTEGER + 1} when no id is left` })

/**
 * The whole data of a store: what GET /__sandbox/state exports and PUT replaces. Ids are unique
 * and nextId is past them all; checkStoreState checks those too, with every other problem.
 */
export const StoreStateSchema = z.object({ pets: z.array(PetSchema), nextId: NextIdSchema }).strict()

/** A state with its pets left unchecked: the pets are checked in slices (checkStoreStateInSlices). */
const StateShellSchema = z.object({ pets: z.array(z.unknown()), nextId: NextIdSchema }).strict()
const PetListSchema = z.array(PetSchema)

export type PetStatus = z.infer<typeof PetStatusSchema>
export type StoreState = z.infer<typeof StoreStateSchema>
export type Pet = z.infer<typeof PetSchema>
export type NewPet = z.infer<typeof NewPetSchema>
export type ListPetsQuery = z.infer<typeof ListPetsQuerySchema>

/** The outcome of checking untrusted input against the contract. */
export type Checked<T> = { ok: true; value: T } | { ok: false; problems: string[] }

/** Fields the service assigns; a request body that tries to set one is rejected, not ignored. */
const SERVICE_ASSIGNED_FIELDS = ['id'] as const

/**
 * Checks a parsed JSON request body against NewPet. Unknown fields are dropped;
 * fields the service assigns are refused so a client learns it cannot choose them.
 */
export function checkNewPet(input: unknown): Checked<NewPet> {
  if (!isPlainObject(input)) {
    return { ok: false, problems: [`body must be a JSON object, got ${describeJsonType(input)}`] }
  }
  const assigned = SERVICE_ASSIGNED_FIELDS.filter((field) => Object.hasOwn(input, field))
  const result = NewPetSchema.safeParse(input)
  const problems = [
    ...assigned.map((field) => `${field} is assigned by the service and cannot be set`),
    ...(result.success ? [] : describeIssues(result.error.issues, input)),
  ]
  if (problems.length > 0 || !result.success) return { ok: false, problems }
  return { ok: true, value: result.data }
}

/** Checks one stored pet, as found in a fixtures file. */
export function checkPet(input: unknown): Checked<Pet> {
  return checkObject(PetSchema, input, 'entry')
}

/** Checks a whole store state: every pet, unique ids, and a next id past them all. Every problem at once. */
export function checkStoreState(input: unknown, petsChecked = false): Checked<StoreState> {
  return drain(checkStoreStateSteps(input, petsChecked))
}

/** checkStoreState for a large state (an import): pausing between slices of pets, with the same answer. */
export async function checkStoreStateInSlices(
  input: unknown,
  pause: () => Promise<void>,
): Promise<Checked<StoreState>> {
  return drainInSlices(checkStoreStateSteps(input), pause)
}

/** Pets checked between two pauses: a few milliseconds of work. */
const PETS_PER_SLICE = 10_000

/** Problems named in one answer: the check of a state stops at the first one past them. */
const MAX_PROBLEMS = 100

/**
 * `petsChecked`: the pets are known to be ones a store held (a browser's own stored text, its
 * digest unchanged), so each is not checked again; the rest (the shell, ids, nextId) is.
 */
function* checkStoreStateSteps(input: unknown, petsChecked = false): Generator<void, Checked<StoreState>> {
  if (!isPlainObject(input)) {
    return { ok: false, problems: [`body must be a JSON object, got ${describeJsonType(input)}`] }
  }
  // The check stops at the first problem past MAX_PROBLEMS. Going on to count them all cost zod a
  // message per problem: 8 MiB of empty pets (`{}`, three problems each) took 39 s and 1 GB to
  // say "and 8388467 more problems", and 63 s and 2 GB when every message was kept.
  const problems: string[] = []
  // Each adds what fits, and says whether a problem was left past MAX_PROBLEMS.
  const named = (issues: readonly z.core.$ZodIssue[], at: (issue: z.core.$ZodIssue) => z.core.$ZodIssue) => {
    const room = Math.max(0, MAX_PROBLEMS - problems.length)
    problems.push(...describeIssues(issues.slice(0, room).map(at), input))
    return issues.length > room
  }
  const one = (problem: string) => {
    if (problems.length >= MAX_PROBLEMS) return true
    problems.push(problem)
    return false
  }
  const tooMany = (): Checked<StoreState> => ({
    ok: false,
    problems: [...problems, `and more problems: the check stops at ${MAX_PROBLEMS}`],
  })
  const pets: Pet[] = []
  const raw = Array.isArray(input.pets) ? (input.pets as unknown[]) : []
  if (petsChecked) for (const pet of raw) pets.push(pet as Pet)
  for (let start = 0; !petsChecked && start < raw.length; start += PETS_PER_SLICE) {
    const result = PetListSchema.safeParse(raw.slice(start, start + PETS_PER_SLICE))
    if (result.success) {
      for (const pet of result.data) pets.push(pet)
    } else {
      const past = named(result.error.issues, (issue) => ({
        ...issue,
        path: ['pets', start + Number(issue.path[0]), ...issue.path.slice(1)],
      }))
      if (past) return tooMany()
    }
    yield
  }
  // The shell without its pets (they are checked above): walking them again would be one long step.
  const shell = StateShellSchema.safeParse(Array.isArray(input.pets) ? { ...input, pets: [] } : input)
  if (!shell.success && named(shell.error.issues, (issue) => issue)) return tooMany()
  // Ids and nextId are checked over every pet whose id is an integer, valid or not in other ways.
  const seen = new Map<number, number>()
  let highest = 0
  for (let index = 0; index < raw.length; index++) {
    const pet = raw[index]
    const id = isPlainObject(pet) ? pet.id : undefined
    if (typeof id === 'number' && Number.isSafeInteger(id)) {
      const earlier = seen.get(id)
      if (earlier !== undefined) {
        if (one(`pets.${index}.id is already used by pets.${earlier}`)) return tooMany()
      } else seen.set(id, index)
      highest = Math.max(highest, id)
    }
    if (index % PETS_PER_SLICE === PETS_PER_SLICE - 1) yield
  }
  const nextId = input.nextId
  if (NextIdSchema.safeParse(nextId).success && (nextId as number) <= highest) {
    if (one(`nextId must be greater than the highest id, ${highest}`)) return tooMany()
  }
  if (problems.length > 0) return { ok: false, problems }
  return { ok: true, value: { pets, nextId: nextId as number } }
}

/**
 * Checks a JSON object against any schema, with problems that name each field. The sandbox's
 * own admin inputs go through here too, so they read like the API's errors.
 */
export function checkObject<T>(schema: z.ZodType<T>, input: unknown, subject: string): Checked<T> {
  if (!isPlainObject(input)) {
    return { ok: false, problems: [`${subject} must be a JSON object, got ${describeJsonType(input)}`] }
  }
  const result = schema.safeParse(input)
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, problems: describeIssues(result.error.issues, input) }
}

/**
 * Checks the list query. Query values arrive as text; only plain decimal digits are
 * read as numbers, so `1e1`, `1.5`, `+5` and the empty string stay text and fail
 * as "not an integer" instead of being coerced.
 */
export function checkListPetsQuery(raw: Readonly<Record<string, string>>): Checked<ListPetsQuery> {
  // No parameter at all, what most calls send: the schema's defaults, without running it.
  if (raw.limit === undefined && raw.status === undefined) return DEFAULT_LIST_QUERY
  const input = {
    ...(raw.limit !== undefined && { limit: readInteger(raw.limit) }),
    ...(raw.status !== undefined && { status: raw.status }),
  }
  const result = ListPetsQuerySchema.safeParse(input)
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, problems: describeIssues(result.error.issues, input) }
}

/** What checkListPetsQuery answers for a query without parameters: `{ limit: 20 }`. */
const DEFAULT_LIST_QUERY: Checked<ListPetsQuery> = Object.freeze({
  ok: true,
  value: Object.freeze(ListPetsQuerySchema.parse({})),
})

/** Checks the `petId` path segment with the same integer rule as the body's int64 fields. */
export function checkPetId(raw: string): Checked<number> {
  const petId = readInteger(raw)
  // readInteger gives a number only for an integer JavaScript holds exactly: the schema's whole rule.
  if (typeof petId === 'number') return { ok: true, value: petId }
  const input = { petId }
  const result = PetIdParameterSchema.safeParse(input)
  return result.success
    ? { ok: true, value: result.data.petId }
    : { ok: false, problems: describeIssues(result.error.issues, input) }
}

// Digits a JavaScript number cannot hold exactly stay their literal, so a message quotes what was sent.
function readInteger(text: string): number | string | InexactNumber {
  if (!/^-?[0-9]+$/.test(text)) return text
  const number = Number(text)
  return Number.isSafeInteger(number) ? number : new InexactNumber(text)
}

/** A JSON object (`{...}`), not an array, null or a class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

function describeJsonType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (value instanceof InexactNumber) return 'a number'
  if (value === undefined) return 'nothing'
  if (Number.isInteger(value)) return 'an integer'
  return `a ${typeof value}`
}

function describeValue(value: unknown): string {
  return value === undefined ? 'nothing' : preview(value)
}

/**
 * The problems of one value against a schema, each naming its field under `at` (`body.3.status`):
 * for checking a long list one item at a time, so a caller can stop after a few.
 */
export function problemsAt(schema: z.ZodType, input: unknown, at: readonly (string | number)[]): string[] {
  const result = schema.safeParse(input)
  return result.success ? [] : describeIssues(result.error.issues, input, at)
}

/** Turns zod issues into sentences that name the field (under `at`) and what is wrong with it. */
function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  input: unknown,
  at: readonly (string | number)[] = [],
): string[] {
  return issues.map((issue) => {
    const field = [...at, ...issue.path].map(String).join('.') || 'value'
    const value = issue.path.reduce<unknown>(
      (node, key) =>
        isPlainObject(node)
          ? node[key as string]
          : Array.isArray(node)
            ? (node as unknown[])[key as number]
            : undefined,
      input,
    )
    const got = `got ${describeValue(value)}`
    switch (issue.code) {
      case 'invalid_type':
        if (value === undefined) return `${field} is required`
        if (value instanceof InexactNumber) {
          return `${field} must be an integer from ${-Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}, ${got}`
        }
        return issue.expected === 'int' || issue.expected === 'number'
          ? `${field} must be an integer, ${got}`
          : `${field} must be ${/^[aeiou]/.test(issue.expected) ? 'an' : 'a'} ${issue.expected}, ${got}`
      case 'invalid_value':
        return `${field} must be one of ${issue.values.map(String).join(', ')}, ${got}`
      case 'too_small':
        return issue.origin === 'string'
          ? `${field} must not be empty`
          : `${field} must be at least ${String(issue.minimum)}, ${got}`
      case 'too_big':
        return issue.origin === 'string'
          ? `${field} must be at most ${String(issue.maximum)} characters long`
          : `${field} must be at most ${String(issue.maximum)}, ${got}`
      case 'not_multiple_of':
        return `${field} must be an integer, ${got}`
      case 'invalid_format':
        return `${field} must contain a non-space character`
      case 'unrecognized_keys':
        return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}${field === 'value' ? '' : ` in ${field}`}`
      case 'custom':
        return `${field} ${issue.message}`
      default:
        return `${field} is invalid: ${issue.message}`
    }
  })
}
