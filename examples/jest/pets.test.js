// pets.test.js (jest in ESM mode: "type": "module", "transform": {}, --experimental-vm-modules)
import { afterAll, beforeAll, beforeEach, expect, it } from '@jest/globals'
import { setupServer } from 'msw/node'
import { createSandbox, DEFAULT_API_KEY } from 'petstore-sandbox'

const sandbox = createSandbox()
const server = setupServer(...sandbox.handlers)

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
beforeEach(() => sandbox.reset())
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
