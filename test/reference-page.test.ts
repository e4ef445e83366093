/**
 * The API reference pages in a real browser: Debian's chromium driven by playwright-core
 * (.ci/run installs both; no browser is ever downloaded), on a phone's 390 px screen. Each page is
 * checked for how it fits (no sideways scrolling, every operation id on one line, the server's
 * whole text in the Servers menu, its operations closed and then open) and for what it does (its
 * operations, the pre-filled key, Try it out, nothing loaded from elsewhere, no breach of its
 * policy). Both read one load of the page: Swagger UI's load and each operation it opens cost the
 * browser 1-2 CPU-s. With SCREENSHOT_DIR set, the first screen of each goes there (as in
 * dashboard.test.ts); with SCREENSHOT, the API's page with its calls made.
 */
import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { needs } from './support/programs.js'
import { closeSharedContexts, screenshot, sharedChromium } from './support/chromium.js'
import { startServer, type RunningServer } from '../src/server.js'

const PHONE = { width: 390, height: 844 }

/** How far the document is wider than the window: 0 when nothing runs off to the side. */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

/** Each operation id with the number of lines its text takes. */
const idLines = (page: Page) =>
  page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('.opblock-summary-operation-id')].map((id) => {
        const text = document.createRange()
        text.selectNodeContents(id)
        return [id.textContent, text.getClientRects().length]
      }),
    ),
  )

/**
 * Whether the Servers menu shows its whole text: the selected server's text, laid out in a box
 * of the menu's own font, width and wrapping, neither runs past the side nor below the bottom.
 */
const serverTextFits = (page: Page) =>
  page.locator('.servers select').evaluate((select: HTMLSelectElement) => {
    const style = getComputedStyle(select)
    const copy = document.createElement('div')
    copy.textContent = select.selectedOptions[0]?.text ?? ''
    for (const property of [
      'font-family',
      'font-size',
      'font-weight',
      'font-style',
      'line-height',
      'letter-spacing',
      'text-transform',
      'white-space',
      'word-break',
      'overflow-wrap',
    ]) {
      copy.style.setProperty(property, style.getPropertyValue(property))
    }
    const horizontal = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight)
    const vertical = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom)
    copy.style.width = `${select.clientWidth - horizontal}px`
    copy.style.position = 'absolute'
    copy.style.visibility = 'hidden'
    document.body.append(copy)
    const fits = copy.scrollWidth <= copy.clientWidth && copy.scrollHeight <= select.clientHeight - vertical + 1
    const text = copy.textContent
    copy.remove()
    return { text, fits }
  })

/** Opens an operation (its parameters, request body and responses), unless a test before opened it. */
async function openOperation(operation: Locator): Promise<void> {
  if (!(await operation.evaluate((block) => block.classList.contains('is-open')))) {
    await operation.locator('.opblock-summary-control').click()
  }
  await operation.locator('.responses-table').first().waitFor()
}

