import { chromium, type Browser } from 'playwright-core'
// Shared with bench/dashboard.mjs, which is plain JavaScript and cannot import this file.
import FLAGS from './chromium-flags.json' with { type: 'json' }
import { CHROMIUM_PATH } from './programs.js'

/**
 * Debian's chromium, driven by playwright-core: never a downloaded browser. The flags keep it
 * from reaching for the network, which this machine does not have. Whether it runs at all is the
 * global setup's to find out (a test file asks `needs('chromium')`).
 */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [...FLAGS, ...extraArgs],
  })
}

let shared: Promise<Browser> | undefined

/**
 * One Chromium for a whole test file, launched on first use: a launch costs about a second of
 * CPU, and a file's describes each open contexts of their own in it anyway. The file closes it
 * with `afterAll(closeSharedChromium)`.
 */
export function sharedChromium(): Promise<Browser> {
  return (shared ??= launchChromium())
}

export async function closeSharedChromium(): Promise<void> {
  const browser = shared
  shared = undefined
  await (await browser)?.close()
}
