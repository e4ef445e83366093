// CLI start-up, variants side by side (not a test):
//   A  bin/petstore-sandbox.js as shipped: vm.Script + dist/cli.cjs.cache
//   B  the same vm.Script without cachedData             (bench/cli-startup/b-nocache.js)
//   C  require() of a bundle without the __importModule rewrite, no vm (bench/cli-startup/c-require.js)
//   floor: bare node (node -e 0 for exits; bench/baseline-server.mjs for listening)
// Measures, from spawn: "listen" = the stdout line "... listening on http://..." of `--port 0`;
// "version" / "help" = process exit of `--version` / `--help`. The CLI runs on core 0
// (taskset -c 0), this script re-runs itself on core 1. ROUNDS (40) interleaved rounds, the
// variant order rotating each round, after 2 uncounted rounds.
//   node bench/cli-startup/build-plain-bundle.mjs && node bench/cli-startup/startup-bench.mjs
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const SELF = fileURLToPath(import.meta.url)
const ROUNDS = Number(process.env.ROUNDS ?? 40)
const allowed = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]
if (allowed !== '1') {
  const r = spawnSync('taskset', ['-c', '1', process.execPath, SELF], { stdio: 'inherit' })
  process.exit(r.status ?? 1)
}

const variants = {
  'A vm.Script + cache (shipped)': 'bin/petstore-sandbox.js',
  'B vm.Script, no cache': 'bench/cli-startup/b-nocache.js',
  'C require(), no vm': 'bench/cli-startup/c-require.js',
}
const modes = {
  listen: ['--port', '0'],
  version: ['--version'],
  help: ['--help'],
}
const floors = { listen: ['bench/baseline-server.mjs'], version: ['-e', '0'], help: ['-e', '0'] }

function once(args, waitForLine) {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn('taskset', ['-c', '0', process.execPath, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    let elapsed
    child.stderr.on('data', (d) => (err += d))
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk
      if (waitForLine && elapsed === undefined && /listening on http:\/\/\S+/.test(out)) {
        elapsed = performance.now() - started
        child.kill('SIGKILL') // not timed; SIGKILL so no shutdown work overlaps the next run
      }
    })
    child.on('exit', (code) => {
      if (!waitForLine) {
        elapsed = performance.now() - started
        if (code !== 0) return reject(new Error(`${args.join(' ')} exited ${code}: ${err}`))
      }
      if (elapsed === undefined) return reject(new Error(`${args.join(' ')}: no listening line: ${out}${err}`))
      resolve(elapsed)
    })
  })
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]

const names = [...Object.keys(variants), 'floor']
const samples = {}
for (const mode of Object.keys(modes)) for (const name of names) samples[`${mode}|${name}`] = []
const loadStart = loadavg()
const t0 = performance.now()
for (let round = -2; round < ROUNDS; round++) {
  for (const [mode, args] of Object.entries(modes)) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + Math.max(round, 0)) % names.length]
      const argv = name === 'floor' ? floors[mode] : [variants[name], ...args]
      const ms = await once(argv, mode === 'listen')
      if (round >= 0) samples[`${mode}|${name}`].push(ms)
    }
  }
  if (round % 10 === 9) console.error(`round ${round + 1}/${ROUNDS}, load ${loadavg()[0].toFixed(2)}`)
}
console.log(
  `\nNode ${process.version}; ${ROUNDS} interleaved rounds after 2 uncounted; CLI on core 0, timer on core 1; load average at start ${loadStart.map((x) => x.toFixed(2)).join(' ')}, at end ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}; ${((performance.now() - t0) / 1000).toFixed(0)} s\n`,
)
console.log(
  '| measure | variant | median ms | p25..p75 ms | min..max ms | vs A (medians) | vs A (median of per-round ratios) |',
)
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: |')
for (const mode of Object.keys(modes)) {
  const a = samples[`${mode}|${names[0]}`]
  for (const name of names) {
    const xs = samples[`${mode}|${name}`]
    const paired = median(xs.map((x, i) => x / a[i]))
    console.log(
      `| ${mode} | ${name === 'floor' ? `floor: node ${floors[mode].join(' ')}` : name} | ${median(xs).toFixed(1)} | ${q(xs, 0.25).toFixed(1)}..${q(xs, 0.75).toFixed(1)} | ${Math.min(...xs).toFixed(1)}..${Math.max(...xs).toFixed(1)} | ${(median(xs) / median(a)).toFixed(3)} | ${paired.toFixed(3)} |`,
    )
  }
}
