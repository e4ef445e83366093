// Child process of bench/run.mjs: microseconds per request through setupServer, for the
// sandbox's handlers and for a trivial msw handler returning the same JSON (msw's floor),
// interleaved in rounds. Prints one JSON line.
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { createSandbox } from '../dist/src/index.js'

const rounds = Number(process.argv[2] ?? 5)
const perRound = Number(process.argv[3] ?? 2000)
const headers = { Authorization: 'Bearer petstore-sandbox-key' }
const sandbox = createSandbox({ journalLimit: 0 })
const seedList = await sandbox.pets.list({ limit: 20 })
const floor = [http.get('https://petstore.test/v1/pets', () => HttpResponse.json(seedList))]

async function measure(handlers, url) {
  const server = setupServer(...handlers)
  server.listen({ onUnhandledRequest: 'error' })
  for (let i = 0; i < 200; i++) await (await fetch(url, { headers })).text() // warm-up
  const started = performance.now()
  for (let i = 0; i < perRound; i++) await (await fetch(url, { headers })).text()
  const micros = ((performance.now() - started) * 1000) / perRound
  server.close()
  return micros
}

const results = { sandbox: [], floor: [] }
for (let round = 0; round < rounds; round++) {
  results.floor.push(await measure(floor, 'https://petstore.test/v1/pets'))
  results.sandbox.push(await measure(sandbox.handlers, 'https://petstore.test/v1/pets'))
}
console.log(JSON.stringify(results))
