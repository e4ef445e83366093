import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
// Shared with bench/dashboard.mjs, which is plain JavaScript and cannot import this file.
import FLAGS from './chromium-flags.json' with { type: 'json' }
import { chromiumPath } from './programs.js'

/**
 * The tests' own, beside the shared flags (bench/dashboard.mjs measures the dashboard as a user's
 * browser runs it, so it keeps V8's defaults): V8 does its compiling and garbage collecting on the
 * page's thread instead of on helper threads. A test page lives seconds, on two cores that the
 * suite already keeps busy, and the helpers' work was mostly spent on pages about to close. The
 * four dashboard and reference-page files, five interleaved rounds each way: 62.3 -> 56.3 CPU-s
 * on average (each round lower, by 1-13 CPU-s), and their wall time 35.3 -> 32.1 s.
 */
const TEST_FLAGS = ['--js-flags=--single-threaded']

/**
 * Debian's Chromium (its headless shell when installed: support/programs.ts), driven by
 * playwright-core: never a downloaded browser. The flags keep it from reaching for the network,
 * which this machine does not have. Whether it runs at all, and which one, is the global setup's
 * to find out (a test file asks `needs('chromium')`).
 */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: [...FLAGS, ...TEST_FLAGS, ...extraArgs],
  })
}

let shared: Promise<Browser> | undefined

/**
 * One Chromium for a vitest worker, launched on first use: test files share a worker's modules
 * (isolate: false), so the browser outlives a file, and the files that need no flags of their own
 * launch it once per worker instead of once each. A launch, a page and a close cost about 1.3 s of
 * CPU (Chromium 156's headless shell; 3.2 s with the full chromium). Each file closes the contexts
 * it opened (`closeSharedContexts`, in its afterAll); the browser goes with the worker's process
 * (playwright-core kills what it launched when its process exits). One that crashed is launched again.
 */
export async function sharedChromium(): Promise<Browser> {
  const browser = await (shared ??= launchChromium())
  if (browser.isConnected()) return browser
  shared = launchChromium()
  return shared
}

/** Closes every context of the shared browser: the next file in this worker starts with none. */
export async function closeSharedContexts(): Promise<void> {
  const browser = await shared
  await Promise.all(browser?.contexts().map((context) => context.close()) ?? [])
}

const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR

/** The first screen of the page, into SCREENSHOT_DIR when it is set (the layout tests' pictures). */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (SCREENSHOT_DIR === undefined) return
  mkdirSync(SCREENSHOT_DIR, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) })
}
