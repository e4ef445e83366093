// npm run bench:compare [REF ...] [--head REF] [--rounds N] [--seconds S] [--json FILE]: this
// build against each REF (by default the previous release: the newest commit whose package.json
// version differs from HEAD's) and against bare node:http, in one sitting. Interleaved rounds of listPets, getPet and
// createPet over HTTP with wrk (req/s and p99; servers pinned to core 0, wrk to core 1), and
// in-process listPets through msw's setupServer. Prints head/REF and head/bare for each, and
// exits 1 when a head/REF throughput ratio is under its threshold, for any REF (2 on a usage
// error). Several REFs put several releases side by side: `npm run bench:compare -- v1 v2`.
//
// Why a same-sitting comparison: bare node:http moves ±30% between rounds on a 2-core machine, so
// a ratio to bare from another day proves nothing (0.10.0's 0.50 was read as noise, yet 0.10.0
// was as fast as 0.9.0). Two builds measured round by round move 3-8% when they are the same code.
//
// REF is built in a scratch folder of its own (node_modules/.cache/petstore-bench-compare/SHA),
// once: its files from git, this checkout's node_modules when its lock file is the same (else its
// own npm ci), then its own `npm run build`. --head REF does the same for the head, so an old pair
// can be rehearsed: `npm run bench:compare -- bf81adc --head 64017ac` must fail.
import { copyFileSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { buildCommit, git, previousRelease, UsageError, versionAt, workingTree } from './compare-refs.mjs'
import { runScript, startServer } from './processes.mjs'
import { median } from './stats.mjs'
import { requireWrk, wrk } from './wrk.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const here = (path) => fileURLToPath(new URL(path, import.meta.url))

/**
 * The gate: head/REF throughput, the median of the rounds' ratios, must be at least this. Set
 * from the gate's own noise: HEAD against HEAD in five sittings of 8 rounds on 2026-11-27 (2-core
 * VM, load average 1.2-2.6; docs/performance.md, "The gate") read listPets 0.95-1.06, getPet
 * 0.97-1.08, createPet 0.88-1.03 and in-process 0.94-1.14. Each threshold sits under its worst,
 * and none under 0.85. CI runs 10 rounds. A gate that flakes on a quiet machine gets more rounds,
 * never a lower threshold.
 */
export const THRESHOLDS = { listPets: 0.9, getPet: 0.9, createPet: 0.85, inProcess: 0.85 }
const DEFAULT_ROUNDS = 8
// Runs of each contender per operation in a round, in turns.
const TURNS = 2
const DEFAULT_SECONDS = 1
// Not counted: a fresh server's first second runs before the JIT has settled (its req/s read low).
const WARM_UP_SECONDS = 1
// Between two runs on the servers' core.
const GAP_MS = 250
const CONNECTIONS = 32
// Each round, one child per build: 3 counted batches of this many after an uncounted one.
const IN_PROCESS_ROUNDS = 6
const IN_PROCESS_REQUESTS = 700
const LISTENING = /listening on http:\/\/[^\s/]+:(\d+)\/v1/
const AUTH = { Authorization: 'Bearer petstore-sandbox-key' }
const OPERATIONS = {
  listPets: { path: '/v1/pets', headers: AUTH },
  getPet: { path: '/v1/pets/7', headers: AUTH },
  createPet: {
    path: '/v1/pets',
    headers: { ...AUTH, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
  },
}

/** The in-process child, copied into a built tree so that it loads that tree's msw and dist. */
function inProcessScript(tree) {
  if (tree.folder === root) return here('./compare-in-process.mjs')
  const copy = join(tree.folder, 'bench', 'compare-in-process.mjs')
  copyFileSync(here('./compare-in-process.mjs'), copy)
  return copy
}

/** A built tree's CLI, or the bare node:http reference, started fresh and pinned. */
const starter = (tree) =>
  tree.bare
    ? () => startServer([here('./baseline-server.mjs'), '0'], LISTENING)
    : () => startServer([join(tree.folder, 'bin/petstore-sandbox.js'), '--port', '0', '--quiet'], LISTENING)

/**
 * Each round starts every contender afresh, pinned to core 0. For each operation, each is warmed
 * up, then they take turns in short runs (`seconds` each, 250 ms apart, TURNS times round, the
 * order turning every round and reversed every other cycle). Two things this answers, both seen
 * measuring HEAD against HEAD on this 2-core machine:
 * - a slow moment of the machine (bare moved ±30% from one 5 s run to the next) falls on every
 *   contender of a turn alike: with each contender's runs 45 s apart, HEAD/HEAD read 0.80 on
 *   listPets and 1.41 on getPet;
 * - a process has a speed of its own (one run's JIT, one heap): with each contender started once
 *   for the whole sitting, one process's createPet ran 20-30% under its twin's in every round
 *   (0.78 in all). Fresh processes every round, and the median of the rounds, leave that out.
 */
async function httpRounds(list, rounds, seconds) {
  const samples = {}
  for (let round = 0; round < rounds; round++) {
    const running = []
    try {
      for (const tree of list) running.push({ name: tree.name, server: await starter(tree)() })
      const origins = await Promise.all(running.map(({ server }) => server.origin))
      for (const [operation, { path, ...options }] of Object.entries(OPERATIONS)) {
        const run = (index, label, length) =>
          wrk(label, `${origins[index]}${path}`, { ...options, seconds: length, connections: CONNECTIONS })
        for (const [index, { name }] of running.entries()) {
          await run(index, `${name} ${operation} (warm-up)`, WARM_UP_SECONDS)
        }
        const turns = {}
        for (let turn = 0; turn < TURNS; turn++) {
          for (const index of turnOrder(running.length, round * TURNS + turn)) {
            // A gap first: the server just loaded finishes its collection on the shared core,
            // not inside the next one's run.
            await sleep(GAP_MS)
            ;(turns[running[index].name] ??= []).push(await run(index, `${running[index].name} ${operation}`, seconds))
          }
        }
        for (const [name, runs] of Object.entries(turns)) {
          const sample = {
            rps: runs.reduce((sum, one) => sum + one.rps, 0) / runs.length,
            p99: median(runs.map((one) => one.p99)),
          }
          console.log(
            `round ${round + 1}/${rounds}, ${name} ${operation}: ${Math.round(sample.rps)} req/s, p99 ${sample.p99.toFixed(2)} ms`,
          )
          ;((samples[operation] ??= {})[name] ??= []).push(sample)
        }
      }
    } finally {
      await Promise.all(running.map(({ server }) => server.stop()))
    }
  }
  return samples
}

/**
 * The contenders' order in a round: turned by one each round, and reversed every other turn of
 * the cycle, so that over 2 x n rounds each one runs right after each other one as often as
 * before it (a plain rotation of three put head before REF in two rounds of three).
 */
function turnOrder(count, round) {
  const turned = Array.from({ length: count }, (_, index) => (index + round) % count)
  return Math.floor(round / count) % 2 === 0 ? turned : turned.reverse()
}

/** Each round, one child per tree in an order that turns: microseconds per in-process listPets. */
async function inProcessRounds(trees, rounds = IN_PROCESS_ROUNDS) {
  const scripts = trees.map((tree) => ({ name: tree.name, script: inProcessScript(tree) }))
  const samples = Object.fromEntries(trees.map((tree) => [tree.name, []]))
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? scripts : [...scripts].reverse()
    for (const { name, script } of order) {
      const result = await runScript(script, ['3', String(IN_PROCESS_REQUESTS)])
      console.log(
        `round ${round + 1}/${rounds}, ${name} in-process listPets: ${result.sandbox.toFixed(1)} µs, a trivial msw handler ${result.floor.toFixed(1)} µs`,
      )
      samples[name].push(result)
    }
  }
  return samples
}

const perRound = (a, b, pick) => median(a.map((sample, index) => pick(sample, b[index])))

/**
 * One row per measure: each contender's median, and head over each other contender, the median
 * of each round's ratio (a round's contenders shared its moment of the machine). Throughput rows
 * carry the gate's threshold, which each head/REF ratio must reach.
 */
function verdicts(http, inProcess, refs) {
  const rows = []
  const row = (measure, by, value, ratio, threshold) => ({
    measure,
    values: Object.fromEntries(Object.entries(by).map(([name, samples]) => [name, median(samples.map(value))])),
    ratios: Object.fromEntries(
      Object.keys(by)
        .filter((name) => name !== 'head')
        .map((name) => [name, perRound(by.head, by[name], ratio)]),
    ),
    gated: threshold === undefined ? [] : refs,
    threshold,
  })
  for (const [operation, by] of Object.entries(http)) {
    rows.push(
      row(
        `${operation} req/s`,
        by,
        (s) => s.rps,
        (h, o) => h.rps / o.rps,
        THRESHOLDS[operation],
      ),
    )
    rows.push(
      row(
        `${operation} p99 ms`,
        by,
        (s) => s.p99,
        (h, o) => h.p99 / o.p99,
      ),
    )
  }
  // In-process, as throughput: head/REF above 1 is faster. "bare" here is a trivial msw handler in
  // the head's own child, timed beside it.
  const byTree = { ...inProcess, bare: inProcess.head.map((s) => ({ sandbox: s.floor })) }
  rows.push(
    row(
      'in-process listPets µs',
      byTree,
      (s) => s.sandbox,
      (h, o) => o.sandbox / h.sandbox,
      THRESHOLDS.inProcess,
    ),
  )
  return rows
}

/** The gated ratios under their threshold, as "measure at ratio of REF". */
const regressions = (rows, trees) =>
  rows.flatMap((row) =>
    row.gated
      .filter((name) => !(row.ratios[name] >= row.threshold))
      .map((name) => `${row.measure} at ${fixed(row.ratios[name], 2)} of ${trees[name].label}`),
  )

const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a')

function render(rows, { trees, refs, rounds, seconds, load }) {
  const names = ['head', ...refs, 'bare']
  const describe = (name) => {
    const tree = trees[name]
    if (name === 'bare') return 'bare: node:http (bench/baseline-server.mjs); in-process, a trivial msw handler'
    const where = tree.folder === root ? ', this checkout' : ''
    return `${name}: ${tree.label} (${tree.sha.slice(0, 7)}, ${versionAt(root, tree.sha)}${where})`
  }
  const lines = [
    `bench:compare, ${new Date().toISOString()}, Node ${process.version}, ${rounds} rounds of ${seconds} s (wrk -t1 -c${CONNECTIONS}), load average ${load.map((l) => l.toFixed(2)).join(' -> ')}`,
    ...names.map(describe),
    '',
    `| measure | ${names.join(' | ')} | ${names
      .slice(1)
      .map((name) => `head/${name}`)
      .join(' | ')} | gate |`,
    `|${' --- |'.repeat(names.length * 2 + 1)}`,
  ]
  for (const row of rows) {
    const digits = row.measure.endsWith('req/s') ? 0 : 2
    const failed = row.gated.filter((name) => !(row.ratios[name] >= row.threshold))
    const gate =
      row.threshold === undefined
        ? ''
        : failed.length === 0
          ? `pass (>= ${row.threshold})`
          : `FAIL (< ${row.threshold})`
    const values = names.map((name) => fixed(row.values[name], digits))
    const ratios = names.slice(1).map((name) => fixed(row.ratios[name], 2))
    lines.push(`| ${row.measure} | ${values.join(' | ')} | ${ratios.join(' | ')} | ${gate} |`)
  }
  return lines.join('\n')
}

const USAGE = 'usage: npm run bench:compare -- [REF ...] [--head REF] [--rounds N] [--seconds S] [--json FILE]'

/** The command line, or a UsageError saying what is wrong with it. */
function options() {
  let parsed
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        head: { type: 'string' },
        rounds: { type: 'string', default: String(DEFAULT_ROUNDS) },
        seconds: { type: 'string', default: String(DEFAULT_SECONDS) },
        json: { type: 'string' },
      },
    })
  } catch (error) {
    throw new UsageError(`${error.message}\n${USAGE}`)
  }
  const { values, positionals } = parsed
  const rounds = Number(values.rounds)
  const seconds = Number(values.seconds)
  if (!Number.isInteger(rounds) || rounds < 1) {
    throw new UsageError(`--rounds must be a whole number of at least 1, got ${values.rounds}\n${USAGE}`)
  }
  if (!Number.isInteger(seconds) || seconds < 1) {
    throw new UsageError(`--seconds must be a whole number of at least 1, got ${values.seconds}\n${USAGE}`)
  }
  if (new Set(positionals).size !== positionals.length) {
    throw new UsageError(`each REF once, got ${positionals.join(' ')}\n${USAGE}`)
  }
  // Resolved now, before anything is built: a ref git does not know is a usage error.
  for (const ref of [...positionals, ...(values.head === undefined ? [] : [values.head])]) {
    git(root, 'rev-parse', '--verify', `${ref}^{commit}`)
  }
  const refs = positionals.length > 0 ? positionals : [previousRelease(root)]
  return { rounds, seconds, refs, named: positionals.length > 0, head: values.head, json: values.json }
}

