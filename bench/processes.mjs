// The processes the benchmark measures, servers and child scripts. Every one runs pinned to
// SERVER_CORE, so the load generator (bench/run.mjs, pinned to the other core by `npm run bench`)
// never shares a core with what it measures.
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { killGroup } from './pinning.mjs'

const SERVER_CORE = 0
const READY_TIMEOUT_MS = 30_000
const STOP_GRACE_MS = 5000
const live = new Set()

// Servers are detached into their own process groups, which outlive this process unless killed:
// if the benchmark throws half-way, none is left holding a port or the core.
process.on('exit', () => {
  for (const child of live) killGroup(child, 'SIGKILL')
})

function spawnPinned(nodeArgs, options) {
  return spawn('taskset', ['-c', String(SERVER_CORE), process.execPath, ...nodeArgs], options)
}

/**
 * Spawns a server, pinned, and resolves with its origin (http://127.0.0.1:PORT) once its banner,
 * matched by `portPattern` (one capture group: the port), says it is listening.
 */
export function startServer(nodeArgs, portPattern, { cwd } = {}) {
  const startedAt = performance.now()
  const child = spawnPinned(nodeArgs, { cwd, stdio: ['ignore', 'pipe', 'inherit'], detached: true })
  live.add(child)
  const exited = new Promise((resolve) => child.once('exit', resolve))
  exited.then(() => live.delete(child))
  let output = ''
  const origin = new Promise((resolve, reject) => {
    const fail = (why) => reject(new Error(`${nodeArgs.join(' ')} ${why} before listening:\n${output}`))
    const timer = setTimeout(() => fail(`took ${READY_TIMEOUT_MS} ms`), READY_TIMEOUT_MS)
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      output += chunk
      const match = portPattern.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(`http://127.0.0.1:${match[1]}`)
      }
    })
    exited.then((code) => {
      clearTimeout(timer)
      fail(`exited (${code})`)
    })
  })
  return {
    origin,
    startedAt,
    // taskset execs node in its own process: this is the server's pid.
    pid: child.pid,
    /** All it printed on stdout so far (a GC trace, when its flags ask for one). */
    output: () => output,
    async stop() {
      killGroup(child, 'SIGTERM')
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), STOP_GRACE_MS)
      await exited
      clearTimeout(timer)
    },
  }
}

/** A port free right now, for servers that cannot be told to pick one (json-server). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/** Runs a bench script to completion, pinned, and resolves with the JSON of its last output line. */
export function runScript(script, args = [], nodeFlags = []) {
  const child = spawnPinned([...nodeFlags, script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk))
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(output.trim().split('\n').at(-1)))
        : reject(new Error(`${script} ${args.join(' ')} exited with ${code}:\n${output}`)),
    )
  })
}
