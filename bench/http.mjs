// Section 1, HTTP side by side: autocannon against the bare node:http reference, json-server and
// the sandbox (shared and --isolate). Every round starts each server fresh, runs its scenarios
// and stops it, so a busy moment of the shared machine falls on all of them alike.
import autocannon from 'autocannon'
import { startBare, startJsonServer, startSandbox } from './servers.mjs'
import { median, quantile } from './stats.mjs'

export const CONNECTIONS = 20
// Not counted: lets the JIT settle and, under --isolate, creates the tenants.
export const WARM_UP_SECONDS = 1
export const ISOLATE_KEYS = 500
const AUTH = { authorization: 'Bearer petstore-sandbox-key' }

/** Each scenario's autocannon `requests`, under a server's path prefix. */
const SCENARIOS = {
  listPets: (prefix) => [{ method: 'GET', path: `${prefix}/pets`, headers: AUTH }],
  getPet: (prefix) => [{ method: 'GET', path: `${prefix}/pets/7`, headers: AUTH }],
  createPet: (prefix) => [
    {
      method: 'POST',
      path: `${prefix}/pets`,
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
    },
  ],
  // listPets under many keys in rotation, each its own tenant: --isolate accepts any well-formed key.
  isolate: (prefix) =>
    Array.from({ length: ISOLATE_KEYS }, (_, i) => ({
      method: 'GET',
      path: `${prefix}/pets`,
      headers: { authorization: `Bearer worker-${i}` },
    })),
}

// json-server has no /v1 prefix and no POST worth comparing (it rewrites its db.json each time).
const SERVERS = [
  { name: 'bare', start: startBare, prefix: '/v1', scenarios: ['listPets', 'getPet', 'createPet'] },
  { name: 'jsonServer', start: startJsonServer, prefix: '', scenarios: ['listPets', 'getPet'] },
  { name: 'sandbox', start: () => startSandbox(), prefix: '/v1', scenarios: ['listPets', 'getPet', 'createPet'] },
  { name: 'isolate', start: () => startSandbox(['--isolate']), prefix: '/v1', scenarios: ['isolate'] },
]

function assertAllOk(label, result) {
  const { non2xx, errors, timeouts } = result
  if (non2xx > 0 || errors > 0 || timeouts > 0) {
    throw new Error(`${label}: ${non2xx} non-2xx responses, ${errors} errors, ${timeouts} timeouts`)
  }
}

/**
 * One autocannon run: req/s, the p50 / p99 latency in ms, and the share of its core this process
 * used: near 1, the load generator rather than the server set the pace.
 */
async function load(label, origin, requests, seconds) {
  const latencies = []
  const startedAt = performance.now()
  const startedCpu = process.cpuUsage()
  const run = autocannon({
    url: origin,
    connections: CONNECTIONS,
    duration: seconds,
    requests,
    warmup: { duration: WARM_UP_SECONDS },
  })
  // autocannon's own percentiles are whole milliseconds, too coarse next to a bare server's.
  run.on('response', (_client, _status, _bytes, milliseconds) => latencies.push(milliseconds))
  const result = await run
  const { user, system } = process.cpuUsage(startedCpu)
  assertAllOk(`${label} (warm-up)`, result.warmup)
  assertAllOk(label, result)
  return {
    rps: result.requests.average,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    loadCpu: (user + system) / 1000 / (performance.now() - startedAt),
  }
}

/**
 * Runs every round and answers the medians over rounds, by server and scenario:
 * { bare: { listPets: { rps, p50, p99, loadCpu, rpsRange }, ... }, jsonServer, sandbox, isolate }.
 */
export async function httpSection(rounds, seconds) {
  const samples = {}
  for (let round = 1; round <= rounds; round++) {
    for (const { name, start, prefix, scenarios } of SERVERS) {
      const server = await start()
      try {
        const origin = await server.origin
        for (const scenario of scenarios) {
          const label = `round ${round}/${rounds}, ${name} ${scenario}`
          const sample = await load(label, origin, SCENARIOS[scenario](prefix), seconds)
          console.log(
            `${label}: ${Math.round(sample.rps)} req/s, p99 ${sample.p99.toFixed(2)} ms, load generator CPU ${Math.round(100 * sample.loadCpu)}%`,
          )
          ;((samples[name] ??= {})[scenario] ??= []).push(sample)
        }
      } finally {
        await server.stop()
      }
    }
  }
  const summarize = (runs) => {
    const rps = runs.map((run) => run.rps)
    const medians = Object.fromEntries(Object.keys(runs[0]).map((key) => [key, median(runs.map((run) => run[key]))]))
    // The spread over rounds, to show how noisy the machine was.
    return { ...medians, rpsRange: [Math.min(...rps), Math.max(...rps)] }
  }
  return Object.fromEntries(
    Object.entries(samples).map(([name, byScenario]) => [
      name,
      Object.fromEntries(Object.entries(byScenario).map(([scenario, runs]) => [scenario, summarize(runs)])),
    ]),
  )
}
