// npm run bench:compare [REF] [--head REF] [--rounds N] [--seconds S]: this build against REF
// (by default the previous release: the newest commit whose package.json version differs from
// HEAD's) and against bare node:http, in one sitting. Interleaved rounds of listPets, getPet and
// createPet over HTTP with wrk (req/s and p99; servers pinned to core 0, wrk to core 1), and
// in-process listPets through msw's setupServer. Prints head/REF and head/bare for each, and
// exits 1 when a head/REF throughput ratio is under its threshold (2 on a usage error).
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
import { parseArgs } from 'node:util'
import { buildCommit, git, previousRelease, UsageError, versionAt, workingTree } from './compare-refs.mjs'
import { runScript, startServer } from './processes.mjs'
import { median } from './stats.mjs'
import { requireWrk, wrk } from './wrk.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const here = (path) => fileURLToPath(new URL(path, import.meta.url))

/**
 * The gate: head/REF throughput, the median of each round's ratio, must be at least this. Set
 * from the gate's own noise: HEAD against HEAD, 5 sittings of 5 rounds (docs/performance.md,
 * "The gate"), worst ratio 0.93 over HTTP and 0.91 in-process; the threshold sits under the worst
 * and no lower than 0.85. A sitting that flakes on a quiet machine gets more rounds, never a lower
 * threshold.
 */
export const THRESHOLDS = { http: 0.88, inProcess: 0.88 }
const DEFAULT_ROUNDS = 5
const DEFAULT_SECONDS = 3
const WARM_UP_SECONDS = 1
const CONNECTIONS = 32
const IN_PROCESS_REQUESTS = 2000
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

const contenders = (head, ref) => [
  {
    name: 'head',
    start: () => startServer([join(head.folder, 'bin/petstore-sandbox.js'), '--port', '0', '--quiet'], LISTENING),
  },
  {
    name: 'ref',
    start: () => startServer([join(ref.folder, 'bin/petstore-sandbox.js'), '--port', '0', '--quiet'], LISTENING),
  },
  { name: 'bare', start: () => startServer([here('./baseline-server.mjs'), '0'], LISTENING) },
]

/** Every round: each contender started fresh, in an order that turns each round, all three operations. */
async function httpRounds(list, rounds, seconds) {
  const samples = {}
  for (let round = 0; round < rounds; round++) {
    const order = list.map((_, index) => list[(index + round) % list.length])
    for (const { name, start } of order) {
      const server = await start()
      try {
        const origin = await server.origin
        for (const [operation, { path, ...options }] of Object.entries(OPERATIONS)) {
          const url = `${origin}${path}`
          const label = `round ${round + 1}/${rounds}, ${name} ${operation}`
          await wrk(`${label} (warm-up)`, url, { ...options, seconds: WARM_UP_SECONDS, connections: CONNECTIONS })
          const sample = await wrk(label, url, { ...options, seconds, connections: CONNECTIONS })
          console.log(`${label}: ${Math.round(sample.rps)} req/s, p99 ${sample.p99.toFixed(2)} ms`)
          ;((samples[operation] ??= {})[name] ??= []).push(sample)
        }
      } finally {
        await server.stop()
      }
    }
  }
  return samples
}

