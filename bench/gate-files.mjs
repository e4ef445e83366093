// When the speed gate's rehearsals must run. A rehearsal proves that bench:compare can fail: an
// old regression, measured again, must fail the gate. What it proves changes only with the gate's
// own code, so CI runs the rehearsals unless the gate's files are, byte for byte, what they were
// when the rehearsals last passed: bench/rehearsed.json keeps the digest of that state, written
// by a run whose rehearsals passed (test/gate-files.test.ts holds the rule).
//
//   node bench/gate-files.mjs rehearsed   exit 0 when the gate's files are as they were when the
//                                         rehearsals last passed, 1 when not (and which changed)
//   node bench/gate-files.mjs record      writes bench/rehearsed.json for the files as they are
//   node bench/gate-files.mjs list        the gate's files, one a line
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
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

const RECORD = 'bench/rehearsed.json'

/** What the gate reads of a file: the whole of it, or its part of a shared one. */
function gateText(root, file) {
  const path = join(root, file)
  if (!existsSync(path)) return ''
  const text = readFileSync(path, 'utf8')
  return PARTS[file] === undefined ? text : PARTS[file](text)
}

/** Each gate file's digest, by name: what a rehearsal proved its result for. */
export function gateDigests(root = ROOT) {
  return Object.fromEntries(
    gateFiles(root).map((file) => [file, createHash('sha256').update(gateText(root, file)).digest('hex')]),
  )
}

/** The gate's files that differ from the state the rehearsals last passed on: all of them with no record. */
export function unrehearsedGateFiles(root = ROOT) {
  const path = join(root, RECORD)
  const recorded = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')).files : {}
  return Object.entries(gateDigests(root))
    .filter(([file, digest]) => recorded[file] !== digest)
    .map(([file]) => file)
}

/** Records the gate's files as rehearsed (after its rehearsals passed). */
export function recordRehearsed(root = ROOT) {
  const record = {
    $comment: 'written by bench/gate-files.mjs record after the rehearsals in .ci/run passed on these files',
    date: new Date().toISOString(),
    loadAverage: Number(loadavg()[0].toFixed(2)),
    files: gateDigests(root),
  }
  writeFileSync(join(root, RECORD), `${JSON.stringify(record, null, 2)}\n`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command] = process.argv.slice(2)
  if (command === 'list') {
    console.log(gateFiles().join('\n'))
  } else if (command === 'rehearsed') {
    const changed = unrehearsedGateFiles()
    console.log(
      changed.length === 0
        ? `The speed gate's files are as they were when its rehearsals last passed (${RECORD}).`
        : `The speed gate's files changed since its rehearsals last passed: ${changed.join(', ')}.`,
    )
    process.exitCode = changed.length === 0 ? 0 : 1
  } else if (command === 'record') {
    recordRehearsed()
    console.log(`${RECORD}: the speed gate's files as rehearsed.`)
  } else {
    console.error('usage: node bench/gate-files.mjs rehearsed | record | list')
    process.exitCode = 2
  }
}
