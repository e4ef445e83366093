/**
 * examples/browser as a static demo in a real browser: built with Vite under the sub-path
 * /petstore-demo/, served by a plain static server under that path, and driven in Debian's
 * chromium with playwright-core. The sandbox's handlers run in msw's service worker and its data
 * is kept in the browser (createSandbox({ persist })): real reloads, a real second tab of the same
 * browser context, reset, a changed seed, corrupt storage and the presenter's panel.
 * By default it builds the example against the source; the consumer matrix
 * (scripts/consumer/browser.sh) builds it from the packed tarball with msw 2 or 3 instead and
 * points BROWSER_EXAMPLE_DIST at that build (and BROWSER_EXAMPLE_MSW at its msw's version).
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer, type Server } from 'node:http'
import { extname, join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, BrowserContext, ConsoleMessage, Page } from 'playwright-core'
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
/** The path the demo is served under: the example's vite.config.ts `base`. */
const BASE = '/petstore-demo/'
// Waits for what the page shows, not a pause: the bound only turns a hang into a failure.
const LIVE = { timeout: 10_000, interval: 50 }
const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
}
const SEED = 32

/**
 * A static host as GitHub Pages is one: the build's files under BASE, `BASE` without its slash
 * redirected to it, and nothing else on the origin, so a request the worker did not answer is a
 * 404 the page shows.
 */
function staticHost(): Server {
  return createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/'
    if (path === BASE.slice(0, -1)) {
      response.writeHead(301, { Location: BASE }).end()
      return
    }
    const file = path.startsWith(BASE) ? join(dist, path.slice(BASE.length) || 'index.html') : ''
    if (!file.startsWith(dist + sep) || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404).end()
      return
    }
    response.setHeader('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream')
    response.end(readFileSync(file))
  })
}

/** Every line a page prints to its console, in order: the storage's notices are among them. */
function consoleOf(page: Page): string[] {
  const lines: string[] = []
  page.on('console', (message: ConsoleMessage) => lines.push(message.text()))
  return lines
}

/**
 * Spoils every record the sandbox keeps in this origin's IndexedDB, whatever its layout: a record
 * of a store without a key path becomes text that is no state, one of a store with a key path
 * keeps its key and nothing else.
 */
async function corruptStorage(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const done = (request: IDBRequest | IDBOpenDBRequest) =>
      new Promise<void>((resolve, reject) => {
        request.addEventListener('success', () => {
          resolve()
        })
        request.addEventListener('error', () => {
          reject(request.error ?? new Error('IndexedDB request failed'))
        })
      })
    let spoilt = 0
    for (const { name } of await indexedDB.databases()) {
      if (name === undefined) continue
      const open = indexedDB.open(name)
      await done(open)
      const db = open.result
      const names = [...db.objectStoreNames]
      if (names.length > 0) {
        const transaction = db.transaction(names, 'readwrite')
        for (const storeName of names) {
          const store = transaction.objectStore(storeName)
          const keyPath = store.keyPath
          const cursorRequest = store.openCursor()
          cursorRequest.addEventListener('success', () => {
            const cursor = cursorRequest.result
            if (cursor === null) return
            if (keyPath === null) cursor.update('{"version": "not a state", ')
            else if (typeof keyPath === 'string' && !keyPath.includes('.'))
              cursor.update({ [keyPath]: cursor.primaryKey, spoilt: true })
            spoilt++
            cursor.continue()
          })
        }
        await new Promise<void>((resolve, reject) => {
          transaction.addEventListener('complete', () => {
            resolve()
          })
          transaction.addEventListener('abort', () => {
            reject(transaction.error ?? new Error('transaction aborted'))
          })
        })
      }
      db.close()
    }
    return spoilt
  })
}

