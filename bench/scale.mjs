// Child process of bench/run.mjs: one sandbox seeded with COUNT generated pets. Measures the
// seeding time, the p50 of getPet and of listPets?status=sold&limit=20 through the handlers
// (msw's getResponse, no network), the median time of reset(), and the RSS.
// Usage: node --expose-gc bench/scale.mjs COUNT SAMPLES. Prints one JSON line.
import { getResponse } from 'msw'
import { createSandbox } from '../dist/src/index.js'

const count = Number(process.argv[2])
const samples = Number(process.argv[3] ?? 2000)
const RESETS = 200
const headers = { Authorization: 'Bearer petstore-sandbox-key' }
const median = (values) => Float64Array.from(values).sort()[Math.floor(values.length / 2)]

// Seeding may happen in createSandbox or on first use; the clock covers both.
const startedSeeding = performance.now()
const sandbox = createSandbox({ generate: count, randomSeed: 1, journalLimit: 0 })
await sandbox.pets.count()
const seedMs = performance.now() - startedSeeding
const handlers = [...sandbox.handlers]

async function p50Micros(makeUrl) {
  const times = []
  for (let i = 0; i < samples; i++) {
    const url = makeUrl(i)
    const started = performance.now()
    const response = await getResponse(handlers, new Request(url, { headers }))
    await response?.text()
    times.push((performance.now() - started) * 1000)
    if (response?.status !== 200) throw new Error(`GET ${url} answered ${response?.status ?? 'nothing'}`)
  }
  return median(times)
}

// Ids spread over the whole collection (7919 is prime), so an index cannot hide behind early matches.
const getPetMicros = await p50Micros((i) => `https://petstore.test/v1/pets/${1 + ((i * 7919) % count)}`)
const listSoldMicros = await p50Micros(() => 'https://petstore.test/v1/pets?status=sold&limit=20')

const resets = []
for (let i = 0; i < RESETS; i++) {
  // A change to undo, so reset() has work to do.
  await sandbox.pets.create({ name: 'Extra', categoryId: 1 })
  const started = performance.now()
  await sandbox.reset()
  resets.push(performance.now() - started)
}

globalThis.gc?.()
console.log(
  JSON.stringify({
    count,
    seedMs,
    getPetMicros,
    listSoldMicros,
    resetMs: median(resets),
    rssMB: process.memoryUsage().rss / 1e6,
  }),
)
