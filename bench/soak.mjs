// A bounded soak of the sandbox CLI under --isolate, on loopback. Exits 1 when a check fails.
// About 110 s on a 2-core machine.
//
//   node bench/soak.mjs
//   SOAK_SECONDS (default 45), SOAK_KEYS (default 500), SOAK_CONNECTIONS (default 32),
//   SOAK_CHAOS_SECONDS (default 25); to look into one part: SOAK_PHASES (default 1,2,chaos) and
//   SOAK_CHAOS_ONLY (load kinds of the chaos phase: mixed,readers,resets,slow,churn,imports)
//
// Phase 1, SOAK_SECONDS: a fresh `--isolate` server, SOAK_KEYS keys in rotation (below the default
// cap of 1000 tenants), saturating mixed traffic: 70% list, 20% create, 10% get of a pet the key
// created or of a seed pet, so every request must succeed. Then every pet created is read back
// with its own key (equal body) and a sample of them with another key (404 or another pet).
// Phase 2, SOAK_SECONDS / 3: a fresh `--isolate --max-tenants 200` server and 500 keys, so
// tenants are evicted all the time; no read-back (an evicted key starts again from the seed).
// Both: the server exits 0 on SIGTERM, its evictions on stderr (first lines and the summaries of
// repeats) equal health's, and its stderr stays a few lines however many evictions.
// Chaos, SOAK_CHAOS_SECONDS: every kind of trouble at once, then a read-back and SIGTERM with
// requests in flight (bench/chaos-phase.mjs says what and what it asserts).
//
// Each server runs pinned to core 0. This process is the load generator (autocannon, in process,
// one request entry whose setupRequest rotates keys and operations and whose onResponse checks
// and records what came back; the chaos phase's own clients, bench/chaos-load.mjs); unless it
// already runs on core 1 alone, it runs itself again under `taskset -c 1`.
//
// The server is spawned here rather than by bench/processes.mjs's startServer, which inherits
// the server's stderr and does not expose its pid: the soak counts the notices on stderr and
// reads the server's memory and CPU time from /proc/PID. The process-group handling is the same.
import autocannon from 'autocannon'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { Agent, get } from 'node:http'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import { chaosPhase, chaosSummary } from './chaos-phase.mjs'
import { allowedCpus, killGroup, rerunPinned } from './pinning.mjs'
import { quantile } from './stats.mjs'

const SERVER_CORE = 0
const LOAD_CORE = 1
const here = (path) => fileURLToPath(new URL(path, import.meta.url))
const BIN = here('../bin/petstore-sandbox.js')
const SEED = JSON.parse(readFileSync(here('../fixtures/pets.json'), 'utf8'))
const FIRST_CREATED_ID = Math.max(...SEED.map((pet) => pet.id)) + 1
const LISTENING = /listening on http:\/\/[^\s/]+:(\d+)\/v1/
// Notices the server logs on stderr: the first of a kind as it is, the rest within the window
// (noticeWindowMs) counted in one summary line. Each counts here as what it tells.
const NOTICES = [
  ['evictions', /evicted the data of key/, /^petstore-sandbox: (\d+) more tenants evicted in the last/],
  ['overflows', /closed an event stream reader that fell/, /^petstore-sandbox: (\d+) more event stream readers closed/],
  ['clientsGone', /the client closed the connection before/, /^petstore-sandbox: (\d+) more clients gone before/],
  [
    'busy',
    /^petstore-sandbox: refused an event stream reader/,
    /^petstore-sandbox: (\d+) more requests refused with 503/,
  ],
  ['refused', /^petstore-sandbox: refused a connection/, /^petstore-sandbox: (\d+) more connections refused/],
]
const DEFAULT_KEY = 'petstore-sandbox-key'
const DEFAULT_MAX_TENANTS = 1000
const PHASE2_KEYS = 500
const PHASE2_MAX_TENANTS = 200

