// per-test.test.ts (vitest): a sandbox of its own for each test, beside the suite's other handlers
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { createSandbox, DEFAULT_API_KEY, type Sandbox } from 'petstore-sandbox'

// The suite's own handlers (another API): they stay for every test.
const server = setupServer(http.get('https://other.example.com/status', () => HttpResponse.json({ ok: true })))

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => server.resetHandlers()) // drops the test's sandbox, keeps the suite's handlers
afterAll(() => server.close())

/** A sandbox for the running test alone: its handlers come first until resetHandlers(). */
function useSandbox(): Sandbox {
  const sandbox = createSandbox()
  server.use(...sandbox.handlers)
  return sandbox
}

const headers = { Authorization: `Bearer ${DEFAULT_API_KEY}`, 'Content-Type': 'application/json' }

it('creates a pet in its own sandbox', async () => {
  const sandbox = useSandbox()
  const body = JSON.stringify({ name: 'Rex', categoryId: 1 })
  const response = await fetch('https://api.example.com/v1/pets', { method: 'POST', headers, body })
  expect(response.status).toBe(201)
  expect(await sandbox.pets.count()).toBe(33)
})

it('starts from the seed in the next test, and the other API still answers', async () => {
  const sandbox = useSandbox()
  const response = await fetch('https://api.example.com/v1/pets?limit=100', { headers })
  expect(((await response.json()) as unknown[]).length).toBe(32)
  expect(await sandbox.pets.count()).toBe(32)
  expect((await fetch('https://other.example.com/status')).status).toBe(200)
})
