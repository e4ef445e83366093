// The builds bench/compare.mjs measures: which commit is the previous release, and a commit's
// tree built in a scratch folder of its own.
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** A mistake in what was asked (a ref git does not know, no earlier release): exit 2, not 1. */
export class UsageError extends Error {}

export function git(root, ...args) {
  const run = spawnSync('git', args, { cwd: root, encoding: 'utf8' })
  if (run.status !== 0) throw new UsageError(`git ${args.join(' ')}: ${run.stderr.trim()}`)
  return run.stdout.trim()
}

/** package.json's version at a commit; undefined where it has none. */
export function versionAt(root, commit) {
  const shown = spawnSync('git', ['show', `${commit}:package.json`], { cwd: root, encoding: 'utf8' })
  if (shown.status !== 0) return undefined
  try {
    return JSON.parse(shown.stdout).version
  } catch {
    return undefined
  }
}

/**
 * The previous release: the newest commit before HEAD whose package.json version differs from
 * HEAD's: with a straight history, the parent of the commit that set HEAD's version. Walks back
 * one commit at a time; a release is rarely more than a few dozen commits back.
 */
export function previousRelease(root) {
  const current = versionAt(root, 'HEAD')
  for (const commit of git(root, 'log', '--format=%H', 'HEAD').split('\n')) {
    if (commit !== '' && versionAt(root, commit) !== current) return commit
  }
  throw new UsageError(`no commit before HEAD has a package.json version other than ${current}`)
}

/**
 * The lock file without the package's own version: a release bump changes that line alone, and
 * the dependencies it pins are what decide whether this checkout's node_modules can build it.
 */
function dependencies(folder) {
  const lock = JSON.parse(readFileSync(join(folder, 'package-lock.json'), 'utf8'))
  delete lock.version
  if (lock.packages?.[''] !== undefined) delete lock.packages[''].version
  return JSON.stringify(lock)
}

function run(command, args, cwd) {
  const done = spawnSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' })
  if (done.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} in ${cwd} exited ${done.status}:\n${done.stdout}\n${done.stderr}`)
  }
}

/** The scratch folder of a commit's tree, and whether its build is done. */
function treeOf(root, sha) {
  const folder = join(root, 'node_modules', '.cache', 'petstore-bench-compare', sha)
  return { folder, done: join(folder, '.built') }
}

/** A commit's files in its folder, and the node_modules it builds with; what is left is its build. */
function unpack(root, ref, sha, folder) {
  rmSync(folder, { recursive: true, force: true })
  mkdirSync(folder, { recursive: true })
  const archive = spawnSync('git', ['archive', '--format=tar', sha], { cwd: root, maxBuffer: 1 << 30 })
  if (archive.status !== 0) throw new Error(`git archive ${sha} failed: ${archive.stderr}`)
  const untar = spawnSync('tar', ['-x', '-C', folder], { input: archive.stdout })
  if (untar.status !== 0) throw new Error(`tar -x into ${folder} failed: ${untar.stderr}`)
  const sameLock = dependencies(folder) === dependencies(root)
  console.log(`Building ${ref} (${sha.slice(0, 7)}) in ${folder}${sameLock ? '' : ', with its own npm ci'}`)
  if (sameLock) symlinkSync(join(root, 'node_modules'), join(folder, 'node_modules'))
  else run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], folder)
}

/**
 * A commit's tree, built, in node_modules/.cache/petstore-bench-compare/SHA, kept for the next
 * run: its files from git archive, this checkout's node_modules when its lock file is the same
 * (else an npm ci of its own), then its own `npm run build`.
 */
export function buildCommit(root, ref) {
  const sha = git(root, 'rev-parse', '--verify', `${ref}^{commit}`)
  const { folder, done } = treeOf(root, sha)
  if (existsSync(done)) return { label: ref, sha, folder }
  unpack(root, ref, sha, folder)
  run('npm', ['run', 'build', '--silent'], folder)
  writeFileSync(done, `${new Date().toISOString()}\n`)
  return { label: ref, sha, folder }
}

/**
 * buildCommit for several refs, two builds at a time: a build is mostly tsc on one core, and the
 * gate builds up to five trees in a fresh clone (about 25 s each here, one at a time).
 */
export async function buildCommits(root, refs, parallel = 2) {
  const trees = refs.map((ref) => {
    const sha = git(root, 'rev-parse', '--verify', `${ref}^{commit}`)
    return { label: ref, sha, folder: treeOf(root, sha).folder }
  })
  const pending = trees.filter((tree, index) => {
    const first = trees.findIndex((other) => other.sha === tree.sha) === index
    return first && !existsSync(treeOf(root, tree.sha).done)
  })
  const build = async (tree) => {
    unpack(root, tree.label, tree.sha, tree.folder)
    const child = spawn('npm', ['run', 'build', '--silent'], { cwd: tree.folder, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk))
    const [code] = await once(child, 'close')
    if (code !== 0) throw new Error(`npm run build in ${tree.folder} exited ${code}:\n${output}`)
    writeFileSync(treeOf(root, tree.sha).done, `${new Date().toISOString()}\n`)
  }
  const queue = [...pending]
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (queue.length > 0) await build(queue.shift())
    }),
  )
  return trees
}

/** This checkout as it is, built when stale. */
export function workingTree(root) {
  run(process.execPath, [join(root, 'scripts', 'build-if-stale.mjs')], root)
  const dirty = git(root, 'status', '--porcelain', '--', 'src', 'bin', 'scripts', 'fixtures', 'package.json') !== ''
  return { label: dirty ? 'working tree' : 'HEAD', sha: git(root, 'rev-parse', 'HEAD'), folder: root }
}
