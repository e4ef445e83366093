// Variant C's bundle: scripts/bundle-cli.mjs's esbuild options, without the import-through-loader
// rewrite of src/core/generate.ts and without a code cache. Writes dist/cli-plain.cjs beside
// dist/cli.cjs (same folder, so import.meta.url-relative package files resolve alike).
//   node bench/cli-startup/build-plain-bundle.mjs
import { build } from 'esbuild'
import { cliBundleOptions } from '../../scripts/cli-bundle.mjs'

await build(cliBundleOptions('dist/cli-plain.cjs'))
