/**
 * An immutable index over a set of pets: sorted by id, with one id-sorted list per status.
 * Built once per seed and shared by every reset and every tenant, so reads never scan and a
 * reset never copies the seed. Measured on @msw/data 1.1.7 alone: 100k records took 1 s to
 * create, 98 MB, and 35 ms per lookup by id (every query is a scan).
 *
 * May import: core/api, core/http, core/limits.ts, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import { PET_STATUSES, type Pet, type PetStatus } from './contract.js'

export interface PetIndex {
  /** Every pet, by id ascending. Never mutate: the index is shared. */
  readonly all: readonly Pet[]
  /** The pets of each status, by id ascending. */
  readonly byStatus: ReadonlyMap<PetStatus, readonly Pet[]>
  /** The highest id, 0 when empty. */
  readonly highestId: number
  get(id: number): Pet | undefined
}

export function indexPets(pets: readonly Pet[]): PetIndex {
  let sorted = true
  for (let i = 1; i < pets.length && sorted; i++) sorted = (pets[i - 1]?.id ?? 0) < (pets[i]?.id ?? 0)
  const all = sorted ? pets : [...pets].sort((a, b) => a.id - b.id)
  const byStatus = new Map<PetStatus, Pet[]>(PET_STATUSES.map((status) => [status, []]))
  for (const pet of all) if (pet.status !== undefined) byStatus.get(pet.status)?.push(pet)
  return {
    all,
    byStatus,
    highestId: all.at(-1)?.id ?? 0,
    get(id) {
      // Binary search: O(log n) without a Map's memory at a million pets.
      let low = 0
      let high = all.length - 1
      while (low <= high) {
        const middle = (low + high) >>> 1
        const pet = all[middle]
        if (pet === undefined) return undefined
        if (pet.id === id) return pet
        if (pet.id < id) low = middle + 1
        else high = middle - 1
      }
      return undefined
    },
  }
}
