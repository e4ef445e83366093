// The CLI bundle's esbuild options, for scripts/bundle-cli.mjs (the shipped bundle), and zod's
// English-only plugin, which scripts/bundle-esm.mjs uses too. The options are their own module
// because a start-up benchmark also built a variant without the loader from them (a one-off
// script, bench/cli-startup/build-plain-bundle.mjs, removed after 0.9.1: see docs/performance.md
// and commit 300ef92).

// zod's namespace re-exports every locale's messages (a third of its code); the sandbox words its
// own messages and uses zod's English default only, so the bundle carries English alone.
export const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(bundle) {
    bundle.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      args.importer.includes('/zod/') ? { path: 'zod-locales', namespace: 'zod-english-only' } : undefined,
    )
    bundle.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, () => ({
      contents: "export { default as en } from 'zod/v4/locales/en.js'",
      resolveDir: process.cwd(),
    }))
  },
}

/** esbuild options for `src/node/cli.ts` as one CommonJS file at `outfile`; more plugins may follow. */
export function cliBundleOptions(outfile, plugins = []) {
  return {
    entryPoints: ['src/node/cli.ts'],
    outfile,
    bundle: true,
    // Whitespace and syntax only: identifiers keep their names, so an unexpected failure's stack
    // still reads. esbuild's keepNames did the same by renaming every function as it is made, an
    // Object.defineProperty per closure on every request: listPets over HTTP ran at 25,451 req/s
    // with it and 31,422 without (wrk, 32 connections, one run each, Node 20.20).
    minifyWhitespace: true,
    minifySyntax: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20.19',
    // faker loads only with --generate.
    external: ['@faker-js/faker'],
    plugins: [zodEnglishOnly, ...plugins],
    // The sources find their package's files from import.meta.url, which CommonJS spells differently.
    define: { 'import.meta.url': '__importMetaUrl' },
    banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
    legalComments: 'none',
    logLevel: 'warning',
  }
}
