#!/usr/bin/env node
// Variant C: no vm. The bundle built without the __importModule rewrite (dist/cli-plain.cjs,
// bench/cli-startup/build-plain-bundle.mjs: faker through a plain import()), loaded by require.
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'

const bundle = new URL('../../dist/cli-plain.cjs', import.meta.url)
if (!existsSync(bundle)) throw new Error('build first')
const { run } = createRequire(import.meta.url)('../../dist/cli-plain.cjs')
await run(process.argv)
