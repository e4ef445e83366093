/**
 * The pet collection: an @msw/data Collection holding the records, plus the rules the
 * service owns (id assignment, ordering, reset). Nothing in here knows about HTTP.
 */
import { Collection } from '@msw/data'
import { checkNewPet, PetSchema, type ListPetsQuery, type NewPet, type Pet } from './contract.js'

/** Thrown by `pets.create()` when the new pet breaks the contract; the message names each field. */
export class PetValidationError extends Error {
  override readonly name = 'PetValidationError'

  constructor(readonly problems: readonly string[]) {
    super(problems.join('; '))
  }
}

export interface PetStore {
  /** Pets ordered by id ascending, filtered by status, at most `limit` of them (all when left out). */
  list(query?: Partial<ListPetsQuery>): Promise<Pet[]>
  /** One pet by id, or undefined. */
  get(id: number): Promise<Pet | undefined>
  /** Validates a NewPet (throwing PetValidationError), assigns the next id and stores it. */
  create(newPet: NewPet): Promise<Pet>
  /** How many pets are stored. */
  count(): Promise<number>
  /** Restores the seed and the id sequence exactly. */
  reset(): Promise<void>
}

interface State {
  readonly collection: Collection<typeof PetSchema>
  nextId: number
}

export function createPetStore(seed: readonly Pet[]): PetStore {
  const firstFreeId = seed.reduce((highest, pet) => Math.max(highest, pet.id), 0) + 1

  // Every reset builds a new collection and swaps it in whole: a create still in
  // flight lands in the old one and cannot leak into the fresh seed.
  const load = async (): Promise<State> => {
    const collection = new Collection({ schema: PetSchema })
    for (const pet of seed) await collection.create({ ...pet })
    return { collection, nextId: firstFreeId }
  }
  let current = load()

  return {
    async list(query = {}) {
      const { collection } = await current
      const { status, limit } = query
      const matching = status === undefined ? collection.all() : collection.findMany((q) => q.where({ status }))
      // @msw/data 1.1.7 applies `take` before `orderBy`, so sort and cut here.
      return matching
        .toSorted((a, b) => a.id - b.id)
        .slice(0, limit)
        .map(copy)
    },

    async get(id) {
      const { collection } = await current
      const found = collection.findFirst((q) => q.where({ id }))
      return found === undefined ? undefined : copy(found)
    },

    async create(newPet) {
      // Typed as NewPet for callers, but checked as unknown: it may come straight from a request body.
      const checked = checkNewPet(newPet)
      if (!checked.ok) throw new PetValidationError(checked.problems)
      const state = await current
      // Taken synchronously, so parallel creates can never share an id.
      const id = state.nextId++
      if (id > Number.MAX_SAFE_INTEGER) {
        throw new Error(
          `Failed to create a pet: the id sequence is exhausted (the seed holds id ${Number.MAX_SAFE_INTEGER}). Seed lower ids.`,
        )
      }
      return copy(await state.collection.create({ id, ...checked.value }))
    },

    async count() {
      return (await current).collection.count()
    },

    async reset() {
      const next = load()
      current = next
      await next
    },
  }
}

// Records carry @msw/data's internal symbols; callers get plain objects they may mutate freely.
function copy(pet: Pet): Pet {
  return {
    id: pet.id,
    name: pet.name,
    categoryId: pet.categoryId,
    ...(pet.status !== undefined && { status: pet.status }),
  }
}
