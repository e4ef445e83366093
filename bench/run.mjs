// npm run bench: every measure in one sitting, interleaved in rounds, medians and ratios to a
// reference, written to bench/results.md. Servers and child scripts run pinned to core 0, this
// process and wrk (the load generators) to core 1 (`taskset -c 1` in package.json). Not part of
// npm test. BENCH_ROUNDS (3), BENCH_SECONDS (5) and BENCH_CONNECTIONS (32) size the HTTP section;
// BENCH_SCALES (1000,100000,1000000) the scale section.
import { readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { dashboardSection } from './dashboard.mjs'
import { CONNECTIONS, httpSection } from './http.mjs'
import { runScript } from './processes.mjs'
import { renderHeadline, renderReport } from './report.mjs'
import { jsonServerVersion, startBare, startSandbox } from './servers.mjs'
import { median } from './stats.mjs'
import { requireWrk } from './wrk.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const SCALES = (process.env.BENCH_SCALES ?? '1000,100000,1000000').split(',').map(Number)
const STARTUP_ROUNDS = 5
const IN_PROCESS_ROUNDS = 5
const IN_PROCESS_REQUESTS = 2000
const COLD_START_ROUNDS = 9
const SCALE_SAMPLES = 2000
const STARTUP_TIMEOUT_MS = 30_000
const AUTH = { authorization: 'Bearer petstore-sandbox-key' }
const here = (path) => fileURLToPath(new URL(path, import.meta.url))

async function statusOf(url) {
  try {
    const response = await fetch(url, { headers: AUTH })
    await response.arrayBuffer()
    return response.status
  } catch {
    return 0 // Not accepting connections yet.
  }
}

/** Milliseconds from spawning a server to its first 200 on GET /v1/pets. */
async function msToFirst200(start) {
  const server = await start()
  try {
    const url = `${await server.origin}/v1/pets`
    for (;;) {
      const status = await statusOf(url)
      if (status === 200) return performance.now() - server.startedAt
      if (performance.now() - server.startedAt > STARTUP_TIMEOUT_MS) {
        throw new Error(`${url} answered ${status || 'nothing'} for ${STARTUP_TIMEOUT_MS} ms`)
      }
    }
  } finally {
    await server.stop()
  }
}

async function startupSection() {
  const contenders = { bare: startBare, sandbox: () => startSandbox() }
  // A first, uncounted round loads fetch itself and warms the disk cache.
  for (const start of Object.values(contenders)) await msToFirst200(start)
  const runs = { bare: [], sandbox: [] }
  for (let round = 0; round < STARTUP_ROUNDS; round++) {
    for (const [name, start] of Object.entries(contenders)) runs[name].push(await msToFirst200(start))
  }
  return { rounds: STARTUP_ROUNDS, bare: median(runs.bare), sandbox: median(runs.sandbox) }
}

async function inProcessSection() {
  const args = [String(IN_PROCESS_ROUNDS), String(IN_PROCESS_REQUESTS)]
  const runs = await runScript(here('./in-process.mjs'), args)
  return {
    rounds: IN_PROCESS_ROUNDS,
    sandbox: median(runs.sandbox),
    floor: median(runs.floor),
    // One setupServer shared with another API's handlers, before and after these.
    shared: { sandbox: median(runs.sharedSandbox), floor: median(runs.sharedFloor) },
  }
}

/** Milliseconds from process start to the first answer, in a fresh node process: sandbox or msw. */
async function coldStartSection() {
  const runs = { msw: [], sandbox: [] }
  // Round 0 is not counted: it warms the disk cache for both.
  for (let round = 0; round <= COLD_START_ROUNDS; round++) {
    const order = round % 2 === 0 ? ['msw', 'sandbox'] : ['sandbox', 'msw']
    for (const variant of order) {
      const ms = await runScript(here('./cold-start-child.mjs'), [variant])
      if (round > 0) runs[variant].push(ms)
    }
  }
  return { rounds: COLD_START_ROUNDS, msw: median(runs.msw), sandbox: median(runs.sandbox) }
}

async function scaleSection() {
  const rows = []
  for (const count of SCALES) {
    rows.push(await runScript(here('./scale.mjs'), [String(count), String(SCALE_SAMPLES)], ['--expose-gc']))
  }
  return rows
}

/** Runs one section, saying on the console how long it took. */
async function timed(name, section) {
  const started = performance.now()
  const result = await section()
  console.log(`${name} done in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  return result
}

// First, so a missing wrk or /usr/bin/time fails the run at once with how to install them.
const wrkVersion = requireWrk()
const startedAt = performance.now()
const loadBefore = loadavg()[0]
console.log(
  `Benchmark: BENCH_ROUNDS=${ROUNDS} BENCH_SECONDS=${SECONDS} BENCH_CONNECTIONS=${CONNECTIONS} BENCH_SCALES=${SCALES.join(',')}`,
)
const results = {
  http: await timed('HTTP', () => httpSection(ROUNDS, SECONDS)),
  startup: await timed('start-up', startupSection),
  inProcess: await timed('in-process', inProcessSection),
  coldStart: await timed('cold start', coldStartSection),
  scale: await timed('scale', scaleSection),
  install: await timed('install size', () => runScript(here('./install-size.mjs'))),
  dashboard: await timed('dashboard', () => dashboardSection()),
}
const meta = {
  version: JSON.parse(readFileSync(here('../package.json'), 'utf8')).version,
  date: new Date().toISOString().slice(0, 10),
  node: process.version,
  cpu: `${cpus().length} cores (${cpus()[0]?.model.trim()})`,
  load: [loadBefore, loadavg()[0]],
  rounds: ROUNDS,
  seconds: SECONDS,
  wrk: wrkVersion,
  jsonServer: jsonServerVersion(),
  wholeRunSeconds: (performance.now() - startedAt) / 1000,
}
const report = await renderReport(results, meta)
writeFileSync(here('./results.md'), report)
console.log(report)
// docs/performance.md's "This release": the section from its heading to the next one, replaced.
const page = here('../docs/performance.md')
const text = readFileSync(page, 'utf8')
const from = text.indexOf('## This release\n')
const to = text.indexOf('\n## ', from + 1)
if (from === -1 || to === -1) throw new Error(`${page} has no "## This release" section followed by another`)
writeFileSync(page, `${text.slice(0, from)}${await renderHeadline(results, meta)}${text.slice(to)}`)
console.log(`Wrote bench/results.md and docs/performance.md's "This release" (${meta.version})`)
