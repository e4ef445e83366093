import type { Pet } from 'petstore-sandbox/client'
import { expect, test } from 'petstore-sandbox/playwright'

const SEED = 32

test('starts from the seed', async ({ request }) => {
  const response = await request.get('/v1/pets?limit=100')
  expect(response.status()).toBe(200)
  expect(await response.json()).toHaveLength(SEED)
})

for (const count of [1, 2, 3, 4, 5, 6]) {
  test(`sees its own ${count} new pets and no one else's`, async ({ request, sandbox, apiKey }) => {
    for (let i = 1; i <= count; i++) {
      const created = await request.post('/v1/pets', { data: { name: `${apiKey} pet ${i}`, categoryId: 1 } })
      expect(created.status()).toBe(201)
    }
    // Hold the next list for a moment, so other workers reset and create in between.
    await sandbox.scenarios.add({ operation: 'listPets', delayMs: 300, times: 1 })
    const pets = (await (await request.get('/v1/pets?limit=100')).json()) as Pet[]
    expect(pets).toHaveLength(SEED + count)
    expect(pets.slice(SEED).map((pet) => pet.name)).toEqual(
      Array.from({ length: count }, (_, i) => `${apiKey} pet ${i + 1}`),
    )
    expect(await sandbox.requests({ operation: 'createPet', status: 201 })).toHaveLength(count)
  })
}

test('a scenario fails only this worker’s calls', async ({ request, sandbox, apiKey }) => {
  await sandbox.scenarios.add({ operation: 'listPets', status: 503, times: 1 })
  const elsewhere = await request.get('/v1/pets', { headers: { Authorization: `Bearer ${apiKey}-other` } })
  expect(elsewhere.status()).toBe(200)
  const failed = await request.get('/v1/pets')
  expect(failed.status()).toBe(503)
  expect(failed.headers()['retry-after']).toBe('1')
  expect((await request.get('/v1/pets')).status()).toBe(200)
})

test('the page sees the same data as the API', async ({ page, request, apiKey }) => {
  await request.post('/v1/pets', { data: { name: `${apiKey} in the browser`, categoryId: 2 } })
  // A small page of the sandbox's own origin, so the page's fetch below goes there (the reference
  // page at / would do too, but it runs Swagger UI first, seconds of a loaded machine's time).
  await page.goto('/__sandbox/health')
  const names = await page.evaluate(async () => {
    const response = await fetch('/v1/pets?limit=100')
    return ((await response.json()) as { name: string }[]).map((pet) => pet.name)
  })
  expect(names).toHaveLength(SEED + 1)
  expect(names.at(-1)).toBe(`${apiKey} in the browser`)
})
