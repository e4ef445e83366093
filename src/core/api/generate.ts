/**
 * Believable generated pets for demos and load tests, deterministic for a given seed.
 * faker is imported only when pets are generated: it is large, and most users never need it.
 *
 * May import: core/api, core/http, core/limits.ts, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import type { Pet, PetStatus } from './contract.js'
import { createRandom } from './random.js'

/** The bundled seed's categories: 1 dogs, 2 cats, 3 birds, 4 fish, 5 reptiles, 6 small mammals. */
const CATEGORY_COUNT = 6

/**
 * Generates `count` pets with ids 1..count. The same seed gives the same pets.
 *
 * @example
 * const sandbox = createSandbox({ fixtures: await generatePets(1000, 42) })
 */
export async function generatePets(count: number, seed = 1): Promise<Pet[]> {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new TypeError(`Failed to generate pets: count must be a whole number, got ${count}`)
  }
  // English only. faker's main entry builds every locale it ships, some 70, and they stay in the
  // heap for the process's life (16.8 MB of heap and 38 MB of RSS against 2.4 and 7.6 for
  // `locale/en`, Node 20.20), which V8 then multiplies when it sizes the old generation (issue 49).
  // `locale/en` exports only its shared instance: its class makes one of our own, seeded, with the
  // same definitions (English, then base), so the names are the same and no one else's faker is
  // reseeded.
  const { faker: english } = await import('@faker-js/faker/locale/en')
  const Faker = english.constructor as new (options: {
    locale: typeof english.rawDefinitions
    seed: number
  }) => typeof english
  const faker = new Faker({ locale: english.rawDefinitions, seed })
  const random = createRandom(seed)
  const pets: Pet[] = []
  for (let id = 1; id <= count; id++) {
    const roll = random()
    // Most pets are available, some reserved or sold, a few without a status, as in the seed.
    const status: PetStatus | undefined =
      roll < 0.5 ? 'available' : roll < 0.7 ? 'pending' : roll < 0.95 ? 'sold' : undefined
    pets.push({
      id,
      name: faker.animal.petName(),
      categoryId: 1 + Math.floor(random() * CATEGORY_COUNT),
      ...(status !== undefined && { status }),
    })
  }
  return pets
}
