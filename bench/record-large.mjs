// npm run bench:record: while the sandbox forwards listPets to an upstream and records a list of
// 1,000,000 pets (--record, upstreamBodyBytes raised to 64 MiB), another client asks getPet every
// 10 ms; how long each of its answers took is the measure (issue 41: every one within 100 ms).
// This build and, in the same sitting, each REF given (`npm run bench:record -- 2199345`), in
// turns. The sandbox is pinned to core 0; this process (upstream and clients) to core 1.
// Usage: node bench/record-large.mjs [REF ...] [--pets N] [--rounds N] [--concurrent N]. Prints a
// table. --concurrent N asks for the list N times at once (issue 50: four at once, the upstream
// sending its list in 256 KiB chunks), and the table adds the server's RSS before, at its peak
// (VmHWM) and 10 s after, and health's `recorded` beside the pets the data holds.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { once } from 'node:events'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { buildCommit, workingTree } from './compare-refs.mjs'
import { startServer } from './processes.mjs'
import { median, quantile } from './stats.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const AUTH = { Authorization: 'Bearer petstore-sandbox-key' }
const LISTENING = /listening on http:\/\/[^\s/]+:(\d+)\/v1/
const STATUSES = ['available', 'pending', 'sold']
const POLL_MS = 10

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    pets: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '3' },
    concurrent: { type: 'string', default: '1' },
  },
})
const count = Number(values.pets)
const rounds = Number(values.rounds)
const concurrent = Number(values.concurrent)
const CHUNK = 256 * 1024
const AFTER_MS = 10_000

/** A process's resident set now and at its peak, in MB (10^6 bytes), from /proc. */
function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kB = (name) => Number(new RegExp(`^${name}:\\s*(\\d+) kB`, 'm').exec(status)?.[1]) * 1024
  return { now: kB('VmRSS') / 1e6, peak: kB('VmHWM') / 1e6 }
}

/** The upstream's list: `count` pets as JSON, made once (about 62 MB for a million, under upstreamBodyBytes' 64 MiB most). */
function bigList() {
  const parts = []
  for (let id = 1; id <= count; id++) {
    parts.push(`{"id":${id},"name":"P${id}","categoryId":${1 + (id % 7)},"status":"${STATUSES[id % 3]}"}`)
  }
  return Buffer.from(`[${parts.join(',')}]`)
}

async function startUpstream(body) {
  // In 256 KiB chunks, each after the last is taken: an upstream that streams its list.
  const server = createServer(async (request, response) => {
    request.resume()
    response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.byteLength })
    for (let at = 0; at < body.byteLength; at += CHUNK) {
      if (!response.write(body.subarray(at, at + CHUNK))) await once(response, 'drain')
    }
    response.end()
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { server, url: `http://127.0.0.1:${server.address().port}/v1` }
}

/** One recording: the list forwarded and recorded, getPet asked every 10 ms meanwhile. */
async function recordOnce(tree, upstreamUrl) {
  const sandbox = startServer(
    [
      join(tree.folder, 'bin/petstore-sandbox.js'),
      ...['--port', '0', '--quiet', '--upstream', upstreamUrl, '--forward', 'listPets', '--record'],
      ...['--limit', `upstreamBodyBytes=${64 * 1024 * 1024}`],
    ],
    LISTENING,
  )
  try {
    const origin = await sandbox.origin
    // Warm: the other client's own path, before the list is asked.
    for (let i = 0; i < 50; i++) await (await fetch(`${origin}/v1/pets/7`, { headers: AUTH })).arrayBuffer()
    const waits = []
    let recording = true
    const poller = (async () => {
      while (recording) {
        const started = performance.now()
        const answer = await fetch(`${origin}/v1/pets/7`, { headers: AUTH })
        await answer.arrayBuffer()
        if (answer.status !== 200) throw new Error(`getPet answered ${answer.status} during the recording`)
        waits.push(performance.now() - started)
        await new Promise((resolve) => setTimeout(resolve, POLL_MS))
      }
    })()
    const before = rssOf(sandbox.pid).now
    const started = performance.now()
    const lists = await Promise.all(
      Array.from({ length: concurrent }, async () => {
        const list = await fetch(`${origin}/v1/pets`, { headers: AUTH })
        await list.arrayBuffer()
        return list.status
      }),
    )
    const tookMs = performance.now() - started
    recording = false
    await poller
    const peak = rssOf(sandbox.pid).peak
    if (lists.some((status) => status !== 200)) throw new Error(`the forwarded lists answered ${lists.join(', ')}`)
    await new Promise((resolve) => setTimeout(resolve, AFTER_MS))
    const after = rssOf(sandbox.pid).now
    const health = await (await fetch(`${origin}/__sandbox/health`)).json()
    return { tookMs, waits, pets: health.pets, recorded: health.upstream?.recorded, before, peak, after }
  } finally {
    await sandbox.stop()
  }
}

const trees = [
  { name: 'this build', ...workingTree(root) },
  ...positionals.map((ref) => ({ name: ref, ...buildCommit(root, ref) })),
]
const upstream = await startUpstream(bigList())
const load = [loadavg()[0]]
const results = Object.fromEntries(trees.map((tree) => [tree.name, []]))
try {
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < trees.length; turn++) {
      const tree = trees[(turn + round) % trees.length]
      const run = await recordOnce(tree, upstream.url)
      console.log(
        `round ${round + 1}/${rounds}, ${tree.name}: recorded in ${(run.tookMs / 1000).toFixed(2)} s, ${run.pets} pets after (recorded ${run.recorded}); getPet answered ${run.waits.length} times, p99 ${quantile(run.waits, 0.99).toFixed(1)} ms, slowest ${Math.max(...run.waits).toFixed(1)} ms; RSS ${run.before.toFixed(0)} -> peak ${run.peak.toFixed(0)} -> ${run.after.toFixed(0)} MB 10 s after`,
      )
      results[tree.name].push(run)
    }
  }
} finally {
  upstream.server.close()
}
load.push(loadavg()[0])
console.log(
  `\n${count.toLocaleString('en-US')} pets, ${concurrent} at once, ${rounds} rounds, load average ${load.map((l) => l.toFixed(2)).join(' -> ')}\n`,
)
console.log(
  '| build | recording, s (median) | getPet answers during it | p99 ms | slowest ms (median of rounds) | slowest ms (worst round) | RSS before / peak / 10 s after, MB | recorded / pets |',
)
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
for (const [name, runs] of Object.entries(results)) {
  const all = runs.flatMap((run) => run.waits)
  const slowest = runs.map((run) => Math.max(...run.waits))
  console.log(
    `| ${name} | ${(median(runs.map((run) => run.tookMs)) / 1000).toFixed(2)} | ${all.length} | ${quantile(all, 0.99).toFixed(1)} | ${median(slowest).toFixed(1)} | ${Math.max(...slowest).toFixed(1)} | ${median(runs.map((run) => run.before)).toFixed(0)} / ${median(runs.map((run) => run.peak)).toFixed(0)} / ${median(runs.map((run) => run.after)).toFixed(0)} | ${median(runs.map((run) => run.recorded))} / ${median(runs.map((run) => run.pets))} |`,
  )
}
