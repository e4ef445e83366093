/**
 * The API reference page in a real browser: Debian's chromium driven by playwright-core
 * (.ci/run installs both; no browser is ever downloaded).
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { needs } from './support/programs.js'
import { launchChromium } from './support/chromium.js'
import { startServer, type RunningServer } from '../src/server.js'

describe.skipIf(!needs('chromium'))('the API reference page in headless Chromium', () => {
  let server: RunningServer
  let browser: Browser

  beforeAll(async () => {
    server = await startServer({ port: 0 })
    browser = await launchChromium()
  }, 60_000)

  afterAll(async () => {
    await browser.close()
    await server.close()
  })

  it('lists the three operations, marks getPet deprecated, loads nothing from elsewhere, breaks none of its policy, and tries a call with the pre-filled key', async () => {
    const page = await browser.newPage()
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
    await expect.poll(() => operations.count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(3)
    const text = await page.locator('#swagger-ui').innerText()
    for (const operationId of ['listPets', 'createPet', 'getPet']) expect(text).toContain(operationId)
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
    if (process.env.SCREENSHOT) await page.screenshot({ path: process.env.SCREENSHOT, fullPage: false })
    await page.close()
  }, 60_000)
})
