// The four figures issue 16's closing note asks for, from one benchmark run (not a timed test):
//
//   1. RSS at 1,000 tenants under the list mix: `--isolate --generate 200`, 1,000 keys (the default
//      key and 999 others: the default key's tenant counts against the budget of 1,000), each asking
//      every list shape (limit 1..100 times no status, available, pending, sold). Target <= 300 MB.
//   2. RSS growth with 6 stalled event readers and 3,000 API requests carrying a 12 KiB header,
//      read at once and again 30 s later, beside the same requests with no reader. Target <= 20 MB.
//   3. The longest event-loop stall during a state import of the largest accepted size (just under
//      the stateBytes budget): seen by a client polling /__sandbox/health every few ms, and, more
//      precisely, by monitorEventLoopDelay({ resolution: 1 }) in a server started in-process with
//      startServer(), the import sent from a child process. Target <= 50 ms.
//   4. The throughput cost of the budgets: listPets over HTTP with wrk, the last commit's build
//      ("before") against the working tree's ("after"), interleaved rounds. Target: within 5%.
//
//   node bench/budgets.mjs --before /tmp/before --after /tmp/after [--out bench/budgets.md]
//
// --before / BUDGETS_BEFORE and --after / BUDGETS_AFTER are package folders with a build (dist/);
// --after defaults to this checkout. Measures 1-3 run on the after build; with a before build they
// also run on it, for reference (--no-reference skips that), and measure 4 needs both.
// --only tenants,readers,import,throughput picks measures. BUDGETS_ROUNDS (5) and BUDGETS_SECONDS
// (5) size measure 4; BUDGETS_SHAPES (400) is how many list shapes each key asks in measure 1;
// BUDGETS_IMPORTS (3) is how many imports measure 3 sends to each server; BUDGETS_TENANT_FLAGS
// adds CLI flags to measure 1's server (`--limit listCacheBytes=0`: the tenants without the cache).
//
// Servers and the in-process import server run pinned to core 0 (taskset), this process, the
// import sender and wrk to core 1; unless this process already runs on core 1 alone, it runs
// itself again under `taskset -c 1`. The report (Markdown) goes to stdout and to --out; progress
// to stderr. MB are 10^6 bytes; RSS is VmRSS of /proc/PID/status, its peak VmHWM.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { Agent, request as httpRequest } from 'node:http'
import { connect } from 'node:net'
import { cpus, loadavg } from 'node:os'
import { join, resolve } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { allowedCpus, killGroup, rerunPinned } from './pinning.mjs'
import { median } from './stats.mjs'
import { stateBody } from './state-body.mjs'
import { LOAD_CORE, requireWrk, wrk } from './wrk.mjs'

const SERVER_CORE = 0
const SELF = fileURLToPath(import.meta.url)
const CHECKOUT = fileURLToPath(new URL('..', import.meta.url))
const API_KEY = 'petstore-sandbox-key'
const AUTH = `Bearer ${API_KEY}`
const LISTENING = /listening on http:\/\/[^\s/]+:(\d+)\/v1/
const READY_TIMEOUT_MS = 30_000
const STOP_GRACE_MS = 8000
const MB = 1e6
const TICKS_PER_SECOND = 100 // getconf CLK_TCK on Linux

const TARGETS = { tenantsMB: 300, readersMB: 20, stallMs: 50, throughputRatio: 0.95 }

const TENANT_KEYS = 1000
const STATUSES = [undefined, 'available', 'pending', 'sold']
const SHAPES = Array.from({ length: 100 }, (_, i) => i + 1).flatMap((limit) =>
  STATUSES.map((status) => `/v1/pets?limit=${limit}${status === undefined ? '' : `&status=${status}`}`),
)
const TENANT_CONCURRENCY = 32
const READERS = 6
const PADDED_REQUESTS = 3000
const PAD = 'a'.repeat(12 * 1024)
const PADDED_CONCURRENCY = 8
const PADDED_WARM_UP = 300
// V8's memory reducer gives unused heap back some 10-20 s after the allocations stop.
const SETTLE_MS = 30_000
const POLL_EVERY_MS = 2
const AFTER_IMPORT_MS = 1000
const DEFAULT_STATE_BYTES = 16 * 1024 * 1024

const live = new Set()
const agent = new Agent({ keepAlive: true, maxSockets: 64 })

// ---------------------------------------------------------------------------------------------
// Processes, /proc, HTTP

const log = (line) => console.error(line)

/** Load averages now, as `uptime` shows them. */
const loadNow = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(', ')

/** VmRSS and VmHWM of a process, in MB. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kB = (field) => Number(new RegExp(`^${field}:\\s*(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
  return { rss: (kB('VmRSS') * 1024) / MB, hwm: (kB('VmHWM') * 1024) / MB }
}

/** utime + stime of a live process, in clock ticks. */
function cpuTicksOf(pid) {
  const { user, system } = cpuTimesOf(pid)
  return user + system
}

/** utime and stime of a live process, in clock ticks. */
function cpuTimesOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // Fields 14 and 15 of stat(5), counted from the state (field 3) here.
  return { user: Number(fields[11]), system: Number(fields[12]) }
}

/** A full GC in a server started with `{ gc: true }`, then its VmRSS once the process is idle again. */
async function memoryAfterGc(pid) {
  process.kill(pid, 'SIGUSR2')
  await sleep(1000)
  await settle(pid)
  return memoryOf(pid)
}

/** Busy and total clock ticks of each core so far, from /proc/stat. */
function coreTicks() {
  const cores = []
  for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
    const match = /^cpu(\d+) (.*)$/.exec(line)
    if (!match) continue
    const [user, nice, system, idle, iowait, irq, softirq, steal] = match[2].trim().split(/\s+/).map(Number)
    // Interrupts are left out of busy: on loopback they are mostly our own traffic's.
    const busy = user + nice + system + steal
    cores[Number(match[1])] = { busy, total: busy + idle + iowait + irq + softirq }
  }
  return cores
}

