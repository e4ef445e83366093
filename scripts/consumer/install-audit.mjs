// Checks a consumer's install of the tarball (run in that project, given npm's install log):
// the published package.json has no lifecycle script that an install runs, nothing in the
// package's own dependency tree has an install script, and npm's install-scripts warning names
// nothing of that tree. Then prints what the install weighs.
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare', 'prepublish']
const failures = []
const lock = JSON.parse(readFileSync('node_modules/.package-lock.json', 'utf8')).packages
const manifest = (path) => JSON.parse(readFileSync(join(path, 'package.json'), 'utf8'))

const own = manifest('node_modules/petstore-sandbox')
for (const script of INSTALL_SCRIPTS) {
  if (own.scripts?.[script] !== undefined) failures.push(`the published package.json has a "${script}" script`)
}

// Node's lookup: the nearest node_modules holding `name`, walking up from the dependent.
const resolve = (from, name) => {
  for (let base = from; ; base = base.slice(0, base.lastIndexOf('/node_modules/'))) {
    if (lock[`${base}/node_modules/${name}`] !== undefined) return `${base}/node_modules/${name}`
    if (!base.includes('/node_modules/'))
      return lock[`node_modules/${name}`] === undefined ? undefined : `node_modules/${name}`
  }
}

// The package's own tree: its dependencies, theirs, and so on (peers such as msw are the consumer's).
const tree = new Set()
const visit = (path) => {
  if (path === undefined || tree.has(path)) return
  tree.add(path)
  for (const name of Object.keys(lock[path]?.dependencies ?? {})) visit(resolve(path, name))
}
visit('node_modules/petstore-sandbox')
for (const path of tree) {
  const scripts = manifest(path).scripts ?? {}
  const found = INSTALL_SCRIPTS.filter((script) => scripts[script] !== undefined)
  if (lock[path]?.hasInstallScript === true || found.length > 0) {
    failures.push(`${path} has an install script (${found.join(', ') || 'hasInstallScript'})`)
  }
}

// npm's install-scripts warning may name other packages of the project (msw's postinstall, jest's
// @parcel/watcher): never one of this package's tree.
const log = readFileSync(process.argv[2], 'utf8')
const ownNames = new Set(
  [...tree].map((path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)),
)
const warned = [...log.matchAll(/install-scripts\s+((?:@[^/\s]+\/)?[^@\s]+)@\S+ \(/g)].map((match) => match[1])
for (const name of warned) {
  if (ownNames.has(name)) failures.push(`npm lists an install script of the package's tree: ${name}`)
}
console.log(`npm's install-scripts warning names: ${warned.length > 0 ? warned.join(', ') : 'nothing'}`)

// Bytes under path; with `ownOnly`, leaving out the package's nested node_modules, which the tree
// holds as packages of their own (visit() stores every path once), so nothing counts twice.
const bytes = (path, ownOnly = false) => {
  const stats = statSync(path)
  if (!stats.isDirectory()) return stats.size
  let total = 0
  for (const name of readdirSync(path)) {
    if (!(ownOnly && name === 'node_modules')) total += bytes(join(path, name))
  }
  return total
}
const mib = (count) => `${(count / 1024 / 1024).toFixed(1)} MiB`
const ownBytes = [...tree].reduce((sum, path) => sum + bytes(path, true), 0)
const all = Object.keys(lock).filter((path) => path.startsWith('node_modules/'))
console.log(
  `Install: petstore-sandbox and its dependencies ${tree.size} packages, ${mib(ownBytes)}; ` +
    `the whole project ${all.length} packages, ${mib(bytes('node_modules'))}`,
)
if (failures.length > 0) {
  for (const failure of failures) console.error(`install audit: ${failure}`)
  process.exit(1)
}
console.log('Install audit: no install script in the package or its dependencies')
