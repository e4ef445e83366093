/**
 * The pets of one tenant: the seed, held in a shared immutable index, plus the pets created
 * since the last reset, indexed as they arrive. Created ids are always above the seed's, so
 * "seed, then created" is id order, and every read is a lookup or a prefix: no scans.
 *
 * Synchronous on purpose: a create takes its id and lands in one step, so parallel requests
 * never share an id, and the HTTP path pays for no promise it does not need.
 *
 * May import: core/api, core/http, core/limits.ts, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import {
  checkNewPet,
  PET_STATUSES,
  type ListPetsQuery,
  type NewPet,
  type Pet,
  type PetStatus,
  type StoreState,
} from './contract.js'
import { ApiError } from '../http/errors.js'
import { LIMITS } from '../limits.js'
import type { ListCache } from './list-cache.js'
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

/** One tenant's data, as the core uses it. */
export interface TenantStore {
  /** Pets ordered by id ascending, filtered by status, at most `limit` of them (all when left out). */
  list(query?: Partial<ListPetsQuery>): Pet[]
  /** The same list as JSON text, kept from its second ask until the next write: a repeated poll's answer is built twice, not every time. */
  listJson(query: ListPetsQuery): string
  get(id: number): Pet | undefined
  /** The same pet as JSON text, what getPet answers: made once per stored pet, kept as long as the pet. */
  getJson(id: number): string | undefined
  /** One page of the whole store in id order, each pet marked when it was created since the last reset. */
  page(offset: number, limit: number, status?: PetStatus): { total: number; pets: (Pet & { created: boolean })[] }
  /** How many pets were created since the last reset. */
  createdCount(): number
  /** Stores a pet already checked against NewPet, with the next id. */
  insert(newPet: NewPet): Pet
  count(): number
  /** Restores the seed and the id sequence exactly. */
  reset(): void
  snapshot(): StoreState
  /**
   * Every stored pet in id order, the objects themselves (never to be changed), and the next id:
   * a consistent view, taken in one step, that a state file serialises in slices afterwards.
   */
  view(): { readonly pets: readonly Pet[]; readonly nextId: number }
  /** Replaces all pets and the next id with a state checked by `checkStoreState`. */
  restore(state: StoreState): void
  /** Takes a new seed (fixtures reloaded) and resets to it. */
  reseed(seed: PetIndex): void
}

/** One tenant's data, for arranging and inspecting state from a test. */
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

interface State {
  readonly base: PetIndex
  readonly created: Pet[]
  readonly createdById: Map<number, Pet>
  readonly createdByStatus: Map<PetStatus, Pet[]>
  nextId: number
  /**
   * Pets beyond the seed's count that a restore brought in (a state import, a rewind): they count
   * against the createdPets pool like created ones, or an import, a rewind and a delete in a loop
   * would grow a tenant past every budget.
   */
  readonly restored: number
}

/** Pets one tenant may create between two resets, unless the sandbox says otherwise. */
const DEFAULT_MAX_CREATED_PETS = LIMITS.createdPetsPerTenant.value

/** What the stores of one sandbox share: the list answers' cache and the count of pets created in all. */
export interface StoreBudgets {
  readonly cache: ListCache | undefined
  readonly created: { used: number; readonly max: number }
  /**
   * Each stored pet's JSON, keyed by the stored object: a seeded pet is shared by every tenant, so
   * it is serialised once for all. Weak, so it holds no pet a reset or an eviction let go, and it
   * never holds more than one text per stored pet, which the pet budgets already bound.
   */
  readonly petJson?: WeakMap<Pet, string>
  /** Counts every change of any store's data: a state file saves when it moved. */
  readonly changes?: Changes
}

/**
 * The count of every change of the data and the checkpoints, in every tenant: a host that keeps
 * the data (a state file) saves when it moved. A host that writes changes as they come (a state
 * file's change log) also hears of each pet a create added, with the count it moved to: a run of
 * such counts with nothing else between is a run of pets to append, anything else a whole save.
 */
export interface Changes {
  count: number
  readonly inserted?: ((pet: Pet, revision: number) => void) | undefined
}

