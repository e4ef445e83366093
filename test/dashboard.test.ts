/**
 * The dashboard at /__sandbox/ in a real browser: Debian's chromium driven by playwright-core
 * (no browser is ever downloaded). Each test reads the page and checks the sandbox behind it:
 * the seed, live updates from calls made outside the page, reset, scenarios, state download and
 * upload, paging through 100,000 pets, tenants in isolated mode (and their colours), axe-core in
 * both themes, the key prompt of a page served to another machine, and that nothing is loaded
 * from another origin. With SCREENSHOT_DIR set, screenshots of both themes and of a request go
 * there (test-results/ is git-ignored), as cross-site.test.ts does: a full-page PNG costs CPU and
 * proves nothing by itself.
 */
import { mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { needs } from './support/programs.js'
import { closeSharedContexts, sharedChromium } from './support/chromium.js'
import { holdRoute } from './support/held-route.js'
import { startServer, type RunningServer } from '../src/server.js'

const KEY = 'petstore-sandbox-key'
const AUTH = { Authorization: `Bearer ${KEY}` }
const JSON_TYPE = { 'Content-Type': 'application/json' }
const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR
/** How long the page may take to show what the sandbox did (live events, throttled reloads). */
const LIVE = { timeout: 10_000, interval: 50 }
const VIEWPORT = { width: 1280, height: 900 }
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** The state document the dashboard downloads (GET /__sandbox/state), what --state-file holds. */
interface StateDocument {
  version: number
  savedAt: string
  pets: { id: number; name: string; categoryId: number; status?: string }[]
  nextId: number
  checkpoints: { name: string; nextId: number; pets: unknown[] }[]
}

interface AxeViolation {
  id: string
  impact?: string | null
  help: string
  nodes: { target: unknown[] }[]
}

function createPet(server: RunningServer, pet: object, key = KEY): Promise<Response> {
  return fetch(`${server.apiUrl}/pets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, ...JSON_TYPE },
    body: JSON.stringify(pet),
  })
}

/**
 * The dashboard in one browser context per describe, whose page may load from `origin` only:
 * every URL it requests is kept, and every breach of the page's Content-Security-Policy. Each
 * test gets the page freshly loaded (a new document: nothing of the last test's page is left but
 * the context's storage), light theme; a new context and page cost about 1.8 s of CPU, a reload
 * about 0.8 (Chromium 156 on this 2-core machine).
 */
class Contexts {
  private context: BrowserContext | undefined
  private current: Page | undefined
  private readonly stray: string[] = []

  constructor(private readonly browser: () => Browser) {}

  async page(origin: string): Promise<Page> {
    if (this.context === undefined) {
      const context = await this.browser().newContext({ viewport: VIEWPORT, colorScheme: 'light' })
      context.on('request', (request) => {
        const url = request.url()
        // data: URLs (the page's empty favicon) load nothing from anywhere.
        if (!url.startsWith('data:') && new URL(url).origin !== origin) this.stray.push(url)
      })
      // The page's Content-Security-Policy allows its own files only: anything it refuses (a
      // script, a style, an eval some library tries) is a bug. Each violation is kept on the page.
      await context.addInitScript(() => {
        const seen: string[] = []
        Object.defineProperty(window, 'policyViolations', { value: seen })
        document.addEventListener('securitypolicyviolation', (event) => {
          seen.push(`${event.violatedDirective} ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}`)
        })
      })
      this.context = context
    }
    this.current ??= await this.context.newPage()
    await this.current.emulateMedia({ colorScheme: 'light' })
    await this.current.goto(`${origin}/__sandbox/`)
    await expect.poll(() => this.current?.locator('#pets-body tr').count(), LIVE).toBeGreaterThan(0)
    // The stream is open and the page has caught up: a change a test makes from here reaches the
    // page live, and no load of the page's own is left to redraw what the test looks at.
    await expect.poll(() => this.current?.locator('#connection').innerText(), LIVE).toBe('Live updates: on')
    return this.current
  }

  /** After each test: the page asked nothing of another origin, and broke none of its policy. */
  async check(): Promise<void> {
    // A test that failed while it held a request leaves no route behind for the next one.
    await this.current?.unrouteAll({ behavior: 'ignoreErrors' })
    const refused =
      (await this.current?.evaluate(() => (window as unknown as { policyViolations: string[] }).policyViolations)) ?? []
    expect(this.stray.splice(0)).toEqual([])
    expect(refused).toEqual([])
  }

  async close(): Promise<void> {
    await this.context?.close()
    this.context = undefined
    this.current = undefined
  }
}

const rangeOf = (page: Page) => page.locator('#pets-range').innerText()
const idsOf = (page: Page) => page.locator('#pets-body tr td:first-child').allInnerTexts()
const scenariosOf = (page: Page) => page.locator('#scenarios li').allInnerTexts()
/** A row's cells as text: the "new" badge reads "new (created since the last reset)". */
const cellsOf = (page: Page, row: 'first' | 'last') =>
  page.locator('#pets-body tr')[row]().locator('td').allTextContents()
const NEW = 'new (created since the last reset)'

/** Switches the theme, then waits out the CSS transitions it starts (axe would read colours half-way). */
async function theme(page: Page, colorScheme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme })
  expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(colorScheme === 'dark')
  await page.waitForFunction(() => document.getAnimations().length === 0)
}

/** axe-core's serious and critical findings, on the whole page or on the part `within` selects. */
async function axeViolations(page: Page, within?: string): Promise<AxeViolation[]> {
  // A table reloading (aria-busy) is rebuilt from its answer: axe runs once none is reloading.
  await page.waitForFunction(() => document.querySelector('[aria-busy="true"]') === null)
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE)
  const violations = await page.evaluate(async (context) => {
    const { axe } = window as unknown as {
      axe: { run(context?: string): Promise<{ violations: AxeViolation[] }> }
    }
    return (await (context === undefined ? axe.run() : axe.run(context))).violations
  }, within)
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
}

/** A short, readable account of axe's findings for a failed assertion. */
const summary = (violations: AxeViolation[]) =>
  violations.map(
    ({ id, impact, help, nodes }) => `${impact ?? '?'} ${id}: ${help} at ${JSON.stringify(nodes.map((n) => n.target))}`,
  )

// One browser for the worker's files (support/chromium.ts): this file closes its contexts.
afterAll(closeSharedContexts)

describe.skipIf(!needs('chromium'))('the dashboard in headless Chromium, against the bundled seed', () => {
  let server: RunningServer
  let browser: Browser
  const contexts = new Contexts(() => browser)

  beforeAll(async () => {
    ;[server, browser] = await Promise.all([startServer({ port: 0 }), sharedChromium()])
    if (SCREENSHOT_DIR !== undefined) mkdirSync(SCREENSHOT_DIR, { recursive: true })
  }, 60_000)

  afterAll(async () => {
    await server.close()
  })

  beforeEach(() => server.sandbox.reset())

  // Every test ends here: no context may have loaded anything from another origin.
  afterEach(() => contexts.check())
  afterAll(() => contexts.close())

  it('shows the 32 pets of the seed in id order, and the health of the sandbox', async () => {
    const page = await contexts.page(server.url)
    await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 1–32 of 32 pets')
    expect(await idsOf(page)).toEqual(Array.from({ length: 32 }, (_, i) => String(i + 1)))
    expect(await cellsOf(page, 'first')).toEqual(['1', 'Biscuit', 'dogs (1)', 'available'])
    expect(await page.locator('#pets-body .badge.new').count()).toBe(0)
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }
    await expect.poll(() => page.locator('#health-version').innerText(), LIVE).toBe(version)
    expect(await page.locator('#health-mode').innerText()).toBe('shared')
    expect(await page.locator('#health-pets').innerText()).toBe('32')
    expect(await page.locator('#tenant-field').isHidden()).toBe(true)
    await expect.poll(() => page.locator('#connection').innerText(), LIVE).toBe('Live updates: on')
    for (const id of ['page-first', 'page-prev', 'page-next', 'page-last']) {
      expect(await page.locator(`#${id}`).getAttribute('aria-disabled')).toBe('true')
    }
    expect(await server.sandbox.pets.count()).toBe(32)
  })

  it('shows a pet created through the API, and its request in the journal, without a reload', async () => {
    const page = await contexts.page(server.url)
    await page.evaluate(() => {
      ;(window as unknown as { notReloaded: boolean }).notReloaded = true
    })

    const response = await createPet(server, { name: 'Pip from outside', categoryId: 3, status: 'pending' })
    expect(response.status).toBe(201)
    expect(await response.json()).toEqual({ id: 33, name: 'Pip from outside', categoryId: 3, status: 'pending' })

    await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 1–33 of 33 pets')
    expect(await cellsOf(page, 'last')).toEqual(['33', `Pip from outside ${NEW}`, 'birds (3)', 'pending'])
    expect(await page.locator('#pets-body .badge.new').count()).toBe(1)

    const newest = page.locator('#journal button').first()
    await expect.poll(() => newest.textContent(), LIVE).toMatch(/POST \/v1\/pets 201 Created .* ms createPet/)
    await newest.click()
    expect(await newest.getAttribute('aria-current')).toBe('true')
    const details = page.locator('#request-details')
    expect(await details.locator('#details-heading').innerText()).toMatch(/^Request \d+: POST \/v1\/pets$/)
    const headers = await details.getByLabel('Headers', { exact: true }).innerText()
    expect(headers).toContain('authorization: Bearer [redacted]')
    expect(headers).toContain('content-type: application/json')
    expect(await details.innerText()).not.toContain(KEY)
    const body = await details.getByLabel('Body', { exact: true }).innerText()
    expect(JSON.parse(body)).toEqual({ name: 'Pip from outside', categoryId: 3, status: 'pending' })

    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true)
    expect(await server.sandbox.pets.count()).toBe(33)
  })

  it('resets the data from the page, after a confirmation', async () => {
    expect((await createPet(server, { name: 'Doomed', categoryId: 1 })).status).toBe(201)
    const page = await contexts.page(server.url)
    await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 1–33 of 33 pets')

    await page.getByRole('button', { name: 'Reset data' }).click()
    expect(await page.locator('#reset').isHidden()).toBe(true)
    expect(await server.sandbox.pets.count()).toBe(33)
    await page.getByRole('button', { name: 'Confirm reset' }).click()

    await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 1–32 of 32 pets')
    expect(await server.sandbox.pets.count()).toBe(32)
    expect(await page.locator('#pets-body').innerText()).not.toContain('Doomed')
    await expect.poll(() => page.locator('#status').innerText(), LIVE).toBe('The data is reset.')
    expect(await page.locator('#reset').isVisible()).toBe(true)
    expect(await page.locator('#reset-confirm').isHidden()).toBe(true)
  })

  it('adds scenarios from presets, which the API then follows, and clears them', async () => {
    const page = await contexts.page(server.url)
    const presets = page.getByRole('group', { name: 'Add a scenario' })

    await presets.getByRole('button', { name: 'The next createPet fails with 503' }).click()
    await expect.poll(() => scenariosOf(page), LIVE).toEqual(['createPet fails with 503, for the next 1 call'])
    expect(server.sandbox.scenarios.list()).toEqual([
      expect.objectContaining({ operation: 'createPet', status: 503, remaining: 1 }),
    ])
    expect((await createPet(server, { name: 'Refused', categoryId: 1 })).status).toBe(503)
    expect(server.sandbox.scenarios.list()).toEqual([])
    await expect.poll(() => scenariosOf(page), LIVE).toEqual(['No scenarios: every call is answered normally.'])
    expect((await createPet(server, { name: 'Accepted', categoryId: 1 })).status).toBe(201)

    await presets.getByRole('button', { name: 'Every call fails with 500 until cleared' }).click()
    await expect.poll(() => scenariosOf(page), LIVE).toEqual(['Every call fails with 500, until cleared'])
    expect((await fetch(`${server.apiUrl}/pets`, { headers: AUTH })).status).toBe(500)
    expect((await fetch(`${server.apiUrl}/pets/1`, { headers: AUTH })).status).toBe(500)
    expect(server.sandbox.scenarios.list()).toHaveLength(1)

    await page.getByRole('button', { name: 'Clear all scenarios' }).click()
    await expect.poll(() => scenariosOf(page), LIVE).toEqual(['No scenarios: every call is answered normally.'])
    expect(server.sandbox.scenarios.list()).toEqual([])
    expect((await fetch(`${server.apiUrl}/pets`, { headers: AUTH })).status).toBe(200)
  })

  it('loads its data once its event stream is open: a request made while it opens is in the journal', async () => {
    const page = await contexts.page(server.url)
    const held = await holdRoute(page, '**/__sandbox/events', 'GET')
    try {
      await page.reload()
      await held.reached
      // Made while the page's stream is on its way: it must reach the page by its load or by an event.
      expect((await createPet(server, { name: 'Made as the page opened', categoryId: 1 })).status).toBe(201)
      held.release()
      await expect.poll(() => page.locator('#connection').innerText(), LIVE).toBe('Live updates: on')
      await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 1–33 of 33 pets')
      await expect
        .poll(() => page.locator('#journal button').allTextContents(), LIVE)
        .toEqual([expect.stringMatching(/POST \/v1\/pets 201 Created .* createPet/)])
    } finally {
      await held.stop()
    }
  })

  it('on a phone (390 px), shows Controls before the pets, and its toasts cover no control', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'light' })
    try {
      const page = await context.newPage()
      await page.goto(`${server.url}/__sandbox/`)
      await expect.poll(() => page.locator('#pets-body tr').count(), LIVE).toBeGreaterThan(0)
      const top = async (selector: string) => (await page.locator(selector).boundingBox())?.y ?? Number.NaN
      // Controls before the data, within the first screen; a jump link reaches the requests.
      expect(await top('#controls-panel')).toBeLessThan(await top('#data-panel'))
      expect(await top('#controls-panel')).toBeLessThan(844)
      expect(await page.locator('header nav a[href="#requests-panel"]').count()).toBe(1)

      const presets = page.getByRole('group', { name: 'Add a scenario' })
      await presets.getByRole('button', { name: 'Every call fails with 500 until cleared' }).click()
      await expect.poll(() => scenariosOf(page), LIVE).toEqual(['Every call fails with 500, until cleared'])
      const clear = page.getByRole('button', { name: 'Clear all scenarios' })
      await clear.click()
      await expect.poll(() => page.locator('#status').innerText(), LIVE).toBe('All scenarios cleared.')
      const toast = page.locator('.toast')
      await expect.poll(() => toast.innerText(), LIVE).toBe('All scenarios cleared.')
      // No control of the page lies under the toast, the button just used included.
      const covered = await page.evaluate(() => {
        const shown = document.querySelector('.toast')?.getBoundingClientRect()
        if (shown === undefined) return ['no toast']
        return [...document.querySelectorAll('button, input, select, textarea, a[href], summary')]
          .filter((control) => {
            const box = control.getBoundingClientRect()
            return (
              box.width > 0 &&
              box.left < shown.right &&
              box.right > shown.left &&
              box.top < shown.bottom &&
              box.bottom > shown.top
            )
          })
          .map((control) => control.textContent || control.id)
      })
      expect(covered).toEqual([])
      expect(server.sandbox.scenarios.list()).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('downloads the state as a file and puts it back by uploading it, checkpoints included', async () => {
    expect((await createPet(server, { name: 'Kept', categoryId: 2, status: 'sold' })).status).toBe(201)
    await server.sandbox.checkpoint('with-kept')
    const page = await contexts.page(server.url)
    const saved = await server.sandbox.snapshot()

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download state' }).click(),
    ])
    expect(download.suggestedFilename()).toBe('petstore-state.json')
    const file = readFileSync(await download.path())
    const state = JSON.parse(file.toString('utf8')) as StateDocument
    expect(state.version).toBe(1)
    expect(state.nextId).toBe(34)
    expect(state.pets).toHaveLength(33)
    expect(state.pets.at(-1)).toEqual({ id: 33, name: 'Kept', categoryId: 2, status: 'sold' })
    expect({ pets: state.pets, nextId: state.nextId }).toEqual(saved)
    expect(state.checkpoints.map((checkpoint) => [checkpoint.name, checkpoint.nextId])).toEqual([['with-kept', 34]])
    await expect
      .poll(() => page.locator('#status').innerText(), LIVE)
      .toBe('State saved as petstore-state.json: --state-file petstore-state.json starts a server from it.')

    expect((await createPet(server, { name: 'Changed later', categoryId: 1 })).status).toBe(201)
    await server.sandbox.deleteCheckpoint('with-kept')
    await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 1–34 of 34 pets')
    await expect.poll(() => page.locator('#checkpoints li').allInnerTexts(), LIVE).toEqual(['No checkpoints yet.'])

    await page.getByLabel('State file (JSON)').setInputFiles({
      name: 'petstore-state.json',
      mimeType: 'application/json',
      buffer: file,
    })
    await page.getByRole('button', { name: 'Upload state' }).click()
    await expect.poll(() => page.locator('#status').innerText(), LIVE).toBe('State replaced from petstore-state.json.')
    expect(await server.sandbox.snapshot()).toEqual(saved)
    expect((await server.sandbox.checkpoints()).map((checkpoint) => checkpoint.name)).toEqual(['with-kept'])
    await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 1–33 of 33 pets')
    await expect.poll(() => page.locator('#checkpoints li').count(), LIVE).toBe(1)
    await expect.poll(() => page.locator('#checkpoints').innerText(), LIVE).toContain('with-kept')
    expect(await page.locator('#state-error').innerText()).toBe('')
  })

  it("passes axe-core in the light and the dark theme, and with a request's details shown", async () => {
    for (const pet of [
      { name: 'Mochi', categoryId: 2, status: 'available' },
      { name: 'Sprocket', categoryId: 1 },
    ]) {
      expect((await createPet(server, pet)).status).toBe(201)
    }
    expect((await fetch(`${server.apiUrl}/pets/404`, { headers: AUTH })).status).toBe(404)
    expect((await fetch(`${server.apiUrl}/pets`)).status).toBe(401)
    server.sandbox.scenarios.add({ operation: 'getPet', status: 404, times: 2 })

    const page = await contexts.page(server.url)
    await expect.poll(() => page.locator('#journal button').count(), LIVE).toBe(4)
    await expect.poll(() => scenariosOf(page), LIVE).toEqual(['getPet fails with 404, for the next 2 calls'])
    // The traffic counters outlive resets: the earlier tests' requests count too.
    await expect
      .poll(() => page.locator('#chart-summary').innerText(), LIVE)
      .toMatch(/^\d+ requests in the last 5 minutes/)
    const legend = await page.locator('#chart-legend li').allInnerTexts()
    expect(legend).toHaveLength(4)
    expect(Number(/^4xx: (\d+)$/.exec(legend[2] ?? '')?.[1])).toBeGreaterThanOrEqual(2)
    expect(await page.locator('#chart-svg path.bar.c4xx').getAttribute('d')).toMatch(/^M\d+ /)

    expect(summary(await axeViolations(page))).toEqual([])
    if (SCREENSHOT_DIR !== undefined) {
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-light.png'), fullPage: true })
    }

    await theme(page, 'dark')
    expect(summary(await axeViolations(page))).toEqual([])
    if (SCREENSHOT_DIR !== undefined) {
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-dark.png'), fullPage: true })
    }

    // A selected request, its details shown: light again. Only that panel changed since the first
    // run, so axe reads it alone.
    await theme(page, 'light')
    await page.locator('#journal button', { hasText: '401 Unauthorized' }).click()
    expect(await page.locator('#details-heading').innerText()).toMatch(/^Request \d+: GET \/v1\/pets$/)
    expect(summary(await axeViolations(page, '#requests-panel'))).toEqual([])
    if (SCREENSHOT_DIR !== undefined) {
      await page.locator('#requests-panel').screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-request.png') })
    }
  })

  it('says why a body was not kept, and how much was sent, the same way for a GET and a failed createPet', async () => {
    expect((await fetch(`${server.apiUrl}/pets/7`, { headers: AUTH })).status).toBe(200)
    const page = await contexts.page(server.url)
    const row = page.locator('#journal button').first()
    await expect.poll(() => row.textContent(), LIVE).toMatch(/GET \/v1\/pets\/7 200 OK .* getPet/)
    await row.click()
    const details = page.locator('#request-details')
    expect(await details.getByLabel('Headers', { exact: true }).innerText()).toContain(
      'authorization: Bearer [redacted]',
    )
    expect(await details.getByLabel('Body', { exact: true }).innerText()).toBe(
      'Not recorded: getPet reads no body. No body was sent.',
    )
    // A scenario answers createPet before its body is read: no null, but why, and its size.
    server.sandbox.scenarios.add({ operation: 'createPet', status: 503, times: 1 })
    const body = JSON.stringify({ name: 'Failed by a scenario', categoryId: 1, status: 'sold' })
    expect((await createPet(server, JSON.parse(body) as Record<string, unknown>)).status).toBe(503)
    const failed = page.locator('#journal button').first()
    await expect.poll(() => failed.textContent(), LIVE).toMatch(/POST \/v1\/pets 503/)
    await failed.click()
    expect(await details.getByLabel('Body', { exact: true }).innerText()).toBe(
      `Not recorded: the sandbox answered 503 before reading it. ${body.length} bytes were sent.`,
    )
  })
})