// Each test loads the page once or more (a build of about 600 kB, the worker's handshake, the
// stored data): a bound for a hang on a busy 2-core machine, not a speed claim.
describe.skipIf(!needs('chromium'))(
  'the static demo (examples/browser under a sub-path) in headless Chromium',
  { timeout: 60_000 },
  () => {
    let server: Server
    /** The demo's address: `http://127.0.0.1:PORT/petstore-demo/`. */
    let url: string
    let origin: string
    let browser: Browser
    let context: BrowserContext
    let page: Page
    let printed: string[]

    /** Opens `address` in `tab` and waits until the demo has listed its pets and mounted its panel. */
    async function open(tab: Page, address = url): Promise<void> {
      await tab.goto(address)
      await tab.waitForSelector('body[data-ready="true"]', { timeout: 20_000 })
    }

    /** A normal reload (a hard one bypasses the service worker, and msw reloads again). */
    async function reload(tab: Page): Promise<void> {
      await tab.reload()
      await tab.waitForSelector('body[data-ready="true"]', { timeout: 20_000 })
    }

    const items = (tab = page) => tab.locator('#pets li')
    const names = async (tab = page) => (await items(tab).allInnerTexts()).join('\n')

    async function create(tab: Page, name: string): Promise<void> {
      const before = await items(tab).count()
      await tab.fill('#name', name)
      await tab.selectOption('#status', 'pending')
      await tab.click('#create button[type="submit"]')
      await expect.poll(() => items(tab).count(), LIVE).toBe(before + 1)
    }

    beforeAll(async () => {
      if (prebuilt === undefined) await build({ root, configFile: join(root, 'vite.config.ts'), logLevel: 'warn' })
      server = staticHost()
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`
      url = `${origin}${BASE}`
      browser = await sharedChromium()
      // One context is one browser profile: its pages are tabs that share the origin's storage.
      context = await browser.newContext()
      page = await context.newPage()
      printed = consoleOf(page)
      await open(page)
    }, 120_000)

    afterAll(async () => {
      await closeSharedContexts()
      await new Promise((resolve) => server.close(resolve))
    })

    it('registers the service worker of the msw it was built with, under the sub-path', async () => {
      const worker = readFileSync(join(dist, 'mockServiceWorker.js'), 'utf8')
      expect(worker).toContain(`const PACKAGE_VERSION = '${expectedMsw}'`)
      const registration = await page.evaluate(async () => {
        const ready = await navigator.serviceWorker.ready
        return { script: ready.active?.scriptURL, scope: ready.scope }
      })
      expect(registration).toEqual({ script: `${origin}${BASE}mockServiceWorker.js`, scope: url })
      // Nothing but the demo is on the origin: the API is answered in the page, not by a server.
      expect((await fetch(`${origin}/v1/pets`)).status).toBe(404)
    })

    it('redirects the sub-path without its slash to the demo', async () => {
      const tab = await context.newPage()
      await open(tab, url.slice(0, -1))
      expect(tab.url()).toBe(url)
      await tab.close()
    })

    it('lists the seed', async () => {
      await expect.poll(() => items().count(), LIVE).toBe(SEED)
      expect(await items().first().innerText()).toBe('#1 Biscuit (category 1, available)')
      expect(await page.locator('#count').innerText()).toBe(`${SEED} pets`)
    })

    it('shows a created pet', async () => {
      await create(page, 'Browser Rex')
      expect(await items().last().innerText()).toBe('#33 Browser Rex (category 1, pending)')
    })

    it('shows the 401 for a wrong key', async () => {
      await page.fill('#key', 'wrong-key')
      await page.click('#load')
      await expect.poll(() => page.locator('#error').innerText(), LIVE).toBe('401 unauthorized: API key is not valid')
      await page.fill('#key', 'petstore-sandbox-key')
    })

    it('keeps a created pet across a reload', async () => {
      await reload(page)
      // Reloaded under the worker, which answered the first list from the stored data.
      expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(
        `${url}mockServiceWorker.js`,
      )
      expect(await items().count()).toBe(SEED + 1)
      expect(await items().last().innerText()).toBe('#33 Browser Rex (category 1, pending)')
    })

    describe('two tabs', () => {
      let second: Page

      beforeAll(async () => {
        second = await context.newPage()
        await open(second)
      })

      afterAll(async () => {
        // Closed before the storage is spoilt below: an open tab could write its data back.
        await second.close()
      })

      it('shows the second tab the pet made in the first', async () => {
        expect(await items(second).count()).toBe(SEED + 1)
        expect(await items(second).last().innerText()).toBe('#33 Browser Rex (category 1, pending)')
      })

      it("shows a pet made in one tab in the other's next list", async () => {
        await create(second, 'Second Tab Tess')
        await page.click('#load')
        await expect.poll(() => items(page).count(), LIVE).toBe(SEED + 2)
        expect(await items(page).last().innerText()).toBe('#34 Second Tab Tess (category 1, pending)')
      })

      it('gives two creates sent at once from two tabs two ids', async () => {
        await page.fill('#name', 'First Tab Finn')
        await second.fill('#name', 'Second Tab Sam')
        await Promise.all([page.click('#create button[type="submit"]'), second.click('#create button[type="submit"]')])
        // Each tab lists its pets again once its own create is answered; then both are stored.
        await expect.poll(() => items(page).count(), LIVE).toBeGreaterThanOrEqual(SEED + 3)
        await expect.poll(() => items(second).count(), LIVE).toBeGreaterThanOrEqual(SEED + 3)
        await page.click('#load')
        await second.click('#load')
        await expect.poll(() => items(page).count(), LIVE).toBe(SEED + 4)
        await expect.poll(() => items(second).count(), LIVE).toBe(SEED + 4)
        const made = (await items(second).allInnerTexts()).slice(SEED + 2)
        expect(made).toHaveLength(2)
        expect(made).toEqual(
          expect.arrayContaining([
            expect.stringMatching(/^#3[56] First Tab Finn /),
            expect.stringMatching(/^#3[56] Second Tab Sam /),
          ]),
        )
        expect(made[0]?.slice(0, 3)).not.toBe(made[1]?.slice(0, 3))
        expect(await items(page).allInnerTexts()).toEqual(await items(second).allInnerTexts())
      })

      it('resets both tabs, and the next reload, from either', async () => {
        await second.click('#reset')
        await expect.poll(() => items(second).count(), LIVE).toBe(SEED)
        await page.click('#load')
        await expect.poll(() => items(page).count(), LIVE).toBe(SEED)
        expect(await names(page)).not.toContain('Browser Rex')
        await reload(page)
        expect(await items(page).count()).toBe(SEED)
        // The id sequence was reset too.
        await create(page, 'After Reset')
        expect(await items(page).last().innerText()).toBe('#33 After Reset (category 1, pending)')
      })
    })

    it('starts from the seed when the address says ?petstore-reset, and drops the parameter', async () => {
      expect(await items().count()).toBe(SEED + 1)
      await open(page, `${url}?petstore-reset`)
      expect(await items().count()).toBe(SEED)
      await expect.poll(() => page.url(), LIVE).toBe(url)
      // The reset was once: a reload now keeps what is made after it.
      await create(page, 'Kept')
      await reload(page)
      expect(await items().last().innerText()).toBe('#33 Kept (category 1, pending)')
    })

    it('drops the stored data when the seed changed, with one console line', async () => {
      expect(await items().count()).toBe(SEED + 1)
      printed.length = 0
      await open(page, `${url}?fixtures=small-seed.json`)
      expect(await items().allInnerTexts()).toEqual([
        '#1 Pebble (category 1, available)',
        '#2 Moss (category 2, pending)',
        '#3 Juniper (category 3)',
      ])
      expect(printed).toEqual([expect.stringMatching(/^petstore-sandbox: the seed changed/)])
      // The data grown from the new seed is kept as usual.
      await create(page, 'Sprout')
      await reload(page)
      expect(await items().last().innerText()).toBe('#4 Sprout (category 1, pending)')
      // And back to the bundled seed: dropped again, said once again.
      printed.length = 0
      await open(page)
      expect(await items().count()).toBe(SEED)
      expect(printed).toEqual([expect.stringMatching(/^petstore-sandbox: the seed changed/)])
    })

    it('opens the panel with Alt+Shift+P, and its Reset brings back the seed for the page and the next reload', async () => {
      await open(page)
      await create(page, 'Before the panel')
      const reset = page.locator('petstore-sandbox-panel').getByRole('button', { name: 'Reset to the seed' })
      expect(await reset.isVisible()).toBe(false)
      await page.keyboard.press('Alt+Shift+P')
      await reset.waitFor({ state: 'visible', timeout: LIVE.timeout })
      await reset.click()
      // The example's onChange lists the pets again.
      await expect.poll(() => items().count(), LIVE).toBe(SEED)
      await page.keyboard.press('Alt+Shift+P')
      await reset.waitFor({ state: 'hidden', timeout: LIVE.timeout })
      await reload(page)
      expect(await items().count()).toBe(SEED)
    })

    it('downloads its data as a state file', async () => {
      await create(page, 'Exported')
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')])
      expect(download.suggestedFilename()).toBe('petstore-demo.json')
      const state = JSON.parse(readFileSync(await download.path(), 'utf8')) as {
        version: number
        nextId: number
        pets: { name: string }[]
      }
      expect(state.pets).toHaveLength(SEED + 1)
      expect(state.pets.at(-1)?.name).toBe('Exported')
      expect(state.nextId).toBe(SEED + 2)
    })

    it('keeps working in memory over corrupt storage, and says so in one console line', async () => {
      expect(await corruptStorage(page)).toBeGreaterThan(0)
      printed.length = 0
      await reload(page)
      expect(printed).toEqual([expect.stringMatching(/^petstore-sandbox: .*memory/)])
      expect(await page.locator('#error').innerText()).toBe('')
      const listed = await items().count()
      expect(listed).toBeGreaterThanOrEqual(SEED)
      await create(page, 'Still Working')
      expect(await items().last().innerText()).toContain('Still Working')
      // Said once: nothing more for the calls after it.
      expect(printed).toHaveLength(1)
    })
  },
)
