// Section 1, HTTP side by side: wrk (bench/wrk.mjs) against the bare node:http reference,
// json-server and the sandbox (shared and --isolate), and autocannon as a second opinion on bare
// and sandbox listPets. Every round starts each server fresh, runs its scenarios and stops it, so
// a busy moment of the shared machine falls on all of them alike.
import { autocannonRun } from './autocannon.mjs'
import { startBare, startJsonServer, startSandbox } from './servers.mjs'
import { median } from './stats.mjs'
import { wrk } from './wrk.mjs'

// Enough to saturate bare: with fewer, bare waits on round trips and every ratio to it rises.
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
// Not counted: lets the JIT settle and, under --isolate, creates the tenants.
export const WARM_UP_SECONDS = 1
export const ISOLATE_KEYS = 500
export const SECOND_OPINION_SECONDS = 3
const AUTH = { Authorization: 'Bearer petstore-sandbox-key' }

/** Each scenario's path under a server's prefix and its wrk options. */
const SCENARIOS = {
  listPets: (prefix) => ({ path: `${prefix}/pets`, headers: AUTH }),
  getPet: (prefix) => ({ path: `${prefix}/pets/7`, headers: AUTH }),
  createPet: (prefix) => ({
    path: `${prefix}/pets`,
    headers: { ...AUTH, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
  }),
  // listPets under many keys in rotation, each its own tenant: --isolate accepts any well-formed key.
  isolate: (prefix) => ({ path: `${prefix}/pets`, rotateKeys: ISOLATE_KEYS }),
}

// json-server has no /v1 prefix and no POST worth comparing (it rewrites its db.json each time).
// autocannon: this server's listPets also gets an autocannon run, after the wrk scenarios.
const SERVERS = [
  { name: 'bare', start: startBare, prefix: '/v1', scenarios: ['listPets', 'getPet', 'createPet'], autocannon: true },
  { name: 'jsonServer', start: startJsonServer, prefix: '', scenarios: ['listPets', 'getPet'] },
  {
    name: 'sandbox',
    start: () => startSandbox(),
    prefix: '/v1',
    scenarios: ['listPets', 'getPet', 'createPet'],
    autocannon: true,
  },
  { name: 'isolate', start: () => startSandbox(['--isolate']), prefix: '/v1', scenarios: ['isolate'] },
]

const pct = (share) => `${Math.round(100 * share)}%`

/** An uncounted warm-up run, then the counted one. */
async function measure(label, origin, scenario, seconds) {
  const { path, ...options } = scenario
  const url = `${origin}${path}`
  await wrk(`${label} (warm-up)`, url, { ...options, seconds: WARM_UP_SECONDS, connections: CONNECTIONS })
  const run = await wrk(label, url, { ...options, seconds, connections: CONNECTIONS })
  console.log(`${label}: ${Math.round(run.rps)} req/s, p99 ${run.p99.toFixed(2)} ms, wrk CPU ${pct(run.wrkCpu)}`)
  return { rps: run.rps, p50: run.p50, p99: run.p99, wrkCpu: run.wrkCpu }
}

async function secondOpinion(label, origin, prefix) {
  const { path, headers } = SCENARIOS.listPets(prefix)
  const run = await autocannonRun(label, `${origin}${path}`, {
    seconds: SECOND_OPINION_SECONDS,
    connections: CONNECTIONS,
    headers,
  })
  console.log(`${label}: ${Math.round(run.rps)} req/s, autocannon CPU ${pct(run.loadCpu)}`)
  return run
}

/** Medians of each figure over rounds, and the slowest and fastest round's req/s. */
function summarize(runs) {
  const rps = runs.map((run) => run.rps)
  const medians = Object.fromEntries(Object.keys(runs[0]).map((key) => [key, median(runs.map((run) => run[key]))]))
  return { ...medians, rpsRange: [Math.min(...rps), Math.max(...rps)] }
}

const summarizeEach = (byKey) => Object.fromEntries(Object.entries(byKey).map(([key, runs]) => [key, summarize(runs)]))

/**
 * Runs every round and answers the medians over rounds, by server and scenario:
 * { bare: { listPets: { rps, p50, p99, wrkCpu, rpsRange }, ... }, jsonServer, sandbox, isolate,
 *   secondOpinion: { bare: { rps, loadCpu, rpsRange }, sandbox } }.
 */
export async function httpSection(rounds, seconds) {
  const samples = {}
  const autocannonSamples = {}
  for (let round = 1; round <= rounds; round++) {
    for (const { name, start, prefix, scenarios, autocannon } of SERVERS) {
      const server = await start()
      try {
        const origin = await server.origin
        for (const scenario of scenarios) {
          const label = `round ${round}/${rounds}, ${name} ${scenario}`
          const sample = await measure(label, origin, SCENARIOS[scenario](prefix), seconds)
          ;((samples[name] ??= {})[scenario] ??= []).push(sample)
        }
        if (autocannon) {
          const label = `round ${round}/${rounds}, ${name} listPets (autocannon, second opinion)`
          ;(autocannonSamples[name] ??= []).push(await secondOpinion(label, origin, prefix))
        }
      } finally {
        await server.stop()
      }
    }
  }
  return {
    ...Object.fromEntries(Object.entries(samples).map(([name, byScenario]) => [name, summarizeEach(byScenario)])),
    secondOpinion: summarizeEach(autocannonSamples),
  }
}
