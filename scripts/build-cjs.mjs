// The CommonJS build of the browser-safe entries (the main entry, the admin client, and the
// Playwright fixture, which Playwright may load from a CommonJS project), for projects that
// `require()` the package. Why: a CommonJS project type-checks `require('msw/node')` against msw
// 2's CommonJS declarations (.d.ts); if our declarations were only ESM they would import msw's ESM
// declarations (.d.mts), and TypeScript refuses to mix the two copies of msw's classes (TS2345,
// `HttpHandler` is not assignable to `AnyHandler`). So dist/cjs holds the same declarations under
// a `"type": "commonjs"` package.json, where TypeScript resolves `msw` the way the consumer's own
// require does, beside one CommonJS bundle per entry.
// Packages stay external: the consumer's msw (and zod) are the ones it loads.
import { cpSync, existsSync, writeFileSync } from 'node:fs'
import { build } from 'esbuild'

const entries = ['src/index.ts', 'src/client.ts', 'src/playwright.ts'].filter((entry) => existsSync(entry))

await build({
  entryPoints: entries,
  outdir: 'dist/cjs',
  bundle: true,
  packages: 'external',
  platform: 'neutral',
  format: 'cjs',
  target: 'es2023',
  legalComments: 'none',
  logLevel: 'warning',
})
// tsc's declarations, unchanged: only the package.json beside them changes how they resolve.
// The Node entry (server, CLI) is ESM only: it is not copied.
const nodeOnly = /\/(node|server\.d\.ts)$/
// The type declarations, when tsc made them (`npm run build`; the tests' build, `build:js`, has none).
if (existsSync('dist/src/index.d.ts')) {
  cpSync('dist/src', 'dist/cjs', { recursive: true, filter: (path) => !path.endsWith('.js') && !nodeOnly.test(path) })
}
writeFileSync('dist/cjs/package.json', `${JSON.stringify({ type: 'commonjs' })}\n`)
