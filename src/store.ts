/**
 * The pet collection: an @msw/data Collection holding the records, plus the rules the
 * service owns (id assignment, ordering, reset). Nothing in here knows about HTTP.
 */
import { Collection } from '@msw/data'
import { checkNewPet, PetSchema, type ListPetsQuery, type NewPet, type Pet, type StoreState } from './contract.js'

/** Thrown by `pets.create()` when the new pet breaks the contract; the message names each field. */
export class PetValidationError extends Error {
  override readonly name = 'PetValidationError'

  constructor(readonly problems: readonly string[]) {
    super(problems.join('; '))
  }
}

/** Thrown by `sandbox.restore()` for a state that breaks the contract; the message names the index and field. */
export class StateError extends Error {
  override readonly name = 'StateError'
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
  /** All pets and the next id, to save and restore later. */
  snapshot(): Promise<StoreState>
  /** Replaces all pets and the next id with a state checked by `checkStoreState`. */
  restore(state: StoreState): Promise<void>
}

/** The store as the sandbox holds it: it may also swap its seed (fixtures reloaded). */
export interface SeededPetStore extends PetStore {
  reseed(seed: readonly Pet[] | Promise<readonly Pet[]>): Promise<void>
}

interface State {
  readonly collection: Collection<typeof PetSchema>
  nextId: number
}

export function createPetStore(initialSeed: readonly Pet[] | Promise<readonly Pet[]>): SeededPetStore {
  let seed = Promise.resolve(initialSeed)

  // Every reset builds a new collection and swaps it in whole: a create still in
  // flight lands in the old one and cannot leak into the fresh state.
  const load = async (pets: readonly Pet[] | Promise<readonly Pet[]>, nextId?: number): Promise<State> => {
    const records = await pets
    const collection = new Collection({ schema: PetSchema })
    for (const pet of records) await collection.create({ ...pet })
    return { collection, nextId: nextId ?? records.reduce((highest, pet) => Math.max(highest, pet.id), 0) + 1 }
  }
  let current = load(seed)
  const swap = async (next: Promise<State>) => {
    current = next
    await next
  }

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

    reset: () => swap(load(seed)),

    async snapshot() {
      // One state for both fields, so a reset in between cannot mix two of them.
      const { collection, nextId } = await current
      return {
        pets: collection
          .all()
          .toSorted((a, b) => a.id - b.id)
          .map(copy),
        nextId,
      }
    },

    restore: (state) => swap(load(state.pets, state.nextId)),

    async reseed(next) {
      seed = Promise.resolve(next)
      await swap(load(seed))
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
