#!/usr/bin/env node
// Variant B: bin/petstore-sandbox.js + bin/load-bundle.js as shipped, but vm.Script is given no
// cachedData (as when dist/cli.cjs.cache is missing or refused).
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import vm from 'node:vm'

const bundle = new URL('../../dist/cli.cjs', import.meta.url)
if (!existsSync(bundle)) throw new Error('build first')
const filename = fileURLToPath(bundle)
const source = readFileSync(filename, 'utf8')
const wrapper = '(function (exports, require, module, __filename, __dirname, __importModule) {'
const script = new vm.Script(`${wrapper}${source}\n})`, { filename })
const module = { exports: {} }
const importModule = (specifier) => import(specifier)
script.runInThisContext()(module.exports, createRequire(filename), module, filename, dirname(filename), importModule)
await module.exports.run(process.argv)