/**
 * The share of `core` that processes other than ours used between two coreTicks() readings:
 * the core's busy share minus `ownTicks` (what our pinned processes used there) over the same time.
 */
function othersShare(start, end, core, ownTicks) {
  const total = end[core].total - start[core].total
  return total > 0 ? Math.max(0, (end[core].busy - start[core].busy - ownTicks) / total) : NaN
}

/** A build folder's commit and whether its tree differs from it, from git. */
function describeBuild(path) {
  try {
    const git = (...args) => execFileSync('git', ['-C', path, ...args], { encoding: 'utf8' }).trim()
    const changed = git('status', '--porcelain', '--untracked-files=no').split('\n').filter(Boolean).length
    const subject = git('log', '-1', '--format=%s')
    const short = subject.length > 50 ? `${subject.slice(0, 50).replace(/\s+\S*$/, '')}...` : subject
    return `commit ${git('log', '-1', '--format=%h')} "${short}"${changed > 0 ? `, plus ${changed} changed files` : ', no other changes'}`
  } catch {
    return 'not a git checkout'
  }
}

/** Waits until the process has used at most a tick of CPU in two half-seconds running (at most 10 s). */
async function settle(pid) {
  let quiet = 0
  let last = cpuTicksOf(pid)
  for (let waited = 0; quiet < 2 && waited < 10_000; waited += 500) {
    await sleep(500)
    const now = cpuTicksOf(pid)
    quiet = now - last <= 1 ? quiet + 1 : 0
    last = now
  }
}

/**
 * The sandbox CLI of `build`, pinned to SERVER_CORE in a process group of its own. With `gc`, it
 * runs inside this script's `__gc-cli` role under `--expose-gc`: the same CLI, plus a full GC on
 * SIGUSR2.
 */
async function startCli(build, flags = [], { gc = false } = {}) {
  const args = [join(build, 'bin/petstore-sandbox.js'), '--port', '0', '--quiet', ...flags]
  const nodeArgs = gc ? ['--expose-gc', SELF, '__gc-cli', build, ...args.slice(1)] : args
  const child = spawn('taskset', ['-c', String(SERVER_CORE), process.execPath, ...nodeArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  live.add(child)
  const stderr = { lines: 0, sample: [] }
  let stopping = false
  let crash
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(child)
      if (!stopping) crash = `exited by itself (${signal ?? `code ${code}`})`
      resolve()
    }),
  )
  let partial = ''
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    const lines = (partial + chunk).split('\n')
    partial = lines.pop()
    for (const line of lines.filter((line) => line.trim() !== '')) {
      stderr.lines++
      if (stderr.sample.length < 5) stderr.sample.push(line.slice(0, 300))
    }
  })
  let output = ''
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${args.join(' ')} did not listen in ${READY_TIMEOUT_MS} ms`)),
      READY_TIMEOUT_MS,
    )
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      output += chunk
      const match = LISTENING.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(Number(match[1]))
      }
    })
    exited.then(() => {
      clearTimeout(timer)
      reject(new Error(`${args.join(' ')} exited before listening:\n${output}`))
    })
  })
  return {
    // taskset execs node: the pid is the server's.
    pid: child.pid,
    port,
    origin: `http://127.0.0.1:${port}`,
    command: `taskset -c ${SERVER_CORE} node ${args.map((arg) => arg.replace(build, '<build>')).join(' ')}${gc ? ' (with a full GC on SIGUSR2)' : ''}`,
    stderr,
    crashed: () => crash,
    async stop() {
      stopping = true
      killGroup(child, 'SIGTERM')
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), STOP_GRACE_MS)
      await exited
      clearTimeout(timer)
    },
  }
}

