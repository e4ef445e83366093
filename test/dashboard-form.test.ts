/**
 * The dashboard's create form against the API itself: for each value of a table, what the form
 * does in Chromium (creates the pet, or shows problems) must be what POST /v1/pets does with the
 * same value written as JSON by hand: the same pet, or the same problems in the same words.
 */
import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { needs } from './support/programs.js'
import { closeSharedContexts, sharedChromium } from './support/chromium.js'
import { holdRoute } from './support/held-route.js'
import { startServer, type RunningServer } from '../src/server.js'

const KEY = 'petstore-sandbox-key'
const LIVE = { timeout: 10_000, interval: 50 }

interface Row {
  readonly what: string
  readonly name: string
  /** What the user types into the category field. */
  readonly category: string
  /** The body a client would send for it, written here by hand. */
  readonly body: string
}

const json = (name: string, categoryId?: string) =>
  `{"name":${JSON.stringify(name)}${categoryId === undefined ? '' : `,"categoryId":${categoryId}`}}`

const ROWS: readonly Row[] = [
  { what: '1e2, a number in exponent form', name: 'Rex', category: '1e2', body: json('Rex', '1e2') },
  { what: '1.0, an integer with a fraction part', name: 'Rex', category: '1.0', body: json('Rex', '1.0') },
  { what: '-0', name: 'Rex', category: '-0', body: json('Rex', '-0') },
  { what: '2^53', name: 'Rex', category: String(2 ** 53), body: json('Rex', String(2 ** 53)) },
  {
    what: 'a 20-digit number',
    name: 'Rex',
    category: '12345678901234567890',
    body: json('Rex', '12345678901234567890'),
  },
  { what: 'an empty name', name: '', category: '1', body: json('', '1') },
  { what: 'a name of one space', name: ' ', category: '1', body: json(' ', '1') },
  { what: 'a 300-character name', name: 'x'.repeat(300), category: '1', body: json('x'.repeat(300), '1') },
  { what: 'a word for the category', name: 'Rex', category: 'abc', body: json('Rex', '"abc"') },
  { what: 'nothing at all', name: '', category: '', body: json('') },
]

type Outcome = { created: { name: string; categoryId: number } } | { problems: string }

/** The API's answer to the hand-written body. */
async function apiOutcome(server: RunningServer, body: string): Promise<Outcome> {
  const response = await fetch(`${server.apiUrl}/pets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
    body,
  })
  const answer = (await response.json()) as { name: string; categoryId: number; message: string }
  if (response.status === 201) return { created: { name: answer.name, categoryId: answer.categoryId } }
  expect(response.status).toBe(400)
  return { problems: answer.message }
}

/**
 * Until the form has handled its create's answer (list reloaded, name cleared): aria-busy is set on
 * submit, before the request leaves, so this cannot pass too early.
 */
const createHandled = (page: Page) =>
  expect.poll(() => page.locator('#create-form').getAttribute('aria-busy'), LIVE).toBe(null)

/** What the form did: the pet the sandbox holds since, or the problems it shows, in the API's order. */
async function formOutcome(page: Page, server: RunningServer, row: Row): Promise<Outcome> {
  const before = await server.sandbox.pets.count()
  await page.fill('#create-name', row.name)
  await page.fill('#create-category', row.category)
  await page.click('#create-form button[type="submit"]')
  const shown = async () =>
    (await page.locator('#create-name-error, #create-category-error, #create-error').allInnerTexts())
      .map((text) => text.replace(/^Not created: /, '').trim())
      .filter((text) => text !== '')
  await expect
    .poll(async () => (await server.sandbox.pets.count()) > before || (await shown()).length > 0, LIVE)
    .toBe(true)
  // Done with this value before the next row types into the form.
  await createHandled(page)
  const problems = await shown()
  if (problems.length > 0) {
    // Refused by the form itself: nothing went to the API, and the problems sit under their fields.
    expect(server.sandbox.requests.filter({ operation: 'createPet' })).toEqual([])
    expect(await page.locator('#create-error').innerText()).toBe('')
    return { problems: problems.join('; ') }
  }
  const pets = await server.sandbox.pets.list()
  const pet = pets.at(-1)
  return { created: { name: pet?.name ?? '', categoryId: pet?.categoryId ?? Number.NaN } }
}

describe.skipIf(!needs('chromium'))("the dashboard's create form follows the API's rules", () => {
  let server: RunningServer
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    ;[server, browser] = await Promise.all([startServer({ port: 0 }), sharedChromium()])
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    page = await context.newPage()
    await page.goto(`${server.url}/__sandbox/`)
    await page.waitForSelector('#pets-body tr')
  }, 60_000)

  afterAll(async () => {
    await closeSharedContexts()
    await server.close()
  })

  beforeEach(() => server.sandbox.reset())
  // A test that failed while it held a request leaves no route behind for the next one.
  afterEach(() => page.unrouteAll({ behavior: 'ignoreErrors' }))

  it.each(ROWS)('$what: the form does what the API does', async (row) => {
    const api = await apiOutcome(server, row.body)
    // A reset clears the journal too: the form's own requests are all that is recorded next.
    await server.sandbox.reset()
    const form = await formOutcome(page, server, row)
    expect(form).toEqual(api)
  })

  it('takes one create at a time, and keeps a name typed while one is on its way', async () => {
    const held = await holdRoute(page, '**/v1/pets', 'POST')
    try {
      const before = await server.sandbox.pets.count()
      await page.fill('#create-name', 'First')
      await page.fill('#create-category', '1')
      await page.click('#create-submit')
      await held.reached
      expect(await page.locator('#create-form').getAttribute('aria-busy')).toBe('true')
      expect(await page.locator('#create-submit').getAttribute('aria-disabled')).toBe('true')
      // A second press and an Enter while the first is on its way: neither sends.
      await page.click('#create-submit', { force: true })
      await page.fill('#create-name', 'Second')
      await page.press('#create-name', 'Enter')
      held.release()
      await createHandled(page)
      expect(await page.locator('#create-submit').getAttribute('aria-disabled')).toBe('false')
      expect(await page.inputValue('#create-name')).toBe('Second')
      expect(await server.sandbox.pets.count()).toBe(before + 1)
      expect((await server.sandbox.pets.list()).at(-1)?.name).toBe('First')
      expect(server.sandbox.requests.filter({ operation: 'createPet' })).toHaveLength(1)
    } finally {
      await held.stop()
    }
  })

  it('takes values the old hand-written check refused, and refuses what it let through', async () => {
    // The table above holds both sides equal; these pin down which side each value is on, so a
    // form and an API that drifted together would still be caught.
    expect(await apiOutcome(server, json('Rex', '1e2'))).toEqual({ created: { name: 'Rex', categoryId: 100 } })
    expect(await apiOutcome(server, json('Rex', '-0'))).toEqual({ created: { name: 'Rex', categoryId: 0 } })
    expect(await apiOutcome(server, json('Rex', String(2 ** 53)))).toEqual({
      problems: `categoryId must be at most ${Number.MAX_SAFE_INTEGER}, got ${2 ** 53}`,
    })
    expect(await apiOutcome(server, json(''))).toEqual({
      problems: 'name must not be empty; categoryId is required',
    })
  })
})
