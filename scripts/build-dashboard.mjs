// Builds the dashboard served at /__sandbox/: esbuild bundles src/dashboard/main.ts into
// dist/assets/dashboard/app.js and minifies src/dashboard/app.css beside it, then prints both
// files' gzipped sizes. It writes nothing else. About 45 KB gzipped together, 31 KB of it zod and
// the core's contract: the create form checks with the API's own code (src/dashboard/rules.ts)
// rather than a copy of its rules, and a page served from this machine loads 120 KB at once.
import { mkdirSync, readFileSync } from 'node:fs'
import { STATUS_CODES } from 'node:http'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'

const source = new URL('../src/dashboard/', import.meta.url)
const target = new URL('../dist/assets/dashboard/', import.meta.url)
mkdirSync(target, { recursive: true })

const common = { bundle: true, minify: true, target: 'es2022', logLevel: 'warning', legalComments: 'none' }
await build({
  ...common,
  entryPoints: [new URL('main.ts', source).pathname],
  outfile: new URL('app.js', target).pathname,
  format: 'esm',
  platform: 'browser',
  // The journal's reason phrases: Node's table, not a copy kept by hand.
  define: { STATUS_REASONS: JSON.stringify(STATUS_CODES) },
})
await build({
  ...common,
  entryPoints: [new URL('app.css', source).pathname],
  outfile: new URL('app.css', target).pathname,
  loader: { '.css': 'css' },
})

let sum = 0
for (const file of ['app.js', 'app.css']) {
  const bytes = readFileSync(new URL(file, target))
  const gzipped = gzipSync(bytes, { level: 9 }).length
  sum += gzipped
  console.log(`dist/assets/dashboard/${file}: ${kb(bytes.length)} (${kb(gzipped)} gzipped)`)
}
console.log(`together: ${kb(sum)} gzipped`)

function kb(bytes) {
  return `${(bytes / 1024).toFixed(1)} KB`
}