/** One request over the keep-alive agent: its status and, with `keepBody`, its body as text. */
function send(origin, path, { method = 'GET', headers = {}, body, keepBody = false } = {}) {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${origin}${path}`, { method, headers, agent }, (response) => {
      let text = ''
      if (keepBody) response.setEncoding('utf8').on('data', (chunk) => (text += chunk))
      else response.resume()
      response.once('end', () => resolve({ status: response.statusCode, text }))
      response.once('error', reject)
    })
    request.once('error', reject)
    request.end(body)
  })
}

async function healthOf(origin) {
  const { status, text } = await send(origin, '/__sandbox/health', { keepBody: true })
  if (status !== 200) throw new Error(`GET /__sandbox/health answered ${status}: ${text.slice(0, 300)}`)
  return JSON.parse(text)
}

/** The budget and use of a limit from health, when the build has the limits table. */
const limitOf = (health, name) => health.limits?.[name]

/** Runs `count` requests, `concurrency` at a time, tallying statuses (and errors as `error`). */
async function drive(count, concurrency, makeRequest) {
  const statuses = {}
  let next = 0
  const worker = async () => {
    while (next < count) {
      const index = next++
      let key
      try {
        key = String((await makeRequest(index)).status)
      } catch (error) {
        key = `error ${error.code ?? error.message}`
      }
      statuses[key] = (statuses[key] ?? 0) + 1
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return statuses
}

const describeStatuses = (statuses) =>
  Object.entries(statuses)
    .map(([status, count]) => `${count} x ${status}`)
    .join(', ')

// ---------------------------------------------------------------------------------------------
// 1. RSS at 1,000 tenants under the list mix

/**
 * The keys of measure 1: the default key and 999 others. The default key's tenant exists from the
 * start and counts against the tenants budget (1,000), so 1,000 keys besides it would make 1,001
 * tenants, and asked in rotation each request would evict the tenant asked next.
 */
const tenantKey = (index) => (index === 0 ? API_KEY : `tenant-${index}`)

async function tenantsMeasure(build) {
  const shapesPerKey = Number(process.env.BUDGETS_SHAPES ?? SHAPES.length)
  const step = Math.max(1, Math.floor(SHAPES.length / shapesPerKey))
  const server = await startCli(build, [
    '--isolate',
    '--generate',
    '200',
    ...(process.env.BUDGETS_TENANT_FLAGS?.split(' ') ?? []),
  ])
  try {
    const start = memoryOf(server.pid)
    const samples = []
    const sampler = setInterval(() => samples.push(memoryOf(server.pid).rss), 250)
    const total = TENANT_KEYS * shapesPerKey
    const startedAt = performance.now()
    // Key-interleaved: every tenant is alive at once; each key walks the shapes from its own offset.
    const statuses = await drive(total, TENANT_CONCURRENCY, (index) => {
      const key = index % TENANT_KEYS
      const round = Math.floor(index / TENANT_KEYS)
      const shape = SHAPES[(key * 7 + round * step) % SHAPES.length]
      return send(server.origin, shape, { headers: { authorization: `Bearer ${tenantKey(key)}` } })
    })
    const seconds = (performance.now() - startedAt) / 1000
    clearInterval(sampler)
    const end = memoryOf(server.pid)
    const health = await healthOf(server.origin)
    // A spot check that answers are whole: the largest shape of one key.
    const check = await send(server.origin, '/v1/pets?limit=100', {
      headers: { authorization: `Bearer ${tenantKey(TENANT_KEYS - 1)}` },
      keepBody: true,
    })
    const checkedPets = check.status === 200 ? JSON.parse(check.text).length : `status ${check.status}`
    await settle(server.pid)
    const settled = memoryOf(server.pid)
    return {
      command: server.command,
      requests: total,
      shapesPerKey,
      seconds,
      statuses,
      startMB: start.rss,
      endMB: end.rss,
      peakMB: settled.hwm,
      sampledMaxMB: Math.max(...samples, end.rss),
      settledMB: settled.rss,
      tenants: health.tenants,
      evictions: health.evictions,
      listCache: limitOf(health, 'listCacheBytes'),
      checkedPets,
      stderr: server.stderr,
      crash: server.crashed(),
    }
  } finally {
    await server.stop()
  }
}

// ---------------------------------------------------------------------------------------------
// 2. RSS growth with 6 stalled readers and 3,000 requests with a 12 KiB header

/** Opens GET /__sandbox/events on a raw socket, waits for the first bytes, then stops reading. */
function stalledReader(port) {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const reader = { socket, head: '', closed: false, error: undefined }
    socket.on('error', (error) => (reader.error = error.code ?? error.message))
    socket.on('close', () => (reader.closed = true))
    socket.once('connect', () =>
      socket.write(`GET /__sandbox/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`),
    )
    socket.once('data', (chunk) => {
      socket.pause()
      reader.head = chunk.toString('latin1')
      const status = /^HTTP\/1\.1 (\d+)/.exec(reader.head)?.[1]
      if (status === '200') resolve(reader)
      else reject(new Error(`GET /__sandbox/events answered: ${reader.head.slice(0, 300)}`))
    })
    socket.once('close', () => reject(new Error('GET /__sandbox/events closed before answering')))
  })
}

/**
 * Reads what a stalled reader had left, for a second: bytes, whether the last event was `overflow`,
 * whether the response ended (its last chunk) and whether the server closed the connection.
 */
async function drain(reader) {
  let bytes = 0
  let text = ''
  reader.socket.on('data', (chunk) => {
    bytes += chunk.length
    // Only the tail matters (a last `overflow` event), and the tail of each chunk is enough.
    text = (text + chunk.toString('latin1')).slice(-64 * 1024)
    if (/event: overflow/.test(text)) reader.overflow = true
  })
  reader.socket.resume()
  await sleep(1000)
  const closed = reader.closed
  reader.socket.destroy()
  return {
    bytes,
    overflow: reader.overflow === true,
    ended: text.endsWith('\r\n0\r\n\r\n'),
    closed,
    error: reader.error,
  }
}

/** One run: a fresh server, `readers` stalled readers, then the padded requests. */
async function readersRun(build, readerCount) {
  const server = await startCli(build, [], { gc: true })
  const padded = (index) =>
    send(server.origin, `/v1/pets?limit=${1 + (index % 20)}`, { headers: { authorization: AUTH, 'x-pad': PAD } })
  try {
    // The request path's own first-use allocations belong to the baseline, not to the readers.
    const warmUp = await drive(PADDED_WARM_UP, PADDED_CONCURRENCY, padded)
    await settle(server.pid)
    const before = await memoryAfterGc(server.pid)
    const readers = []
    for (let i = 0; i < readerCount; i++) readers.push(await stalledReader(server.port))
    await sleep(200)
    const withReaders = memoryOf(server.pid)
    const startedAt = performance.now()
    const statuses = await drive(PADDED_REQUESTS, PADDED_CONCURRENCY, padded)
    const seconds = (performance.now() - startedAt) / 1000
    const after = memoryOf(server.pid)
    const health = await healthOf(server.origin)
    agent.destroy() // Its idle keep-alive sockets would count as connections below.
    await sleep(SETTLE_MS)
    const settled = memoryOf(server.pid)
    const collected = await memoryAfterGc(server.pid)
    const healthSettled = await healthOf(server.origin)
    const drained = await Promise.all(readers.map(drain))
    return {
      command: server.command,
      readers: readerCount,
      warmUp,
      statuses,
      seconds,
      beforeMB: before.rss,
      withReadersMB: withReaders.rss,
      afterMB: after.rss,
      settledMB: settled.rss,
      collectedMB: collected.rss,
      peakMB: collected.hwm,
      growthMB: after.rss - before.rss,
      settledGrowthMB: settled.rss - before.rss,
      collectedGrowthMB: collected.rss - before.rss,
      streams: limitOf(health, 'eventStreams'),
      journalBytes: limitOf(health, 'journalBytes'),
      // The health request's own connection is one of them.
      connectionsSettled: limitOf(healthSettled, 'connections'),
      drained,
      stderr: server.stderr,
      crash: server.crashed(),
    }
  } finally {
    await server.stop()
  }
}

/** With the readers, and without them (the same requests on a fresh server), to tell their share. */
async function readersMeasure(build) {
  return { without: await readersRun(build, 0), with: await readersRun(build, READERS) }
}

// ---------------------------------------------------------------------------------------------
// 3. The longest event-loop stall during a largest-size import

/** Child role: builds the state, says `sending`, PUTs it, prints the answer as JSON. */
async function importSender(origin, maxBytes) {
  const { body, pets } = stateBody(maxBytes)
  const bytes = Buffer.byteLength(body)
  process.stdout.write('sending\n')
  const startedAt = performance.now()
  const { status, text } = await send(origin, '/__sandbox/state', {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'content-length': String(bytes) },
    body,
    keepBody: true,
  })
  const ms = performance.now() - startedAt
  process.stdout.write(`${JSON.stringify({ status, ms, bytes, pets, answer: text.slice(0, 300) })}\n`)
  agent.destroy()
}

/** Spawns the import sender on LOAD_CORE; `onSending` runs when it starts sending. Resolves with its result. */
function runImportSender(origin, maxBytes, onSending) {
  const child = spawn(
    'taskset',
    ['-c', String(LOAD_CORE), process.execPath, SELF, '__import-sender', origin, String(maxBytes)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    if (!output.includes('sending\n') && (output + chunk).includes('sending\n')) onSending()
    output += chunk
  })
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => {
      const last = output.trim().split('\n').at(-1)
      if (code === 0 && last?.startsWith('{')) resolve(JSON.parse(last))
      else reject(new Error(`import sender exited with ${code}:\n${output}`))
    })
  })
}

/** Child role, pinned to SERVER_CORE: startServer() in this process, monitorEventLoopDelay around each import. */
async function importServer(build, imports) {
  const { startServer } = await import(pathToFileURL(join(build, 'dist/src/server.js')).href)
  const server = await startServer({ port: 0 })
  const { origin } = new URL(server.url)
  const health = await healthOf(origin)
  const maxBytes = limitOf(health, 'stateBytes')?.budget ?? DEFAULT_STATE_BYTES
  const histogram = monitorEventLoopDelay({ resolution: 1 })
  histogram.enable()
  const runs = []
  for (let i = 0; i < imports; i++) {
    await sleep(500)
    histogram.reset()
    let idleMaxMs
    let cores
    let cpu
    const result = await runImportSender(origin, maxBytes, () => {
      // The idle loop's own delay, from the last import's end to this one's start.
      idleMaxMs = histogram.max / 1e6
      histogram.reset()
      cores = coreTicks()
      cpu = process.cpuUsage()
    })
    const duringMaxMs = histogram.max / 1e6
    const duringP99Ms = histogram.percentile(99) / 1e6
    await sleep(AFTER_IMPORT_MS)
    const { user, system } = process.cpuUsage(cpu)
    const othersCore0 = othersShare(cores, coreTicks(), SERVER_CORE, ((user + system) / 1e6) * TICKS_PER_SECOND)
    runs.push({ ...result, idleMaxMs, duringMaxMs, duringP99Ms, withAfterMaxMs: histogram.max / 1e6, othersCore0 })
  }
  histogram.disable()
  const pets = (await healthOf(origin)).pets
  agent.destroy()
  await server.close()
  process.stdout.write(
    `${JSON.stringify({ maxBytes, runs, petsAfter: pets, rssMB: process.memoryUsage().rss / MB })}\n`,
  )
}

/** Runs importServer in a child process pinned to SERVER_CORE. */
function runImportServer(build, imports) {
  const child = spawn(
    'taskset',
    ['-c', String(SERVER_CORE), process.execPath, SELF, '__import-server', build, String(imports)],
    { stdio: ['ignore', 'pipe', 'inherit'], detached: true },
  )
  live.add(child)
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk))
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => {
      live.delete(child)
      const last = output.trim().split('\n').at(-1)
      if (code === 0 && last?.startsWith('{')) resolve(JSON.parse(last))
      else reject(new Error(`in-process import server exited with ${code}:\n${output}`))
    })
  })
}

/** The client's view: the CLI server, a poller on /__sandbox/health every few ms, imports sent from a child. */
async function importPolled(build, imports) {
  const server = await startCli(build)
  try {
    const health = await healthOf(server.origin)
    const maxBytes = limitOf(health, 'stateBytes')?.budget ?? DEFAULT_STATE_BYTES
    const polls = []
    let polling = true
    const poller = (async () => {
      while (polling) {
        const startedAt = performance.now()
        const { status } = await send(server.origin, '/__sandbox/health')
        polls.push({ startedAt, endedAt: performance.now(), status })
        await sleep(POLL_EVERY_MS)
      }
    })()
    const runs = []
    for (let i = 0; i < imports; i++) {
      await sleep(500)
      let sendingAt = Infinity
      const result = await runImportSender(server.origin, maxBytes, () => (sendingAt = performance.now()))
      const answeredAt = performance.now()
      await sleep(AFTER_IMPORT_MS)
      const endAt = performance.now()
      // Polls that overlap [sending, answered + AFTER_IMPORT_MS].
      const window = polls.filter((poll) => poll.endedAt >= sendingAt && poll.startedAt <= endAt)
      const idle = polls.filter((poll) => poll.endedAt < sendingAt && poll.startedAt > sendingAt - 400)
      let longestGapMs = 0
      for (let j = 1; j < window.length; j++) {
        longestGapMs = Math.max(longestGapMs, window[j].endedAt - window[j - 1].endedAt)
      }
      runs.push({
        ...result,
        polls: window.length,
        pollsDuringAnswer: window.filter((poll) => poll.startedAt <= answeredAt).length,
        longestLatencyMs: Math.max(...window.map((poll) => poll.endedAt - poll.startedAt)),
        longestGapMs,
        idleLongestLatencyMs: Math.max(...idle.map((poll) => poll.endedAt - poll.startedAt)),
        failedPolls: window.filter((poll) => poll.status !== 200).length,
      })
    }
    polling = false
    await poller
    const after = memoryOf(server.pid)
    return {
      command: server.command,
      maxBytes,
      runs,
      petsAfter: (await healthOf(server.origin)).pets,
      rssMB: after.rss,
      peakMB: after.hwm,
      stderr: server.stderr,
      crash: server.crashed(),
    }
  } finally {
    await server.stop()
  }
}

async function importMeasure(build) {
  const imports = Number(process.env.BUDGETS_IMPORTS ?? 3)
  const polled = await importPolled(build, imports)
  const inProcess = await runImportServer(build, imports)
  return { imports, polled, inProcess }
}

// ---------------------------------------------------------------------------------------------
// 4. Throughput: listPets with wrk, before and after, interleaved

async function throughputRun(label, build, seconds) {
  const server = await startCli(build)
  try {
    const url = `${server.origin}/v1/pets`
    const options = { headers: { Authorization: AUTH } }
    await wrk(`${label} (warm-up)`, url, { ...options, seconds: 1 }) // Uncounted: lets the JIT settle.
    const times = cpuTimesOf(server.pid)
    const ticks = times.user + times.system
    const cores = coreTicks()
    const startedAt = performance.now()
    const run = await wrk(label, url, { ...options, seconds })
    const timesEnd = cpuTimesOf(server.pid)
    const serverTicks = timesEnd.user + timesEnd.system - ticks
    // The server's CPU time per request, user and system, in µs: what a busy machine changes least.
    const perRequest = (field) => ((timesEnd[field] - times[field]) / TICKS_PER_SECOND / run.requests) * 1e6
    const coresEnd = coreTicks()
    const elapsed = (performance.now() - startedAt) / 1000
    const serverCpu = serverTicks / TICKS_PER_SECOND / elapsed
    // wrk's ticks from its CPU share; this process's own few ticks on core 1 count as others.
    const othersCore0 = othersShare(cores, coresEnd, SERVER_CORE, serverTicks)
    const othersCore1 = othersShare(cores, coresEnd, LOAD_CORE, run.wrkCpu * elapsed * TICKS_PER_SECOND)
    if (server.crashed()) throw new Error(`${label}: the server ${server.crashed()}`)
    return {
      ...run,
      serverCpu,
      userMicros: perRequest('user'),
      systemMicros: perRequest('system'),
      othersCore0,
      othersCore1,
      load: loadavg()[0],
    }
  } finally {
    await server.stop()
  }
}

async function throughputMeasure(before, after) {
  const rounds = Number(process.env.BUDGETS_ROUNDS ?? 5)
  const seconds = Number(process.env.BUDGETS_SECONDS ?? 5)
  const runs = []
  for (let round = 1; round <= rounds; round++) {
    const entry = { round }
    for (const [name, build] of [
      ['before', before],
      ['after', after],
    ]) {
      entry[name] = await throughputRun(`round ${round} ${name}`, build, seconds)
      log(
        `  round ${round}/${rounds} ${name}: ${Math.round(entry[name].rps)} req/s, p99 ${entry[name].p99.toFixed(2)} ms, ` +
          `wrk CPU ${pct(entry[name].wrkCpu)}, server CPU ${pct(entry[name].serverCpu)}, ` +
          `others on core 0 ${pct(entry[name].othersCore0)} and core 1 ${pct(entry[name].othersCore1)}, load ${entry[name].load.toFixed(2)}`,
      )
    }
    entry.ratio = entry.after.rps / entry.before.rps
    runs.push(entry)
  }
  const medianOf = (name, field) => median(runs.map((run) => run[name][field]))
  const cpuOf = (run) => run.userMicros + run.systemMicros
  return {
    rounds,
    seconds,
    runs,
    ratio: median(runs.map((run) => run.ratio)),
    ratioOfMedians: medianOf('after', 'rps') / medianOf('before', 'rps'),
    cpuRatio: median(runs.map((run) => cpuOf(run.after) / cpuOf(run.before))),
    before: {
      rps: medianOf('before', 'rps'),
      p99: medianOf('before', 'p99'),
      cpuMicros: median(runs.map((run) => cpuOf(run.before))),
    },
    after: {
      rps: medianOf('after', 'rps'),
      p99: medianOf('after', 'p99'),
      cpuMicros: median(runs.map((run) => cpuOf(run.after))),
    },
  }
}

// ---------------------------------------------------------------------------------------------
// The report

const pct = (value) => `${Math.round(100 * value)}%`
const mb = (value) => (Number.isFinite(value) ? value.toFixed(1) : '?')
const ms = (value) => (Number.isFinite(value) ? value.toFixed(1) : '?')
const grouped = (value) => Math.round(value).toLocaleString('en-US')
const met = (ok) => (ok ? 'yes' : '**no**')

function table(header, rows) {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n')
}

/** The headline stall of an import measure: the largest in-process loop delay, the 1 s after included. */
const stallOf = (measure) => Math.max(...measure.inProcess.runs.map((run) => run.withAfterMaxMs))

function tenantsSection(results) {
  const rows = Object.entries(results).map(([name, r]) => [
    name,
    grouped(r.requests),
    describeStatuses(r.statuses),
    Math.round(r.requests / r.seconds).toLocaleString('en-US'),
    mb(r.startMB),
    mb(r.endMB),
    mb(r.peakMB),
    mb(r.settledMB),
    `${r.tenants} / ${r.evictions}`,
    r.listCache ? `${mb(r.listCache.used / MB)} of ${mb(r.listCache.budget / MB)}` : 'n/a',
    `${r.stderr.lines}${r.crash ? `; ${r.crash}` : ''}`,
  ])
  const first = Object.values(results)[0]
  return [
    '## 1. RSS at 1,000 tenants under the list mix',
    '',
    `\`${first.command}\`. ${TENANT_KEYS.toLocaleString('en-US')} keys (the default key, whose tenant exists from the start and counts against the tenants budget, and \`tenant-1\` ... \`tenant-999\`), each asking ${first.shapesPerKey} list shapes (\`GET /v1/pets?limit=N[&status=S]\`, N in 1..100, S none, available, pending or sold), key-interleaved so every tenant is alive at once, ${TENANT_CONCURRENCY} keep-alive connections. Peak is VmHWM; settled is VmRSS once the server is idle. A spot check of \`limit=100\` for the last key answered ${first.checkedPets} pets.`,
    '',
    table(
      [
        'build',
        'requests',
        'statuses',
        'req/s',
        'RSS at start MB',
        'RSS at end MB',
        'peak MB',
        'settled MB',
        'tenants / evictions',
        'list cache MB used of budget',
        'stderr lines',
      ],
      rows,
    ),
  ].join('\n')
}