/** Each round, one child per tree in an order that turns: microseconds per in-process listPets. */
async function inProcessRounds(trees, rounds) {
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

function verdicts(http, inProcess) {
  const rows = []
  for (const [operation, by] of Object.entries(http)) {
    rows.push({
      measure: `${operation} req/s`,
      head: median(by.head.map((s) => s.rps)),
      ref: median(by.ref.map((s) => s.rps)),
      bare: median(by.bare.map((s) => s.rps)),
      headRef: perRound(by.head, by.ref, (h, r) => h.rps / r.rps),
      headBare: perRound(by.head, by.bare, (h, b) => h.rps / b.rps),
      threshold: THRESHOLDS.http,
    })
    rows.push({
      measure: `${operation} p99 ms`,
      head: median(by.head.map((s) => s.p99)),
      ref: median(by.ref.map((s) => s.p99)),
      bare: median(by.bare.map((s) => s.p99)),
      headRef: perRound(by.head, by.ref, (h, r) => h.p99 / r.p99),
      headBare: perRound(by.head, by.bare, (h, b) => h.p99 / b.p99),
    })
  }
  // In-process, as throughput (requests per µs): head/ref above 1 is faster; head/bare is the
  // trivial msw handler's time over the sandbox's, the same way round.
  rows.push({
    measure: 'in-process listPets µs',
    head: median(inProcess.head.map((s) => s.sandbox)),
    ref: median(inProcess.ref.map((s) => s.sandbox)),
    bare: median(inProcess.head.map((s) => s.floor)),
    headRef: perRound(inProcess.head, inProcess.ref, (h, r) => r.sandbox / h.sandbox),
    headBare: median(inProcess.head.map((s) => s.floor / s.sandbox)),
    threshold: THRESHOLDS.inProcess,
  })
  return rows
}

const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a')

function render(rows, { head, ref, rounds, seconds, load }) {
  const lines = [
    `bench:compare, ${new Date().toISOString()}, Node ${process.version}, ${rounds} rounds of ${seconds} s (wrk -t1 -c${CONNECTIONS}), load average ${load.map((l) => l.toFixed(2)).join(' -> ')}`,
    `head: ${head.label} (${head.sha.slice(0, 7)}${head.folder === root ? ', this checkout' : ''}); ref: ${ref.label} (${ref.sha.slice(0, 7)}, ${versionAt(root, ref.sha)}); bare: node:http (bench/baseline-server.mjs), in-process: a trivial msw handler`,
    '',
    '| measure | head | ref | bare | head/ref | head/bare | gate |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ]
  for (const row of rows) {
    const digits = row.measure.endsWith('req/s') ? 0 : 2
    const gate =
      row.threshold === undefined
        ? ''
        : row.headRef >= row.threshold
          ? `pass (>= ${row.threshold})`
          : `FAIL (< ${row.threshold})`
    lines.push(
      `| ${row.measure} | ${fixed(row.head, digits)} | ${fixed(row.ref, digits)} | ${fixed(row.bare, digits)} | ${fixed(row.headRef, 2)} | ${fixed(row.headBare, 2)} | ${gate} |`,
    )
  }
  return lines.join('\n')
}

const USAGE = 'usage: npm run bench:compare -- [REF] [--head REF] [--rounds N] [--seconds S] [--json FILE]'

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
  if (positionals.length > 1) throw new UsageError(`one REF at most, got ${positionals.join(' ')}\n${USAGE}`)
  // Resolved now, before anything is built: a ref git does not know is a usage error.
  const refCommit =
    positionals[0] === undefined
      ? previousRelease(root)
      : git(root, 'rev-parse', '--verify', `${positionals[0]}^{commit}`)
  if (values.head !== undefined) git(root, 'rev-parse', '--verify', `${values.head}^{commit}`)
  return { rounds, seconds, refCommit, refGiven: positionals[0], head: values.head, json: values.json }
}

async function main() {
  const { rounds, seconds, refCommit, refGiven, head: headGiven, json } = options()
  requireWrk()
  const ref = { ...buildCommit(root, refGiven ?? refCommit), name: 'ref' }
  if (refGiven === undefined) ref.label = `the previous release, ${versionAt(root, ref.sha)}`
  const head = { ...(headGiven === undefined ? workingTree(root) : buildCommit(root, headGiven)), name: 'head' }
  const loadBefore = loadavg()[0]
  const http = await httpRounds(contenders(head, ref), rounds, seconds)
  const inProcess = await inProcessRounds([head, ref], rounds)
  const rows = verdicts(http, inProcess)
  const report = render(rows, { head, ref, rounds, seconds, load: [loadBefore, loadavg()[0]] })
  console.log(`\n${report}\n`)
  if (json !== undefined) writeFileSync(json, `${JSON.stringify({ rows, http, inProcess }, null, 2)}\n`)
  const failed = rows.filter((row) => row.threshold !== undefined && !(row.headRef >= row.threshold))
  if (failed.length > 0) {
    console.log(
      `bench:compare: a regression against ${ref.label}: ${failed.map((row) => `${row.measure} at ${fixed(row.headRef, 2)} of ${ref.label}`).join('; ')}`,
    )
    process.exitCode = 1
  } else {
    console.log(`bench:compare: no throughput fell under its threshold against ${ref.label}`)
  }
}

main().catch((error) => {
  console.error(error instanceof UsageError ? `bench:compare: ${error.message}` : error)
  process.exitCode = error instanceof UsageError ? 2 : 1
})
