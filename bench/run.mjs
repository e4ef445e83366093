// npm run bench: everything side by side in one sitting, interleaved, medians and ratios,
// written to bench/results.md. Servers run pinned to core 0, this process (the load
// generator) to core 1. Not part of npm test.
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const DURATION = Number(process.env.BENCH_SECONDS ?? 5)
const SCALES = (process.env.BENCH_SCALES ?? '1000,100000,1000000').split(',').map(Number)
const here = (path) => fileURLToPath(new URL(path, import.meta.url))
const BIN = here('../bin/petstore-sandbox.js')
const BASELINE = here('./baseline-server.mjs')
const AUTH = { authorization: 'Bearer petstore-sandbox-key' }
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const pin = (core, command, args) => ['taskset', ['-c', String(core), command, ...args]]

/** Starts a server process pinned to core 0; resolves when it prints its URL. */
function startServer(command, args) {
  const started = performance.now()
  const [pinned, pinnedArgs] = pin(0, command, args)
  // Detached: npx does not pass SIGTERM on to the node it starts, so the group is killed.
  const child = spawn(pinned, pinnedArgs, { stdio: ['ignore', 'pipe', 'inherit'], detached: true })
  let output = ''
  const ready = new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      output += chunk
      const match = /listening on (http:\/\/\S+?)\/v1/.exec(output)
      if (match) resolve(match[1])
    })
    child.on('exit', (code) => reject(new Error(`${command} exited with ${code}: ${output}`)))
  })
  return {
    ready,
    started,
    async stop() {
      const exited = new Promise((resolve) => child.on('exit', resolve))
      try {
        process.kill(-child.pid, 'SIGTERM')
      } catch {
        // Already gone.
      }
      await exited
    },
  }
}

// The default configuration, request journal included.
const sandboxServer = () => startServer('node', [BIN, '--port', '0', '--quiet'])
const baselineServer = () => startServer('node', [BASELINE, '0'])

function load(url, scenario) {
  const requests =
    scenario === 'listPets'
      ? [{ method: 'GET', path: '/v1/pets', headers: AUTH }]
      : scenario === 'getPet'
        ? [{ method: 'GET', path: '/v1/pets/7', headers: AUTH }]
        : [
            ...Array.from({ length: 9 }, () => ({ method: 'GET', path: '/v1/pets', headers: AUTH })),
            {
              method: 'POST',
              path: '/v1/pets',
              headers: { ...AUTH, 'content-type': 'application/json' },
              body: '{"name":"Rex","categoryId":1}',
            },
          ]
  return new Promise((resolve, reject) => {
    autocannon(
      { url, connections: 50, duration: DURATION, requests, warmup: { connections: 50, duration: 1 } },
      (error, result) => (error ? reject(error) : resolve(result)),
    )
  })
}

async function httpSection() {
  const scenarios = ['listPets', 'getPet', 'mix 90/10']
  const results = Object.fromEntries(scenarios.map((s) => [s, { sandbox: [], baseline: [] }]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, start] of [
      ['baseline', baselineServer],
      ['sandbox', sandboxServer],
    ]) {
      const server = start()
      const url = await server.ready
      for (const scenario of scenarios) {
        const result = await load(url, scenario)
        if (result.non2xx > 0 || result.errors > 0)
          throw new Error(`${name} ${scenario}: ${result.non2xx} non-2xx, ${result.errors} errors`)
        results[scenario][name].push({ rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 })
      }
      await server.stop()
    }
  }
  return scenarios.map((scenario) => {
    const summary = (runs) => ({
      rps: median(runs.map((run) => run.rps)),
      p50: median(runs.map((run) => run.p50)),
      p99: median(runs.map((run) => run.p99)),
    })
    return { scenario, sandbox: summary(results[scenario].sandbox), baseline: summary(results[scenario].baseline) }
  })
}

function runChild(script, args, nodeFlags = []) {
  const [pinned, pinnedArgs] = pin(0, 'node', [...nodeFlags, here(script), ...args])
  return new Promise((resolve, reject) => {
    const child = spawn(pinned, pinnedArgs, { stdio: ['ignore', 'pipe', 'inherit'] })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk))
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(output.trim().split('\n').at(-1)))
        : reject(new Error(`${script} exited ${code}`)),
    )
  })
}