describe.skipIf(!needs('chromium'))('the dashboard over 100,000 generated pets', () => {
  let server: RunningServer
  let browser: Browser
  const contexts = new Contexts(() => browser)

  beforeAll(async () => {
    ;[server, browser] = await Promise.all([
      startServer({ port: 0, generate: 100_000, randomSeed: 1 }),
      sharedChromium(),
    ])
  }, 60_000)

  afterAll(async () => {
    await server.close()
  })

  afterEach(() => contexts.check())
  afterAll(() => contexts.close())

  it('pages through them 50 at a time, to the last page, and filters them by status', async () => {
    const page = await contexts.page(server.url)
    await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 1–50 of 100,000 pets')
    expect(await idsOf(page)).toEqual(Array.from({ length: 50 }, (_, i) => String(i + 1)))
    expect(await page.locator('#page-prev').getAttribute('aria-disabled')).toBe('true')

    await page.getByRole('button', { name: 'Next page' }).click()
    await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 51–100 of 100,000 pets')
    expect(await idsOf(page)).toEqual(Array.from({ length: 50 }, (_, i) => String(i + 51)))
    expect(await page.locator('#page-prev').getAttribute('aria-disabled')).toBe('false')

    await page.getByRole('button', { name: 'Last page' }).click()
    await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 99,951–100,000 of 100,000 pets')
    expect(await idsOf(page)).toEqual(Array.from({ length: 50 }, (_, i) => String(i + 99_951)))
    expect(await page.locator('#page-next').getAttribute('aria-disabled')).toBe('true')
    expect(await page.locator('#page-last').getAttribute('aria-disabled')).toBe('true')
    // aria-disabled keeps the button focusable; pressed at the end, it asks for nothing.
    const asked: string[] = []
    page.on('request', (request) => {
      if (request.url().includes('/__sandbox/pets')) asked.push(request.url())
    })
    await page.getByRole('button', { name: 'Next page' }).focus()
    await page.keyboard.press('Enter')
    // Then a press that does ask, for the page before: whatever the first press asked for would
    // have been asked before it, so once this one's page is shown, it is the only request.
    await page.getByRole('button', { name: 'Previous page' }).click()
    await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 99,901–99,950 of 100,000 pets')
    expect(asked).toHaveLength(1)
    expect(Object.fromEntries(new URL(asked[0] ?? '').searchParams)).toMatchObject({ offset: '99900', limit: '50' })

    const sold = await server.sandbox.pets.list({ status: 'sold' })
    expect(sold.length).toBeGreaterThan(0)
    expect(sold.length).toBeLessThan(100_000)
    await page.getByLabel('Status filter').selectOption('sold')
    const expected = `Rows 1–50 of ${sold.length.toLocaleString('en')} sold pets`
    await expect.poll(() => rangeOf(page), LIVE).toBe(expected)
    expect(await idsOf(page)).toEqual(sold.slice(0, 50).map((pet) => String(pet.id)))
    expect(await page.locator('#pets-body tr td:last-child').allInnerTexts()).toEqual(Array(50).fill('sold'))
    expect(await server.sandbox.pets.count()).toBe(100_000)
  })
})

