// Child process of bench/run.mjs: microseconds per sequential fetch through msw's setupServer,
// for the sandbox's handlers (default options, request journal on) and for a trivial msw
// handler returning the same JSON (msw's own floor), interleaved in rounds after an uncounted one.
// Usage: node bench/in-process.mjs ROUNDS REQUESTS_PER_ROUND. Prints one JSON line.
import { readFileSync } from 'node:fs'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { createSandbox } from '../dist/src/index.js'

const rounds = Number(process.argv[2] ?? 5)
const perRound = Number(process.argv[3] ?? 2000)
const WARM_UP = 200
const PETS_URL = 'https://petstore.test/v1/pets'
const headers = { Authorization: 'Bearer petstore-sandbox-key' }
const pets = JSON.parse(readFileSync(new URL('../fixtures/pets.json', import.meta.url), 'utf8'))
const first20 = pets.slice(0, 20)

const sandbox = createSandbox()
const floor = [http.get(PETS_URL, () => HttpResponse.json(first20))]

async function fetchOk() {
  const response = await fetch(PETS_URL, { headers })
  await response.text()
  if (!response.ok) throw new Error(`GET ${PETS_URL} answered ${response.status}`)
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

const contenders = { floor, sandbox: sandbox.handlers }
// Round 0 is not counted: it carries the JIT's first compilations of msw and fetch.
const results = { floor: [], sandbox: [] }
for (let round = 0; round <= rounds; round++) {
  // Who goes first alternates, so neither always runs on the other's garbage.
  const order = round % 2 === 0 ? ['floor', 'sandbox'] : ['sandbox', 'floor']
  for (const name of order) {
    const micros = await microsPerRequest(contenders[name])
    if (round > 0) results[name].push(micros)
  }
}
console.log(JSON.stringify(results))