const READY_TIMEOUT_MS = 30_000
const STOP_GRACE_MS = 5000
const REQUEST_TIMEOUT_S = 10
// The read-back runs at full speed; this bounds it however many pets phase 1 created.
const READ_BACK_DEADLINE_MS = 300_000
const CROSS_KEY_SAMPLE = 200
// Memory: RSS sampled every second. FAIL above 1.5 GiB at any time. Phase 1 keeps every pet it
// creates, by design (up to 1,000,000 per key), so its RSS grows with them: FAIL when the growth
// over the run passes RSS_PER_PET_LIMIT bytes per pet created (about 1.4 KB was measured, live
// pets plus garbage not yet collected), i.e. memory spent on something other than the pets.
// Phase 2 keeps at most 200 tenants, so its RSS must level off: FAIL when it grows by more than
// 50% across the last third of the load (median of its first three samples to median of its
// last three; first to last sample when the third holds fewer than six).
const RSS_LIMIT_KB = 1.5 * 1024 * 1024
const RSS_PER_PET_LIMIT = 4096
const RSS_GROWTH_LIMIT = 0.5
const SAMPLES_KEPT = 8
const STATUSES = [undefined, 'available', 'pending', 'sold']

const live = new Set()

function envNumber(name, fallback, { integer, min, max }) {
  const text = process.env[name]
  if (text === undefined || text === '') return fallback
  const value = Number(text)
  if (!Number.isFinite(value) || (integer && !Number.isInteger(value)) || value < min || value > max) {
    throw new Error(`${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${text}`)
  }
  return value
}

/** The sandbox CLI with --isolate, pinned to SERVER_CORE in a process group of its own. */
function startSandbox(flags) {
  const args = [BIN, '--port', '0', '--quiet', '--isolate', ...flags]
  const child = spawn('taskset', ['-c', String(SERVER_CORE), process.execPath, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  live.add(child)
  let stopping = false
  const server = {
    // taskset execs node: the pid is the server's.
    pid: child.pid,
    command: `node ${args.join(' ')}`,
    // What the notices on stderr tell, summaries included; and every line, to see the log bounded.
    logged: Object.fromEntries(NOTICES.map(([name]) => [name, 0])),
    stderrLines: 0,
    otherStderr: [],
    otherStderrCount: 0,
    crash: undefined,
    exit: undefined,
    stdoutTail: '',
  }
  const exited = new Promise((resolve) => {
    child.once('error', (error) => {
      server.crash = `could not start: ${error.message}`
      resolve()
    })
    child.once('exit', (code, signal) => {
      live.delete(child)
      server.exit = { code, signal }
      if (!stopping) server.crash = `exited by itself (${signal ?? `code ${code}`})`
      resolve()
    })
  })
  server.exited = exited
  const stderrClosed = new Promise((resolve) => child.stderr.once('close', resolve))
  const tally = (line) => {
    if (line.trim() === '') return
    server.stderrLines++
    for (const [name, first, more] of NOTICES) {
      const summary = more.exec(line)
      if (summary !== null) {
        server.logged[name] += Number(summary[1])
        return
      }
      if (first.test(line)) {
        server.logged[name]++
        return
      }
    }
    server.otherStderrCount++
    if (server.otherStderr.length < SAMPLES_KEPT) server.otherStderr.push(line.slice(0, 500))
  }
  let partial = ''
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    const lines = (partial + chunk).split('\n')
    partial = lines.pop()
    for (const line of lines) tally(line)
  })
  child.stderr.once('end', () => tally(partial))
  let output = ''
  server.origin = new Promise((resolve, reject) => {
    const fail = (why) => {
      reject(new Error(`${server.command} ${why} before listening:\n${output}${server.otherStderr.join('\n')}`))
    }
    const timer = setTimeout(() => fail(`took ${READY_TIMEOUT_MS} ms`), READY_TIMEOUT_MS)
    let ready = false
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      if (ready) {
        // After the banner, only what it says on stopping: the last lines are kept.
        server.stdoutTail = (server.stdoutTail + chunk).slice(-2000)
        return
      }
      output += chunk
      const match = LISTENING.exec(output)
      if (match) {
        ready = true
        clearTimeout(timer)
        resolve(`http://127.0.0.1:${match[1]}`)
      }
    })
    void exited.then(() => {
      clearTimeout(timer)
      fail(server.crash ?? 'stopped')
    })
  })
  /** Sends a signal to the server alone; its exit is then expected, not a crash. */
  server.signal = (signal) => {
    stopping = true
    child.kill(signal)
  }
  server.stop = async () => {
    stopping = true
    killGroup(child, 'SIGTERM')
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), STOP_GRACE_MS)
    await exited
    clearTimeout(timer)
    // Every eviction line is counted only once stderr is drained.
    await Promise.race([stderrClosed, new Promise((resolve) => setTimeout(resolve, 2000))])
  }
  return server
}

