// pets.test.ts (vitest)
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { createSandbox, DEFAULT_API_KEY } from 'petstore-sandbox'

const sandbox = createSandbox()
const server = setupServer(...sandbox.handlers)

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
beforeEach(() => sandbox.reset()) // fresh seed and id sequence for every test
afterAll(() => server.close())

it('creates a pet', async () => {
  const response = await fetch('https://api.example.com/v1/pets', {
    method: 'POST',
    headers: { Authorization: `Bearer ${DEFAULT_API_KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
  })
  expect(response.status).toBe(201)
  expect(await sandbox.pets.get(33)).toEqual({ id: 33, name: 'Rex', categoryId: 1 })
})
