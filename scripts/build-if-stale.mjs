// `npm test`'s pretest, and the test suite's global setup: builds the JavaScript in dist/ when it
// is missing or older than what it is built from, so the tests that run the built CLI (as `npx`
// runs it) and the packed entries always run the code as it is now, and a run after a build skips
// building again. It runs `npm run build:js`, the esbuild steps of `npm run build` without tsc:
// no test reads the type declarations (`npm run typecheck` checks the types, `npm run build` and
// the pack make the declarations), and tsc was 7.3 of the build's 9.4 s (10.2 of its 11.9 CPU-s).
// Inputs: src/, bin/, scripts/ (but the consumer jobs), fixtures/, and the package and TypeScript
// configs; outputs: the files each step ends with.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const INPUTS = ['src', 'bin', 'scripts', 'fixtures', 'package.json', 'tsconfig.json', 'tsconfig.build.json']
const OUTPUTS = [
  'dist/cjs/index.js',
  'dist/src/index.js',
  'dist/cli.cjs',
  'dist/cli.cjs.cache',
  'dist/assets/dashboard/app.js',
]

/** The newest modification time under a path, in ms; 0 when it is missing. */
function newest(path) {
  if (!existsSync(path)) return 0
  const found = statSync(path)
  if (!found.isDirectory()) return found.mtimeMs
  let latest = found.mtimeMs
  for (const name of readdirSync(path)) {
    if (name === 'consumer' || name === 'node_modules') continue
    latest = Math.max(latest, newest(join(path, name)))
  }
  return latest
}

/** Why dist/ must be built again, or undefined when it is current. */
export function staleness() {
  const built = OUTPUTS.map((output) => join(root, output))
  const missing = built.find((output) => !existsSync(output))
  if (missing !== undefined) return `${missing.slice(root.length)} is missing`
  const oldest = Math.min(...built.map((output) => statSync(output).mtimeMs))
  const changed = INPUTS.find((input) => newest(join(root, input)) > oldest)
  return changed === undefined ? undefined : `${changed} changed since the last build`
}

/** Builds when stale; says so in one line. Throws when the build fails. */
export function buildIfStale() {
  const why = staleness()
  if (why === undefined) return false
  console.log(`Building dist/ first (npm run build:js): ${why}`)
  // scripts/build-js.mjs itself, not through npm: npm's own start-up is 0.4 s.
  const result = spawnSync(process.execPath, ['scripts/build-js.mjs'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  if (result.status !== 0) throw new Error(`npm run build:js failed (exit ${result.status ?? result.signal})`)
  return true
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    if (!buildIfStale()) console.log('dist/ is current: not building it again')
  } catch (error) {
    console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  }
}