function rssKb(pid) {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match === null ? undefined : Number(match[1])
  } catch {
    return undefined
  }
}

/** User plus system CPU seconds of a process (clock ticks of 1/100 s). */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return NaN
  }
}

const agent = new Agent({ keepAlive: true, maxSockets: 2 })

function getJson(url) {
  return new Promise((resolve, reject) => {
    const request = get(url, { agent, timeout: REQUEST_TIMEOUT_S * 1000 }, (response) => {
      let text = ''
      response.setEncoding('utf8').on('data', (chunk) => (text += chunk))
      response.once('end', () => {
        if (response.statusCode !== 200) {
          reject(new Error(`GET ${url} answered ${response.statusCode}: ${text.slice(0, 300)}`))
          return
        }
        try {
          resolve(JSON.parse(text))
        } catch {
          reject(new Error(`GET ${url} answered 200 with no JSON: ${text.slice(0, 300)}`))
        }
      })
    })
    request.once('timeout', () => request.destroy(new Error(`GET ${url} took over ${REQUEST_TIMEOUT_S} s`)))
    request.once('error', reject)
  })
}

/** Samples the server's RSS and its health (tenants) every second until stopped. */
function monitor(origin, pid) {
  const rss = []
  const health = { maxTenants: 0, polls: 0, failures: [] }
  let polling = false
  const sample = () => {
    const kb = rssKb(pid)
    if (kb !== undefined) rss.push({ at: performance.now(), kb })
    if (polling) return
    polling = true
    getJson(`${origin}/__sandbox/health`)
      .then((body) => {
        health.polls++
        health.maxTenants = Math.max(health.maxTenants, body.tenants)
      })
      .catch((error) => {
        if (health.failures.length < SAMPLES_KEPT) health.failures.push(error.message)
      })
      .finally(() => (polling = false))
  }
  sample()
  const timer = setInterval(sample, 1000)
  return { rss, health, stop: () => clearInterval(timer) }
}

const describe = (sent, key) =>
  `${sent.method} ${sent.path} with Authorization: Bearer ${key}${sent.body === undefined ? '' : ` and body ${sent.body}`}`

/**
 * Saturating mixed traffic for `seconds` over `keys` in rotation. `getOwn`: gets also ask for
 * pets the key created (only while no tenant is ever evicted). Answers counts, samples of
 * whatever was wrong, the created pets per key and how often each id came back per key.
 */