async function main() {
  const { rounds, seconds, refs, named, head, json } = options()
  requireWrk()
  // Each contender by the name its column gets: head, each REF as given, bare.
  const trees = { head: head === undefined ? workingTree(root) : buildCommit(root, head) }
  const names = refs.map((ref) => (named ? ref : 'previous'))
  refs.forEach((ref, index) => {
    trees[names[index]] = buildCommit(root, ref)
  })
  if (!named) trees.previous.label = `the previous release, ${versionAt(root, trees.previous.sha)}`
  trees.bare = { label: 'bare node:http', bare: true }
  const list = Object.entries(trees).map(([name, tree]) => ({ ...tree, name }))
  const loadBefore = loadavg()[0]
  const http = await httpRounds(list, rounds, seconds)
  const inProcess = await inProcessRounds(list.filter((tree) => !tree.bare))
  const rows = verdicts(http, inProcess, names)
  const report = render(rows, { trees, refs: names, rounds, seconds, load: [loadBefore, loadavg()[0]] })
  console.log(`\n${report}\n`)
  if (json !== undefined) writeFileSync(json, `${JSON.stringify({ trees, rows, http, inProcess }, null, 2)}\n`)
  const failed = regressions(rows, trees)
  const against = names.map((name) => trees[name].label).join(' and ')
  if (failed.length > 0) {
    console.log(`bench:compare: a regression against ${against}: ${failed.join('; ')}`)
    process.exitCode = 1
  } else {
    console.log(`bench:compare: no throughput fell under its threshold against ${against}`)
  }
}

main().catch((error) => {
  console.error(error instanceof UsageError ? `bench:compare: ${error.message}` : error)
  process.exitCode = error instanceof UsageError ? 2 : 1
})
