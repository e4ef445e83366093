/**
 * `petstore-sandbox/panel` in a real page: the sandbox and the panel bundled with esbuild beside
 * msw's setupWorker, served on loopback under a strict Content-Security-Policy, driven in Debian's
 * Chromium. What a presenter does with it (open and close it from the keyboard, reset, the three
 * scenarios, save and rewind a checkpoint) is checked against the sandbox behind the page: the
 * API's answers over fetch, and the sandbox's own scenario list. Also: a hostile page stylesheet
 * does not hide it, it adds one element and no style to the page, it sends no request of its own,
 * its errors stay in its status line, and axe-core finds nothing in it, light and dark. The
 * options' checks need no browser and run everywhere.
 */
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { checkPanelOptions, parseShortcut } from '../src/browser/panel/panel-options.js'
import { checkPanelSandbox } from '../src/browser/panel/panel-sandbox.js'
import { mountPanel } from '../src/panel.js'
import { createSandbox } from '../src/index.js'
import { closeSharedContexts, sharedChromium } from './support/chromium.js'
import { needs } from './support/programs.js'

const require = createRequire(import.meta.url)
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')
const WORKER = readFileSync(require.resolve('msw/mockServiceWorker.js'), 'utf8')
/** Waits for what the page shows, not a pause: the bound only turns a hang into a failure. */
const LIVE = { timeout: 10_000, interval: 50 }
const KEY = 'petstore-sandbox-key'

/** The demo page: the sandbox behind msw's worker, and the panel (its shortcut from `?shortcut=`). */
const PAGE_SOURCE = `
import { setupWorker } from 'msw/browser'
import { createSandbox } from '../src/index.ts'
import { mountPanel } from '../src/panel.ts'

const sandbox = createSandbox()
await setupWorker(...sandbox.handlers).start({ quiet: true })
const shortcut = new URL(location.href).searchParams.get('shortcut')
const changes = []
const panel = mountPanel(sandbox, {
  ...(shortcut !== null && { shortcut }),
  onChange: (change) => changes.push(change),
})
Object.assign(window, { sandbox, panel, changes })
document.body.dataset.ready = 'true'
`
const HTML = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>A demo with the panel</title></head>
  <body>
    <main><h1>A demo</h1><label>Search <input id="page-field"></label></main>
    <script type="module" src="/page.js"></script>
  </body>