async function soakLoad(origin, keys, seconds, connections, getOwn) {
  const created = keys.map(() => [])
  const idCounts = keys.map(() => new Map())
  const byOp = { list: new Map(), create: new Map(), get: new Map() }
  const unexpected = { count: 0, samples: [] }
  const wrongBody = { count: 0, samples: [] }
  const note = (bucket, line) => {
    bucket.count++
    if (bucket.samples.length < SAMPLES_KEPT) bucket.samples.push(line)
  }
  const latencies = []
  let turn = 0

  const requests = [
    {
      method: 'GET',
      path: '/v1/pets',
      setupRequest(request, context) {
        const index = turn % keys.length
        turn++
        const headers = { authorization: `Bearer ${keys[index]}` }
        const roll = Math.random()
        if (roll < 0.7) {
          const path = `/v1/pets?limit=${1 + (turn % 50)}`
          context.sent = { op: 'list', index, method: 'GET', path }
          return { ...request, method: 'GET', path, headers }
        }
        if (roll < 0.9) {
          const status = STATUSES[turn % STATUSES.length]
          const pet = { name: `Soak ${index}.${turn}`, categoryId: 1 + (turn % 7), ...(status && { status }) }
          const body = JSON.stringify(pet)
          context.sent = { op: 'create', index, method: 'POST', path: '/v1/pets', pet, body }
          headers['content-type'] = 'application/json'
          return { ...request, method: 'POST', path: '/v1/pets', headers, body }
        }
        const own = created[index]
        const expected =
          getOwn && own.length > 0 && Math.random() < 0.5
            ? own[Math.floor(Math.random() * own.length)]
            : SEED[Math.floor(Math.random() * SEED.length)]
        const path = `/v1/pets/${expected.id}`
        context.sent = { op: 'get', index, method: 'GET', path, expected }
        return { ...request, method: 'GET', path, headers }
      },
      onResponse(status, body, context) {
        const { sent } = context
        if (sent === undefined) return
        const counts = byOp[sent.op]
        counts.set(status, (counts.get(status) ?? 0) + 1)
        const request = () => describe(sent, keys[sent.index])
        if (status !== (sent.op === 'create' ? 201 : 200)) {
          note(unexpected, `${request()} -> ${status} ${body.slice(0, 300)}`)
          return
        }
        if (sent.op === 'list') {
          if (!body.startsWith('[')) note(wrongBody, `${request()} -> ${status} ${body.slice(0, 300)}`)
          return
        }
        let pet
        try {
          pet = JSON.parse(body)
        } catch {
          note(wrongBody, `${request()} -> ${status} not JSON: ${body.slice(0, 300)}`)
          return
        }
        if (sent.op === 'get') {
          if (!isDeepStrictEqual(pet, sent.expected)) {
            note(wrongBody, `${request()} -> ${body.slice(0, 300)}, expected ${JSON.stringify(sent.expected)}`)
          }
          return
        }
        const { id, ...rest } = pet
        if (!Number.isSafeInteger(id) || id < FIRST_CREATED_ID || !isDeepStrictEqual(rest, sent.pet)) {
          note(wrongBody, `${request()} -> ${status} ${body.slice(0, 300)}`)
          return
        }
        if (getOwn) created[sent.index].push(pet)
        const ids = idCounts[sent.index]
        ids.set(id, (ids.get(id) ?? 0) + 1)
      },
    },
  ]

  const startedCpu = process.cpuUsage()
  const startedAt = performance.now()
  const run = autocannon({ url: origin, connections, duration: seconds, timeout: REQUEST_TIMEOUT_S, requests })
  run.on('response', (_client, _status, _bytes, milliseconds) => latencies.push(milliseconds))
  const result = await run
  const endedAt = performance.now()
  const { user, system } = process.cpuUsage(startedCpu)
  const elapsed = (endedAt - startedAt) / 1000
  const classes = { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0, other: 0 }
  let responses = 0
  for (const counts of Object.values(byOp)) {
    for (const [status, count] of counts) {
      responses += count
      classes[status >= 200 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other'] += count
    }
  }
  return {
    startedAt,
    endedAt,
    elapsed,
    responses,
    rps: responses / elapsed,
    classes,
    byOp,
    errors: result.errors,
    timeouts: result.timeouts,
    p50: latencies.length > 0 ? quantile(latencies, 0.5) : NaN,
    p99: latencies.length > 0 ? quantile(latencies, 0.99) : NaN,
    loadCpu: (user + system) / 1e6 / elapsed,
    unexpected,
    wrongBody,
    created,
    idCounts,
    usedKeys: Math.min(turn, keys.length),
  }
}

/**
 * Reads back `jobs` ({ key, id, check(status, body) -> problem | undefined }) at full speed with
 * autocannon, each exactly once. Answers how many were answered and the problems found.
 */
async function readBack(origin, jobs, connections) {
  const problems = { count: 0, samples: [] }
  let answered = 0
  if (jobs.length === 0) return { answered, problems }
  let next = 0
  const requests = [
    {
      method: 'GET',
      path: '/v1/pets/1',
      setupRequest(request, context) {
        const job = jobs[next]
        next++
        context.job = job
        // Past the last job (autocannon may build one request more than it sends): a harmless get.
        const { key, id } = job ?? jobs[0]
        return { ...request, path: `/v1/pets/${id}`, headers: { authorization: `Bearer ${key}` } }
      },
      onResponse(status, body, context) {
        const { job } = context
        if (job === undefined) return
        answered++
        const problem = job.check(status, body)
        if (problem !== undefined) {
          problems.count++
          if (problems.samples.length < SAMPLES_KEPT) {
            problems.samples.push(`GET /v1/pets/${job.id} with Authorization: Bearer ${job.key}: ${problem}`)
          }
        }
      },
    },
  ]
  const run = autocannon({
    url: origin,
    connections: Math.min(connections, jobs.length),
    amount: jobs.length,
    timeout: REQUEST_TIMEOUT_S,
    requests,
  })
  const deadline = setTimeout(() => run.stop(), READ_BACK_DEADLINE_MS)
  const result = await run
  clearTimeout(deadline)
  return { answered, problems, errors: result.errors, timeouts: result.timeouts }
}

function parseOr(body) {
  try {
    return JSON.parse(body)
  } catch {
    return undefined
  }
}

/** Phase 1's read-back: every created pet with its own key, a sample with another key. */
function readBackJobs(keys, created) {
  const own = []
  created.forEach((pets, index) => {
    for (const pet of pets) {
      own.push({
        key: keys[index],
        id: pet.id,
        check(status, body) {
          if (status !== 200) return `${status} ${body.slice(0, 300)}, expected 200 ${JSON.stringify(pet)}`
          if (!isDeepStrictEqual(parseOr(body), pet)) return `${body.slice(0, 300)}, expected ${JSON.stringify(pet)}`
          return undefined
        },
      })
    }
  })
  const cross = []
  const step = Math.max(1, Math.floor(own.length / CROSS_KEY_SAMPLE))
  for (let i = 0; i < own.length && cross.length < CROSS_KEY_SAMPLE; i += step) {
    const { key, id } = own[i]
    const index = keys.indexOf(key)
    const other = keys.length > 1 ? keys[(index + 1) % keys.length] : DEFAULT_KEY
    const pet = created[index].find((candidate) => candidate.id === id)
    cross.push({
      key: other,
      id,
      check(status, body) {
        if (status === 404) return undefined
        if (status === 200 && !isDeepStrictEqual(parseOr(body), pet)) return undefined
        return `${status} ${body.slice(0, 300)}: key ${key}'s pet ${JSON.stringify(pet)} seen by key ${other}`
      },
    })
  }
  return { own, cross }
}

/**
 * Created ids per key: each tenant's life hands out FIRST_CREATED_ID, +1, +2, ..., so the ids
 * seen for a key, counted, never count more for an id than for the one below it, and the number
 * of times a key started again from FIRST_CREATED_ID is at most the number of evictions.
 */
function idHistory(idCounts) {
  let restarts = 0
  let violations = 0
  const samples = []
  idCounts.forEach((counts, index) => {
    restarts += Math.max(0, (counts.get(FIRST_CREATED_ID) ?? 0) - 1)
    for (const [id, count] of counts) {
      const below = id === FIRST_CREATED_ID ? Infinity : (counts.get(id - 1) ?? 0)
      if (id < FIRST_CREATED_ID || count > below) {
        violations++
        if (samples.length < SAMPLES_KEPT) {
          samples.push(`key worker-${index}: id ${id} came back ${count} times, id ${id - 1} ${below} times`)
        }
      }
    }
  })
  return { restarts, violations, samples }
}

/** Growth of RSS across the last third of the load, by the rule documented above. */
function rssGrowth(samples, startedAt, endedAt) {
  const from = startedAt + ((endedAt - startedAt) * 2) / 3
  const window = samples.filter(({ at }) => at >= from && at <= endedAt).map(({ kb }) => kb)
  if (window.length < 2) return undefined
  const ends = window.length >= 6 ? 3 : 1
  const middle = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
  return middle(window.slice(-ends)) / middle(window.slice(0, ends)) - 1
}

async function phase(options) {
  const { name, seconds, keyCount, maxTenants, connections, readBackCreated } = options
  const keys = Array.from({ length: keyCount }, (_, index) => `worker-${index}`)
  const report = { name, seconds, keys: keyCount, maxTenants, connections, failures: [], notes: [] }
  const fail = (why) => report.failures.push(why)
  const flags = maxTenants === DEFAULT_MAX_TENANTS ? [] : ['--max-tenants', String(maxTenants)]
  const server = startSandbox(flags)
  report.command = `taskset -c ${SERVER_CORE} ${server.command}`
  console.log(`${name}: starting ${report.command}`)
  let watch
  try {
    const origin = await server.origin
    watch = monitor(origin, server.pid)
    console.log(`${name}: ${seconds} s of load, ${connections} connections, ${keyCount} keys`)
    const cpuBefore = cpuSeconds(server.pid)
    const load = await soakLoad(origin, keys, seconds, connections, readBackCreated)
    report.load = load
    report.serverCpu = (cpuSeconds(server.pid) - cpuBefore) / load.elapsed
    if (report.serverCpu < 0.8) {
      report.notes.push(`the server had ${pct(report.serverCpu)} of its core: not saturated (a busy machine?)`)
    }
    report.rssWindow = [load.startedAt, load.endedAt]
    if (load.classes['5xx'] > 0) fail(`${load.classes['5xx']} responses 5xx`)
    if (load.unexpected.count > 0) fail(`${load.unexpected.count} responses with an unexpected status`)
    if (load.wrongBody.count > 0) fail(`${load.wrongBody.count} responses with a wrong body`)
    if (load.errors > 0 || load.timeouts > 0) fail(`${load.errors} connection errors, ${load.timeouts} timeouts`)
    if (load.responses === 0) fail('no responses at all')
    const ids = idHistory(load.idCounts)
    report.ids = ids
    if (ids.violations > 0) fail(`${ids.violations} created ids out of sequence for their key`)
    const health = await getJson(`${origin}/__sandbox/health`)
    report.health = health

    if (readBackCreated) {
      // Below the cap: no tenant may go, every key is a tenant, plus the default key's.
      if (load.usedKeys !== keyCount) fail(`only ${load.usedKeys} of ${keyCount} keys were used`)
      if (health.evictions !== 0) fail(`health says ${health.evictions} evictions, expected 0`)
      if (health.tenants !== keyCount + 1) fail(`health says ${health.tenants} tenants, expected ${keyCount + 1}`)
      if (ids.restarts > 0) fail(`${ids.restarts} created ids handed out twice to the same key`)
      const { own, cross } = readBackJobs(keys, load.created)
      console.log(`${name}: reading back ${own.length} created pets, ${cross.length} of them with another key`)
      const readStarted = performance.now()
      const ownResult = await readBack(origin, own, connections)
      const crossResult = await readBack(origin, cross, connections)
      report.readBack = { own: own.length, cross: cross.length, ownResult, crossResult }
      report.readBackSeconds = (performance.now() - readStarted) / 1000
      if (ownResult.answered !== own.length) fail(`only ${ownResult.answered} of ${own.length} pets read back`)
      if (ownResult.problems.count > 0) fail(`${ownResult.problems.count} created pets not read back as created`)
      if (crossResult.answered !== cross.length) fail(`only ${crossResult.answered} of ${cross.length} cross-key reads`)
      if (crossResult.problems.count > 0) fail(`${crossResult.problems.count} created pets visible to another key`)
      const end = await getJson(`${origin}/__sandbox/health`)
      report.health = end
      if (end.evictions !== 0 || end.tenants !== keyCount + 1) {
        fail(`after the read-back health says ${end.tenants} tenants, ${end.evictions} evictions`)
      }
    } else {
      if (!(health.evictions > 0)) fail(`health says ${health.evictions} evictions, expected some`)
      if (!(health.tenants <= maxTenants)) fail(`health says ${health.tenants} tenants, cap ${maxTenants}`)
      if (ids.restarts > health.evictions) {
        fail(`keys started again from id ${FIRST_CREATED_ID} ${ids.restarts} times, more than the evictions`)
      }
    }
    report.maxTenantsPolled = watch.health.maxTenants
    const bound = readBackCreated ? keyCount + 1 : maxTenants
    if (watch.health.maxTenants > bound) fail(`health polls saw ${watch.health.maxTenants} tenants, bound ${bound}`)
    if (watch.health.failures.length > 0) fail(`health polls failed: ${watch.health.failures[0]}`)
  } catch (error) {
    fail(`aborted: ${error instanceof Error ? error.message : String(error)}`)
  } finally {
    watch?.stop()
    await server.stop()
  }

  report.evictionsLogged = server.logged.evictions
  report.stderrLines = server.stderrLines
  if (server.crash !== undefined) fail(`the server ${server.crash}`)
  else if (server.exit?.code !== 0)
    fail(`after SIGTERM the server exited ${JSON.stringify(server.exit)}, expected code 0`)
  if (report.health !== undefined && report.health.evictions !== server.logged.evictions) {
    fail(`health says ${report.health.evictions} evictions, stderr tells ${server.logged.evictions}`)
  }
  // Evictions are summarised: a first line, then one line per notice window, whatever their number.
  const lineBound = 2 * Math.ceil(seconds / 10 + 3) + 10
  if (server.stderrLines > lineBound) fail(`stderr has ${server.stderrLines} lines, bound ${lineBound} (summaries)`)
  if (server.otherStderrCount > 0) {
    report.notes.push(`server stderr, ${server.otherStderrCount} other lines:`, ...server.otherStderr)
    if (server.otherStderr.some((line) => line.includes('unexpected failure')))
      fail('the server logged unexpected failures')
  }
  const rss = watch?.rss ?? []
  report.rssMaxKb = rss.length > 0 ? Math.max(...rss.map(({ kb }) => kb)) : NaN
  report.rssLastKb = rss.at(-1)?.kb ?? NaN
  if (report.rssMaxKb > RSS_LIMIT_KB) fail(`RSS reached ${mb(report.rssMaxKb)} MB, limit ${mb(RSS_LIMIT_KB)} MB`)
  if (report.rssWindow !== undefined) {
    report.rssGrowth = rssGrowth(rss, ...report.rssWindow)
    const created = report.load?.byOp.create.get(201) ?? 0
    if (readBackCreated && created > 0 && rss.length > 1) {
      const base = Math.min(...rss.slice(0, 3).map(({ kb }) => kb))
      report.rssPerPet = ((report.rssLastKb - base) * 1024) / created
      if (report.rssPerPet > RSS_PER_PET_LIMIT) {
        fail(`RSS grew ${Math.round(report.rssPerPet)} bytes per pet created, limit ${RSS_PER_PET_LIMIT}`)
      }
    } else if (report.rssGrowth === undefined) {
      report.notes.push('too short to judge RSS growth')
    } else if (report.rssGrowth > RSS_GROWTH_LIMIT) {
      fail(`RSS grew ${pct(report.rssGrowth)} in the last third of the load, limit ${pct(RSS_GROWTH_LIMIT)}`)
    }
  }
  for (const [label, bucket] of [
    ['unexpected status', report.load?.unexpected],
    ['wrong body', report.load?.wrongBody],
    ['read-back', report.readBack?.ownResult.problems],
    ['cross-key', report.readBack?.crossResult.problems],
  ]) {
    for (const sample of bucket?.samples ?? []) report.notes.push(`${label}: ${sample}`)
  }
  for (const sample of report.ids?.samples ?? []) report.notes.push(`ids: ${sample}`)
  console.log(`${name}: ${report.failures.length === 0 ? 'PASS' : 'FAIL'}`)
  return report
}

const mb = (kb) => (kb / 1024).toFixed(0)
const pct = (share) => (Number.isFinite(share) ? `${(100 * share).toFixed(0)}%` : 'n/a')
const int = (value) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a')
const ms = (value) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a')

function summary(reports) {
  const statuses = (load, op) =>
    load === undefined
      ? 'n/a'
      : [...load.byOp[op]]
          .sort(([a], [b]) => a - b)
          .map(([status, count]) => `${status}: ${int(count)}`)
          .join(', ') || 'none'
  const rows = [
    ['', ...reports.map((report) => report.name)],
    ['seconds, keys, cap', ...reports.map((r) => `${r.seconds} s, ${r.keys} keys, ${r.maxTenants}`)],
    ['requests', ...reports.map((r) => int(r.load?.responses))],
    ['req/s', ...reports.map((r) => int(r.load?.rps))],
    ...['2xx', '3xx', '4xx', '5xx'].map((group) => [group, ...reports.map((r) => int(r.load?.classes[group]))]),
    ['errors / timeouts', ...reports.map((r) => `${int(r.load?.errors)} / ${int(r.load?.timeouts)}`)],
    ['list statuses', ...reports.map((r) => statuses(r.load, 'list'))],
    ['create statuses', ...reports.map((r) => statuses(r.load, 'create'))],
    ['get statuses', ...reports.map((r) => statuses(r.load, 'get'))],
    ['p50 / p99 ms', ...reports.map((r) => `${ms(r.load?.p50)} / ${ms(r.load?.p99)}`)],
    ['server CPU / load gen CPU', ...reports.map((r) => `${pct(r.serverCpu ?? NaN)} / ${pct(r.load?.loadCpu ?? NaN)}`)],
    [
      'creates read back (own key)',
      ...reports.map((r) =>
        r.readBack === undefined
          ? 'skipped'
          : `${int(r.readBack.ownResult.answered)} of ${int(r.readBack.own)}, ${int(r.readBack.ownResult.problems.count)} wrong, ${r.readBackSeconds.toFixed(1)} s`,
      ),
    ],
    [
      'cross-key reads',
      ...reports.map((r) =>
        r.readBack === undefined
          ? 'skipped'
          : `${int(r.readBack.crossResult.answered)} of ${int(r.readBack.cross)}, ${int(r.readBack.crossResult.problems.count)} leaked`,
      ),
    ],
    ['id restarts / out of sequence', ...reports.map((r) => `${int(r.ids?.restarts)} / ${int(r.ids?.violations)}`)],
    ['RSS max / last MB', ...reports.map((r) => `${mb(r.rssMaxKb)} / ${mb(r.rssLastKb)}`)],
    ['RSS growth, last third', ...reports.map((r) => (r.rssGrowth === undefined ? 'n/a' : pct(r.rssGrowth)))],
    [
      'RSS growth per pet created',
      ...reports.map((r) => (r.rssPerPet === undefined ? 'n/a' : `${int(Math.round(r.rssPerPet))} B`)),
    ],
    ['tenants (end / max polled)', ...reports.map((r) => `${int(r.health?.tenants)} / ${int(r.maxTenantsPolled)}`)],
    ['evictions (health / stderr)', ...reports.map((r) => `${int(r.health?.evictions)} / ${int(r.evictionsLogged)}`)],
    ['stderr lines', ...reports.map((r) => int(r.stderrLines))],
    ['result', ...reports.map((r) => (r.failures.length === 0 ? 'PASS' : 'FAIL'))],
  ]
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)))
  const line = (row) => `| ${row.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`
  console.log(
    ['', line(rows[0]), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...rows.slice(1).map(line)].join(
      '\n',
    ),
  )
  for (const report of reports) {
    for (const failure of report.failures) console.log(`${report.name} FAIL: ${failure}`)
    for (const note of report.notes) console.log(`${report.name} note: ${note}`)
  }
}