function readersSection(results) {
  const signed = (value) => `${value >= 0 ? '+' : ''}${mb(value)}`
  const describeReaders = (drained) => {
    if (drained.length === 0) return ''
    const kinds = {}
    for (const d of drained) {
      const kind = `${Math.round(d.bytes / 1024)} KiB${d.overflow ? ', overflow' : ''}${d.ended ? ', response ended' : ''}${d.closed ? ', connection closed' : ', connection open'}`
      kinds[kind] = (kinds[kind] ?? 0) + 1
    }
    return Object.entries(kinds)
      .map(([kind, count]) => `${count} x (${kind})`)
      .join('; ')
  }
  const rows = Object.entries(results).flatMap(([name, measure]) =>
    [measure.without, measure.with].map((r) => [
      name,
      String(r.readers),
      describeStatuses(r.statuses),
      mb(r.beforeMB),
      mb(r.afterMB),
      mb(r.settledMB),
      mb(r.collectedMB),
      mb(r.peakMB),
      signed(r.growthMB),
      signed(r.settledGrowthMB),
      signed(r.collectedGrowthMB),
      r.journalBytes ? mb(r.journalBytes.used / MB) : 'n/a',
      r.streams ? String(r.streams.used) : 'n/a',
      r.connectionsSettled ? String(r.connectionsSettled.used) : 'n/a',
      describeReaders(r.drained),
      `${r.stderr.lines}${r.crash ? `; ${r.crash}` : ''}`,
    ]),
  )
  const first = Object.values(results)[0].with
  return [
    '## 2. RSS growth with 6 stalled readers and 3,000 requests with a 12 KiB header',
    '',
    `\`${first.command}\`, fresh for each row. The CLI runs in this script's \`__gc-cli\` role under \`--expose-gc\`: the same CLI, plus a full GC (\`gc()\`) on SIGUSR2. First ${PADDED_WARM_UP} padded requests with no reader (the request path's first-use memory), then the server left to go idle and a full GC: "before". Then ${READERS} raw sockets send \`GET /__sandbox/events\`, read the first chunk (status 200) and \`pause()\` (0 in the control row). Then ${PADDED_REQUESTS.toLocaleString('en-US')} \`GET /v1/pets?limit=1..20\`, each with \`X-Pad:\` ${PAD.length.toLocaleString('en-US')} bytes, ${PADDED_CONCURRENCY} at a time on keep-alive connections: "after", read at once; "settled" after ${SETTLE_MS / 1000} s idle (the client's keep-alive connections closed); "after a GC" once a full GC and idle again. Growth is from "before"; peak is VmHWM. Journal, streams: health's \`journalBytes\` and \`eventStreams\` use right after the requests; connections: health's \`connections\` use after the ${SETTLE_MS / 1000} s, the health request's own included. Last, each reader is resumed for 1 s: what it still received, and in what state.`,
    '',
    table(
      [
        'build',
        'readers',
        'statuses',
        'before MB',
        'after MB',
        'settled MB',
        'after a GC MB',
        'peak MB',
        'growth MB',
        'settled growth MB',
        'growth after a GC MB',
        'journal MB',
        'streams open after',
        'connections after 30 s',
        'readers, resumed',
        'stderr lines',
      ],
      rows,
    ),
  ].join('\n')
}

