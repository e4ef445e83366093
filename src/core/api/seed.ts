/**
 * The seed: the bundled fixtures and the checks any other fixtures must pass.
 * Browser-safe: the JSON is imported, never read from disk here.
 *
 * May import: core/api, core/http, core/limits.ts, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import bundledPets from '../../../fixtures/pets.json' with { type: 'json' }
import { checkPet, type Pet } from './contract.js'

/** Thrown when fixtures do not match the Pet schema; names the source, the entry and the field. */
export class FixtureError extends Error {
  override readonly name = 'FixtureError'
}

/**
 * Validates fixtures: an array of Pets with unique ids. Returns frozen copies,
 * so later changes to the caller's array cannot leak into resets.
 */
export function parseSeed(input: unknown, source = 'fixtures'): readonly Pet[] {
  if (!Array.isArray(input)) {
    throw new FixtureError(
      `Invalid ${source}: expected a JSON array of pets, got ${input === null ? 'null' : typeof input}`,
    )
  }
  // Every bad entry is reported at once, so a file is fixed in one go.
  const seen = new Map<number, number>()
  const problems: string[] = []
  const pets: Pet[] = []
  input.forEach((entry: unknown, index) => {
    // Ids are checked over every entry whose id is an integer, valid or not in other ways, so a
    // duplicate is named in the same answer as a bad field.
    const id = typeof entry === 'object' && entry !== null ? (entry as { id?: unknown }).id : undefined
    const earlier = typeof id === 'number' && Number.isSafeInteger(id) ? seen.get(id) : undefined
    if (earlier !== undefined) problems.push(`entry ${index}: id ${String(id)} is already used by entry ${earlier}`)
    else if (typeof id === 'number' && Number.isSafeInteger(id)) seen.set(id, index)
    const checked = checkPet(entry)
    if (!checked.ok) problems.push(`entry ${index}${describeId(entry)}: ${checked.problems.join('; ')}`)
    else if (earlier === undefined) pets.push(Object.freeze(checked.value))
  })
  if (problems.length > 0) throw new FixtureError(`Invalid ${source}: ${problems.join('; ')}`)
  return Object.freeze(pets)
}

/** Fixtures that are a saved state: its pets as the seed, and what of the state a seed leaves out. */
export interface StateSeed {
  readonly pets: readonly Pet[]
  /** The checkpoints the state holds, which a seed does not: --state-file loads them. */
  readonly checkpoints: number
}

/**
 * Fixtures given a saved state (the state document of GET /__sandbox/state and --state-file, or
 * the older `{pets, nextId}`): an object with `pets`. Its pets are checked as any fixtures are and
 * become the seed, so a reset comes back to them; the next id follows the highest of them, as with
 * any seed. Undefined for anything else: parseSeed judges it.
 */
export function parseStateSeed(input: unknown, source = 'fixtures'): StateSeed | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input) || !Object.hasOwn(input, 'pets')) {
    return undefined
  }
  const { pets, checkpoints } = input as { pets: unknown; checkpoints?: unknown }
  return {
    pets: parseSeed(pets, `${source} (the pets of a saved state)`),
    checkpoints: Array.isArray(checkpoints) ? checkpoints.length : 0,
  }
}

function describeId(entry: unknown): string {
  const id = typeof entry === 'object' && entry !== null ? (entry as { id?: unknown }).id : undefined
  return typeof id === 'number' || typeof id === 'string' ? ` (id ${id})` : ''
}

/**
 * The bundled seed, a frozen copy per call. It ships with the package and a test holds it to
 * parseSeed's checks (test/contract.test.ts), so it is not run through the schema again on every
 * start: that first schema run was a few of the milliseconds a test file waits for its first answer.
 */
export function bundledSeed(): readonly Pet[] {
  return Object.freeze(
    (bundledPets as readonly Pet[]).map(({ id, name, categoryId, status }) =>
      Object.freeze(status === undefined ? { id, name, categoryId } : { id, name, categoryId, status }),
    ),
  )
}