async function main() {
  const seconds = envNumber('SOAK_SECONDS', 45, { integer: false, min: 3, max: 3600 })
  const chaosSeconds = envNumber('SOAK_CHAOS_SECONDS', 25, { integer: false, min: 5, max: 3600 })
  const keyCount = envNumber('SOAK_KEYS', 500, { integer: true, min: 1, max: DEFAULT_MAX_TENANTS - 1 })
  const connections = envNumber('SOAK_CONNECTIONS', 32, { integer: true, min: 1, max: 1000 })
  const pinned = allowedCpus()
  if (pinned !== String(LOAD_CORE)) console.log(`warning: the load generator runs on cores ${pinned}, not ${LOAD_CORE}`)
  const startedAt = performance.now()
  const loadBefore = loadavg()[0]
  const reports = []
  // SOAK_PHASES=1,2,chaos (the default) picks phases, to look into one.
  const phases = (process.env.SOAK_PHASES || '1,2,chaos').split(',')
  for (const options of [
    { name: 'phase 1', seconds, keyCount, maxTenants: DEFAULT_MAX_TENANTS, readBackCreated: true },
    {
      name: 'phase 2',
      seconds: Math.max(1, Math.round(seconds / 3)),
      keyCount: PHASE2_KEYS,
      maxTenants: PHASE2_MAX_TENANTS,
      readBackCreated: false,
    },
  ].filter(({ name }) => phases.includes(name.replace('phase ', '')))) {
    const report = await phase({ ...options, connections })
    reports.push(report)
  }
  const chaos = !phases.includes('chaos')
    ? undefined
    : await chaosPhase({
        startSandbox,
        seed: SEED,
        firstCreatedId: FIRST_CREATED_ID,
        seconds: chaosSeconds,
        serverCore: SERVER_CORE,
        only: process.env.SOAK_CHAOS_ONLY ? process.env.SOAK_CHAOS_ONLY.split(',') : undefined,
      })
  if (reports.length > 0) summary(reports)
  if (chaos !== undefined) chaosSummary(chaos)
  const failed = [...reports, chaos].some((report) => report !== undefined && report.failures.length > 0)
  console.log(
    `\n${failed ? 'FAIL' : 'PASS'}, ${((performance.now() - startedAt) / 1000).toFixed(0)} s, Node ${process.version},` +
      ` load average ${loadBefore.toFixed(2)} at the start and ${loadavg()[0].toFixed(2)} at the end`,
  )
  agent.destroy()
  return failed ? 1 : 0
}

// Servers are detached into their own process groups, which outlive this process unless killed.
process.on('exit', () => {
  for (const child of live) killGroup(child, 'SIGKILL')
})

// Not pinned yet: run again on LOAD_CORE alone, and answer with that run's exit code.
if (!rerunPinned(LOAD_CORE, fileURLToPath(import.meta.url), [], 'SOAK_PINNED')) {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      for (const child of live) killGroup(child, 'SIGKILL')
      process.exit(130)
    })
  }
  process.exitCode = await main()
}