describe.skipIf(!needs('chromium'))('the dashboard in isolated mode', () => {
  let server: RunningServer
  let browser: Browser
  const contexts = new Contexts(() => browser)

  beforeAll(async () => {
    // Isolated mode warns on start that any key is accepted.
    vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    ;[server, browser] = await Promise.all([startServer({ port: 0, isolate: true }), sharedChromium()])
  }, 60_000)

  afterAll(async () => {
    await server.close()
    vi.restoreAllMocks()
  })

  afterEach(() => contexts.check())
  afterAll(() => contexts.close())

  it('lists the tenants of two keys, and shows one tenant’s data at a time, each beside its colour', async () => {
    const WORKER = 'worker-secret-7'
    expect((await fetch(`${server.apiUrl}/pets`, { headers: AUTH })).status).toBe(200)
    expect((await createPet(server, { name: 'Only for the worker', categoryId: 4 }, WORKER)).status).toBe(201)
    expect(await server.sandbox.tenant(WORKER).count()).toBe(33)
    expect(await server.sandbox.tenant(KEY).count()).toBe(32)

    const page = await contexts.page(server.url)
    await expect
      .poll(() => page.locator('#health-mode').innerText(), LIVE)
      .toBe('isolated (one copy of the data per key)')
    const tenant = page.getByLabel('Tenant', { exact: true })
    expect(await tenant.isVisible()).toBe(true)
    const options = await tenant.locator('option').allInnerTexts()
    expect(options.toSorted()).toEqual(['default', 'work********-7 (15 characters)'])
    expect(await tenant.evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.text)).toBe('default')
    await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 1–32 of 32 pets')
    expect(await page.locator('#pets-body').innerText()).not.toContain('Only for the worker')

    // Each tenant's colour is the hue the sandbox gives it: a decorative dot beside its name.
    const hues = new Map(
      ((await (await fetch(`${server.url}/__sandbox/tenants`)).json()) as { label: string; hue: number }[]).map(
        ({ label, hue }) => [label, String(hue)],
      ),
    )
    const swatch = page.locator('#tenant-field .tenant-swatch')
    const hueOf = (dot: typeof swatch) =>
      dot.evaluate((element: HTMLElement) => element.style.getPropertyValue('--hue'))
    expect(await swatch.getAttribute('aria-hidden')).toBe('true')
    expect(await hueOf(swatch)).toBe(hues.get('default'))

    await tenant.selectOption({ label: 'work********-7 (15 characters)' })
    await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 1–33 of 33 pets')
    expect(await cellsOf(page, 'last')).toEqual(['33', `Only for the worker ${NEW}`, 'fish (4)', 'none'])
    expect(await hueOf(swatch)).toBe(hues.get('work********-7 (15 characters)'))
    // The journal follows the tenant too: the worker made one request.
    await expect
      .poll(() => page.locator('#journal button').allTextContents(), LIVE)
      .toEqual([expect.stringMatching(/POST \/v1\/pets 201 Created .* createPet work\*{8}-7 \(15 characters\)$/)])
    const dot = page.locator('#journal .tenant .tenant-swatch')
    expect(await dot.getAttribute('aria-hidden')).toBe('true')
    expect(await hueOf(dot)).toBe(hues.get('work********-7 (15 characters)'))
    expect(await dot.evaluate((element) => getComputedStyle(element).backgroundColor)).toMatch(/^rgb\(/)

    await tenant.selectOption({ label: 'default' })
    await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 1–32 of 32 pets')
    expect(await page.content()).not.toContain(WORKER)
  })
})

