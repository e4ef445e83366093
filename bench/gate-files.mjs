// When the speed gate's rehearsals must run. A rehearsal proves that bench:compare can fail: an
// old regression, measured again, must fail the gate. What it proves changes only with the gate's
// own code, so CI runs the rehearsals when a file the gate reads changed since the previous
// release, and says so when it skips them (test/gate-files.test.ts holds the rule).
//
//   node bench/gate-files.mjs changed BASE   exit 0 when a gate file changed from BASE to the
//                                            working tree (or any file is new), 1 when none did
//   node bench/gate-files.mjs list           the gate's files, one a line
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const ENTRY = 'bench/compare.mjs'
// Beside what the gate's modules load: the records bench/anchors.mjs and bench/test-times.mjs read
// by a path they build.
const ALSO = ['bench/anchors.json', 'bench/test-times.json']
// Files of which only a part is the gate's: the command lines CI gives it and its rehearsals
// (.ci/run's lines that name bench:compare), and the script that starts it (package.json's
// bench:compare). A release changes both files (its version, its other stages) without touching
// the gate.
const PARTS = {
  '.ci/run': (text) =>
    text
      .split('\n')
      .filter((line) => line.includes('bench:compare') && !line.trim().startsWith('#'))
      .join('\n'),
  'package.json': (text) => JSON.parse(text).scripts?.['bench:compare'] ?? '',
}
// Built, not written: a build of the head is what the gate measures, not a file of the gate.
const BUILT = /^(dist|node_modules)\//

/**
 * The gate's files, relative to the root: bench/compare.mjs and every local module it imports,
 * followed through their imports, and every file beside them that they name by a relative path
 * in a string (a child script, a Lua script, anchors.json), plus ALSO.
 */
export function gateFiles(root = ROOT) {
  const found = new Set()
  const visit = (file) => {
    if (found.has(file)) return
    found.add(file)
    if (!/\.m?js$/.test(file)) return
    const text = readFileSync(join(root, file), 'utf8')
    for (const [, path] of text.matchAll(/['"](\.{1,2}\/[^'"\s]+\.(?:mjs|js|json|lua))['"]/g)) {
      const target = relative(root, join(root, dirname(file), path))
      if (!BUILT.test(target) && existsSync(join(root, target))) visit(target)
    }
  }
  visit(ENTRY)
  for (const file of [...ALSO, ...Object.keys(PARTS)]) found.add(file)
  return [...found].sort()
}

/** The files that differ between `base` and the working tree, tracked or new. */
function changedFiles(root, base) {
  const git = (...args) => {
    const run = spawnSync('git', args, { cwd: root, encoding: 'utf8' })
    if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr.trim()}`)
    return run.stdout.split('\n').filter((line) => line !== '')
  }
  return new Set([...git('diff', '--name-only', base, '--'), ...git('ls-files', '--others', '--exclude-standard')])
}

/** A file's text at `base`, or undefined where it had none. */
function textAt(root, base, file) {
  const shown = spawnSync('git', ['show', `${base}:${file}`], { cwd: root, encoding: 'utf8' })
  return shown.status === 0 ? shown.stdout : undefined
}

/** The gate's files that changed since `base`: empty when the rehearsals would prove nothing new. */
export function changedGateFiles(base, root = ROOT) {
  const changed = changedFiles(root, base)
  return gateFiles(root).filter((file) => {
    if (!changed.has(file)) return false
    const part = PARTS[file]
    if (part === undefined) return true
    const before = textAt(root, base, file)
    return before === undefined || part(before) !== part(readFileSync(join(root, file), 'utf8'))
  })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, base] = process.argv.slice(2)
  if (command === 'list') {
    console.log(gateFiles().join('\n'))
  } else if (command === 'changed' && base !== undefined) {
    const changed = changedGateFiles(base)
    console.log(
      changed.length === 0
        ? `No file of the speed gate changed since ${base}.`
        : `The speed gate's files changed since ${base}: ${changed.join(', ')}.`,
    )
    process.exitCode = changed.length === 0 ? 1 : 0
  } else {
    console.error('usage: node bench/gate-files.mjs changed BASE | list')
    process.exitCode = 2
  }
}