/** A store over a seed index; several stores (tenants) share one index. */
export function createTenantStore(
  seedIndex: PetIndex,
  maxCreatedPets: number = DEFAULT_MAX_CREATED_PETS,
  budgets: StoreBudgets = { cache: undefined, created: { used: 0, max: Number.MAX_SAFE_INTEGER } },
): TenantStore {
  const { cache, created: pool } = budgets
  const changes = budgets.changes ?? { count: 0 }
  const petJson = budgets.petJson ?? new WeakMap<Pet, string>()
  const owner = cache?.newOwner() ?? 0
  let seed = seedIndex
  // A reset or restore swaps in a whole new state; the base index is shared, never copied.
  const fresh = (base: PetIndex, nextId = base.highestId + 1, restored = 0): State => ({
    base,
    created: [],
    createdById: new Map(),
    createdByStatus: new Map(PET_STATUSES.map((status) => [status, []])),
    nextId,
    restored,
  })
  let state = fresh(seed)
  // Every change swaps or grows the state: the cached answers go, and the pool gets its pets back.
  const replace = (next: State) => {
    changes.count++
    pool.used -= state.created.length + state.restored - next.restored
    cache?.drop(owner)
    state = next
  }
  // The stored pet itself, seeded or created: callers copy it or serialise it at once.
  const stored = (id: number): Pet | undefined => state.base.get(id) ?? state.createdById.get(id)
  const select = (status: PetStatus | undefined, limit: number | undefined) => selectPets(state, status, limit)

  return {
    list: (query = {}) => select(query.status, query.limit).map(copy),
    listJson({ status, limit }) {
      if (cache === undefined) return JSON.stringify(select(status, limit).map(copy))
      const key = `${status ?? ''}:${limit}`
      let text = cache.get(owner, key)
      if (text === undefined) {
        text = JSON.stringify(select(status, limit).map(copy))
        // Kept from the second ask on: a list asked once would only pass through (list-cache.ts).
        if (cache.askedBefore(owner, key)) cache.set(owner, key, text)
      }
      return text
    },
    get(id) {
      const found = stored(id)
      return found === undefined ? undefined : copy(found)
    },
    getJson(id) {
      const found = stored(id)
      if (found === undefined) return undefined
      let text = petJson.get(found)
      if (text === undefined) {
        // copy() fixes the fields' order, whatever order the stored object was made in.
        text = JSON.stringify(copy(found))
        petJson.set(found, text)
      }
      return text
    },
    page: (offset, limit, status) => pageOf(state, offset, limit, status),
    createdCount: () => state.created.length,
    insert(newPet) {
      const id = state.nextId
      checkRoom(state, maxCreatedPets, pool)
      state.nextId = id + 1
      pool.used++
      changes.count++
      cache?.drop(owner)
      const pet: Pet = { id, ...newPet }
      changes.inserted?.(pet, changes.count)
      state.created.push(pet)
      state.createdById.set(id, pet)
      if (pet.status !== undefined) state.createdByStatus.get(pet.status)?.push(pet)
      return copy(pet)
    },
    count: () => state.base.all.length + state.created.length,
    reset() {
      replace(fresh(seed))
    },
    snapshot: () => ({ pets: [...state.base.all, ...state.created].map(copy), nextId: state.nextId }),
    view: () => ({ pets: [...state.base.all, ...state.created], nextId: state.nextId }),
    restore(next) {
      const restored = Math.max(0, next.pets.length - seed.all.length)
      checkBudgets({ held: state.created.length + state.restored, after: restored, by: 'state' }, maxCreatedPets, pool)
      replace(fresh(indexPets(next.pets), next.nextId, restored))
    },
    reseed(next) {
      seed = next
      replace(fresh(seed))
    },
  }
}

/** The stored pets of a list, in id order: callers copy them or serialise them at once. */
function selectPets(state: State, status: PetStatus | undefined, limit: number | undefined): readonly Pet[] {
  const seeded = status === undefined ? state.base.all : (state.base.byStatus.get(status) ?? [])
  const created = status === undefined ? state.created : (state.createdByStatus.get(status) ?? [])
  const first = seeded.slice(0, limit ?? seeded.length + created.length)
  return first.length === limit || created.length === 0
    ? first
    : [...first, ...created.slice(0, (limit ?? Infinity) - first.length)]
}

