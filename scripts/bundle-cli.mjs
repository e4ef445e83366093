// Bundles the CLI into one minified CommonJS file with a V8 code cache beside it: on Node 20,
// which has no compile cache, start-up is mostly resolving, compiling and running modules (zod,
// commander, the sandbox); one small file, read from a cache, is the least of that.
// The ESM library entries stay unbundled (tsc) and the CommonJS ones (build-cjs.mjs) keep
// packages external, so consumers share their own msw.
import { writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { build } from 'esbuild'
import { loadBundle } from '../bin/load-bundle.js'
import { cliBundleOptions } from './cli-bundle.mjs'

const outfile = 'dist/cli.cjs'

// The loader runs the bundle as a script, whose import() Node 20 does not allow: the one dynamic
// import (faker, for --generate) goes through the loader's instead.
const importThroughLoader = {
  name: 'import-through-loader',
  setup(bundle) {
    bundle.onLoad({ filter: /src\/core\/api\/generate\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8')
      const call = "import('@faker-js/faker/locale/en')"
      if (!source.includes(call)) throw new Error(`${args.path} no longer has ${call}: update ${import.meta.url}`)
      return { contents: source.replace(call, "__importModule('@faker-js/faker/locale/en')"), loader: 'ts' }
    })
  },
}

const { metafile } = await build({ ...cliBundleOptions(outfile, [importThroughLoader]), metafile: true })
// Which packages went in: a test holds the CLI to what it may carry (never msw).
writeFileSync('dist/cli.meta.json', JSON.stringify(Object.keys(metafile.inputs).sort(), null, 2))

// The cache is taken after a start-up has run (options parsed, the server listening, one request
// answered), so it holds the functions that start-up compiles, not only the outer script.
let script
const { run } = loadBundle(new URL(`../${outfile}`, import.meta.url), (loaded) => {
  script = loaded
})
const log = console.log
console.log = () => undefined // the banner
const server = await run(['node', 'petstore-sandbox', '--port', '0', '--quiet'])
console.log = log
const response = await fetch(`${server.apiUrl}/pets`, { headers: { Authorization: 'Bearer petstore-sandbox-key' } })
await response.arrayBuffer()
await server.close()
writeFileSync(`${outfile}.cache`, script.createCachedData())
// run() waits for SIGINT and SIGTERM; the build is done.
process.exit(0)
