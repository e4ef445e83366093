// The largest state import's body, shared by bench/budgets.mjs and bench/json-reader.

const STATUSES = [undefined, 'available', 'pending', 'sold']

/** A valid state just under `maxBytes`: as many small pets as fit (the most work per byte). */
export function stateBody(maxBytes = 8 * 1024 * 1024) {
  const head = '{"pets":['
  const reserve = `],"nextId":${Number.MAX_SAFE_INTEGER}}`.length
  const pets = []
  let size = head.length
  for (let id = 1; ; id++) {
    const status = STATUSES[id % STATUSES.length]
    const pet = JSON.stringify({ id, name: `Pet ${id}`, categoryId: 1 + (id % 7), ...(status && { status }) })
    if (size + pet.length + 1 + reserve > maxBytes - 1) break
    pets.push(pet)
    size += pet.length + 1
  }
  return { body: `${head}${pets.join(',')}],"nextId":${pets.length + 1}}`, pets: pets.length }
}