</html>`
/** What a careless page stylesheet does to every button, list and field, and to the panel's host by name. */
const HOSTILE_CSS = `
button, input, section, ul, li, p, h2, petstore-sandbox-panel { display: none !important; visibility: hidden !important; }
* { color: transparent !important; font-size: 2px !important; }
`

describe('the panel options (no browser)', () => {
  const key = (init: KeyboardEventInit & { key: string; code: string }) =>
    ({ altKey: false, shiftKey: false, ctrlKey: false, metaKey: false, ...init }) as unknown as KeyboardEvent

  it('matches Alt+Shift+P by the key, and by the physical key where Alt types another character (macOS: ∏)', () => {
    const { matches, label } = parseShortcut('Alt+Shift+P')
    expect(label).toBe('Alt+Shift+P')
    expect(matches(key({ key: 'P', code: 'KeyP', altKey: true, shiftKey: true }))).toBe(true)
    expect(matches(key({ key: '∏', code: 'KeyP', altKey: true, shiftKey: true }))).toBe(true)
    expect(matches(key({ key: 'P', code: 'KeyP', shiftKey: true }))).toBe(false)
    expect(matches(key({ key: 'P', code: 'KeyP', altKey: true, shiftKey: true, ctrlKey: true }))).toBe(false)
    expect(matches(key({ key: 'O', code: 'KeyO', altKey: true, shiftKey: true }))).toBe(false)
    expect(parseShortcut('ctrl + alt + F9').matches(key({ key: 'F9', code: 'F9', ctrlKey: true, altKey: true }))).toBe(
      true,
    )
    expect(parseShortcut(false).label).toBe('')
  })

  it.each([
    ['P', 'needs Alt, Ctrl or Meta'],
    ['Shift+P', 'needs Alt, Ctrl or Meta'],
    ['Alt+', 'names no key'],
    ['Hyper+P', '"Hyper", which is not Alt, Shift, Ctrl or Meta'],
    [42, 'is not a string'],
  ])('refuses the shortcut %j: it %s', (shortcut, why) => {
    expect(() => parseShortcut(shortcut)).toThrow(TypeError)
    expect(() => parseShortcut(shortcut)).toThrow(why)
  })

  it('refuses an unknown option by name, and an onChange that is not a function', () => {
    expect(() => checkPanelOptions({ shortcut: 'Alt+Shift+P', open: true })).toThrow(
      new TypeError('mountPanel has no option open (it takes shortcut, onChange)'),
    )
    expect(() => checkPanelOptions({ onChange: 'reload' })).toThrow("mountPanel's onChange must be a function")
    expect(() => checkPanelOptions(null)).toThrow("mountPanel's options must be an object")
  })

  it('refuses to mount outside a page, and a sandbox that is not one, with a TypeError naming what is missing', () => {
    expect(() => mountPanel(createSandbox())).toThrow(TypeError)
    expect(() => mountPanel(createSandbox())).toThrow('mountPanel needs a browser page (a document)')
    expect(() => {
      checkPanelSandbox(createSandbox())
    }).not.toThrow()
    expect(() => {
      checkPanelSandbox({ reset: () => undefined, scenarios: { list: () => [] } })
    }).toThrow(
      new TypeError(
        'mountPanel(sandbox) takes the sandbox from createSandbox(); this one has no checkpoint, checkpoints, rewind, scenarios.add, scenarios.clear',
      ),
    )
    expect(() => {
      checkPanelSandbox(undefined)
    }).toThrow('mountPanel(sandbox) takes the sandbox from createSandbox(); got undefined')
  })
})

describe.skipIf(!needs('chromium'))('the panel in a page, in headless Chromium', () => {
  let server: Server
  let origin: string
  let context: BrowserContext
  let page: Page
  const errors: string[] = []
  const requests: string[] = []

  beforeAll(async () => {
    const bundled = await build({
      stdin: {
        contents: PAGE_SOURCE,
        resolveDir: fileURLToPath(new URL('.', import.meta.url)),
        sourcefile: 'panel-page.ts',
        loader: 'ts',
      },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2023',
      // Loaded only for `generate`, which this page does not use: kept out of the bundle.
      external: ['@faker-js/faker'],
      write: false,
      logLevel: 'warning',
    })
    const script = bundled.outputFiles[0]?.text ?? ''
    const files: Record<string, readonly [string, string]> = {
      '/': ['text/html', HTML],
      '/page.js': ['text/javascript', script],
      '/mockServiceWorker.js': ['text/javascript', WORKER],
      '/hostile.css': ['text/css', HOSTILE_CSS],
    }
    server = createServer((request, response) => {
      const file = files[(request.url ?? '/').split('?')[0] ?? '/']
      if (file === undefined) {
        response.statusCode = 404
        response.end()
        return
      }
      response.setHeader('Content-Type', file[0])
      // No inline script or style, as a careful static host sends: the panel's styles still apply.
      // 'unsafe-eval' for zod inside the sandbox, whose one probe of `new Function` (caught) a
      // stricter policy reports as a violation; a page can set zod's `jitless` first instead, as
      // the dashboard does (src/dashboard/jitless.ts).
      response.setHeader('Content-Security-Policy', "default-src 'self'; script-src 'self' 'unsafe-eval'")
      response.end(file[1])
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    context = await (await sharedChromium()).newContext({ colorScheme: 'light' })
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        console.error(`CSP refused ${event.violatedDirective} ${event.blockedURI}`)
      })
    })
    page = await context.newPage()
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`))
    page.on('console', (message) => {
      // Chromium's own line for every 4xx/5xx a fetch gets (the scenarios' 500 and 503) is no error of the panel's.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        errors.push(`console: ${message.text()}`)
    })
    page.on('request', (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`))
  }, 60_000)

  afterAll(async () => {
    await closeSharedContexts()
    await new Promise((resolve) => server.close(resolve))
  })

  /** A fresh page, so a fresh sandbox: every test starts from the seed, closed panel, no checkpoint. */
  async function load(query = ''): Promise<void> {
    await page.emulateMedia({ colorScheme: 'light' })
    await page.goto(`${origin}/${query}`)
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 })
    requests.splice(0)
  }

  beforeEach(() => load())

  afterEach(() => {
    // Nothing the panel did threw into the page, and the page's policy refused nothing of it.
    expect(errors.splice(0)).toEqual([])
  })

  const dialog = () => page.getByRole('dialog', { name: 'Pet Store sandbox' })
  const button = (name: string) => dialog().getByRole('button', { name, exact: true })
  const statusLine = () => dialog().getByRole('status')
  /** The element focused inside the panel's shadow root: its text, or undefined when focus is elsewhere. */
  const focusedInPanel = () =>
    page.evaluate(() => document.querySelector('petstore-sandbox-panel')?.shadowRoot?.activeElement?.textContent)

  async function open(): Promise<void> {
    await page.keyboard.press('Alt+Shift+P')
    await dialog().waitFor({ state: 'visible', timeout: LIVE.timeout })
  }

  /** Waits for the status line to say `text` (each action writes it once, when it is done). */
  async function said(text: string): Promise<void> {
    await expect.poll(() => statusLine().innerText(), LIVE).toBe(text)
  }

  /** One call of the API from the page, through msw's worker: its status and its body. */
  const call = (method: 'GET' | 'POST', path: string, body?: object) =>
    page.evaluate(
      async ({ method, path, body, key }) => {
        const response = await fetch(path, {
          method,
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        })
        return { status: response.status, body: (await response.json()) as unknown }
      },
      { method, path, body, key: KEY },
    )
  const petNames = async () => {
    const { status, body } = await call('GET', '/v1/pets?limit=100')
    expect(status).toBe(200)
    return (body as { name: string }[]).map((pet) => pet.name)
  }
  const createPet = async (name: string) => (await call('POST', '/v1/pets', { name, categoryId: 1 })).status
  const scenarios = () =>
    page.evaluate(() => (window as unknown as { sandbox: ReturnType<typeof createSandbox> }).sandbox.scenarios.list())
  const changes = () => page.evaluate(() => (window as unknown as { changes: string[] }).changes)

  it('opens closed on Alt+Shift+P with focus inside, and Escape closes it and gives focus back', async () => {
    expect(await dialog().isVisible()).toBe(false)
    await page.focus('#page-field')
    await open()
    expect(await focusedInPanel()).toBe('Close')
    await page.keyboard.press('Tab')
    expect(await focusedInPanel()).toBe('Reset to the seed')
    await page.keyboard.press('Escape')
    await dialog().waitFor({ state: 'hidden', timeout: LIVE.timeout })
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('page-field')
    // The shortcut toggles, and the Close button closes too.
    await open()
    await page.keyboard.press('Alt+Shift+P')
    await dialog().waitFor({ state: 'hidden', timeout: LIVE.timeout })
    await open()
    await page.keyboard.press('Enter')
    await dialog().waitFor({ state: 'hidden', timeout: LIVE.timeout })
  })

  it('opens on the shortcut the page chose instead', async () => {
    await load(`?shortcut=${encodeURIComponent('Ctrl+Alt+K')}`)
    await page.keyboard.press('Alt+Shift+P')
    expect(await dialog().isVisible()).toBe(false)
    await page.keyboard.press('Control+Alt+KeyK')
    await dialog().waitFor({ state: 'visible', timeout: LIVE.timeout })
    expect(await dialog().innerText()).toContain('Ctrl+Alt+K opens and closes this panel; Escape closes it.')
  })

  it('brings the seed back with Reset', async () => {
    const seed = await petNames()
    expect(await createPet('Panel Rex')).toBe(201)
    expect(await petNames()).toHaveLength(seed.length + 1)
    await open()
    await button('Reset to the seed').click()
    await said('Reset: the seed is back, and no scenario is left.')
    expect(await petNames()).toEqual(seed)
    expect(await changes()).toEqual(['reset'])
  })

  it('makes the next createPet answer 503 and the one after 201', async () => {
    await open()
    await button('Next createPet fails with 503').click()
    await said('Scenario added: Next createPet fails with 503.')
    expect(await scenarios()).toEqual([{ id: 1, operation: 'createPet', status: 503, remaining: 1 }])
    expect(await dialog().getByRole('list', { name: 'Active scenarios' }).innerText()).toBe(
      'createPet fails with 503, for the next 1 call',
    )
    expect(await createPet('Too soon')).toBe(503)
    expect(await createPet('In time')).toBe(201)
    expect(await scenarios()).toEqual([])
    expect(await changes()).toEqual(['scenarios'])
  })

  it('slows listPets by 2 s until cleared, and fails every call with 500 until cleared', async () => {
    await open()
    await button('listPets slow by 2 s').click()
    await said('Scenario added: listPets slow by 2 s.')
    await button('Every call fails with 500').click()
    await said('Scenario added: Every call fails with 500.')
    expect(await scenarios()).toEqual([
      { id: 1, operation: 'listPets', delayMs: 2000 },
      { id: 2, operation: '*', status: 500 },
    ])
    expect(await dialog().getByRole('list', { name: 'Active scenarios' }).innerText()).toBe(
      'listPets waits 2 s, until cleared\nEvery call fails with 500, until cleared',
    )
    // The first scenario that matches is used: a create meets the outage.
    expect(await createPet('During the outage')).toBe(500)
    await button('Clear scenarios').click()
    await said('Scenarios cleared: every call is answered normally.')
    expect(await scenarios()).toEqual([])
    expect(await createPet('After the outage')).toBe(201)
    expect(await dialog().getByRole('list', { name: 'Active scenarios' }).innerText()).toBe(
      'No scenarios: every call is answered normally.',
    )
  })

  it('saves a checkpoint and rewinds to it: a pet made since is gone', async () => {
    const seed = await petNames()
    await open()
    await dialog().getByLabel('Checkpoint name').fill('before-demo')
    await page.keyboard.press('Enter')
    await said(`Checkpoint before-demo saved (${seed.length} pets).`)
    const list = dialog().getByRole('list', { name: 'Saved checkpoints' })
    await expect.poll(() => list.innerText(), LIVE).toMatch(new RegExp(`^before-demo \\(${seed.length} pets, `))
    expect(await createPet('Made after the checkpoint')).toBe(201)
    expect(await petNames()).toContain('Made after the checkpoint')
    await dialog().getByRole('button', { name: 'Rewind to before-demo' }).click()
    await said('Rewound to before-demo.')
    expect(await petNames()).toEqual(seed)
    expect(await changes()).toEqual(['checkpoint', 'rewind'])
  })

  it('sends no request of its own: every action is a call on the sandbox in the page', async () => {
    await open()
    await button('Reset to the seed').click()
    await said('Reset: the seed is back, and no scenario is left.')
    await button('listPets slow by 2 s').click()
    await said('Scenario added: listPets slow by 2 s.')
    await button('Clear scenarios').click()
    await said('Scenarios cleared: every call is answered normally.')
    await dialog().getByLabel('Checkpoint name').fill('quiet')
    await button('Save checkpoint').click()
    await said('Checkpoint quiet saved (32 pets).')
    await dialog().getByRole('button', { name: 'Rewind to quiet' }).click()
    await said('Rewound to quiet.')
    expect(requests).toEqual([])
  })

  it('shows what went wrong in its status line, and throws nothing into the page', async () => {
    await open()
    await button('Save checkpoint').click()
    await said('Could not save the checkpoint: give it a name first, like before-demo')
    expect(await statusLine().getAttribute('data-kind')).toBe('error')
    await dialog().getByLabel('Checkpoint name').fill('two words')
    await button('Save checkpoint').click()
    await expect
      .poll(() => statusLine().innerText(), LIVE)
      .toMatch(/^Could not save the checkpoint: name must be .*, got "two words"$/)
    await dialog().getByLabel('Checkpoint name').fill('taken')
    await button('Save checkpoint').click()
    await said('Checkpoint taken saved (32 pets).')
    expect(await statusLine().getAttribute('data-kind')).toBe('done')
    await button('Save checkpoint').click()
    await said('Could not save the checkpoint: taken exists already; choose another name, or rewind to it below')
    // Deleted behind the panel's back: its Rewind button is still there until the list is read again.
    await page.evaluate(() =>
      (window as unknown as { sandbox: ReturnType<typeof createSandbox> }).sandbox.deleteCheckpoint('taken'),
    )
    await dialog().getByRole('button', { name: 'Rewind to taken' }).click()
    await said('Could not rewind to taken: Checkpoint "taken" does not exist. No checkpoint is saved.')
    // The list is read again after every action, failed ones too.
    await expect
      .poll(() => dialog().getByRole('list', { name: 'Saved checkpoints' }).innerText(), LIVE)
      .toBe('No checkpoints yet.')
  })

  it("keeps its buttons in sight under the page's own CSS, and adds one element and no style to the page", async () => {
    const added = await page.evaluate(() => ({
      elements: [...document.body.children].map((element) => element.localName),
      styles: document.querySelectorAll('style, link[rel="stylesheet"]').length,
      adopted: document.adoptedStyleSheets.length,
    }))
    expect(added).toEqual({ elements: ['main', 'script', 'petstore-sandbox-panel'], styles: 0, adopted: 0 })
    await page.addStyleTag({ url: '/hostile.css' })
    expect(await page.locator('#page-field').isVisible()).toBe(false)
    await open()
    const buttons = await dialog().getByRole('button').all()
    expect(buttons.length).toBeGreaterThanOrEqual(6)
    for (const each of buttons) expect(await each.isVisible()).toBe(true)
    expect(await dialog().getByLabel('Checkpoint name').isVisible()).toBe(true)
    const look = await button('Reset to the seed').evaluate((element) => {
      const style = getComputedStyle(element)
      return { color: style.color, fontSize: style.fontSize }
    })
    expect(look.fontSize).toBe('14px')
    expect(look.color).not.toBe('rgba(0, 0, 0, 0)')
  })

  it('is gone with unmount(), its shortcut too', async () => {
    await page.evaluate(() => {
      ;(window as unknown as { panel: { unmount(): void } }).panel.unmount()
    })
    expect(await page.locator('petstore-sandbox-panel').count()).toBe(0)
    await page.keyboard.press('Alt+Shift+P')
    expect(await page.evaluate(() => (window as unknown as { panel: { isOpen: () => boolean } }).panel.isOpen())).toBe(
      false,
    )
    expect(await page.locator('petstore-sandbox-panel').count()).toBe(0)
  })

  it('has no axe-core violation, open with a scenario, a checkpoint and an error shown, light and dark', async () => {
    await open()
    await button('listPets slow by 2 s').click()
    await said('Scenario added: listPets slow by 2 s.')
    await dialog().getByLabel('Checkpoint name').fill('before-demo')
    await button('Save checkpoint').click()
    await said('Checkpoint before-demo saved (32 pets).')
    await button('Save checkpoint').click()
    await expect.poll(() => statusLine().getAttribute('data-kind'), LIVE).toBe('error')
    await page.evaluate(AXE)
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme })
      const violations = await page.evaluate(async () => {
        const { axe } = window as unknown as {
          axe: { run(context: Element): Promise<{ violations: { id: string; help: string; nodes: unknown[] }[] }> }
        }
        const host = document.querySelector('petstore-sandbox-panel')
        if (host === null) throw new Error('no panel')
        return (await axe.run(host)).violations.map(({ id, help, nodes }) => `${id}: ${help} (${nodes.length})`)
      })
      expect(violations, colorScheme).toEqual([])
    }
  })
})