function importSection(results) {
  const lines = ['## 3. Event-loop stall during a largest-size import', '']
  const first = Object.values(results)[0]
  const sample = first.inProcess.runs[0]
  lines.push(
    `A valid state just under the \`stateBytes\` budget (${grouped(first.inProcess.maxBytes)} bytes: ${grouped(sample.bytes)} bytes, ${grouped(sample.pets)} pets of ~${Math.round(sample.bytes / sample.pets)} bytes, the most pets per byte), sent with \`PUT /__sandbox/state\` by a child process on core ${LOAD_CORE}, ${first.imports} times to each server (each import replaces the last one's pets).`,
    '',
    `In-process: a child on core ${SERVER_CORE} runs \`startServer({ port: 0 })\` from the build's \`dist/src/server.js\` with \`monitorEventLoopDelay({ resolution: 1 })\`. "During" is the histogram's max from the first byte sent to the answer; "with the second after" keeps counting ${AFTER_IMPORT_MS} ms past the answer (GC of the old pets); "idle" is the max over the 500 ms before the import. "Others on core 0": the share of the server's core that other processes used from the first byte to the end of the second after (near 0: the server had its core to itself).`,
    '',
    table(
      [
        'build',
        'import',
        'status',
        'answered in ms',
        'idle max ms',
        'during: max ms',
        'during: p99 ms',
        'with the second after: max ms',
        'others on core 0',
      ],
      Object.entries(results).flatMap(([name, r]) =>
        r.inProcess.runs.map((run, i) => [
          name,
          String(i + 1),
          String(run.status),
          ms(run.ms),
          ms(run.idleMaxMs),
          ms(run.duringMaxMs),
          ms(run.duringP99Ms),
          ms(run.withAfterMaxMs),
          pct(run.othersCore0),
        ]),
      ),
    ),
    '',
    `Client view: \`${first.polled.command}\`, this process polling \`GET /__sandbox/health\` on a keep-alive connection every ${POLL_EVERY_MS} ms (core ${LOAD_CORE}). Over the polls from the first byte sent to ${AFTER_IMPORT_MS} ms past the answer: the longest poll latency, and the longest gap between two answers (${POLL_EVERY_MS} ms of it is the poller's own pause). Idle is the longest latency in the 400 ms before.`,
    '',
    table(
      [
        'build',
        'import',
        'status',
        'answered in ms',
        'polls (during the import)',
        'idle longest latency ms',
        'longest poll latency ms',
        'longest gap ms',
        'failed polls',
      ],
      Object.entries(results).flatMap(([name, r]) =>
        r.polled.runs.map((run, i) => [
          name,
          String(i + 1),
          String(run.status),
          ms(run.ms),
          `${run.polls} (${run.pollsDuringAnswer})`,
          ms(run.idleLongestLatencyMs),
          ms(run.longestLatencyMs),
          ms(run.longestGapMs),
          String(run.failedPolls),
        ]),
      ),
    ),
    '',
    Object.entries(results)
      .map(
        ([name, r]) =>
          `${name}: pets after the imports ${grouped(r.polled.petsAfter)} (CLI) and ${grouped(r.inProcess.petsAfter)} (in-process); CLI server RSS ${mb(r.polled.rssMB)} MB, peak ${mb(r.polled.peakMB)} MB; stderr lines ${r.polled.stderr.lines}${r.polled.crash ? `; ${r.polled.crash}` : ''}.`,
      )
      .join(' '),
  )
  return lines.join('\n')
}

