// The declarations the package ships, and no others: tsc declares every module of src, and the
// package's entries (index, client, server, playwright, panel) reach about half of them through
// their imports. The rest (the dispatcher's stages, the dashboard page, the browser keeper, the
// node adapter's files) describe nothing a user can import, so they are removed from dist/src and
// dist/cjs after the build: 139 files and 219 KB of text, about 0.55 MB of a user's disk (each a
// block of its own), which took the install back under 0.9.0's plus 5% (bench:compare's install
// size, issue 49). The consumer matrix type-checks the packed package under nodenext and bundler,
// and attw reads its types, so a declaration an entry needs and this removed would fail there.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

const ENTRIES = ['index', 'client', 'server', 'playwright', 'panel']

/** The declaration files reachable from the entries through relative imports, `import()` types included. */
function reachable(folder) {
  const seen = new Set()
  const stack = ENTRIES.map((entry) => resolve(folder, `${entry}.d.ts`))
  while (stack.length > 0) {
    const file = stack.pop()
    if (seen.has(file) || !existsSync(file)) continue
    seen.add(file)
    const text = readFileSync(file, 'utf8')
    for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
      stack.push(resolve(dirname(file), specifier.replace(/\.js$/, '.d.ts')))
    }
  }
  return seen
}

function declarations(folder) {
  return readdirSync(folder, { recursive: true })
    .map((name) => resolve(folder, name))
    .filter((file) => file.endsWith('.d.ts') && statSync(file).isFile())
}

let removed = 0
for (const folder of ['dist/src', 'dist/cjs']) {
  if (!existsSync(join(folder, 'index.d.ts'))) continue
  const keep = reachable(folder)
  for (const file of declarations(folder)) {
    if (keep.has(file)) continue
    rmSync(file)
    removed++
  }
}
console.log(`prune-declarations: removed ${removed} declaration files no entry reaches`)
