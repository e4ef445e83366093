import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'
// Shared with bench/dashboard.mjs, which is plain JavaScript and cannot import this file.
import FLAGS from './chromium-flags.json' with { type: 'json' }

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/**
 * Debian's chromium, driven by playwright-core: never a downloaded browser. The flags keep it
 * from reaching for the network, which this machine does not have.
 */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}: run "apt-get install -y chromium" (as .ci/run does) or set CHROMIUM_PATH`,
    )
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [...FLAGS, ...extraArgs],
  })
}
