// Loads the bundled CLI (CommonJS) through V8's code cache, built with the package. Node 20 has
// no compile cache of its own (module.enableCompileCache() arrived in Node 22.1), and compiling
// the bundle was a third of the start-up. V8 refuses a cache made by another version or with
// other flags; the bundle then simply compiles, as it would without one. Measured on Node 20.20.2
// (2-core EPYC, 40 interleaved runs; a one-off script, bench/cli-startup, removed after 0.9.1: see
// docs/performance.md and commit 300ef92): spawn to the listening line 92.8 ms with the cache,
// 111.6 ms without it, and 110.7 ms with a plain require() of the same bundle (+19%); --version
// 89.5 / 105.3 / 103.9 ms. Past the 10% bar, so this loader stays.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import vm from 'node:vm'

/** Runs the bundle at `url` and returns its exports; `onScript` sees the script, to write a cache. */
export function loadBundle(url, onScript = () => undefined) {
  const filename = fileURLToPath(url)
  const source = readFileSync(filename, 'utf8')
  let cachedData
  try {
    cachedData = readFileSync(`${filename}.cache`)
  } catch {
    // No cache (a fresh build): compile.
  }
  const wrapper = '(function (exports, require, module, __filename, __dirname, __importModule) {'
  const script = new vm.Script(`${wrapper}${source}\n})`, { filename, cachedData })
  const module = { exports: {} }
  // A script's own import() needs a flag on Node 20 and is lost with a code cache; the bundle
  // imports through this one (faker, only when generating pets) instead.
  const importModule = (specifier) => import(specifier)
  script.runInThisContext()(module.exports, createRequire(filename), module, filename, dirname(filename), importModule)
  onScript(script)
  return module.exports
}
