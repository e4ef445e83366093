// Runs inside a throwaway project that installed the packed tarball: it imports the
// package by its own name, exactly as a user's test suite would.
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { createSandbox, DEFAULT_API_KEY, type Pet } from 'petstore-sandbox'
import { startServer } from 'petstore-sandbox/server'
// Written by scripts/consumer/node.sh for the installed msw: msw 3 renamed onUnhandledRequest.
import { listenOptions } from './listen-options.js'

const sandbox = createSandbox()
const server = setupServer(...sandbox.handlers)
const auth = { Authorization: `Bearer ${DEFAULT_API_KEY}` }

beforeAll(() => {
  server.listen(listenOptions)
})
beforeEach(() => sandbox.reset())
afterAll(() => {
  server.close()
})

it('lists the seeded pets through setupServer', async () => {
  const response = await fetch('https://petstore.example/v1/pets', { headers: auth })
  expect(response.status).toBe(200)
  expect(((await response.json()) as Pet[]).map((pet) => pet.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
})

it('creates a pet, and reset takes it away again', async () => {
  const response = await fetch('https://petstore.example/v1/pets', {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Consumer', categoryId: 2 }),
  })
  expect(response.status).toBe(201)
  expect(await sandbox.pets.count()).toBe(33)
  await sandbox.reset()
  expect(await sandbox.pets.count()).toBe(32)
})

it('starts the HTTP server from the server entry', async () => {
  server.close() // let this request reach the real network stack
  const running = await startServer({ port: 0 })
  try {
    const response = await fetch(`${running.apiUrl}/pets/1`, { headers: auth })
    expect(response.status).toBe(200)
    expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT')
  } finally {
    await running.close()
    // Listening again keeps afterAll's close() valid: msw 3 refuses to close twice.
    server.listen(listenOptions)
  }
})
