// Measures the time from spawning the CLI to its first answered request (a 200 from
// GET /v1/pets), for `npx petstore-sandbox` and for the bin run directly by node.
// A benchmark, not a test: run it with `npm run bench:startup` after `npm run build`.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const runs = Number(process.env.RUNS ?? 7)
const bin = fileURLToPath(new URL('../bin/petstore-sandbox.js', import.meta.url))
const commands = {
  'npx petstore-sandbox': ['npx', ['--no-install', 'petstore-sandbox', '--port', '0', '--quiet']],
  'node bin/petstore-sandbox.js': [process.execPath, [bin, '--port', '0', '--quiet']],
}

async function once([command, args]) {
  const started = performance.now()
  // Detached into its own process group: npx does not pass SIGTERM on to the node it starts.
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'], detached: true })
  let output = ''
  const url = await new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      output += chunk
      const match = /listening on (\S+)/.exec(output)
      if (match) resolve(match[1])
    })
    child.on('exit', (code) => reject(new Error(`exited with ${code} before listening`)))
  })
  for (;;) {
    const response = await fetch(`${url}/pets`, { headers: { Authorization: 'Bearer petstore-sandbox-key' } })
    if (response.status === 200) break
  }
  const elapsed = performance.now() - started
  const exited = new Promise((resolve) => child.on('exit', resolve))
  process.kill(-child.pid, 'SIGTERM')
  await exited
  return elapsed
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const results = Object.fromEntries(Object.keys(commands).map((name) => [name, []]))
// Interleaved, so a busy moment of the machine hits both commands alike.
for (let i = 0; i < runs; i++) {
  for (const [name, command] of Object.entries(commands)) results[name].push(await once(command))
}
console.log(`Spawn to first 200, median of ${runs} runs (min..max), Node ${process.version}:`)
for (const [name, times] of Object.entries(results)) {
  const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`
  console.log(`  ${name.padEnd(30)} ${fmt(median(times))} (${fmt(Math.min(...times))}..${fmt(Math.max(...times))})`)
}
