// The dashboard at scale: the sandbox CLI seeded with 100,000 generated pets, pinned to core 0
// (bench/processes.mjs), and Debian's chromium driven by playwright-core with the flags of
// test/support/chromium.ts (no network). Times page.goto(/__sandbox/) to the first row of the pet
// table visible, each run in a fresh browser context (no cache), after one uncounted run that
// also pays for seeding the store. Run alone: `taskset -c 1 node bench/dashboard.mjs` prints JSON.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import FLAGS from '../test/support/chromium-flags.json' with { type: 'json' }
import { startSandbox } from './servers.mjs'
import { median } from './stats.mjs'

export const DASHBOARD_PETS = 100_000
export const DASHBOARD_RUNS = 5
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const FIRST_ROW_TIMEOUT_MS = 30_000

function launch() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: run "apt-get install -y chromium" or set CHROMIUM_PATH`)
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: FLAGS,
  })
}

/** Milliseconds from navigating a fresh context's page to the dashboard to its first pet row on screen. */
async function msToFirstRow(browser, origin) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    const started = performance.now()
    await page.goto(`${origin}/__sandbox/`)
    await page.locator('#pets-body tr').first().waitFor({ state: 'visible', timeout: FIRST_ROW_TIMEOUT_MS })
    const ms = performance.now() - started
    const range = await page.locator('#pets-range').innerText()
    if (!range.endsWith(`of ${DASHBOARD_PETS.toLocaleString('en')} pets`)) {
      throw new Error(`The dashboard shows "${range}", not ${DASHBOARD_PETS} pets`)
    }
    return ms
  } finally {
    await context.close()
  }
}

/** The dashboard section of bench/run.mjs: { pets, medianMs, runs } (runs: the counted ones, in ms). */
export async function dashboardSection(runs = DASHBOARD_RUNS) {
  const server = startSandbox(['--generate', String(DASHBOARD_PETS), '--random-seed', '1'])
  let browser
  try {
    const origin = await server.origin
    browser = await launch()
    // Uncounted: seeds the store on its first read and warms the browser.
    await msToFirstRow(browser, origin)
    const times = []
    for (let run = 0; run < runs; run++) times.push(await msToFirstRow(browser, origin))
    return { pets: DASHBOARD_PETS, medianMs: median(times), runs: times }
  } finally {
    await browser?.close()
    await server.stop()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await dashboardSection()))
}
