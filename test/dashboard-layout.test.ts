/**
 * Where things are on the dashboard, measured in headless Chromium (Debian's, driven by
 * playwright-core): at 1280x900 the live journal is in the first screen and neither column of
 * panels has a gap in it, however tall the page of pets; on a phone (390x844) the header's link
 * brings the journal into view and nothing is wider than the screen. The reference pages' fit on a
 * 390 px screen is reference-page.test.ts's, on the pages it loads for its own checks. With
 * SCREENSHOT_DIR set, the first screen of each goes there (as in dashboard.test.ts).
 */
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { needs } from './support/programs.js'
import { closeSharedContexts, screenshot, sharedChromium } from './support/chromium.js'
import { startServer, type RunningServer } from '../src/server.js'

const AUTH = { Authorization: 'Bearer petstore-sandbox-key' }
/** How long the page may take to show what the sandbox did (live events, throttled reloads). */
const LIVE = { timeout: 10_000, interval: 50 }
const DESKTOP = { width: 1280, height: 900 }
const PHONE = { width: 390, height: 844 }

/** The most space allowed between two panels one above the other: the grid's gap is 16 px. */
const MOST_GAP = 48

interface Box {
  id: string
  left: number
  top: number
  bottom: number
}

/** Each panel's box, in page coordinates (the page's scroll added). */
function panels(page: Page): Promise<Box[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('.panels > .panel')].map((panel) => {
      const box = panel.getBoundingClientRect()
      return { id: panel.id, left: Math.round(box.left), top: box.top + scrollY, bottom: box.bottom + scrollY }
    }),
  )
}

/** The space between each panel and the next one below it in the same column, by their ids. */
function gaps(boxes: Box[]): Record<string, number> {
  const found: Record<string, number> = {}
  const columns = new Map<number, Box[]>()
  for (const box of boxes) columns.set(box.left, [...(columns.get(box.left) ?? []), box])
  for (const column of columns.values()) {
    const sorted = column.toSorted((a, b) => a.top - b.top)
    for (const [index, box] of sorted.entries()) {
      const next = sorted[index + 1]
      if (next !== undefined) found[`${box.id} -> ${next.id}`] = Math.round(next.top - box.bottom)
    }
  }
  return found
}

/** Fails naming each pair of panels with a gap (or an overlap) between them. */
function expectNoGaps(found: Record<string, number>): void {
  expect(Object.entries(found).filter(([, gap]) => gap < 0 || gap > MOST_GAP)).toEqual([])
}

/** How far the document is wider than the window: 0 when nothing runs off to the side. */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

async function listPets(server: RunningServer, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    expect((await fetch(`${server.apiUrl}/pets?limit=2`, { headers: AUTH })).status).toBe(200)
  }
}

// One browser for the worker's files (support/chromium.ts): this file closes its contexts.
afterAll(closeSharedContexts)

