/**
 * examples/browser in a real browser: built with Vite, served on localhost, and driven in
 * Debian's chromium with playwright-core. The sandbox's handlers run in msw's service worker.
 * By default it builds the example against the source; the consumer matrix
 * (scripts/consumer/browser.sh) builds it from the packed tarball with msw 2 or 3 instead and
 * points BROWSER_EXAMPLE_DIST at that build (and BROWSER_EXAMPLE_MSW at its msw's version).
 */
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer, type Server } from 'node:http'
import { extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { build } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { needs } from './support/programs.js'
import { closeSharedContexts, sharedChromium } from './support/chromium.js'

const root = fileURLToPath(new URL('../examples/browser', import.meta.url))
const prebuilt = process.env.BROWSER_EXAMPLE_DIST
const dist = prebuilt ?? join(root, 'dist')
// The msw the build took its service worker from: this repository's, or the consumer project's.
const expectedMsw =
  process.env.BROWSER_EXAMPLE_MSW ?? (createRequire(import.meta.url)('msw/package.json') as { version: string }).version
// Waits for what the page shows, not a pause: the bound only turns a hang into a failure.
const LIVE = { timeout: 10_000, interval: 50 }
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' }

describe.skipIf(!needs('chromium'))('the browser example (setupWorker) in headless Chromium', () => {
  let server: Server
  let url: string
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    if (prebuilt === undefined) await build({ root, configFile: join(root, 'vite.config.ts'), logLevel: 'warn' })
    server = createServer((request, response) => {
      const path = (request.url ?? '/').split('?')[0] ?? '/'
      const file = join(dist, path === '/' ? 'index.html' : path)
      if (!file.startsWith(dist) || !existsSync(file)) {
        response.statusCode = 404
        response.end()
        return
      }
      response.setHeader('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream')
      response.end(readFileSync(file))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`
    browser = await sharedChromium()
    page = await browser.newPage()
    await page.goto(url)
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 })
  }, 120_000)

  afterAll(async () => {
    await closeSharedContexts()
    await new Promise((resolve) => server.close(resolve))
  })

  const items = () => page.locator('#pets li')

  it('runs the service worker of the msw it was built with', async () => {
    const worker = readFileSync(join(dist, 'mockServiceWorker.js'), 'utf8')
    expect(worker).toContain(`const PACKAGE_VERSION = '${expectedMsw}'`)
    const active = await page.evaluate(async () => (await navigator.serviceWorker.ready).active?.scriptURL)
    expect(active).toBe(`${url}mockServiceWorker.js`)
  })

  it('lists the seed', async () => {
    await expect.poll(() => items().count(), LIVE).toBe(32)
    expect(await items().first().innerText()).toBe('#1 Biscuit (category 1, available)')
    expect(await page.locator('#count').innerText()).toBe('32 pets')
  })

  it('shows a created pet', async () => {
    await page.fill('#name', 'Browser Rex')
    await page.selectOption('#status', 'pending')
    await page.click('#create button[type="submit"]')
    await expect.poll(() => items().count(), LIVE).toBe(33)
    expect(await items().last().innerText()).toBe('#33 Browser Rex (category 1, pending)')
  })

  it('shows the 401 for a wrong key', async () => {
    await page.fill('#key', 'wrong-key')
    await page.click('#load')
    await expect.poll(() => page.locator('#error').innerText(), LIVE).toBe('401 unauthorized: API key is not valid')
    await page.fill('#key', 'petstore-sandbox-key')
  })

  it('brings the seed back with reset', async () => {
    await page.click('#reset')
    await expect.poll(() => items().count(), LIVE).toBe(32)
    expect(await page.locator('#error').innerText()).toBe('')
    expect(await page.locator('#pets').innerText()).not.toContain('Browser Rex')
  })
})
