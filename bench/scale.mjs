// Child process of bench/run.mjs: one sandbox seeded with N generated pets; p50 of getPet
// and of listPets?status=sold&limit=20 through the handlers (getResponse), the time of
// reset(), and the RSS. Prints one JSON line.
import { getResponse } from 'msw'
import { createSandbox } from '../dist/src/index.js'

// "bundled" measures the bundled 32-pet seed; a number, that many generated pets.
const bundled = process.argv[2] === 'bundled'
const samples = Number(process.argv[3] ?? 2000)
const headers = { Authorization: 'Bearer petstore-sandbox-key' }
const sandbox = bundled
  ? createSandbox({ journalLimit: 0 })
  : createSandbox({ generate: Number(process.argv[2]), randomSeed: 1, journalLimit: 0 })
const count = bundled ? 32 : Number(process.argv[2])
const startedSeeding = performance.now()
await sandbox.pets.count()
const seedMs = performance.now() - startedSeeding
const handlers = [...sandbox.handlers]

async function p50(makeUrl) {
  const times = []
  for (let i = 0; i < samples; i++) {
    const url = makeUrl(i)
    const started = performance.now()
    const response = await getResponse(handlers, new Request(url, { headers }))
    await response.text()
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)] * 1000
}

// Ids spread over the whole collection, so an index cannot hide behind early matches.
const getPet = await p50((i) => `https://petstore.test/v1/pets/${1 + ((i * 7919) % count)}`)
const listSold = await p50(() => 'https://petstore.test/v1/pets?status=sold&limit=20')
const resets = []
for (let i = 0; i < 200; i++) {
  await sandbox.pets.create({ name: 'Extra', categoryId: 1 })
  const started = performance.now()
  await sandbox.reset()
  resets.push(performance.now() - started)
}
resets.sort((a, b) => a - b)
globalThis.gc?.()
console.log(
  JSON.stringify({
    count,
    seedMs,
    getPetMicros: getPet,
    listSoldMicros: listSold,
    resetMs: resets[Math.floor(resets.length / 2)],
    rssMB: process.memoryUsage().rss / 1e6,
  }),
)