describe.skipIf(!needs('chromium'))("the dashboard's layout in headless Chromium", () => {
  let server: RunningServer
  let browser: Browser

  beforeAll(async () => {
    ;[server, browser] = await Promise.all([startServer({ port: 0 }), sharedChromium()])
  }, 60_000)

  afterAll(async () => {
    await server.close()
  })

  beforeEach(() => server.sandbox.reset())

  async function open(viewport: typeof DESKTOP): Promise<Page> {
    const context = await browser.newContext({ viewport, colorScheme: 'light', reducedMotion: 'reduce' })
    const page = await context.newPage()
    await page.goto(`${server.url}/__sandbox/`)
    await expect.poll(() => page.locator('#pets-body tr').count(), LIVE).toBeGreaterThan(0)
    await expect.poll(() => page.locator('#connection').innerText(), LIVE).toBe('Live updates: on')
    return page
  }

  it('at 1280x900, shows the live journal in the first screen, and no gap in either column, whichever is taller', async () => {
    const page = await open(DESKTOP)
    try {
      expect(await page.locator('#journal-empty').innerText()).toBe('No requests yet.')
      const empty = await panels(page)
      await listPets(server, 6)
      const rows = page.locator('#journal button')
      await expect.poll(() => rows.count(), LIVE).toBe(6)

      // The journal's heading and its rows, newest first, within the first 900 px of the page.
      expect(await page.evaluate(() => scrollY)).toBe(0)
      const heading = await page.locator('#journal-heading').boundingBox()
      const newest = await rows.first().boundingBox()
      const oldest = await rows.last().boundingBox()
      expect(heading?.y).toBeGreaterThan(0)
      expect((newest?.y ?? Infinity) + (newest?.height ?? 0)).toBeLessThan(DESKTOP.height)
      expect((oldest?.y ?? Infinity) + (oldest?.height ?? 0)).toBeLessThan(DESKTOP.height)
      // The data and the controls start in the first screen too, side by side below it.
      const before = await panels(page)
      const byId = (boxes: Box[], id: string) => boxes.find((box) => box.id === id)
      expect(byId(before, 'data-panel')?.top).toBeLessThan(DESKTOP.height)
      expect(byId(before, 'controls-panel')?.top).toBe(byId(before, 'data-panel')?.top)
      expect(byId(before, 'requests-panel')?.bottom).toBeLessThan(byId(before, 'data-panel')?.top ?? 0)
      // The first rows took the place "No requests yet." held: nothing below them moved.
      expect(byId(before, 'data-panel')?.top).toBe(byId(empty, 'data-panel')?.top)

      // The seed's 32 pets: the right column is the taller. Every panel is in a column, and no
      // column has a gap between its panels.
      expect(before.map((box) => box.id).toSorted()).toEqual(
        ['controls-panel', 'data-panel', 'health-panel', 'requests-panel', 'traffic-panel'].toSorted(),
      )
      const shortData = gaps(before)
      expect(Object.keys(shortData).toSorted()).toEqual(
        ['controls-panel -> health-panel', 'health-panel -> traffic-panel', 'requests-panel -> data-panel'].toSorted(),
      )
      expectNoGaps(shortData)

      // Twenty more pets fill a page of 50: the data is now the taller, and still no gap opens
      // between the controls, the health and the chart. The journal took 20 rows more without
      // pushing anything down.
      for (let i = 0; i < 20; i++) {
        const created = await fetch(`${server.apiUrl}/pets`, {
          method: 'POST',
          headers: { ...AUTH, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: `Filler ${i}`, categoryId: 1 }),
        })
        expect(created.status).toBe(201)
      }
      await expect.poll(() => page.locator('#pets-range').innerText(), LIVE).toBe('Rows 1–50 of 52 pets')
      await expect.poll(() => rows.count(), LIVE).toBe(26)
      const after = await panels(page)
      expect(byId(after, 'data-panel')?.bottom).toBeGreaterThan(byId(after, 'traffic-panel')?.bottom ?? Infinity)
      expect(byId(after, 'data-panel')?.top).toBe(byId(before, 'data-panel')?.top)
      expectNoGaps(gaps(after))
      expect(await overflow(page)).toBe(0)
      await screenshot(page, 'layout-dashboard-1280')
    } finally {
      await page.context().close()
    }
  })

  it('on a phone (390x844), reaches the journal from the header, and nothing is wider than the screen', async () => {
    const page = await open(PHONE)
    try {
      await listPets(server, 3)
      const rows = page.locator('#journal button')
      await expect.poll(() => rows.count(), LIVE).toBe(3)
      expect(await page.evaluate(() => scrollY)).toBe(0)
      // Below the first screen at first: the link is what brings it up.
      expect((await page.locator('#requests-panel').boundingBox())?.y).toBeGreaterThan(PHONE.height)

      const link = page.locator('header nav').getByRole('link', { name: 'Requests' })
      expect(await link.getAttribute('href')).toBe('#requests-panel')
      await link.click()
      await expect.poll(() => page.evaluate(() => scrollY), LIVE).toBeGreaterThan(0)
      const heading = await page.locator('#journal-heading').boundingBox()
      const newest = await rows.first().boundingBox()
      expect(heading?.y).toBeGreaterThanOrEqual(0)
      expect((newest?.y ?? Infinity) + (newest?.height ?? 0)).toBeLessThanOrEqual(PHONE.height)

      // A request's details shown, a long path in the journal: still no sideways scrolling.
      expect((await fetch(`${server.apiUrl}/pets/${'9'.repeat(60)}`, { headers: AUTH })).status).toBe(400)
      await expect.poll(() => rows.count(), LIVE).toBe(4)
      await rows.first().click()
      await expect.poll(() => page.locator('#details-heading').innerText(), LIVE).toMatch(/^Request \d+: GET /)
      expect(await overflow(page)).toBe(0)
      expectNoGaps(gaps(await panels(page)))
      await screenshot(page, 'layout-dashboard-390-journal')
    } finally {
      await page.context().close()
    }
  })
})
