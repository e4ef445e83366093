/**
 * The pets of one tenant: the seed, held in a shared immutable index, plus the pets created
 * since the last reset, stored in an @msw/data collection (which validates every record
 * against the Pet schema) and indexed as they arrive. Created ids are always above the seed's,
 * so "seed, then created" is id order, and every read is a lookup or a prefix: no scans.
 */
import { Collection } from '@msw/data'
import {
  checkNewPet,
  PET_STATUSES,
  PetSchema,
  type ListPetsQuery,
  type NewPet,
  type Pet,
  type PetStatus,
  type StoreState,
} from './contract.js'
import { indexPets, type PetIndex } from './pet-index.js'

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
  reseed(seed: Promise<PetIndex>): Promise<void>
}

interface State {
  readonly base: PetIndex
  readonly writes: Collection<typeof PetSchema>
  readonly created: Pet[]
  readonly createdById: Map<number, Pet>
  readonly createdByStatus: Map<PetStatus, Pet[]>
  nextId: number
}

/** A store over a seed index; several stores (tenants) may share one index. */
export function createPetStore(seedIndex: Promise<PetIndex>): SeededPetStore {
  let seed = seedIndex

  // A reset swaps in a whole new state: a create still in flight lands in the old one and
  // cannot leak into the fresh one. Only the writes are new; the base index is shared.
  const fresh = (base: PetIndex, nextId = base.highestId + 1): State => ({
    base,
    writes: new Collection({ schema: PetSchema }),
    created: [],
    createdById: new Map(),
    createdByStatus: new Map(PET_STATUSES.map((status) => [status, []])),
    nextId,
  })
  let current = seed.then((base) => fresh(base))
  const swap = async (next: Promise<State>) => {
    current = next
    await next
  }
  const matching = (state: State, status: PetStatus | undefined): [readonly Pet[], readonly Pet[]] =>
    status === undefined
      ? [state.base.all, state.created]
      : [state.base.byStatus.get(status) ?? [], state.createdByStatus.get(status) ?? []]

  return {
    async list(query = {}) {
      const state = await current
      const [seeded, created] = matching(state, query.status)
      const limit = query.limit ?? seeded.length + created.length
      const first = seeded.slice(0, limit)
      return [...first, ...created.slice(0, limit - first.length)].map(copy)
    },

    async get(id) {
      const state = await current
      const found = state.base.get(id) ?? state.createdById.get(id)
      return found === undefined ? undefined : copy(found)
    },

    async create(newPet) {
      // Typed as NewPet for callers, but checked as unknown: it may come straight from a request body.
      const checked = checkNewPet(newPet)
      if (!checked.ok) throw new PetValidationError(checked.problems)
      const state = await current
      // Taken and indexed synchronously, so parallel creates never share an id and list in id order.
      const id = state.nextId++
      if (id > Number.MAX_SAFE_INTEGER) {
        throw new Error(
          `Failed to create a pet: the id sequence is exhausted (the seed holds id ${Number.MAX_SAFE_INTEGER}). Seed lower ids.`,
        )
      }
      const pet: Pet = { id, ...checked.value }
      state.created.push(pet)
      state.createdById.set(id, pet)
      if (pet.status !== undefined) state.createdByStatus.get(pet.status)?.push(pet)
      await state.writes.create(pet)
      return copy(pet)
    },

    async count() {
      const state = await current
      return state.base.all.length + state.writes.count()
    },

    reset: () => swap(seed.then((base) => fresh(base))),

    async snapshot() {
      // One state for both fields, so a reset in between cannot mix two of them.
      const state = await current
      return { pets: [...state.base.all, ...state.writes.all()].map(copy), nextId: state.nextId }
    },

    restore: (state) => swap(Promise.resolve(fresh(indexPets(state.pets), state.nextId))),

    async reseed(next) {
      seed = next
      await swap(seed.then((base) => fresh(base)))
    },
  }
}

// Callers get plain objects they may mutate freely; the stored ones are shared.
function copy(pet: Pet): Pet {
  return {
    id: pet.id,
    name: pet.name,
    categoryId: pet.categoryId,
    ...(pet.status !== undefined && { status: pet.status }),
  }
}