function throughputSection(t, before, after) {
  const perRequest = (run) =>
    `${(run.userMicros + run.systemMicros).toFixed(1)} (${run.userMicros.toFixed(1)} + ${run.systemMicros.toFixed(1)})`
  return [
    '## 4. Throughput cost of the budgets: listPets over HTTP',
    '',
    `\`before\` is ${before.path} (${before.describe}), \`after\` is ${after.path} (${after.describe}). Each run starts the server fresh (\`taskset -c ${SERVER_CORE} node bin/petstore-sandbox.js --port 0 --quiet\`), runs an uncounted 1 s of wrk, then \`taskset -c ${LOAD_CORE} wrk -t1 -c32 -d${t.seconds}s --latency -H 'Authorization: ${AUTH}' <origin>/v1/pets\` under \`/usr/bin/time\`. Rounds interleave before and after. wrk CPU is its (user + system) / elapsed; server CPU is the server's utime + stime over the run, also per request; "others" is the share of a core that other processes on the machine used meanwhile (its busy ticks in /proc/stat minus the server's, or wrk's): near 0, the run had its core to itself. All answers were 2xx with no socket errors.`,
    '',
    table(
      [
        'round',
        'before req/s',
        'after req/s',
        'after / before',
        'before p99 ms',
        'after p99 ms',
        'wrk CPU before / after',
        'server CPU before / after',
        'server CPU µs per request (user + system), before / after',
        'others on core 0, before / after',
        'others on core 1, before / after',
        'load (1 min)',
      ],
      t.runs.map((r) => [
        String(r.round),
        grouped(r.before.rps),
        grouped(r.after.rps),
        pct(r.ratio),
        r.before.p99.toFixed(2),
        r.after.p99.toFixed(2),
        `${pct(r.before.wrkCpu)} / ${pct(r.after.wrkCpu)}`,
        `${pct(r.before.serverCpu)} / ${pct(r.after.serverCpu)}`,
        `${perRequest(r.before)} / ${perRequest(r.after)}`,
        `${pct(r.before.othersCore0)} / ${pct(r.after.othersCore0)}`,
        `${pct(r.before.othersCore1)} / ${pct(r.after.othersCore1)}`,
        `${r.before.load.toFixed(2)} / ${r.after.load.toFixed(2)}`,
      ]),
    ),
    '',
    `Medians: before ${grouped(t.before.rps)} req/s (p99 ${t.before.p99.toFixed(2)} ms, ${t.before.cpuMicros.toFixed(1)} µs of server CPU per request), after ${grouped(t.after.rps)} req/s (p99 ${t.after.p99.toFixed(2)} ms, ${t.after.cpuMicros.toFixed(1)} µs); median of the per-round ratios ${pct(t.ratio)}, ratio of the medians ${pct(t.ratioOfMedians)}; server CPU per request after / before ${t.cpuRatio.toFixed(2)}x.`,
  ].join('\n')
}

