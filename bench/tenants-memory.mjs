// The peak RSS of the CLI holding 1,000 tenants under the list mix (issue 49, item 4): one built
// tree's `bin/petstore-sandbox.js --port 0 --quiet --isolate --generate 200`, asked by KEYS keys
// (the default key, whose tenant exists from the start and counts against the tenants budget of
// 1,000, and worker-1 ... worker-999), each asking SHAPES list shapes (`/v1/pets?limit=N`, N in
// 1..100, with no status and with each of available, pending, sold: 400 in all; fewer take every
// (400 / SHAPES)th from the key's own offset), key-interleaved so every tenant is alive at once,
// over 32 keep-alive connections. The figure is VmHWM of /proc/PID/status once the load is done,
// in MB of 10^6 bytes. The server runs pinned to core 0 (bench/processes.mjs), this process to
// core 1.
//
//   node bench/tenants-memory.mjs [FOLDER] [--keys 1000] [--shapes 40]
//
// FOLDER is a built tree (a folder with bin/petstore-sandbox.js and its dist), by default this
// checkout. Prints one JSON line: { rssMB, requests, seconds, ... }. tenantsMemory() is the same
// for bench/compare.mjs.
//
// What the figure is: V8 lets the old generation grow to a multiple (1.3 to 4, from how fast the
// GC marks against how fast the old generation fills) of what survived the last mark-compact
// before it collects again, so the peak is set by what every request leaves there (promoted or
// pretenured) and by what lives there. A short run stops part of the way up that saw; the full
// 400 shapes a key reach its top. Medians of 3 interleaved runs, 2026-11-28, the 2-core machine
// shared with a CI run (load average 3.9-8.6), Node 20.20:
//
//   shapes  requests  seconds   0.12.5  0.13.0    main  i49-memory
//       20    20,000     5-10    188.5   184.6   188.9       114.9
//       40    40,000    11-18    283.6   203.1   205.5       127.1
//      100   100,000    24-41    287.0   283.6   289.7       129.0
//      400   400,000   81-180    287.0   285.7   289.2       139.8
//
// main is 62541e8, i49-memory c05bd58. Within a build the runs moved 1-4 MB, but for i49-memory at
// 100 and 400 shapes (126-141, 131-149), where its old generation reaches its limit about then.
// 40 is the default: the cheapest that tells 0.12.5 from 0.13.0 (0.12.5 promoted 5.2 KB a request
// and 0.13.0 3.0, so only 0.12.5 had reached its second mark-compact's top; 3926a64, 0.12.6's
// request class, read 201 against 0.12.5's 283) and main from i49-memory. Read it as a comparison
// in one sitting, not as the 400-shape figure: main's 205.5 there is 289 in full.
import { Agent, request } from 'node:http'
import { loadavg } from 'node:os'
import { join, resolve } from 'node:path'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { rerunPinned } from './pinning.mjs'
import { startServer } from './processes.mjs'

const LOAD_CORE = 1
const DEFAULT_KEY = 'petstore-sandbox-key'
const STATUSES = [undefined, 'available', 'pending', 'sold']
const SHAPES = Array.from({ length: 100 }, (_, index) => index + 1).flatMap((limit) =>
  STATUSES.map((status) => `/v1/pets?limit=${limit}${status === undefined ? '' : `&status=${status}`}`),
)
const CONNECTIONS = 32
const MB = 1e6
const LISTENING = /listening on http:\/\/[^\s/]+:(\d+)\/v1/

/** The default key's tenant is one of the 1,000: a 1,001st key would evict the one asked next. */
const keyOf = (index) => (index === 0 ? DEFAULT_KEY : `worker-${index}`)

/** VmHWM (the peak resident set) of a process, in MB. */
function peakRssOf(pid) {
  const kB = Number(/^VmHWM:\s*(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1])
  return (kB * 1024) / MB
}

/** One GET over a keep-alive agent; resolves with its status, the body read and dropped. */
function get(agent, origin, path, key) {
  return new Promise((done, fail) => {
    const sent = request(`${origin}${path}`, { agent, headers: { authorization: `Bearer ${key}` } }, (answer) => {
      answer.resume()
      answer.once('end', () => done(answer.statusCode))
      answer.once('error', fail)
    })
    sent.once('error', fail)
    sent.end()
  })
}

/**
 * The peak RSS, in MB, of the CLI in `folder` under `keys` tenants each asking `shapes` list
 * shapes; the requests sent, their statuses, the seconds the load took.
 */
export async function tenantsMemory(folder, { keys = 1000, shapes = 40 } = {}) {
  if (!(shapes >= 1 && shapes <= SHAPES.length)) throw new RangeError(`shapes is 1..${SHAPES.length}, not ${shapes}`)
  const step = Math.floor(SHAPES.length / shapes)
  const server = startServer(
    [join(folder, 'bin/petstore-sandbox.js'), '--port', '0', '--quiet', '--isolate', '--generate', '200'],
    LISTENING,
  )
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  try {
    const origin = await server.origin
    const requests = keys * shapes
    const statuses = {}
    let next = 0
    // Key-interleaved: request i goes to key i % keys, so every tenant is made in the first
    // round and all stay alive; each key walks the shapes from an offset of its own.
    const connection = async () => {
      while (next < requests) {
        const index = next++
        const key = index % keys
        const shape = SHAPES[(key * 7 + Math.floor(index / keys) * step) % SHAPES.length]
        const status = await get(agent, origin, shape, keyOf(key))
        statuses[status] = (statuses[status] ?? 0) + 1
      }
    }
    const startedAt = performance.now()
    await Promise.all(Array.from({ length: CONNECTIONS }, connection))
    const seconds = (performance.now() - startedAt) / 1000
    return {
      rssMB: Math.round(peakRssOf(server.pid) * 10) / 10,
      requests,
      seconds: Math.round(seconds * 10) / 10,
      keys,
      shapes,
      statuses,
    }
  } finally {
    agent.destroy()
    await server.stop()
  }
}

const self = fileURLToPath(import.meta.url)
if (process.argv[1] !== undefined && resolve(process.argv[1]) === self) {
  const args = process.argv.slice(2)
  if (!rerunPinned(LOAD_CORE, self, args, 'PETSTORE_TENANTS_MEMORY_PINNED')) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { keys: { type: 'string', default: '1000' }, shapes: { type: 'string', default: '40' } },
    })
    const folder = resolve(positionals[0] ?? fileURLToPath(new URL('..', import.meta.url)))
    const result = await tenantsMemory(folder, { keys: Number(values.keys), shapes: Number(values.shapes) })
    const load = loadavg().map((value) => Math.round(value * 100) / 100)
    console.log(JSON.stringify({ ...result, folder, loadAverage: load }))
  }
}