async function startupSection() {
  const runs = { npx: [], bin: [], baseline: [] }
  const firstOk = async (server) => {
    const url = await server.ready
    for (;;) {
      const response = await fetch(`${url}/v1/pets`, { headers: AUTH })
      await response.arrayBuffer()
      if (response.status === 200) break
    }
    const elapsed = performance.now() - server.started
    await server.stop()
    return elapsed
  }
  for (let round = 0; round < ROUNDS + 2; round++) {
    runs.baseline.push(await firstOk(baselineServer()))
    runs.bin.push(await firstOk(sandboxServer()))
    runs.npx.push(await firstOk(startServer('npx', ['--no-install', 'petstore-sandbox', '--port', '0', '--quiet'])))
  }
  return { npx: median(runs.npx), bin: median(runs.bin), baseline: median(runs.baseline) }
}

const started = Date.now()
console.log(`Benchmark: ${ROUNDS} rounds, ${DURATION} s per load, scales ${SCALES.join(', ')}`)
const startup = await startupSection()
console.log('start-up done')
const inProcessRuns = await runChild('./in-process.mjs', [String(ROUNDS + 2), '2000'])
const inProcess = { sandbox: median(inProcessRuns.sandbox), floor: median(inProcessRuns.floor) }
console.log('in-process done')
const scale = []
for (const count of SCALES) scale.push(await runChild('./scale.mjs', [String(count), '2000'], ['--expose-gc']))
const bundledReset = await runChild('./scale.mjs', ['bundled', '500'])
console.log('scale done')
const http = await httpSection()
console.log('HTTP done')

const fmt = (value, digits = 0) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
const ratio = (a, b) => `${fmt(a / b, 2)}x`
const smallest = scale[0]
const largest = scale.at(-1)
const lines = [
  '# Benchmark results',
  '',
  `${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model.trim()}), ` +
    `${ROUNDS} interleaved rounds, medians. Servers pinned to core 0, load generator (autocannon, 50 connections, ${DURATION} s) to core 1. ` +
    `Reproduce: \`npm run bench\`.`,
  '',
  '## HTTP: sandbox vs a bare node:http server answering the same JSON',
  '',
  '| scenario | sandbox req/s | baseline req/s | ratio | sandbox p50 / p99 ms | baseline p50 / p99 ms | p99 ratio |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...http.map(
    ({ scenario, sandbox, baseline }) =>
      `| ${scenario} | ${fmt(sandbox.rps)} | ${fmt(baseline.rps)} | ${fmt((100 * sandbox.rps) / baseline.rps)}% | ${sandbox.p50} / ${sandbox.p99} | ${baseline.p50} / ${baseline.p99} | ${ratio(sandbox.p99, baseline.p99)} |`,
  ),
  '',
  '## In-process: one request through setupServer',
  '',
  '| handlers | µs per request | ratio to the floor |',
  '| --- | ---: | ---: |',
  `| a trivial msw handler returning the same JSON (msw's floor) | ${fmt(inProcess.floor, 1)} | 1.00x |`,
  `| the sandbox's listPets | ${fmt(inProcess.sandbox, 1)} | ${ratio(inProcess.sandbox, inProcess.floor)} |`,
  '',
  '## Scale: through the handlers in-process (getResponse), p50',
  '',
  '| pets | getPet µs | listPets?status=sold&limit=20 µs | reset() ms | seeding ms | RSS MB |',
  '| ---: | ---: | ---: | ---: | ---: | ---: |',
  ...scale.map(
    (row) =>
      `| ${fmt(row.count)} | ${fmt(row.getPetMicros, 1)} | ${fmt(row.listSoldMicros, 1)} | ${fmt(row.resetMs, 3)} | ${fmt(row.seedMs)} | ${fmt(row.rssMB)} |`,
  ),
  `| ratio ${fmt(largest.count)} / ${fmt(smallest.count)} | ${ratio(largest.getPetMicros, smallest.getPetMicros)} | ${ratio(largest.listSoldMicros, smallest.listSoldMicros)} | | | |`,
  '',
  `reset() of the bundled 32-pet seed: ${fmt(bundledReset.resetMs, 3)} ms (median of 200).`,
  '',
  '## Start-up: spawn to the first 200 on GET /v1/pets',
  '',
  '| command | seconds | ratio to baseline |',
  '| --- | ---: | ---: |',
  `| bare node:http baseline | ${fmt(startup.baseline / 1000, 2)} | 1.00x |`,
  `| node bin/petstore-sandbox.js | ${fmt(startup.bin / 1000, 2)} | ${ratio(startup.bin, startup.baseline)} |`,
  `| npx petstore-sandbox | ${fmt(startup.npx / 1000, 2)} | ${ratio(startup.npx, startup.baseline)} |`,
  '',
  `Whole run: ${fmt((Date.now() - started) / 1000)} s.`,
  '',
]
writeFileSync(here('./results.md'), lines.join('\n'))
console.log(lines.join('\n'))
