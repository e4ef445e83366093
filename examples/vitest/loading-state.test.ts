// loading-state.test.ts (vitest): a loading state, asserted while the list is held, with no timer
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { createSandbox, DEFAULT_API_KEY } from 'petstore-sandbox'

const sandbox = createSandbox()
const server = setupServer(...sandbox.handlers)

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => sandbox.reset()) // also lets go of any call a failed test left held
afterAll(() => server.close())

/** What a page keeps while it loads the pets: the code under test, in a real app a component. */
function petList() {
  const view = { loading: false, names: [] as string[], error: '' }
  async function load() {
    view.loading = true
    const response = await fetch('https://api.example.com/v1/pets?limit=3', {
      headers: { Authorization: `Bearer ${DEFAULT_API_KEY}` },
    })
    const body = (await response.json()) as { name: string }[] | { message: string }
    view.loading = false
    if (Array.isArray(body)) view.names = body.map((pet) => pet.name)
    else view.error = body.message
  }
  return { view, load }
}

it('shows the loading state until the list arrives', async () => {
  const hold = sandbox.hold('listPets')
  const { view, load } = petList()
  const loading = load()
  await hold.reached() // the request waits in the sandbox now
  expect(view.loading).toBe(true)
  hold.release()
  await loading
  expect(view).toEqual({ loading: false, names: ['Biscuit', 'Luna', 'Captain Feathers'], error: '' })
})

it('shows the error state when the held list fails', async () => {
  const hold = sandbox.hold('listPets')
  const { view, load } = petList()
  const loading = load()
  await hold.reached()
  hold.release(503) // the held call answers a simulated 503 instead
  await loading
  expect(view.error).toBe('Simulated by the sandbox (a released hold)')
})