describe.skipIf(!needs('chromium'))(
  'the dashboard from another machine (trustProxy, a client named in X-Forwarded-For)',
  () => {
    const ELSEWHERE = { 'X-Forwarded-For': '203.0.113.7' }
    let server: RunningServer
    let browser: Browser
    const open: BrowserContext[] = []

    beforeAll(async () => {
      ;[server, browser] = await Promise.all([startServer({ port: 0, trustProxy: true }), sharedChromium()])
    }, 60_000)

    afterAll(async () => {
      await server.close()
    })

    afterEach(async () => {
      for (const context of open.splice(0)) await context.close()
    })

    /** What the sandbox answers another machine that sends `authorization`: its status and message. */
    async function refusal(authorization?: string): Promise<{ status: number; message: string }> {
      const headers = { ...ELSEWHERE, ...(authorization !== undefined && { Authorization: authorization }) }
      const response = await fetch(`${server.url}/__sandbox/health`, { headers })
      return { status: response.status, message: ((await response.json()) as { message: string }).message }
    }

    it('asks for the key, shows the sandbox’s refusal of a wrong one, then works with the right one alone', async () => {
      // The rule the page meets: its admin routes want a key from another machine.
      expect((await refusal()).status).toBe(401)
      const wrong = await refusal('Bearer not-the-key')
      expect(wrong.status).toBe(401)
      expect((await refusal(`Bearer ${KEY}`)).status).toBe(200)

      const context = await browser.newContext({
        viewport: VIEWPORT,
        colorScheme: 'light',
        extraHTTPHeaders: ELSEWHERE,
      })
      open.push(context)
      const urls: string[] = []
      const streams: { type: string; authorization: string | undefined }[] = []
      const creates: (string | undefined)[] = []
      context.on('request', (request) => {
        const url = new URL(request.url())
        urls.push(request.url())
        const authorization = request.headers().authorization
        if (url.pathname === '/__sandbox/events') streams.push({ type: request.resourceType(), authorization })
        if (url.pathname === '/v1/pets' && request.method() === 'POST') creates.push(authorization)
      })
      const page = await context.newPage()
      await page.goto(`${server.url}/__sandbox/`)

      // The page came without the key, and asks for it before anything else.
      expect(await page.locator('#dashboard').getAttribute('data-api-key')).toBe('')
      const form = page.getByRole('form', { name: 'API key' })
      await expect.poll(() => form.isVisible(), LIVE).toBe(true)
      expect(await form.innerText()).toContain('This sandbox is reachable from other machines; enter its API key')
      await expect.poll(() => page.evaluate(() => document.activeElement?.id), LIVE).toBe('key-input')
      expect(await page.locator('#pets-body tr').count()).toBe(0)

      const input = form.getByLabel('API key', { exact: true })
      await input.fill('not-the-key')
      await form.getByRole('button', { name: 'Use this key' }).click()
      await expect.poll(() => page.locator('#key-error').innerText(), LIVE).toBe(wrong.message)
      expect(await page.locator('#key-error').getAttribute('role')).toBe('alert')
      expect(await form.isVisible()).toBe(true)
      expect(summary(await axeViolations(page))).toEqual([])

      // While the key is being tried the form says so.
      const held = await holdRoute(page, '**/__sandbox/health', 'GET')
      await input.fill(KEY)
      await form.getByRole('button', { name: 'Use this key' }).click()
      await held.reached
      expect(await page.locator('#key-form').getAttribute('aria-busy')).toBe('true')
      expect(await form.getByRole('button', { name: 'Use this key' }).getAttribute('aria-disabled')).toBe('true')
      await held.stop()
      await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 1–32 of 32 pets')
      expect(await form.isHidden()).toBe(true)
      expect(await page.locator('#key-form').getAttribute('aria-busy')).toBe(null)
      await expect.poll(() => page.locator('#connection').innerText(), LIVE).toBe('Live updates: on')
      await expect.poll(() => page.locator('#health-version').innerText(), LIVE).not.toBe('…')

      // A request made outside the page arrives live, through the event stream that fetch reads.
      expect((await createPet(server, { name: 'Seen from afar', categoryId: 2 })).status).toBe(201)
      await expect
        .poll(() => page.locator('#journal button').first().textContent(), LIVE)
        .toMatch(/POST \/v1\/pets 201 Created .* createPet/)
      await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 1–33 of 33 pets')
      expect(streams.length).toBeGreaterThan(0)
      expect(streams).toEqual(streams.map(() => ({ type: 'fetch', authorization: `Bearer ${KEY}` })))

      // The create form sends the key entered.
      await page.getByLabel('Name').fill('Made far away')
      await page.getByLabel('Category id').fill('1')
      await page.getByRole('button', { name: 'Create pet' }).click()
      await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 1–34 of 34 pets')
      expect(creates).toEqual([`Bearer ${KEY}`])
      expect(await server.sandbox.pets.count()).toBe(34)

      // A reset from the page.
      await page.getByRole('button', { name: 'Reset data' }).click()
      await page.getByRole('button', { name: 'Confirm reset' }).click()
      await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 1–32 of 32 pets')
      await expect.poll(() => page.locator('#status').innerText(), LIVE).toBe('The data is reset.')
      expect(await server.sandbox.pets.count()).toBe(32)
      expect(await page.locator('#reset-error').innerText()).toBe('')

      // A reload in the same tab keeps the key.
      await page.reload()
      await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 1–32 of 32 pets')
      expect(await form.isHidden()).toBe(true)

      // A key the sandbox no longer takes is asked for again, with its message.
      await page.evaluate(() => {
        sessionStorage.setItem('petstore-sandbox.admin-key', 'a-key-since-removed')
      })
      await page.reload()
      await expect.poll(() => form.isVisible(), LIVE).toBe(true)
      expect(await page.locator('#key-error').innerText()).toBe(wrong.message)
      await input.fill(KEY)
      await form.getByRole('button', { name: 'Use this key' }).click()
      await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 1–32 of 32 pets')
      expect(await form.isHidden()).toBe(true)

      // Never in a URL; and nothing from another origin.
      expect(urls.filter((url) => url.includes(KEY))).toEqual([])
      expect(urls.filter((url) => !url.startsWith('data:') && new URL(url).origin !== server.url)).toEqual([])
    })
  },
)

describe.skipIf(!needs('chromium'))('the dashboard when its event stream is refused', () => {
  let server: RunningServer

  beforeAll(async () => {
    // No event stream readers at all: the page's stream is answered 503.
    server = await startServer({ port: 0, limits: { eventStreams: 0 } })
  })

  afterAll(async () => {
    await server.close()
  })

  it('shows the data all the same, and says that live updates are off', async () => {
    const context = await (await sharedChromium()).newContext({ viewport: VIEWPORT, colorScheme: 'light' })
    try {
      const page = await context.newPage()
      await page.goto(`${server.url}/__sandbox/`)
      await expect.poll(() => page.locator('#connection').innerText(), LIVE).toBe('Live updates: off, retrying in 5 s')
      await expect.poll(() => rangeOf(page), LIVE).toBe('Rows 1–32 of 32 pets')
      expect((await server.sandbox.health()).limits.eventStreams.used).toBe(0)
    } finally {
      await context.close()
    }
  })
})
