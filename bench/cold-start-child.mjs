// Child process of bench/run.mjs: a test file's cold start. Imports msw/node and either the
// sandbox (dist/src/index.js, `createSandbox()` with its defaults) or a trivial msw handler
// returning 20 pets, starts setupServer, fetches the pet list once and prints the milliseconds
// from this process's start (performance.now() counts from performance.timeOrigin) to the first
// answer's body read. Dynamic imports, so the msw variant never loads the sandbox.
// Usage: node bench/cold-start-child.mjs sandbox|msw. Prints one JSON line: the milliseconds.
import { readFileSync } from 'node:fs'

const PETS_URL = 'https://petstore.test/v1/pets'
const headers = { Authorization: 'Bearer petstore-sandbox-key' }
const variant = process.argv[2]

async function sandboxHandlers() {
  const { createSandbox } = await import('../dist/src/index.js')
  return createSandbox().handlers
}

async function trivialHandlers() {
  const { http, HttpResponse } = await import('msw')
  const pets = JSON.parse(readFileSync(new URL('../fixtures/pets.json', import.meta.url), 'utf8'))
  const first20 = pets.slice(0, 20)
  return [http.get(PETS_URL, () => HttpResponse.json(first20))]
}

const variants = { sandbox: sandboxHandlers, msw: trivialHandlers }
if (!(variant in variants)) throw new Error(`usage: node bench/cold-start-child.mjs ${Object.keys(variants).join('|')}`)

const { setupServer } = await import('msw/node')
const server = setupServer(...(await variants[variant]()))
server.listen({ onUnhandledRequest: 'error' })
const response = await fetch(PETS_URL, { headers })
await response.text()
const ms = performance.now()
if (!response.ok) throw new Error(`GET ${PETS_URL} answered ${response.status}`)
server.close()
console.log(JSON.stringify(ms))
