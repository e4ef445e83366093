// A state import's body of a given size, shared by the benches that send large imports
// (bench/chaos-load.mjs now; bench/budgets.mjs and bench/json-reader/ measured with it before
// they were archived, see docs/performance.md).

const STATUSES = [undefined, 'available', 'pending', 'sold']

/**
 * A valid state just under `maxBytes`: as many small pets as fit (the most work per byte), ids
 * from 1, then `marker` (a pet to read back afterwards; its id must be past theirs) when given.
 */
export function stateBody(maxBytes = 8 * 1024 * 1024, { marker } = {}) {
  const head = '{"pets":['
  const last = marker === undefined ? [] : [JSON.stringify(marker)]
  const reserve = `],"nextId":${Number.MAX_SAFE_INTEGER}}`.length + last.reduce((sum, pet) => sum + pet.length + 1, 0)
  const pets = []
  let size = head.length
  for (let id = 1; ; id++) {
    const status = STATUSES[id % STATUSES.length]
    const pet = JSON.stringify({ id, name: `Pet ${id}`, categoryId: 1 + (id % 7), ...(status && { status }) })
    if (size + pet.length + 1 + reserve > maxBytes - 1) break
    pets.push(pet)
    size += pet.length + 1
  }
  if (marker !== undefined && marker.id <= pets.length) {
    throw new RangeError(`the marker's id ${marker.id} is not past the ${pets.length} pets before it`)
  }
  const nextId = (marker?.id ?? pets.length) + 1
  return { body: `${head}${[...pets, ...last].join(',')}],"nextId":${nextId}}`, pets: pets.length + last.length }
}
