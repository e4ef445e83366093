// Child process of bench/run.mjs: microseconds per sequential fetch through msw's setupServer,
// for the sandbox's handlers (default options, request journal on) and for a trivial msw
// handler returning the same JSON (msw's own floor), interleaved in rounds after an uncounted one.
// Each is measured twice: in a setupServer of its own, and in a shared one that also holds another
// API's handlers, one before and one after (how a test suite with several APIs uses the handlers:
// msw tries them in order, so the request passes the other API's first).
// Usage: node bench/in-process.mjs ROUNDS REQUESTS_PER_ROUND. Prints one JSON line.
import { readFileSync } from 'node:fs'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { createSandbox } from '../dist/src/index.js'

const rounds = Number(process.argv[2] ?? 5)
const perRound = Number(process.argv[3] ?? 2000)
const WARM_UP = 200
const PETS_URL = 'https://petstore.test/v1/pets'
const OTHER_URL = 'https://other.test/api/items'
const headers = { Authorization: 'Bearer petstore-sandbox-key' }
const pets = JSON.parse(readFileSync(new URL('../fixtures/pets.json', import.meta.url), 'utf8'))
const first20 = pets.slice(0, 20)

const sandbox = createSandbox()
const floor = [http.get(PETS_URL, () => HttpResponse.json(first20))]
// Another API of the same test suite: one handler before the pets' handlers, one after.
const otherBefore = http.get(OTHER_URL, () => HttpResponse.json([]))
const otherAfter = http.get(`${OTHER_URL}/:id`, ({ params }) => HttpResponse.json({ id: params.id }))
const shared = (handlers) => [otherBefore, ...handlers, otherAfter]

async function fetchOk(url = PETS_URL) {
  const response = await fetch(url, { headers })
  const text = await response.text()
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`)
  return text
}

/** The other API still answers beside the pets' handlers: the shared server is what it claims. */
async function checkOtherApi() {
  const list = await fetchOk(OTHER_URL)
  const item = await fetchOk(`${OTHER_URL}/7`)
  if (list !== '[]' || item !== '{"id":"7"}') throw new Error(`the other API answered ${list} and ${item}`)
}

async function microsPerRequest(handlers, isShared) {
  const server = setupServer(...handlers)
  server.listen({ onUnhandledRequest: 'error' })
  if (isShared) await checkOtherApi()
  for (let i = 0; i < WARM_UP; i++) await fetchOk()
  const started = performance.now()
  for (let i = 0; i < perRound; i++) await fetchOk()
  const micros = ((performance.now() - started) * 1000) / perRound
  server.close()
  return micros
}

const contenders = {
  floor,
  sandbox: sandbox.handlers,
  sharedFloor: shared(floor),
  sharedSandbox: shared(sandbox.handlers),
}
const names = Object.keys(contenders)
// Round 0 is not counted: it carries the JIT's first compilations of msw and fetch.
const results = Object.fromEntries(names.map((name) => [name, []]))
for (let round = 0; round <= rounds; round++) {
  // Who goes first rotates, and the order reverses every other round, so none always runs first
  // or always on the same one's garbage.
  const order = names.map((_, i) => names[(i + round) % names.length])
  if (round % 2 === 1) order.reverse()
  for (const name of order) {
    const micros = await microsPerRequest(contenders[name], name.startsWith('shared'))
    if (round > 0) results[name].push(micros)
  }
}
console.log(JSON.stringify(results))
