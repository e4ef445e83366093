// createPet over HTTP with --state-file against without, at 32 and 100,000 pets (issue 50): the
// cost of an answer that waits for the disk. Each round starts every server fresh (pinned to core
// 0; wrk on core 1): without a state file, with one under `--state-save always` (the default:
// every change on disk before its answer) and under `--state-save interval`; each server takes
// createPet for SECONDS after a 1 s warm-up. With `always`, health's flushes and flushedChanges
// give the flushes per second and the group commit's batch (changes per flush).
//   node bench/state-file-writes.mjs [--rounds N] [--seconds S] [--pets 32,100000]
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { startServer } from './processes.mjs'
import { median } from './stats.mjs'
import { requireWrk, wrk } from './wrk.mjs'

const BIN = fileURLToPath(new URL('../bin/petstore-sandbox.js', import.meta.url))
const LISTENING = /listening on http:\/\/[^\s/]+:(\d+)\/v1/
const HEADERS = { Authorization: 'Bearer petstore-sandbox-key', 'Content-Type': 'application/json' }
const BODY = JSON.stringify({ name: 'Rex', categoryId: 1 })
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    pets: { type: 'string', default: '32,100000' },
  },
})
const rounds = Number(values.rounds)
const seconds = Number(values.seconds)
const sizes = values.pets.split(',').map(Number)
const MODES = ['none', 'always', 'interval']

async function health(origin) {
  return (await fetch(`${origin}/__sandbox/health`)).json()
}

async function one(mode, pets, folder) {
  const seed = pets === 32 ? [] : ['--generate', String(pets), '--random-seed', '1']
  const file =
    mode === 'none' ? [] : ['--state-file', join(folder, `${mode}-${pets}-${Date.now()}.json`), '--state-save', mode]
  const server = startServer([BIN, '--port', '0', '--quiet', ...seed, ...file], LISTENING)
  try {
    const origin = await server.origin
    const url = `${origin}/v1/pets`
    await wrk(`${mode} ${pets} (warm-up)`, url, { seconds: 1, headers: HEADERS, body: BODY })
    const before = (await health(origin)).stateFile
    const run = await wrk(`${mode} ${pets}`, url, { seconds, headers: HEADERS, body: BODY })
    const after = (await health(origin)).stateFile
    const flushes = mode === 'always' ? after.flushes - before.flushes : undefined
    const changes = mode === 'always' ? after.flushedChanges - before.flushedChanges : undefined
    return {
      rps: run.rps,
      p99: run.p99,
      flushesPerSecond: flushes === undefined ? undefined : flushes / seconds,
      batch: flushes ? changes / flushes : undefined,
    }
  } finally {
    await server.stop()
  }
}

requireWrk()
const folder = mkdtempSync(join(tmpdir(), 'petstore-state-writes-'))
const load = [loadavg()[0]]
const samples = {}
try {
  for (let round = 0; round < rounds; round++) {
    for (const pets of sizes) {
      const order = round % 2 === 0 ? MODES : [...MODES].reverse()
      for (const mode of order) {
        const sample = await one(mode, pets, folder)
        ;((samples[pets] ??= {})[mode] ??= []).push(sample)
        console.log(
          `round ${round + 1}/${rounds}, ${pets} pets, ${mode}: ${Math.round(sample.rps)} req/s, p99 ${sample.p99.toFixed(2)} ms${sample.batch === undefined ? '' : `, ${sample.flushesPerSecond.toFixed(0)} flushes/s, ${sample.batch.toFixed(1)} creates a flush`}`,
        )
      }
    }
  }
} finally {
  rmSync(folder, { recursive: true, force: true })
}
load.push(loadavg()[0])
console.log(
  `\n${rounds} rounds of ${seconds} s, wrk -t1 -c32, load average ${load.map((l) => l.toFixed(2)).join(' -> ')}\n`,
)
console.log('| pets | --state-file | createPet req/s | / without | p99 ms | flushes/s | creates a flush |')
console.log('| ---: | --- | ---: | ---: | ---: | ---: | ---: |')
for (const pets of sizes) {
  const none = samples[pets].none
  for (const mode of MODES) {
    const runs = samples[pets][mode]
    const ratio = median(runs.map((run, index) => run.rps / none[index].rps))
    const flushes = mode === 'always' ? median(runs.map((run) => run.flushesPerSecond)).toFixed(0) : ''
    const batch = mode === 'always' ? median(runs.map((run) => run.batch)).toFixed(1) : ''
    const label = mode === 'none' ? 'none' : `--state-save ${mode}`
    console.log(
      `| ${pets.toLocaleString('en-US')} | ${label} | ${Math.round(median(runs.map((run) => run.rps))).toLocaleString('en-US')} | ${mode === 'none' ? '1' : ratio.toFixed(2)} | ${median(runs.map((run) => run.p99)).toFixed(2)} | ${flushes} | ${batch} |`,
    )
  }
}
