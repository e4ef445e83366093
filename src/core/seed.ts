/**
 * The seed: the bundled fixtures and the checks any other fixtures must pass.
 * Browser-safe: the JSON is imported, never read from disk here.
 *
 * May import: other core files, zod, lossless-json, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import bundledPets from '../../fixtures/pets.json' with { type: 'json' }
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
  const seen = new Map<number, number>()
  return Object.freeze(
    input.map((entry: unknown, index) => {
      const checked = checkPet(entry)
      if (!checked.ok) {
        throw new FixtureError(`Invalid ${source}: entry ${index}${describeId(entry)}: ${checked.problems.join('; ')}`)
      }
      const earlier = seen.get(checked.value.id)
      if (earlier !== undefined) {
        throw new FixtureError(
          `Invalid ${source}: entry ${index}: id ${checked.value.id} is already used by entry ${earlier}`,
        )
      }
      seen.set(checked.value.id, index)
      return Object.freeze(checked.value)
    }),
  )
}

function describeId(entry: unknown): string {
  const id = typeof entry === 'object' && entry !== null ? (entry as { id?: unknown }).id : undefined
  return typeof id === 'number' || typeof id === 'string' ? ` (id ${id})` : ''
}

/** The bundled seed, validated once per call so every sandbox gets its own checked copy. */
export function bundledSeed(): readonly Pet[] {
  return parseSeed(bundledPets, 'bundled fixtures')
}
