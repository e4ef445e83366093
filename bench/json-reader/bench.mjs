// JSON reader candidates against the current reader (dist/src/core/json.js). Not a test.
//
//   node bench/json-reader/bench.mjs small [rounds]   (i) ~100-byte createPet bodies, ops/s
//   node bench/json-reader/bench.mjs large [rounds]   (ii)+(iii) the 8 MiB state import
//
// small: one process pinned to core 1 (taskset, re-run), every candidate timed in batches of
// BATCH parses, interleaved (the order rotates each round), 2 uncounted warm-up rounds; run it
// once plain and once with --harmony-json-parse-with-source for the reviver candidate.
// large: one child process per (round, candidate), pinned to core 1, interleaved rotating
// order. In the child: build the text (bench/budgets.mjs's stateBody, 8,388,542 bytes, 136,678
// pets), gc, reset the RSS peak (/proc/self/clear_refs 5), then parse once ("cold": the first
// import a fresh server sees), then again after a gc ("warm"). Longest block: for sync
// readers the parse itself (one task); for the sliced reader the longest stretch between two
// pause() calls, pause being json-body.ts's setTimeout(0). Also monitorEventLoopDelay
// (resolution 1 ms) max over the cold parse and 50 ms after. Memory: RSS peak (VmHWM) minus RSS
// before, and heapUsed retained after a gc with the value alive, minus before.
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import * as c from './candidates.mjs'

const SELF = fileURLToPath(import.meta.url)
const [mode = 'small', arg] = process.argv.slice(2)
const CORE = '1'
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const allowed = () => /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]

if (mode !== 'child' && allowed() !== CORE) {
  const r = spawnSync('taskset', ['-c', CORE, process.execPath, ...process.execArgv, SELF, ...process.argv.slice(2)], {
    stdio: 'inherit',
  })
  process.exit(r.status ?? 1)
}

// ---------------------------------------------------------------------------------------------
// (i) small bodies

const SMALL = [
  '{"name":"Sir Reginald Whiskerton of Bayside Lane","categoryId":12,"status":"available"}',
  '{"name": "Captain Feathers the Third", "categoryId": 3, "status": "pending"}  ',
  '{"name":"Bella-Marie Fluffington, the Brave","categoryId":2,"status":"sold"}\n        ',
  '{ "name": "Rex the Wonder Dog of Springfield", "categoryId": 1, "status": "available" }',
]
const BATCH = 50_000

async function small(rounds) {
  const candidates = {
    'current readJson': c.readJson,
    'lossless-json + hooks': c.losslessJson,
    'JSON.parse alone': c.jsonParse,
    'pre-scan + JSON.parse': c.prescanThenParse,
  }
  if (c.hasSourceAccess) candidates['JSON.parse + source reviver'] = c.jsonParseReviver
  const names = Object.keys(candidates)
  const samples = Object.fromEntries(names.map((n) => [n, []]))
  let sink = 0
  for (let round = -2; round < rounds; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + Math.max(round, 0)) % names.length]
      const read = candidates[name]
      const t0 = process.hrtime.bigint()
      for (let i = 0; i < BATCH; i++) {
        const r = read(SMALL[i & 3], 'body')
        sink += r.ok ? r.value.categoryId : -1
      }
      const ns = Number(process.hrtime.bigint() - t0) / BATCH
      if (round >= 0) samples[name].push(ns)
    }
  }
  if (sink === 42) console.log('')
  const base = median(samples['current readJson'])
  console.log(
    `\n(i) createPet bodies of ${SMALL.map((s) => s.length).join('/')} chars; ${rounds} interleaved rounds of ${BATCH} parses per candidate, core ${CORE}, Node ${process.version}${c.hasSourceAccess ? ', --harmony-json-parse-with-source' : ''}\n`,
  )
  console.log('| candidate | ns/op median | ops/s median | ns/op min..max | speed vs current |')
  console.log('| --- | ---: | ---: | ---: | ---: |')
  for (const name of names) {
    const m = median(samples[name])
    console.log(
      `| ${name} | ${m.toFixed(0)} | ${Math.round(1e9 / m).toLocaleString('en')} | ${Math.min(...samples[name]).toFixed(0)}..${Math.max(...samples[name]).toFixed(0)} | ${(base / m).toFixed(2)}x |`,
    )
  }
}

// ---------------------------------------------------------------------------------------------
// (ii)+(iii) the 8 MiB import, one child per sample

const LARGE = {
  'current readJsonInSlices': { sliced: true },
  'current readJson (sync)': { read: c.readJson },
  'lossless-json + hooks': { read: c.losslessJson },
  'JSON.parse alone': { read: c.jsonParse },
  'JSON.parse + source reviver': { read: c.jsonParseReviver, flags: ['--harmony-json-parse-with-source'] },
  'pre-scan + JSON.parse': { read: c.prescanThenParse },
  'pre-scan alone (no parse)': { read: (t) => ({ ok: c.prescan(t, 0) }) },
}

const status = () => readFileSync('/proc/self/status', 'utf8')
const kib = (field) => Number(new RegExp(`^${field}:\\s*(\\d+) kB`, 'm').exec(status())[1])

