// Writes docs/dashboard.png: the dashboard of the current build (dist/, so run `npm run build`
// first), 1280 px wide in the light theme, after a few requests so that the journal, the chart and
// a request's details have something to show (a list, two 201 creates, a 404, a 401 and a 503 from
// a scenario). The sandbox listens on 127.0.0.1 on a free port, and Debian's chromium is driven by
// playwright-core with the flags the tests and the bench share (test/support/chromium-flags.json):
// no network is needed.
/* global document -- in page.evaluate, which runs in the page */
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import FLAGS from '../test/support/chromium-flags.json' with { type: 'json' }

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const OUT = fileURLToPath(new URL('../docs/dashboard.png', import.meta.url))
const SERVER = new URL('../dist/src/server.js', import.meta.url)
const KEY = 'petstore-sandbox-key'

if (!existsSync(SERVER)) throw new Error('No dist/src/server.js: run "npm run build" first')
if (!existsSync(CHROMIUM)) {
  throw new Error(`No Chromium at ${CHROMIUM}: run "apt-get install -y chromium" or set CHROMIUM_PATH`)
}
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const { startServer } = await import(SERVER.href)

const server = await startServer({ port: 0 })
const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS })
try {
  const api = (path, init = {}) =>
    fetch(`${server.apiUrl}${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json', ...init.headers },
    })
  const create = (pet) => api('/pets', { method: 'POST', body: JSON.stringify(pet) })
  // Spread over a few seconds, so the chart has more than one bar.
  const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)))
  const groups = [
    () => api('/pets?limit=5&status=available'),
    async () => {
      // A rehearsal's point to rewind to: the Controls panel lists it.
      await server.sandbox.checkpoint('before-checkout')
      return create({ name: 'Mochi', categoryId: 2, status: 'available' })
    },
    () => api('/pets/404'),
    () => fetch(`${server.apiUrl}/pets`),
    () => {
      server.sandbox.scenarios.add({ operation: 'createPet', status: 503, times: 1 })
      return create({ name: 'Refused', categoryId: 1 })
    },
    () => create({ name: 'Sprocket', categoryId: 1 }),
  ]
  const statuses = []
  for (const send of groups) {
    statuses.push((await send()).status)
    await nextSecond()
  }
  const expected = [200, 201, 404, 401, 503, 201]
  if (JSON.stringify(statuses) !== JSON.stringify(expected)) {
    throw new Error(`The requests answered ${statuses.join(', ')}, not ${expected.join(', ')}`)
  }

  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    colorScheme: 'light',
    reducedMotion: 'reduce',
  })
  const page = await context.newPage()
  await page.goto(`${server.url}/__sandbox/`)
  await page.locator('#pets-range', { hasText: 'Rows 1–34 of 34 pets' }).waitFor()
  await page.locator('#health-version', { hasText: version }).waitFor()
  await page.locator('#connection', { hasText: 'Live updates: on' }).waitFor()
  await page.locator('#chart-summary', { hasText: /^\d+ requests in the last 5 minutes/ }).waitFor()
  await page
    .locator('#journal button')
    .nth(expected.length - 1)
    .waitFor()
  // The first create's details beside the journal (newest first: the last 201 row).
  await page.locator('#journal button', { hasText: '201 Created' }).last().click()
  await page.locator('#details-heading', { hasText: /^Request \d+: POST \/v1\/pets$/ }).waitFor()
  await page.evaluate(() => document.fonts.ready)
  await page.waitForFunction(() => document.getAnimations().length === 0)
  await page.screenshot({ path: OUT, fullPage: true })
  console.log(`Wrote ${OUT} (petstore-sandbox ${version})`)
  await context.close()
} finally {
  await browser.close()
  await server.close()
}
