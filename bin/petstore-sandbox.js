#!/usr/bin/env node
import { existsSync } from 'node:fs'
import { loadBundle } from './load-bundle.js'

const bundle = new URL('../dist/cli.cjs', import.meta.url)
// The package has no `prepare` script (installing it runs nothing of ours), so a fresh clone has no
// build until something makes one: the first run in a source checkout builds it.
if (!existsSync(bundle)) {
  const { buildCheckout } = await import('./build-checkout.js')
  buildCheckout(new URL('..', import.meta.url))
}
const { run } = loadBundle(bundle)
await run(process.argv)
