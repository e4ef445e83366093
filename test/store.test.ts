import { describe, expect, it } from 'vitest'
import type { Pet } from '../src/core/api/contract.js'
import { indexPets } from '../src/core/api/pet-index.js'
import { asyncStore, createTenantStore, PetValidationError } from '../src/core/api/store.js'

const createPetStore = (pets: readonly Pet[]) => {
  const store = createTenantStore(indexPets(pets))
  return asyncStore(async () => store)
}

// Inserted out of id order on purpose: ordering must come from the ids, not insertion.
const seed = [
  { id: 10, name: 'Ten', categoryId: 1, status: 'sold' as const },
  { id: 3, name: 'Three', categoryId: 2 },
  { id: 7, name: 'Seven', categoryId: 1, status: 'sold' as const },
  { id: 5, name: 'Five', categoryId: 3, status: 'available' as const },
]

describe('the pet store', () => {
  it("answers a pet's JSON in the API's field order, made again when the pet is another", () => {
    const petJson = new WeakMap<Pet, string>()
    const budgets = { cache: undefined, created: { used: 0, max: 100 }, petJson }
    const index = indexPets([{ status: 'sold' as const, categoryId: 4, name: 'Out of order', id: 2 }, ...seed])
    const one = createTenantStore(index, 100, budgets)
    const other = createTenantStore(index, 100, budgets)
    expect(one.getJson(2)).toBe('{"id":2,"name":"Out of order","categoryId":4,"status":"sold"}')
    expect(one.getJson(3)).toBe(JSON.stringify(one.get(3)))
    expect(one.getJson(4)).toBeUndefined()
    // Tenants share the seeded pets' text; a created pet has its own.
    expect(other.getJson(2)).toBe(one.getJson(2))
    const created = one.insert({ name: 'New', categoryId: 1 })
    expect(one.getJson(created.id)).toBe(`{"id":${created.id},"name":"New","categoryId":1}`)
    expect(other.getJson(created.id)).toBeUndefined()
    // A restored pet with a seeded id is another object: its text is made again.
    one.restore({ pets: [{ id: 2, name: 'Renamed', categoryId: 4 }], nextId: 3 })
    expect(one.getJson(2)).toBe('{"id":2,"name":"Renamed","categoryId":4}')
    expect(other.getJson(2)).toBe('{"id":2,"name":"Out of order","categoryId":4,"status":"sold"}')
  })

  it('lists by id ascending whatever the insertion order, with limit applied after sorting', async () => {
    const store = createPetStore(seed)
    expect((await store.list()).map((pet) => pet.id)).toEqual([3, 5, 7, 10])
    expect((await store.list({ limit: 2 })).map((pet) => pet.id)).toEqual([3, 5])
    expect((await store.list({ status: 'sold', limit: 1 })).map((pet) => pet.id)).toEqual([7])
  })

  it('assigns ids from one past the highest seeded id, never reusing gaps', async () => {
    const store = createPetStore(seed)
    expect((await store.create({ name: 'A', categoryId: 1 })).id).toBe(11)
    expect((await store.create({ name: 'B', categoryId: 1 })).id).toBe(12)
  })

  it('starts at id 1 with an empty seed', async () => {
    const store = createPetStore([])
    expect(await store.list()).toEqual([])
    expect((await store.create({ name: 'First', categoryId: 1 })).id).toBe(1)
  })

  it('reset restores the seed and the id sequence exactly', async () => {
    const store = createPetStore(seed)
    const before = JSON.stringify(await store.list())
    await store.create({ name: 'A', categoryId: 1 })
    await store.reset()
    expect(JSON.stringify(await store.list())).toBe(before)
    expect((await store.create({ name: 'B', categoryId: 1 })).id).toBe(11)
  })

  it('drops a create still in flight when a reset happens', async () => {
    const store = createPetStore(seed)
    const pending = store.create({ name: 'In flight', categoryId: 1 })
    const reset = store.reset()
    await Promise.all([pending, reset])
    expect(await store.count()).toBe(seed.length)
    expect((await store.create({ name: 'After', categoryId: 1 })).id).toBe(11)
  })

  it('hands out copies: changing a returned pet does not change the store', async () => {
    const store = createPetStore(seed)
    const pet = await store.get(3)
    if (pet === undefined) throw new Error('pet 3 missing')
    pet.name = 'Mutated'
    expect((await store.get(3))?.name).toBe('Three')
  })

  it('validates what create is given and stores nothing when it is wrong', async () => {
    const store = createPetStore(seed)
    await expect(store.create({ name: '', categoryId: 1.5 })).rejects.toThrow(
      new PetValidationError(['name must not be empty', 'categoryId must be an integer, got 1.5']),
    )
    expect(await store.count()).toBe(seed.length)
    expect((await store.create({ name: 'Valid', categoryId: 1 })).id).toBe(11)
  })

  it('finds every id by binary search, including the first, the last and gaps', async () => {
    const store = createPetStore(seed)
    for (const id of [3, 5, 7, 10]) expect((await store.get(id))?.id).toBe(id)
    for (const id of [0, 1, 4, 6, 8, 11, -1]) expect(await store.get(id)).toBeUndefined()
  })

  it('lists seeded and created pets of a status in one id order, cut at the limit', async () => {
    const store = createPetStore(seed)
    await store.create({ name: 'Sold later', categoryId: 1, status: 'sold' })
    expect((await store.list({ status: 'sold' })).map((pet) => pet.id)).toEqual([7, 10, 11])
    expect((await store.list({ status: 'sold', limit: 2 })).map((pet) => pet.id)).toEqual([7, 10])
    expect((await store.list({ status: 'pending' })).map((pet) => pet.id)).toEqual([])
    expect(await store.count()).toBe(5)
  })

  it('restore() replaces seed and writes, and reset() afterwards goes back to the seed', async () => {
    const store = createPetStore(seed)
    await store.restore({ pets: [{ id: 2, name: 'Two', categoryId: 1 }], nextId: 9 })
    expect(await store.list()).toEqual([{ id: 2, name: 'Two', categoryId: 1 }])
    expect((await store.create({ name: 'Nine', categoryId: 1 })).id).toBe(9)
    expect((await store.snapshot()).pets.map((pet) => pet.id)).toEqual([2, 9])
    await store.reset()
    expect((await store.list()).map((pet) => pet.id)).toEqual([3, 5, 7, 10])
  })

  it('keeps two stores apart', async () => {
    const one = createPetStore(seed)
    const two = createPetStore(seed)
    await one.create({ name: 'Only in one', categoryId: 1 })
    expect(await one.count()).toBe(5)
    expect(await two.count()).toBe(4)
    expect(await two.get(11)).toBeUndefined()
  })
})
