/**
 * The Controls panel's checkpoints in Chromium, each step checked against the sandbox behind the
 * page: save after a pet made through the API, rewind through the inline confirm step (the API
 * and the Data panel then hold the first state), the API's 409 with "Replace it" and its 400,
 * both under the name field, delete, a checkpoint saved elsewhere arriving live, axe with
 * checkpoints listed and a confirm step open, one save at a time, and, under --isolate, one
 * tenant's checkpoints.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { needs } from './support/programs.js'
import { closeSharedContexts, sharedChromium } from './support/chromium.js'
import { holdRoute } from './support/held-route.js'
import { startServer, type RunningServer } from '../src/server.js'

const KEY = 'petstore-sandbox-key'
const JSON_TYPE = { 'Content-Type': 'application/json' }
/** How long the page may take to show what the sandbox did (live events, throttled reloads). */
const LIVE = { timeout: 10_000, interval: 50 }
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

interface Summary {
  name: string
  savedAt: string
  pets: number
  nextId: number
  scenarios: boolean
}

interface AxeViolation {
  id: string
  impact?: string | null
  help: string
  nodes: { target: unknown[] }[]
}

async function createPet(server: RunningServer, name: string, key = KEY): Promise<void> {
  const response = await fetch(`${server.apiUrl}/pets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, ...JSON_TYPE },
    body: JSON.stringify({ name, categoryId: 1 }),
  })
  expect(response.status).toBe(201)
}

async function listed(server: RunningServer, key?: string): Promise<Summary[]> {
  const headers = key === undefined ? undefined : { Authorization: `Bearer ${key}` }
  const response = await fetch(`${server.url}/__sandbox/checkpoints`, { ...(headers && { headers }) })
  expect(response.status).toBe(200)
  return (await response.json()) as Summary[]
}

/** What the API answers a save made by hand: its status and message (a refusal changes nothing). */
async function refusal(server: RunningServer, body: object): Promise<{ status: number; message: string }> {
  const response = await fetch(`${server.url}/__sandbox/checkpoints`, {
    method: 'POST',
    headers: JSON_TYPE,
    body: JSON.stringify(body),
  })
  return { status: response.status, message: ((await response.json()) as { message: string }).message }
}

async function petNames(server: RunningServer, key = KEY): Promise<string[]> {
  const response = await fetch(`${server.apiUrl}/pets?limit=100`, { headers: { Authorization: `Bearer ${key}` } })
  expect(response.status).toBe(200)
  return ((await response.json()) as { name: string }[]).map((pet) => pet.name)
}

async function axeViolations(page: Page): Promise<string[]> {
  // A table reloading (aria-busy) is rebuilt from its answer: axe runs once none is reloading.
  await page.waitForFunction(() => document.querySelector('[aria-busy="true"]') === null)
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE)
  const violations = await page.evaluate(async () => {
    const { axe } = window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }
    return (await axe.run()).violations
  })
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(({ id, help, nodes }) => `${id}: ${help} at ${JSON.stringify(nodes.map((node) => node.target))}`)
}

/** The time the page shows for a checkpoint: the browser's local time of `savedAt`. */
const timeIn = (page: Page, iso: string) =>
  page.evaluate((at) => new Date(at).toLocaleTimeString('en-GB', { hour12: false }), iso)

const rangeOf = (page: Page) => page.locator('#pets-range').innerText()
const rowsOf = (page: Page) => page.locator('#checkpoints li').allInnerTexts()
const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? '')
/**
 * Until the page has handled its save's answer (the form's aria-busy gone). The list may show the
 * checkpoint sooner, from the live event; a press before then is ignored, and the answer's
 * handler may still empty the field or move the focus.
 */
const saveHandled = (page: Page) =>
  expect.poll(() => page.locator('#checkpoint-form').getAttribute('aria-busy'), LIVE).toBe(null)

/**
 * The dashboard, freshly loaded: in `reused`, the page of the last test (a new document, light
 * theme; a reload costs Chromium about half of a new context and page), or in a page of its own.
 */
async function openDashboard(browser: Browser, server: RunningServer, reused?: Page): Promise<Page> {
  const page =
    reused ??
    (await (await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' })).newPage())
  await page.emulateMedia({ colorScheme: 'light' })
  await page.goto(`${server.url}/__sandbox/`)
  await expect.poll(() => page.locator('#connection').innerText(), LIVE).toBe('Live updates: on')
  await expect.poll(() => rowsOf(page), LIVE).toEqual(['No checkpoints yet.'])
  return page
}

// One browser for the worker's files (support/chromium.ts): this file closes its contexts.
afterAll(closeSharedContexts)

describe.skipIf(!needs('chromium'))('checkpoints in the dashboard', () => {
  let server: RunningServer
  let browser: Browser
  let page: Page | undefined

  beforeAll(async () => {
    ;[server, browser] = await Promise.all([startServer({ port: 0 }), sharedChromium()])
  }, 60_000)

  afterAll(async () => {
    await page?.context().close()
    await server.close()
  })

  // A reset keeps checkpoints: each test starts without any all the same.
  beforeEach(async () => {
    await server.sandbox.reset()
    for (const { name } of await listed(server)) {
      expect((await fetch(`${server.url}/__sandbox/checkpoints/${name}`, { method: 'DELETE' })).status).toBe(204)
    }
  })

  // A test that failed while it held a request leaves no route behind for the next one.
  afterEach(() => page?.unrouteAll({ behavior: 'ignoreErrors' }))

  it('saves, rewinds through a confirm step, replaces after a 409, shows a 400 and deletes', async () => {
    await createPet(server, 'Kept by the checkpoint')
    page = await openDashboard(browser, server, page)
    await expect.poll(() => rangeOf(page as Page), LIVE).toBe('Rows 1–33 of 33 pets')
    const name = page.getByLabel('Save as…')
    const save = page.getByRole('button', { name: 'Save', exact: true })
    const problem = page.locator('#checkpoint-name-error')

    // Save.
    await name.fill('before-checkout')
    await save.click()
    // The message shows for 5 s: looked for at once.
    await expect
      .poll(() => page?.locator('#status').innerText(), LIVE)
      .toBe('Saved checkpoint before-checkout: 33 pets.')
    await expect.poll(() => listed(server), LIVE).toEqual([expect.objectContaining({ name: 'before-checkout' })])
    const [first] = await listed(server)
    expect(first).toMatchObject({ pets: 33, nextId: 34, scenarios: false })
    const savedAt = await timeIn(page, first?.savedAt ?? '')
    await expect.poll(() => rowsOf(page as Page), LIVE).toEqual([expect.stringContaining('before-checkout')])
    expect((await rowsOf(page))[0]).toContain(`saved ${savedAt}, 33 pets`)
    expect((await rowsOf(page))[0]).not.toContain('with scenarios')
    await saveHandled(page)
    expect(await name.inputValue()).toBe('')

    // Another pet, then a rewind: nothing happens before the confirmation.
    await createPet(server, 'Made after the checkpoint')
    await expect.poll(() => rangeOf(page as Page), LIVE).toBe('Rows 1–34 of 34 pets')
    await page.getByRole('button', { name: 'Rewind to before-checkout' }).click()
    const row = page.locator('#checkpoints li.confirming')
    expect(await row.locator('p').innerText()).toBe(`Rewind to before-checkout? The data goes back to ${savedAt}.`)
    expect(await focusedText(page)).toBe('Rewind')
    expect(await page.getByRole('button', { name: 'Rewind to before-checkout' }).count()).toBe(0)
    expect(await server.sandbox.pets.count()).toBe(34)
    expect(await axeViolations(page)).toEqual([])
    await row.getByRole('button', { name: 'Rewind', exact: true }).click()
    // The message shows for 5 s: looked for at once.
    await expect
      .poll(() => page?.locator('#status').innerText(), LIVE)
      .toBe(`The data is rewound to before-checkout, as saved at ${savedAt}.`)

    await expect.poll(() => server.sandbox.pets.count(), LIVE).toBe(33)
    const names = await petNames(server)
    expect(names).toHaveLength(33)
    expect(names.at(-1)).toBe('Kept by the checkpoint')
    await expect.poll(() => rangeOf(page as Page), LIVE).toBe('Rows 1–33 of 33 pets')
    expect(await page.locator('#pets-body').innerText()).toContain('Kept by the checkpoint')
    expect(await page.locator('#pets-body').innerText()).not.toContain('Made after the checkpoint')
    expect(await row.count()).toBe(0)
    await expect.poll(() => focusedText(page as Page), LIVE).toBe('Rewind to before-checkout')
    expect(await rowsOf(page)).toEqual([expect.stringContaining('33 pets')])

    // The same name again: the API's 409 under the field, and "Replace it" saves over it.
    const conflict = await refusal(server, { name: 'before-checkout' })
    expect(conflict.status).toBe(409)
    await name.fill('before-checkout')
    await save.click()
    await expect.poll(() => problem.innerText(), LIVE).toBe(conflict.message)
    expect(await name.getAttribute('aria-invalid')).toBe('true')
    const replace = page.getByRole('button', { name: 'Replace it' })
    expect(await replace.isVisible()).toBe(true)
    await createPet(server, 'Saved by the replacement')
    await expect.poll(() => rangeOf(page as Page), LIVE).toBe('Rows 1–34 of 34 pets')
    await replace.click()
    await expect.poll(async () => (await listed(server))[0]?.pets, LIVE).toBe(34)
    expect(await listed(server)).toHaveLength(1)
    await expect.poll(() => rowsOf(page as Page), LIVE).toEqual([expect.stringContaining('34 pets')])
    await saveHandled(page)
    expect(await problem.innerText()).toBe('')
    expect(await replace.isHidden()).toBe(true)
    expect(await name.getAttribute('aria-invalid')).toBeNull()

    // A name the API refuses: its 400 under the field, the field focused.
    const invalid = await refusal(server, { name: '-not a name' })
    expect(invalid.status).toBe(400)
    await name.fill('-not a name')
    await save.click()
    await expect.poll(() => problem.innerText(), LIVE).toBe(invalid.message)
    expect(await name.getAttribute('aria-invalid')).toBe('true')
    expect(await replace.isHidden()).toBe(true)
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('checkpoint-name')
    expect(await listed(server)).toHaveLength(1)
    expect(await name.evaluate((input) => input.getAttribute('aria-describedby'))).toContain('checkpoint-name-error')

    // Delete: Cancel first keeps it, then the confirmation deletes it.
    await page.getByRole('button', { name: 'Delete before-checkout' }).click()
    expect(await row.locator('p').innerText()).toBe('Delete before-checkout? It cannot be undone.')
    await page.keyboard.press('Escape')
    expect(await row.count()).toBe(0)
    expect(await focusedText(page)).toBe('Delete before-checkout')
    await page.getByRole('button', { name: 'Delete before-checkout' }).click()
    await row.getByRole('button', { name: 'Delete', exact: true }).click()
    await expect.poll(() => listed(server), LIVE).toEqual([])
    await expect.poll(() => rowsOf(page as Page), LIVE).toEqual(['No checkpoints yet.'])
    expect(await server.sandbox.pets.count()).toBe(34)
  })

  it('saves one checkpoint at a time, and keeps a name typed while one is on its way, unmarked by a refusal of the one sent', async () => {
    page = await openDashboard(browser, server, page)
    const form = page.locator('#checkpoint-form')
    const name = page.getByLabel('Save as…')
    const held = await holdRoute(page, '**/__sandbox/checkpoints', 'POST')
    try {
      await name.fill('first')
      await page.click('#checkpoint-save')
      await held.reached
      expect(await form.getAttribute('aria-busy')).toBe('true')
      expect(await page.locator('#checkpoint-save').getAttribute('aria-disabled')).toBe('true')
      // A second press and an Enter while the first is on its way: neither sends.
      await page.click('#checkpoint-save', { force: true })
      await name.fill('second')
      await name.press('Enter')
      held.release()
      await saveHandled(page)
      expect(await page.locator('#checkpoint-save').getAttribute('aria-disabled')).toBe('false')
      expect(await name.inputValue()).toBe('second')
      expect((await listed(server)).map((checkpoint) => checkpoint.name)).toEqual(['first'])
      await expect.poll(() => rowsOf(page as Page), LIVE).toEqual([expect.stringContaining('first')])
    } finally {
      await held.stop()
    }

    // Refused for the name sent (taken: 409) after another was typed: the problem shows, but the
    // new name is neither marked nor offered to replace.
    const conflict = await refusal(server, { name: 'first' })
    expect(conflict.status).toBe(409)
    const again = await holdRoute(page, '**/__sandbox/checkpoints', 'POST')
    try {
      await name.fill('first')
      await page.click('#checkpoint-save')
      await again.reached
      await name.fill('third')
      again.release()
      await expect.poll(() => page?.locator('#checkpoint-name-error').innerText(), LIVE).toBe(conflict.message)
      await saveHandled(page)
      expect(await name.getAttribute('aria-invalid')).toBeNull()
      expect(await page.getByRole('button', { name: 'Replace it' }).isHidden()).toBe(true)
      expect(await name.inputValue()).toBe('third')
    } finally {
      await again.stop()
    }
  })

  it('lists a checkpoint saved elsewhere as it is saved, with its scenarios, and passes axe in both themes', async () => {
    page = await openDashboard(browser, server, page)
    server.sandbox.scenarios.add({ operation: 'getPet', status: 404, times: 2 })
    for (const body of [{ name: 'take.1' }, { name: 'with_scenarios', scenarios: true }]) {
      const response = await fetch(`${server.url}/__sandbox/checkpoints`, {
        method: 'POST',
        headers: JSON_TYPE,
        body: JSON.stringify(body),
      })
      expect(response.status).toBe(201)
    }
    await expect
      .poll(() => rowsOf(page as Page), LIVE)
      .toEqual([expect.stringContaining('take.1'), expect.stringContaining('with_scenarios')])
    const rows = await rowsOf(page)
    expect(rows[0]).toContain('32 pets')
    expect(rows[0]).not.toContain('with scenarios')
    expect(rows[1]).toContain('32 pets, with scenarios')

    // Rewinding to one saved with scenarios brings them back, and says so first.
    server.sandbox.scenarios.clear()
    await page.getByRole('button', { name: 'Rewind to with_scenarios' }).click()
    expect(await page.locator('#checkpoints li.confirming p').innerText()).toMatch(
      /^Rewind to with_scenarios\? The data and the scenarios go back to /,
    )
    // The rewind's change event reloads the table (aria-busy while it does): its answer is awaited.
    const reloaded = page.waitForResponse((response) => response.url().includes('/__sandbox/pets?'))
    await page.locator('#checkpoints li.confirming').getByRole('button', { name: 'Rewind', exact: true }).click()
    await expect
      .poll(() => page?.locator('#scenarios li').allInnerTexts(), LIVE)
      .toEqual(['getPet fails with 404, for the next 2 calls'])
    await reloaded

    // The rewind's new rows fade in: axe reads colours once they have settled.
    await page.waitForFunction(() => document.getAnimations().length === 0)
    expect(await axeViolations(page)).toEqual([])
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.waitForFunction(() => document.getAnimations().length === 0)
    expect(await axeViolations(page)).toEqual([])

    // Deleted elsewhere: gone from the list too.
    const gone = await fetch(`${server.url}/__sandbox/checkpoints/take.1`, { method: 'DELETE' })
    expect(gone.status).toBe(204)
    await expect.poll(() => rowsOf(page as Page), LIVE).toEqual([expect.stringContaining('with_scenarios')])
  })
})

describe.skipIf(!needs('chromium'))('checkpoints in the dashboard under --isolate', () => {
  const WORKER = 'worker-secret-7'
  let server: RunningServer
  let browser: Browser
  let page: Page | undefined

  beforeAll(async () => {
    // Isolated mode warns on start that any key is accepted.
    vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    ;[server, browser] = await Promise.all([startServer({ port: 0, isolate: true }), sharedChromium()])
  }, 60_000)

  afterAll(async () => {
    await page?.context().close()
    await server.close()
    vi.restoreAllMocks()
  })

  it("lists and rewinds the shown tenant's checkpoints only", async () => {
    // The default key's tenant exists first, so the page opens on it.
    expect((await fetch(`${server.apiUrl}/pets`, { headers: { Authorization: `Bearer ${KEY}` } })).status).toBe(200)
    await createPet(server, 'Only for the worker', WORKER)
    const saved = await fetch(`${server.url}/__sandbox/checkpoints`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${WORKER}`, ...JSON_TYPE },
      body: JSON.stringify({ name: 'worker-start' }),
    })
    expect(saved.status).toBe(201)
    expect(await listed(server, KEY)).toEqual([])

    page = await openDashboard(browser, server)
    const tenant = page.getByLabel('Tenant', { exact: true })
    await expect.poll(() => tenant.isVisible(), LIVE).toBe(true)
    expect(await rowsOf(page)).toEqual(['No checkpoints yet.'])

    await tenant.selectOption({ label: 'work********-7 (15 characters)' })
    await expect.poll(() => rowsOf(page as Page), LIVE).toEqual([expect.stringContaining('worker-start')])
    expect((await rowsOf(page))[0]).toContain('33 pets')

    await createPet(server, 'Made after the worker checkpoint', WORKER)
    await expect.poll(() => rangeOf(page as Page), LIVE).toBe('Rows 1–34 of 34 pets')
    await createPet(server, 'The default key’s own')
    await page.getByRole('button', { name: 'Rewind to worker-start' }).click()
    await page.locator('#checkpoints li.confirming').getByRole('button', { name: 'Rewind', exact: true }).click()
    await expect.poll(() => server.sandbox.tenant(WORKER).count(), LIVE).toBe(33)
    expect((await petNames(server, WORKER)).at(-1)).toBe('Only for the worker')
    expect(await server.sandbox.tenant(KEY).count()).toBe(33)
    await expect.poll(() => rangeOf(page as Page), LIVE).toBe('Rows 1–33 of 33 pets')
    await expect
      .poll(() => page?.locator('#status').innerText(), LIVE)
      .toMatch(/^The data of work\*{8}-7 \(15 characters\) is rewound to worker-start, as saved at /)

    // Saved from the page for the tenant shown: the worker's, not the default key's.
    await page.getByLabel('Save as…').fill('from-the-page')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await expect
      .poll(async () => (await listed(server, WORKER)).map((c) => c.name), LIVE)
      .toEqual(['worker-start', 'from-the-page'])
    expect(await listed(server, KEY)).toEqual([])

    await tenant.selectOption({ label: 'default' })
    await expect.poll(() => rowsOf(page as Page), LIVE).toEqual(['No checkpoints yet.'])
  })
})
