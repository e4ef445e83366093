// bench/compare.mjs's measures of speed: the three operations over HTTP on servers that live
// through a round (listPets, then getPet, then createPet on the same process), and in-process
// listPets through msw's setupServer, each contender in its own child.
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { runScript, startServer } from './processes.mjs'
import { median } from './stats.mjs'
import { wrk } from './wrk.mjs'

const here = (path) => fileURLToPath(new URL(path, import.meta.url))
const root = here('..')

export const CONNECTIONS = 32
// Each operation gives each contender TURNS runs of `seconds` in turns with the others: the first
// is not counted (the JIT settles on the path), the rest are. With 1 s runs, every server takes 4 s
// of listPets, then 4 s of getPet, then 4 s of createPet, as a demo's server meets them.
export const TURNS = 4
// Between two runs on the servers' core: the server just loaded finishes its collection on the
// shared core, not inside the next one's run.
const GAP_MS = 250
const LISTENING = /listening on http:\/\/[^\s/]+:(\d+)\/v1/
const AUTH = { Authorization: 'Bearer petstore-sandbox-key' }

/** The operations in the order a server takes them, and each one's wrk options. */
export const OPERATIONS = {
  listPets: { path: '/v1/pets', headers: AUTH },
  getPet: { path: '/v1/pets/7', headers: AUTH },
  createPet: {
    path: '/v1/pets',
    headers: { ...AUTH, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
  },
}

/**
 * A built tree's CLI, or the bare node:http reference, started fresh and pinned to core 0. The
 * sandbox prints V8's GC trace (`--trace-gc-nvp`): what its creates promote to the old generation
 * is a measure of its own, the mechanism behind 0.15.0's lost third (docs/performance.md), which
 * unlike a req/s does not move with the machine's speed or load.
 */
const start = (tree) =>
  tree.bare
    ? startServer([here('./baseline-server.mjs'), '0'], LISTENING)
    : startServer(
        ['--trace-gc', '--trace-gc-nvp', join(tree.folder, 'bin/petstore-sandbox.js'), '--port', '0', '--quiet'],
        LISTENING,
      )

/** MB promoted to the old generation in a stretch of a GC trace (the sum of `promoted=`). */
const promotedIn = (trace) =>
  [...trace.matchAll(/promoted=(\d+)/g)].reduce((sum, [, bytes]) => sum + Number(bytes), 0) / 1e6

/**
 * The contenders' order in a turn: turned by one each turn, and reversed every other cycle, so
 * that over 2 x n turns each one runs right after each other one as often as before it.
 */
export function turnOrder(count, turn) {
  const turned = Array.from({ length: count }, (_, index) => (index + turn) % count)
  return Math.floor(turn / count) % 2 === 0 ? turned : turned.reverse()
}

/**
 * Rounds of the long-lived layout. Each round starts every contender afresh, pinned to core 0,
 * and each server then takes the operations in order, listPets, getPet, createPet, with nothing
 * restarted between them: the GETs before the creates are what taught V8 to tenure a create's
 * garbage in 0.15.0 (createPet at 0.67 of 0.9.0 on such a server, 0.84 on servers started for the
 * creates). An operation that is not measured (`measured` leaves it out) still runs, uncounted,
 * TURNS x `seconds` on each server, when a measured one comes after it.
 *
 * Inside an operation, the contenders take turns in `seconds` runs, 250 ms apart: a slow moment of
 * the machine (bare moves ±30% from one run to the next here) falls on every contender of a turn
 * alike. Fresh servers every round, and the median of the rounds, leave out a process's speed of
 * its own (one JIT's or one heap's luck: one process ran 20-30% under its twin for a whole sitting).
 */
export async function httpRounds(list, { rounds, seconds, measured, log = console.log }) {
  const samples = {}
  const names = Object.keys(OPERATIONS)
  const last = Math.max(...measured.map((name) => names.indexOf(name)))
  for (let round = 0; round < rounds; round++) {
    const running = []
    try {
      for (const tree of list) running.push({ name: tree.name, server: start(tree) })
      const origins = await Promise.all(running.map(({ server }) => server.origin))
      for (const [operation, { path, ...options }] of Object.entries(OPERATIONS).slice(0, last + 1)) {
        const run = (index, label) =>
          wrk(label, `${origins[index]}${path}`, { ...options, seconds, connections: CONNECTIONS })
        if (!measured.includes(operation)) {
          for (const [index, { name }] of running.entries()) {
            for (let turn = 0; turn < TURNS; turn++) await run(index, `${name} ${operation} (lead-in)`)
          }
          continue
        }
        const counted = {}
        const promoted = {}
        for (let turn = 0; turn < TURNS; turn++) {
          for (const index of turnOrder(running.length, round * TURNS + turn)) {
            await sleep(GAP_MS)
            const { name, server } = running[index]
            const from = server.output().length
            const one = await run(index, `${name} ${operation}${turn === 0 ? ' (warm-up)' : ''}`)
            if (turn === 0) continue
            ;(counted[name] ??= []).push(one)
            const stretch = (promoted[name] ??= { mb: 0, requests: 0 })
            stretch.mb += promotedIn(server.output().slice(from))
            stretch.requests += one.requests
          }
        }
        for (const [name, runs] of Object.entries(counted)) {
          const bare = list.find((tree) => tree.name === name)?.bare === true
          const sample = {
            rps: runs.reduce((sum, one) => sum + one.rps, 0) / runs.length,
            p99: median(runs.map((one) => one.p99)),
            // Bare prints no trace: no figure.
            promotedPerThousand: bare ? undefined : (promoted[name].mb / promoted[name].requests) * 1000,
          }
          const traced =
            sample.promotedPerThousand === undefined
              ? ''
              : `, ${sample.promotedPerThousand.toFixed(2)} MB promoted per 1,000`
          log(
            `round ${round + 1}/${rounds}, ${name} ${operation}: ${Math.round(sample.rps)} req/s, p99 ${sample.p99.toFixed(2)} ms${traced}`,
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

/** The in-process child, copied into a built tree so that it loads that tree's msw and dist. */
function inProcessScript(tree) {
  if (tree.folder === root) return here('./compare-in-process.mjs')
  const copy = join(tree.folder, 'bench', 'compare-in-process.mjs')
  copyFileSync(here('./compare-in-process.mjs'), copy)
  return copy
}

// Each round, one child per build: 3 counted batches of this many after an uncounted one.
const IN_PROCESS_REQUESTS = 700

/** Each round, one child per tree in an order that turns: microseconds per in-process listPets. */
export async function inProcessRounds(trees, { rounds, log = console.log }) {
  const scripts = trees.map((tree) => ({ name: tree.name, script: inProcessScript(tree) }))
  const samples = Object.fromEntries(trees.map((tree) => [tree.name, []]))
  for (let round = 0; round < rounds; round++) {
    for (const index of turnOrder(scripts.length, round)) {
      const { name, script } = scripts[index]
      const result = await runScript(script, ['3', String(IN_PROCESS_REQUESTS)])
      log(
        `round ${round + 1}/${rounds}, ${name} in-process listPets: ${result.sandbox.toFixed(1)} µs, a trivial msw handler ${result.floor.toFixed(1)} µs`,
      )
      samples[name].push(result)
    }
  }
  return samples
}