describe.skipIf(!needs('chromium'))('the API reference pages in headless Chromium, on a 390 px screen', () => {
  let server: RunningServer
  // One tab for both pages: the second loads Swagger UI's bundle from the same renderer, which
  // compiled it for the first (Chromium spent 4.1 CPU-s on the two loads in one tab, 5.2 in two, three rounds each).
  let page: Page
  const requested: string[] = []

  beforeAll(async () => {
    server = await startServer({ port: 0 })
    const context = await (await sharedChromium()).newContext({ viewport: PHONE, colorScheme: 'light' })
    page = await context.newPage()
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
  }, 60_000)

  afterAll(async () => {
    await closeSharedContexts()
    await server.close()
  })

  // The API's page, loaded once: the layout is measured first, with every operation closed.
  describe("the API's page", () => {
    beforeAll(async () => {
      await page.goto(`${server.url}/`)
      await page.locator('.opblock').first().waitFor({ timeout: 15_000 })
    }, 60_000)

    it("fits the API's page: no sideways scrolling, each operation id on one line, the server's whole text shown", async () => {
      await expect.poll(() => page.locator('.opblock').count(), { timeout: 15_000 }).toBe(3)
      expect(await overflow(page)).toBe(0)
      expect(await idLines(page)).toEqual({ listPets: 1, createPet: 1, getPet: 1 })
      const menu = await serverTextFits(page)
      expect(menu.text).toMatch(/\/v1 - This sandbox/)
      expect(menu.fits).toBe(true)
      await screenshot(page, 'layout-reference-390')

      // Each operation opened: its parameters, its request body and its responses fit too.
      for (const id of ['listPets', 'createPet', 'getPet']) await openOperation(page.locator(`#operations-pets-${id}`))
      expect(await overflow(page)).toBe(0)
      expect(await idLines(page)).toEqual({ listPets: 1, createPet: 1, getPet: 1 })
      await screenshot(page, 'layout-reference-390-open')
    }, 60_000)

    it('lists the three operations, marks getPet deprecated, loads nothing from elsewhere, breaks none of its policy, and tries a call with the pre-filled key', async () => {
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
      await openOperation(page.locator('#operations-pets-listPets'))
      await page.locator('#operations-pets-listPets .try-out__btn').click()
      await page.locator('#operations-pets-listPets .execute').click()
      const status = page.locator('#operations-pets-listPets .live-responses-table tbody .response-col_status').first()
      await expect.poll(() => status.innerText(), { timeout: 15_000 }).toBe('200')

      expect(requested.filter((url) => !url.startsWith(server.url))).toEqual([])
      expect(await page.evaluate(() => (window as unknown as { policyViolations: string[] }).policyViolations)).toEqual(
        [],
      )
      // createPet's "Try it out" starts from the document's example, and Execute creates it.
      await openOperation(page.locator('#operations-pets-createPet'))
      await page.locator('#operations-pets-createPet .try-out__btn').click()
      const body = page.locator('#operations-pets-createPet textarea.body-param__text')
      expect(JSON.parse(await body.inputValue())).toEqual({ name: 'Rex', categoryId: 1, status: 'available' })
      await page.locator('#operations-pets-createPet .execute').click()
      const created = page
        .locator('#operations-pets-createPet .live-responses-table tbody .response-col_status')
        .first()
      await expect.poll(() => created.innerText(), { timeout: 15_000 }).toBe('201')
      expect(await server.sandbox.pets.get(33)).toMatchObject({ name: 'Rex', categoryId: 1, status: 'available' })

      if (process.env.SCREENSHOT) await page.screenshot({ path: process.env.SCREENSHOT, fullPage: false })
    }, 60_000)
  })

  // The admin routes' page, in the same tab, loaded once: the layout first again.
  describe("the admin routes' page", () => {
    const reset = () => page.locator('#operations-sandbox-resetSandbox')

    beforeAll(async () => {
      await page.goto(`${server.url}/__sandbox/reference`)
      await reset().waitFor({ timeout: 15_000 })
    }, 60_000)

    it("fits the admin routes' page the same way", async () => {
      await expect.poll(() => reset().count(), { timeout: 15_000 }).toBe(1)
      expect(await overflow(page)).toBe(0)
      const lines = await idLines(page)
      expect(Object.keys(lines).length).toBeGreaterThan(10)
      expect(Object.entries(lines).filter(([, count]) => count !== 1)).toEqual([])
      expect((await serverTextFits(page)).fits).toBe(true)
      await openOperation(reset())
      expect(await overflow(page)).toBe(0)
    }, 60_000)

    it('shows the admin routes on a page of their own, under /__sandbox, with no lock from this machine', async () => {
      expect(await reset().count()).toBe(1)
      expect(await page.locator('.opblock').count()).toBeGreaterThan(10)
      expect(await page.locator('.authorization__btn').count()).toBe(0)
      expect(await page.locator('.opblock-tag').allInnerTexts()).toEqual([expect.stringMatching(/^sandbox/)])
      // Try it out reaches the route where it is: /__sandbox/reset, not /v1/__sandbox/reset.
      await server.sandbox.pets.create({ name: 'Undone', categoryId: 1 })
      await openOperation(reset())
      await page.locator('#operations-sandbox-resetSandbox .try-out__btn').click()
      await page.locator('#operations-sandbox-resetSandbox .execute').click()
      const status = page.locator('#operations-sandbox-resetSandbox .live-responses-table tbody .response-col_status')
      await expect.poll(() => status.first().innerText(), { timeout: 15_000 }).toBe('204')
      expect(await server.sandbox.pets.count()).toBe(32)
    }, 60_000)
  })
})