/** One page of the whole store in id order, each pet marked when it was created since the last reset. */
function pageOf(
  state: State,
  offset: number,
  limit: number,
  status: PetStatus | undefined,
): { total: number; pets: (Pet & { created: boolean })[] } {
  const seeded = status === undefined ? state.base.all : (state.base.byStatus.get(status) ?? [])
  const created = status === undefined ? state.created : (state.createdByStatus.get(status) ?? [])
  const pets = [
    ...seeded.slice(offset, offset + limit).map((pet) => ({ ...copy(pet), created: false })),
    ...created
      .slice(Math.max(0, offset - seeded.length), Math.max(0, offset + limit - seeded.length))
      .map((pet) => ({ ...copy(pet), created: true })),
  ]
  return { total: seeded.length + created.length, pets }
}

/** Room for one more created pet: an id left, and the budgets (507 otherwise). */
function checkRoom(state: State, maxCreatedPets: number, pool: { readonly used: number; readonly max: number }): void {
  if (state.nextId > Number.MAX_SAFE_INTEGER) {
    throw new ApiError(
      'insufficient_storage',
      `No id is left: ids go up to ${Number.MAX_SAFE_INTEGER}, and the highest is taken. Reset, or import a state with lower ids.`,
    )
  }
  const held = state.created.length + state.restored
  checkBudgets({ held, after: held + 1, by: 'create' }, maxCreatedPets, pool)
}

/**
 * The two budgets of the pets a key's data holds beyond the seed, one comparison each: created,
 * imported or recorded, one rule, so a state the sandbox saved is always one it takes back.
 * `held`: what the key's data holds beyond the seed now; `after`: what it would hold once a create
 * or a state (an import, a rewind, a recording) lands. 507 naming the budget, and what to do.
 */
function checkBudgets(
  change: { readonly held: number; readonly after: number; readonly by: 'create' | 'state' },
  maxCreatedPets: number,
  pool: { readonly used: number; readonly max: number },
): void {
  const { held, after, by } = change
  if (after > maxCreatedPets) {
    throw new ApiError(
      'insufficient_storage',
      by === 'create'
        ? `This key's data already holds ${maxCreatedPets} pets beyond the seed (created, imported or recorded since its last reset), the most the sandbox keeps. Reset to create more.`
        : `This state holds ${after} pets beyond the seed, more than one key's data keeps (the createdPetsPerTenant limit, ${maxCreatedPets}); start with a higher --limit createdPetsPerTenant`,
    )
  } // What the pool leaves this key: every key's pets but its own count against it.
  const room = pool.max - (pool.used - held)
  if (after > room) {
    throw new ApiError(
      'insufficient_storage',
      by === 'create'
        ? `The sandbox already holds ${pool.max} pets created since their resets, in all keys together (the createdPets limit). Reset to create more.`
        : `This state holds ${after} pets beyond the seed, and the sandbox has room for ${Math.max(0, room)} more (the createdPets limit, in all keys together); reset some data, or start with a higher --limit createdPets`,
    )
  }
}

/**
 * The async face of a tenant's store that tests and scripts hold. It waits for the seed (a
 * generated seed loads faker first) and validates what it is given as a request body would be.
 */
export function asyncStore(store: () => Promise<TenantStore>): PetStore {
  return {
    list: async (query) => (await store()).list(query),
    get: async (id) => (await store()).get(id),
    async create(newPet) {
      // Typed as NewPet for callers, but checked as unknown: it may come from anywhere.
      const checked = checkNewPet(newPet)
      if (!checked.ok) throw new PetValidationError(checked.problems)
      return (await store()).insert(checked.value)
    },
    count: async () => (await store()).count(),
    reset: async () => {
      ;(await store()).reset()
    },
    snapshot: async () => (await store()).snapshot(),
    restore: async (state) => {
      ;(await store()).restore(state)
    },
  }
}

// Callers get plain objects they may mutate freely; the stored ones are shared.
/** A stored pet's JSON, its fields in the contract's order. */
export function petText(pet: Pet): string {
  return JSON.stringify(copy(pet))
}

function copy(pet: Pet): Pet {
  return {
    id: pet.id,
    name: pet.name,
    categoryId: pet.categoryId,
    ...(pet.status !== undefined && { status: pet.status }),
  }
}