function render(results, meta) {
  const rows = []
  const { tenants, readers, import: imports, throughput } = results
  if (tenants) {
    const value = tenants.after.peakMB
    rows.push([
      'RSS at 1,000 tenants under the list mix (peak), MB',
      mb(value),
      tenants.before ? mb(tenants.before.peakMB) : '',
      `≤ ${TARGETS.tenantsMB}`,
      met(value <= TARGETS.tenantsMB && !tenants.after.crash),
    ])
  }
  if (readers) {
    const signed = (value) => `${value >= 0 ? '+' : ''}${mb(value)}`
    const row = (label, of, crashed = false) =>
      rows.push([
        label,
        signed(of(readers.after)),
        readers.before ? signed(of(readers.before)) : '',
        `≤ ${TARGETS.readersMB}`,
        met(of(readers.after) <= TARGETS.readersMB && !crashed),
      ])
    row(
      'RSS growth, 6 stalled readers and 3,000 requests with a 12 KiB header, right after, MB',
      (measure) => measure.with.growthMB,
      Boolean(readers.after.with.crash),
    )
    row(`the same, ${SETTLE_MS / 1000} s later, MB`, (measure) => measure.with.settledGrowthMB)
    row('the same, after a full GC, MB', (measure) => measure.with.collectedGrowthMB)
    row(
      "the readers' share, right after: growth with them minus without (same requests, fresh server), MB",
      (measure) => measure.with.growthMB - measure.without.growthMB,
    )
    row(
      "the readers' share after a full GC, MB",
      (measure) => measure.with.collectedGrowthMB - measure.without.collectedGrowthMB,
    )
  }
  if (imports) {
    const value = stallOf(imports.after)
    const polled = Math.max(...imports.after.polled.runs.map((run) => run.longestLatencyMs))
    rows.push([
      `Longest event-loop stall, ${grouped(imports.after.inProcess.runs[0].bytes)}-byte import (monitorEventLoopDelay max), ms`,
      ms(value),
      imports.before ? ms(stallOf(imports.before)) : '',
      `≤ ${TARGETS.stallMs}`,
      met(value <= TARGETS.stallMs && imports.after.inProcess.runs.every((run) => run.status < 300)),
    ])
    rows.push([
      'Longest health poll latency during the same imports (client view), ms',
      ms(polled),
      imports.before ? ms(Math.max(...imports.before.polled.runs.map((run) => run.longestLatencyMs))) : '',
      `≤ ${TARGETS.stallMs}`,
      met(polled <= TARGETS.stallMs),
    ])
  }
  if (throughput) {
    rows.push([
      'listPets over HTTP (wrk), after / before req/s, median of rounds',
      pct(throughput.ratio),
      '100%',
      `≥ ${pct(TARGETS.throughputRatio)}`,
      met(throughput.ratio >= TARGETS.throughputRatio),
    ])
  }
  const sections = [
    '# Budgets: the figures for issue 16',
    '',
    `${meta.date}, Node ${process.version}, ${meta.cpu}. \`uptime\` at the start: load average ${meta.loadStart}; at the end: ${meta.loadEnd}. Whole run: ${meta.seconds.toFixed(0)} s. Servers pinned to core ${SERVER_CORE}, the load generator to core ${LOAD_CORE}. MB are 10^6 bytes.`,
    '',
    `Command: \`${meta.command}\``,
    '',
    `Builds: after, ${meta.after.path} (${meta.after.describe})${meta.before ? `; before, ${meta.before.path} (${meta.before.describe})` : ''}. Measures 1-3 run on the after build; the before build's figures are for reference.`,
    '',
    table(['measure', 'after', 'before (reference)', 'target', 'met?'], rows),
  ]
  if (tenants) sections.push('', tenantsSection(tenants))
  if (readers) sections.push('', readersSection(readers))
  if (imports) sections.push('', importSection(imports))
  if (throughput) sections.push('', throughputSection(throughput, meta.before, meta.after))
  return `${sections.join('\n')}\n`
}

