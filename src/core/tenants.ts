/**
 * Who owns which data. Shared mode: one store for every key. Isolated mode: each API key gets
 * its own copy of the seed on first use, so parallel test workers with their own keys never
 * see each other's pets. The number of tenants is capped; the least recently used goes first.
 *
 * May import: other core files, zod, lossless-json, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import type { Pet } from './contract.js'
import { indexPets, type PetIndex } from './pet-index.js'
import { createScenarioBook, type WritableScenarioBook } from './scenarios.js'
import { createTenantStore, type TenantStore } from './store.js'

export const DEFAULT_MAX_TENANTS = 1000

export interface Tenants {
  readonly isolated: boolean
  /** The store a request with this key works on, created on first use. */
  storeFor(key: string): TenantStore
  /** The store of a key that has one already, without creating or touching it. */
  existing(key: string): TenantStore | undefined
  /** A tenant's own scenarios (isolated mode only), created on first use. */
  scenariosFor(key: string): WritableScenarioBook | undefined
  /** A tenant's own scenarios if it has any, without creating them. */
  existingScenarios(key: string): WritableScenarioBook | undefined
  /** Resets one tenant, or every store when no key is given. */
  reset(key?: string): void
  /** Replaces the seed (fixtures reloaded) and resets every store to it. */
  reseed(seed: readonly Pet[]): void
  /** How many stores exist. */
  count(): number
  /** The index of the seed every new store starts from. */
  seed(): PetIndex
}

export function createTenants(options: {
  seed: readonly Pet[]
  isolated: boolean
  defaultKey: string
  maxTenants: number
}): Tenants {
  // One index per seed, shared by every tenant: a million seeded pets are held once.
  let seedIndex = indexPets(options.seed)
  const stores = new Map<string, TenantStore>()
  const scenarioBooks = new Map<string, WritableScenarioBook>()
  const storeFor = (key: string): TenantStore => {
    const id = options.isolated ? key : options.defaultKey
    let store = stores.get(id)
    if (store === undefined) {
      store = createTenantStore(seedIndex)
      if (stores.size >= options.maxTenants) {
        const oldest = [...stores.keys()].find((candidate) => candidate !== options.defaultKey)
        if (oldest !== undefined) {
          stores.delete(oldest)
          scenarioBooks.delete(oldest)
        }
      }
    } else if (!options.isolated) {
      return store
    } else {
      // Map order is insertion order: re-inserting marks this tenant as the most recent.
      stores.delete(id)
    }
    stores.set(id, store)
    return store
  }
  storeFor(options.defaultKey)

  return {
    isolated: options.isolated,
    storeFor,
    existing: (key) => stores.get(options.isolated ? key : options.defaultKey),
    scenariosFor(key) {
      if (!options.isolated || !stores.has(key)) return undefined
      let book = scenarioBooks.get(key)
      if (book === undefined) {
        book = createScenarioBook()
        scenarioBooks.set(key, book)
      }
      return book
    },
    existingScenarios: (key) => (options.isolated ? scenarioBooks.get(key) : undefined),
    reset(key) {
      if (key !== undefined && options.isolated) {
        scenarioBooks.get(key)?.clear()
        stores.get(key)?.reset()
        return
      }
      for (const book of scenarioBooks.values()) book.clear()
      for (const store of stores.values()) store.reset()
    },
    reseed(next) {
      seedIndex = indexPets(next)
      for (const store of stores.values()) store.reseed(seedIndex)
    },
    count: () => stores.size,
    seed: () => seedIndex,
  }
}
