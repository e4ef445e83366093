#!/usr/bin/env node
import { loadBundle } from './load-bundle.js'

const { run } = loadBundle(new URL('../dist/cli.cjs', import.meta.url))
await run(process.argv)