// ---------------------------------------------------------------------------------------------
// Main

async function main() {
  const { values } = parseArgs({
    options: {
      before: { type: 'string', default: process.env.BUDGETS_BEFORE },
      after: { type: 'string', default: process.env.BUDGETS_AFTER ?? CHECKOUT },
      only: { type: 'string', default: 'tenants,readers,import,throughput' },
      'no-reference': { type: 'boolean', default: false },
      out: { type: 'string' },
    },
  })
  const only = new Set(values.only.split(','))
  const after = resolve(values.after)
  const before = values.before === undefined ? undefined : resolve(values.before)
  for (const build of [after, before].filter(Boolean)) {
    if (!existsSync(join(build, 'dist/cli.cjs'))) throw new Error(`${build} has no build: run npm run build there`)
  }
  // Before the other measures' minutes, so a missing wrk or /usr/bin/time fails at once.
  if (only.has('throughput') && before !== undefined) requireWrk()
  if (allowedCpus() !== String(LOAD_CORE))
    log(`warning: the load generator runs on cores ${allowedCpus()}, not ${LOAD_CORE}`)
  const builds = { after, ...(before && !values['no-reference'] && { before }) }
  const startedAt = performance.now()
  const loadStart = loadNow()
  log(`load average ${loadStart}; after ${after}${before ? `, before ${before}` : ''}`)
  const results = {}
  const each = async (name, measure) => {
    if (!only.has(name)) return
    results[name] = {}
    for (const [label, build] of Object.entries(builds)) {
      const started = performance.now()
      results[name][label] = await measure(build)
      log(`${name} (${label}) done in ${((performance.now() - started) / 1000).toFixed(0)} s, load ${loadNow()}`)
    }
  }
  await each('tenants', tenantsMeasure)
  await each('readers', readersMeasure)
  await each('import', importMeasure)
  if (only.has('throughput')) {
    if (before === undefined) log('throughput skipped: it needs --before (or BUDGETS_BEFORE)')
    else {
      const started = performance.now()
      results.throughput = await throughputMeasure(before, after)
      log(`throughput done in ${((performance.now() - started) / 1000).toFixed(0)} s, load ${loadNow()}`)
    }
  }
  agent.destroy()
  const report = render(results, {
    date: new Date().toISOString().slice(0, 10),
    cpu: `${cpus().length} cores (${cpus()[0]?.model.trim()})`,
    loadStart,
    loadEnd: loadNow(),
    seconds: (performance.now() - startedAt) / 1000,
    command: `node bench/budgets.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    before: before && { path: before, describe: describeBuild(before) },
    after: { path: after, describe: describeBuild(after) },
  })
  if (values.out) writeFileSync(values.out, report)
  process.stdout.write(report)
  process.stdout.write(`\n<!-- raw: ${JSON.stringify(results)} -->\n`)
}

// Servers are detached into their own process groups, which outlive this process unless killed.
process.on('exit', () => {
  for (const child of live) killGroup(child, 'SIGKILL')
})

const role = process.argv[2]
if (role === '__gc-cli') {
  // The CLI of a build in this process (node --expose-gc), with a full GC on SIGUSR2.
  process.on('SIGUSR2', () => globalThis.gc())
  const [build, ...args] = process.argv.slice(3)
  const bin = join(build, 'bin/petstore-sandbox.js')
  process.argv = [process.argv[0], bin, ...args]
  await import(pathToFileURL(bin).href)
} else if (role === '__import-sender') {
  await importSender(process.argv[3], Number(process.argv[4]))
} else if (role === '__import-server') {
  await importServer(process.argv[3], Number(process.argv[4]))
} else if (!rerunPinned(LOAD_CORE, SELF, process.argv.slice(2), 'BUDGETS_PINNED')) {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      for (const child of live) killGroup(child, 'SIGKILL')
      process.exit(130)
    })
  }
  await main()
}
