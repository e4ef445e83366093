// Bundles the ESM entries a process imports, `petstore-sandbox` (dist/src/index.js) and
// `petstore-sandbox/server` (dist/src/server.js), and `petstore-sandbox/panel`, over tsc's output of
// the same names: shared chunks hold the core and zod, so a process that imports both still has one core. Why: a test
// file's cold start is mostly loading modules. tsc's output is about 50 files of ours and zod's
// about 80 more (its every locale among them); resolving, reading and linking them cost 182 ms of
// import against 136 ms for this bundle, msw's 100 included (Node 20.20, 2-core EPYC, medians of
// 5), and a test file's start went from 1.34x to 1.17x msw with a trivial handler (11 interleaved
// runs). zod goes in, with its English messages only (the sandbox words its own); msw, faker and
// pure-rand stay the consumer's packages. tsc's other files stay in dist/src for the repository's
// scripts; the package ships the bundles and the declarations (package.json "files").
import { build } from 'esbuild'
import { zodEnglishOnly } from './cli-bundle.mjs'

// `petstore-sandbox/panel` (dist/src/panel.js), the presenter's panel, is an entry of its own so
// that the main entry never carries it: it takes only types from the core, so it shares no chunk
// with the others, and a page that does not import it loads none of it (test/architecture.test.ts).
await build({
  entryPoints: { index: 'src/index.ts', server: 'src/server.ts', panel: 'src/panel.ts' },
  outdir: 'dist/src',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  target: 'es2023',
  external: ['msw', 'msw/*', '@faker-js/faker', 'pure-rand', 'node:*'],
  plugins: [zodEnglishOnly],
  allowOverwrite: true,
  legalComments: 'none',
  logLevel: 'warning',
})
