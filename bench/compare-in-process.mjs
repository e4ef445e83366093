// Child process of bench/compare.mjs: microseconds per sequential in-process listPets through
// msw's setupServer, for the sandbox of the tree this file sits in (its dist/ and its msw) and for
// a trivial msw handler returning the same JSON, alternating which goes first (each batch pays for
// the garbage of the one before it), after an uncounted round. Copied into each built tree, so a
// tree's handlers always run under the msw they were built with.
// Usage: node bench/compare-in-process.mjs ROUNDS REQUESTS_PER_ROUND. Prints one JSON line:
// { sandbox, floor } in µs per request, medians over the rounds.
import { readFileSync } from 'node:fs'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { createSandbox } from '../dist/src/index.js'

const rounds = Number(process.argv[2] ?? 3)
const perRound = Number(process.argv[3] ?? 2000)
const WARM_UP = 200
const PETS_URL = 'https://petstore.test/v1/pets'
const headers = { Authorization: 'Bearer petstore-sandbox-key' }
const pets = JSON.parse(readFileSync(new URL('../fixtures/pets.json', import.meta.url), 'utf8'))
const contenders = {
  sandbox: createSandbox().handlers,
  floor: [http.get(PETS_URL, () => HttpResponse.json(pets.slice(0, 20)))],
}

async function fetchOk() {
  const response = await fetch(PETS_URL, { headers })
  const text = await response.text()
  if (!response.ok) throw new Error(`GET ${PETS_URL} answered ${response.status}: ${text}`)
}

async function microsPerRequest(handlers) {
  const server = setupServer(...handlers)
  server.listen({ onUnhandledRequest: 'error' })
  for (let i = 0; i < WARM_UP; i++) await fetchOk()
  const started = performance.now()
  for (let i = 0; i < perRound; i++) await fetchOk()
  const micros = ((performance.now() - started) * 1000) / perRound
  server.close()
  return micros
}

const results = { sandbox: [], floor: [] }
for (let round = 0; round <= rounds; round++) {
  const order = round % 2 === 0 ? ['sandbox', 'floor'] : ['floor', 'sandbox']
  for (const name of order) {
    const micros = await microsPerRequest(contenders[name])
    if (round > 0) results[name].push(micros)
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
console.log(JSON.stringify({ sandbox: median(results.sandbox), floor: median(results.floor) }))
