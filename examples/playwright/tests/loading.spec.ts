// loading.spec.ts: the worker's own data, a held list, and a page that waits for it
import { expect, test } from 'petstore-sandbox/playwright'

test('a held list waits until the test releases it', async ({ page, sandbox }) => {
  const hold = await sandbox.holds.add({ operation: 'listPets' })
  // A small page of the sandbox's own origin, so the page's fetch below goes there (the reference
  // page at / would do too, but it runs Swagger UI first, seconds of a loaded machine's time).
  await page.goto('/__sandbox/health')
  const names = page.evaluate(async () => {
    const response = await fetch('/v1/pets?limit=3')
    return ((await response.json()) as { name: string }[]).map((pet) => pet.name)
  })
  // The page's request waits in the sandbox now: its loading state is there to assert.
  await expect.poll(async () => (await sandbox.holds.list())[0]?.holding).toBe(1)
  await sandbox.holds.release(hold.id)
  expect(await names).toEqual(['Biscuit', 'Luna', 'Captain Feathers'])
})
