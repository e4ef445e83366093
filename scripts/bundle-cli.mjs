// Bundles the CLI into one file: Node 20 spends most of the CLI's start-up resolving and
// compiling hundreds of modules (zod, commander, the sandbox), which one file avoids.
// The library entries stay unbundled (tsc), so consumers share their own msw.
import { build } from 'esbuild'

await build({
  entryPoints: ['src/node/cli.ts'],
  outfile: 'dist/cli.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  // faker loads only with --generate.
  external: ['@faker-js/faker'],
  // CommonJS dependencies inside an ES module bundle still call require().
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  legalComments: 'none',
  logLevel: 'warning',
})