async function parseOnce(name, body) {
  const spec = LARGE[name]
  const now = () => performance.now()
  let longest = 0
  let slices = 0
  const t0 = now()
  let result
  if (spec.sliced) {
    let sliceStart = t0
    const pause = () => {
      longest = Math.max(longest, now() - sliceStart)
      slices++
      return new Promise((resolve) =>
        setTimeout(() => {
          sliceStart = now()
          resolve()
        }, 0),
      )
    }
    result = await c.readJsonInSlices(body, 'body', pause)
    longest = Math.max(longest, now() - sliceStart)
    slices++
  } else {
    result = spec.read(body, 'body')
    longest = now() - t0
    slices = 1
  }
  const total = now() - t0
  if (result.ok === false) throw new Error(`${name}: ${JSON.stringify(result.problems)}`)
  return { result, total, longest, slices }
}

async function child(name) {
  const { body } = c.stateBody()
  await sleep(20)
  globalThis.gc()
  globalThis.gc()
  const before = process.memoryUsage()
  writeFileSync('/proc/self/clear_refs', '5') // reset VmHWM to the current RSS
  const rssBefore = kib('VmRSS')
  const histogram = monitorEventLoopDelay({ resolution: 1 })
  histogram.enable()
  await sleep(30)
  histogram.reset()
  // After reset() the histogram's first tick only notes its time (Node 20's RecordDelta): let
  // a few ticks pass, or a block right after the reset is not seen.
  await sleep(10)
  const cold = await parseOnce(name, body)
  await sleep(50) // a GC right after the parse blocks too
  histogram.disable()
  const peakKiB = kib('VmHWM') - rssBefore
  const afterNoGc = process.memoryUsage()
  globalThis.gc()
  const after = process.memoryUsage()
  const keep = cold.result
  cold.result = undefined
  // warm: a second import into the same process
  globalThis.gc()
  const warm = await parseOnce(name, body)
  if (keep === warm.result) throw new Error('same')
  process.stdout.write(
    JSON.stringify({
      name,
      coldTotal: cold.total,
      coldLongest: cold.longest,
      slices: cold.slices,
      eldMax: histogram.max / 1e6,
      warmTotal: warm.total,
      warmLongest: warm.longest,
      rssPeakMB: (peakKiB * 1024) / 1e6,
      rssAfterMB: (afterNoGc.rss - before.rss) / 1e6,
      heapRetainedMB: (after.heapUsed - before.heapUsed) / 1e6,
      heapAfterNoGcMB: (afterNoGc.heapUsed - before.heapUsed) / 1e6,
      hash: keep.value === undefined ? 0 : JSON.stringify(keep.value).length,
    }) + '\n',
  )
}

function runChild(name) {
  const flags = ['--expose-gc', ...(LARGE[name].flags ?? [])]
  return new Promise((resolve, reject) => {
    const p = spawn('taskset', ['-c', CORE, process.execPath, ...flags, SELF, 'child', name], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    p.stdout.on('data', (d) => (out += d))
    p.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1))) : reject(new Error(`${name}: ${code}`)),
    )
  })
}

async function large(rounds) {
  const names = Object.keys(LARGE)
  const runs = Object.fromEntries(names.map((n) => [n, []]))
  const { body, pets } = c.stateBody()
  console.error(
    `load at start: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  )
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + round) % names.length]
      runs[name].push(await runChild(name))
    }
    console.error(`round ${round + 1}/${rounds} done, load ${loadavg()[0].toFixed(2)}`)
  }
  const col = (name, key) => median(runs[name].map((r) => r[key]))
  const base = 'current readJsonInSlices'
  console.log(
    `\n(ii)/(iii) state import of ${body.length.toLocaleString('en')} chars (${pets.toLocaleString('en')} pets); ${rounds} interleaved rounds, one fresh process per sample, core ${CORE}, Node ${process.version}; medians\n`,
  )
  console.log(
    '| candidate | cold total ms | vs sliced | longest block ms (cold) | loop delay max ms (cold) | warm total ms | warm longest block ms | slices | RSS peak +MB | heap retained +MB | RSS after +MB |',
  )
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
  for (const name of names) {
    const f = (key, d = 1) => col(name, key).toFixed(d)
    console.log(
      `| ${name} | ${f('coldTotal')} | ${(col(name, 'coldTotal') / col(base, 'coldTotal')).toFixed(2)}x | ${f('coldLongest')} | ${f('eldMax')} | ${f('warmTotal')} | ${f('warmLongest')} | ${f('slices', 0)} | ${f('rssPeakMB')} | ${f('heapRetainedMB')} | ${f('rssAfterMB')} |`,
    )
  }
  console.log('\nper-run (cold total / cold longest / loop-delay max, ms):')
  for (const name of names)
    console.log(
      `  ${name}: ${runs[name].map((r) => `${r.coldTotal.toFixed(0)}/${r.coldLongest.toFixed(0)}/${r.eldMax.toFixed(0)}`).join('  ')}`,
    )
  console.error(
    `load at end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  )
}

if (mode === 'small') await small(Number(arg ?? 20))
else if (mode === 'large') await large(Number(arg ?? 7))
else if (mode === 'child') await child(arg)
