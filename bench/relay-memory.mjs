// `npm run bench:relay`: how far the sandbox's memory grows while it relays lists that break the
// contract thousands of times each (issue 27). An upstream (bench/contract-breaking-upstream.mjs)
// answers every GET with 12,000 pets of a status the interface does not have, about 700 KB; the
// sandbox forwards listPets to it; wrk keeps RELAY_CONNECTIONS (32) clients asking for
// RELAY_SECONDS (60). The relay's RSS is read from /proc every 250 ms: the figure is the peak
// over the RSS just before the load, with the answers relayed and wrk's CPU share. The same load
// goes to a bare node:http relay that checks nothing (bench/bare-relay.mjs), in interleaved
// rounds (RELAY_ROUNDS, 2): what it grows is what relaying 700 KB answers costs Node before any
// check. Servers are pinned to core 0, wrk to core 1. Not part of npm test.
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { startServer } from './processes.mjs'
import { startSandbox } from './servers.mjs'
import { requireWrk, wrk } from './wrk.mjs'

const SECONDS = Number(process.env.RELAY_SECONDS ?? 60)
const ROUNDS = Number(process.env.RELAY_ROUNDS ?? 2)
const CONNECTIONS = Number(process.env.RELAY_CONNECTIONS ?? 32)
const AUTH = { Authorization: 'Bearer petstore-sandbox-key' }
const LISTENING = /listening on http:\/\/[^\s/]+:(\d+)\/v1/
const here = (path) => fileURLToPath(new URL(path, import.meta.url))

/** A process's resident set, in MB, from /proc (Linux). */
function rssOf(pid) {
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1])
  return kb / 1024
}

/** One measured run against a relay started by `start`: its growth while it relays. */
async function measure(label, relay) {
  const origin = await relay.origin
  try {
    // One answer first: the code paths loaded, the heap at its working size for one answer.
    const first = await fetch(`${origin}/v1/pets`, { headers: AUTH })
    const violations = first.headers.get('sandbox-contract-violations')
    await first.arrayBuffer()
    const before = rssOf(relay.pid)
    let peak = before
    const samples = setInterval(() => {
      peak = Math.max(peak, rssOf(relay.pid))
    }, 250)
    const run = await wrk(label, `${origin}/v1/pets`, { seconds: SECONDS, connections: CONNECTIONS, headers: AUTH })
    clearInterval(samples)
    const after = rssOf(relay.pid)
    return {
      relay: label,
      answers: run.requests,
      rps: Math.round(run.rps),
      violationsHeader: violations,
      rssBeforeMb: Math.round(before),
      rssPeakMb: Math.round(peak),
      rssAfterMb: Math.round(after),
      growthMb: Math.round(peak - before),
      wrkCpu: Math.round(run.wrkCpu * 100) / 100,
    }
  } finally {
    await relay.stop()
  }
}

requireWrk()
const upstream = startServer([here('./contract-breaking-upstream.mjs'), '0'], LISTENING)
const upstreamOrigin = await upstream.origin
const results = []
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [label, start] of [
      ['sandbox', () => startSandbox(['--upstream', `${upstreamOrigin}/v1`, '--forward', 'listPets'])],
      ['bare relay', () => startServer([here('./bare-relay.mjs'), upstreamOrigin], LISTENING)],
    ]) {
      const result = { round, ...(await measure(label, start())) }
      results.push(result)
      console.log(
        `round ${round}, ${label}: ${result.answers} lists of 12,000 bad pets relayed (${result.rps}/s` +
          `${result.violationsHeader === null ? '' : `, header ${result.violationsHeader}`}) over ${CONNECTIONS} connections for ${SECONDS} s: ` +
          `RSS ${result.rssBeforeMb} MB before, ${result.rssPeakMb} MB at its peak (+${result.growthMb} MB), ${result.rssAfterMb} MB after; wrk used ${Math.round(result.wrkCpu * 100)}% of its core`,
      )
    }
  }
} finally {
  await upstream.stop()
}
console.log(
  `load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}`,
)
console.log(JSON.stringify(results))
