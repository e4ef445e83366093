/**
 * The API reference page in a real browser: Debian's chromium driven by playwright-core
 * (.ci/run installs both; no browser is ever downloaded).
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { needs } from './support/programs.js'
import { closeSharedContexts, sharedChromium } from './support/chromium.js'
import { startServer, type RunningServer } from '../src/server.js'

describe.skipIf(!needs('chromium'))('the API reference page in headless Chromium', () => {
  let server: RunningServer
  // One tab for both pages: the second loads Swagger UI's bundle from the same renderer, which
  // compiled it for the first (Chromium spent 4.1 CPU-s on the two loads in one tab, 5.2 in two, three rounds each).
  let page: Page

  beforeAll(async () => {
    server = await startServer({ port: 0 })
    page = await (await sharedChromium()).newPage()
  }, 60_000)

  afterAll(async () => {
    await closeSharedContexts()
    await server.close()
  })

  it('lists the three operations, marks getPet deprecated, loads nothing from elsewhere, breaks none of its policy, and tries a call with the pre-filled key', async () => {
    const requested: string[] = []
    page.on('request', (request) => requested.push(request.url()))
    // The page's Content-Security-Policy allows its own scripts and styles only: Swagger UI runs
    // within it. Each violation (a script, a style, an eval) is kept on the page.
    await page.addInitScript(() => {
      const seen: string[] = []
      Object.defineProperty(window, 'policyViolations', { value: seen })
      document.addEventListener('securitypolicyviolation', (event) => {
        seen.push(`${event.violatedDirective} ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}`)
      })
    })
    await page.goto(`${server.url}/`)

    const operations = page.locator('.opblock')
    await expect.poll(() => operations.count(), { timeout: 15_000 }).toBe(3)
    const text = await page.locator('#swagger-ui').innerText()
    for (const operationId of ['listPets', 'createPet', 'getPet']) expect(text).toContain(operationId)
    // The API alone: no "default" group of routes that can only answer 501, no admin routes.
    expect(await page.locator('.opblock-tag').allInnerTexts()).toEqual([expect.stringMatching(/^pets/)])
    expect(text).not.toContain('NewPetnever')
    expect(text).not.toContain('Not any')
    expect(await page.locator('.opblock-deprecated').innerText()).toContain('/pets/{petId}')
    await expect
      .poll(() => page.locator('.sandbox-key code').first().innerText(), { timeout: 15_000 })
      .toBe('petstore-sandbox-key')

    // Try GET /pets through the page: the key was pre-filled, so the sandbox answers 200.
    await page.locator('#operations-pets-listPets').click()
    await page.locator('#operations-pets-listPets .try-out__btn').click()
    await page.locator('#operations-pets-listPets .execute').click()
    const status = page.locator('#operations-pets-listPets .live-responses-table tbody .response-col_status').first()
    await expect.poll(() => status.innerText(), { timeout: 15_000 }).toBe('200')

    expect(requested.filter((url) => !url.startsWith(server.url))).toEqual([])
    expect(await page.evaluate(() => (window as unknown as { policyViolations: string[] }).policyViolations)).toEqual(
      [],
    )
    // createPet's "Try it out" starts from the document's example, and Execute creates it.
    await page.locator('#operations-pets-createPet').click()
    await page.locator('#operations-pets-createPet .try-out__btn').click()
    const body = page.locator('#operations-pets-createPet textarea.body-param__text')
    expect(JSON.parse(await body.inputValue())).toEqual({ name: 'Rex', categoryId: 1, status: 'available' })
    await page.locator('#operations-pets-createPet .execute').click()
    const created = page.locator('#operations-pets-createPet .live-responses-table tbody .response-col_status').first()
    await expect.poll(() => created.innerText(), { timeout: 15_000 }).toBe('201')
    expect(await server.sandbox.pets.get(33)).toMatchObject({ name: 'Rex', categoryId: 1, status: 'available' })

    if (process.env.SCREENSHOT) await page.screenshot({ path: process.env.SCREENSHOT, fullPage: false })
  }, 60_000)

  it('shows the admin routes on a page of their own, under /__sandbox, with no lock from this machine', async () => {
    await page.goto(`${server.url}/__sandbox/reference`)
    const reset = page.locator('#operations-sandbox-resetSandbox')
    await expect.poll(() => reset.count(), { timeout: 15_000 }).toBe(1)
    expect(await page.locator('.opblock').count()).toBeGreaterThan(10)
    expect(await page.locator('.authorization__btn').count()).toBe(0)
    expect(await page.locator('.opblock-tag').allInnerTexts()).toEqual([expect.stringMatching(/^sandbox/)])
    // Try it out reaches the route where it is: /__sandbox/reset, not /v1/__sandbox/reset.
    await server.sandbox.pets.create({ name: 'Undone', categoryId: 1 })
    await reset.click()
    await page.locator('#operations-sandbox-resetSandbox .try-out__btn').click()
    await page.locator('#operations-sandbox-resetSandbox .execute').click()
    const status = page.locator('#operations-sandbox-resetSandbox .live-responses-table tbody .response-col_status')
    await expect.poll(() => status.first().innerText(), { timeout: 15_000 }).toBe('204')
    expect(await server.sandbox.pets.count()).toBe(32)
  }, 60_000)
})
