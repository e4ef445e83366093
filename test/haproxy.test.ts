/**
 * Scale-out: three `--isolate` sandboxes behind HAProxy, run with examples/haproxy/haproxy.cfg
 * exactly as docs/scaling-out.md quotes it. The balancer hashes on the key, so every key has one home
 * process. Needs the haproxy binary (Debian: apt-get install haproxy): without it the tests are
 * skipped, with a notice at the end of the run (and under CI=true the run fails). The figures of the run go to test-results/haproxy.json.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo, type Server } from 'node:net'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { needs } from './support/programs.js'
import { DEFAULT_API_KEY } from '../src/index.js'
import { spawnCli, waitFor, type Cli } from './support/spawn-cli.js'

const CONFIG = fileURLToPath(new URL('../examples/haproxy/haproxy.cfg', import.meta.url))
const FIGURES = fileURLToPath(new URL('../test-results/haproxy.json', import.meta.url))
const SANDBOXES = 3
const KEYS = 120
const PETS_PER_KEY = 3
const CONCURRENCY = 32
// Starting four processes and driving them on a loaded CI machine; no assertion is about time.
const TIMEOUT_MS = 120_000

interface Pet {
  id: number
  name: string
}

interface Answer {
  /** The X-Petstore-Home header the balancer adds: s1, s2 or s3. */
  home: string | null
  body: unknown
}

interface Stack {
  /** The balancer's origin. */
  balancer: string
  /** Each sandbox's origin, in the order of the cfg's servers s1, s2, s3. */
  backends: string[]
  haproxyVersion: string
}

const children: { child: ChildProcess; exited: Promise<unknown> }[] = []

afterAll(async () => {
  await Promise.all(
    children.map(async ({ child, exited }) => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
    }),
  )
})

/** Runs make() once, on first use; every later call gets the same promise (and the same failure). */
function shared<T>(make: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined
  return () => (promise ??= make())
}

/**
 * Starts the sandboxes, then HAProxy in the foreground in front of them, once, on the first test's
 * call: a test that fails to start it says why in its own failure.
 */
const stack = shared(async (): Promise<Stack> => {
  const version = spawnSync('haproxy', ['-v'], { encoding: 'utf8' })
  const haproxyVersion = /HAProxy version (\S+)/.exec(version.stdout)?.[1] ?? version.stdout.trim()

  const backends = await Promise.all(
    Array.from({ length: SANDBOXES }, async () => {
      const cli: Cli = spawnCli(['--isolate', '--port', '0', '--quiet'])
      children.push(cli)
      const [, origin = ''] = await waitFor(cli, /listening on (http:\/\/\S+)\/v1 with \d+ pets\n/, 30_000)
      return origin
    }),
  )

  // HAProxy's frontend is a socket this process binds to port 0 and hands over as file descriptor
  // 3 (`bind fd@3`): the port is known before HAProxy starts, and no one can take it in between,
  // as could happen to a port found free and then given to HAProxy to bind.
  const frontend = await listeningSocket()
  const { port } = frontend.address() as AddressInfo
  const env = {
    ...process.env,
    PETSTORE_FRONTEND: 'fd@3',
    ...Object.fromEntries(backends.map((origin, i) => [`PETSTORE_SANDBOX_${i + 1}`, new URL(origin).host])),
  }
  const child = spawn('haproxy', ['-f', CONFIG, '-db'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe', descriptorOf(frontend)],
  })
  // HAProxy holds its own copy now; this process must not accept on it.
  frontend.close()
  children.push({ child, exited: once(child, 'exit') })
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))

  // Ready once a request goes through it to a sandbox.
  const balancer = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 30_000
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`haproxy -f ${CONFIG} exited (${child.exitCode ?? child.signalCode}): ${stderr}`)
    }
    const answer = await fetch(`${balancer}/__sandbox/health`).catch(() => undefined)
    if (answer?.status === 200) break
    if (Date.now() > deadline) throw new Error(`haproxy did not answer on ${balancer}: ${stderr}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return { balancer, backends, haproxyVersion }
})

/** A TCP server listening on a port of the system's choosing on loopback, accepting nothing yet. */
async function listeningSocket(): Promise<Server> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  return server
}

/** The file descriptor of a listening socket, to hand to a child process in its stdio. */
function descriptorOf(server: Server): number {
  // Node has no public accessor for it; its handle has carried `fd` on Unix since Node 0.x.
  const fd = (server as unknown as { _handle?: { fd?: unknown } })._handle?.fd
  if (typeof fd !== 'number' || fd < 0)
    throw new Error("Failed to read the listening socket's file descriptor (Unix only)")
  return fd
}

/** Sends one request and fails, naming it, unless the status is the one expected. */
async function call(
  origin: string,
  method: string,
  path: string,
  expected: number,
  authorization?: string,
  body?: unknown,
): Promise<Answer> {
  const headers: Record<string, string> = {}
  if (authorization !== undefined) headers.Authorization = authorization
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  const response = await fetch(`${origin}${path}`, {
    method,
    headers,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  if (response.status !== expected) {
    throw new Error(
      `${method} ${origin}${path} (Authorization: ${String(authorization)}) answered ${response.status}, expected ${expected}: ${text}`,
    )
  }
  return { home: response.headers.get('x-petstore-home'), body: text === '' ? null : JSON.parse(text) }
}

/** Runs work over every item, at most `limit` at a time. */
async function inParallel<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length)
  // One iterator shared by every worker: each takes the next item when it is free.
  const queue = items.entries()
  const worker = async () => {
    for (const [index, item] of queue) results[index] = await work(item)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

/** The names of the pets a key created since its reset, as each sandbox holds them (asked directly). */
async function createdOnEachSandbox(key: string): Promise<string[][]> {
  const { backends } = await stack()
  return Promise.all(
    backends.map(async (backend) => {
      // An admin read: it shows the key's data without making a tenant where the key has none.
      const { body } = await call(backend, 'GET', '/__sandbox/pets?limit=1000', 200, `Bearer ${key}`)
      const page = body as { pets: (Pet & { created: boolean })[] }
      return page.pets.filter((pet) => pet.created).map((pet) => pet.name)
    }),
  )
}

/** The index of the one sandbox holding a key's created pets; fails when none or several do. */
async function homeOf(key: string): Promise<number> {
  const holders = (await createdOnEachSandbox(key)).flatMap((names, index) => (names.length > 0 ? [index] : []))
  if (holders.length !== 1) throw new Error(`Key ${key} has created pets on sandboxes [${holders.join(', ')}]`)
  return holders[0] ?? -1
}

const serverName = (index: number) => `s${index + 1}`

describe.skipIf(!needs('haproxy'))(
  `${KEYS} keys in parallel through HAProxy to ${SANDBOXES} isolated sandboxes`,
  () => {
    interface KeyRun {
      key: string
      /** The Authorization values sent, in turn: two spellings for every third key. */
      spellings: string[]
      seed: Pet[]
      created: Pet[]
      listed: Pet[]
      got: Pet[]
      /** X-Petstore-Home of every answer. */
      homes: Set<string>
      requests: number
    }

    /** Every third key also sends its header in another spelling the sandbox reads as the same key. */
    function spellingsOf(key: string, index: number): string[] {
      if (index % 3 !== 0) return [`Bearer ${key}`]
      const other = [`bearer   ${key}`, `BEARER ${key}`, `Bearer  ${key}`][(index / 3) % 3] ?? ''
      return [`Bearer ${key}`, other]
    }

    /** One key's session, in order: read the seed, create, list, get each one created. */
    async function session(balancer: string, key: string, index: number): Promise<KeyRun> {
      const spellings = spellingsOf(key, index)
      let sent = 0
      const homes = new Set<string>()
      const send = async (method: string, path: string, expected: number, body?: unknown) => {
        const answer = await call(balancer, method, path, expected, spellings[sent++ % spellings.length], body)
        homes.add(answer.home ?? 'none')
        return answer.body
      }
      const seed = (await send('GET', '/v1/pets?limit=100', 200)) as Pet[]
      const created: Pet[] = []
      for (let n = 1; n <= PETS_PER_KEY; n++) {
        created.push((await send('POST', '/v1/pets', 201, { name: `${key} pet ${n}`, categoryId: 1 })) as Pet)
      }
      const listed = (await send('GET', '/v1/pets?limit=100', 200)) as Pet[]
      const got: Pet[] = []
      for (const pet of created) got.push((await send('GET', `/v1/pets/${pet.id}`, 200)) as Pet)
      return { key, spellings, seed, created, listed, got, homes, requests: sent }
    }

    /** Every key's session through the balancer, then where each key's data is, asked of each sandbox. */
    const drive = shared(async () => {
      const { balancer, backends, haproxyVersion } = await stack()
      const keys = Array.from({ length: KEYS }, (_, i) => `tenant-${String(i).padStart(3, '0')}`)
      const started = performance.now()
      const runs = await inParallel([...keys.entries()], CONCURRENCY, ([index, key]) => session(balancer, key, index))
      const durationMs = performance.now() - started
      const homes = await inParallel(keys, CONCURRENCY, homeOf)

      const requests = runs.reduce((sum, run) => sum + run.requests, 0)
      const keysPerSandbox = Object.fromEntries(
        backends.map((_, i) => [serverName(i), homes.filter((home) => home === i).length]),
      )
      const figures = {
        haproxy: haproxyVersion,
        node: process.version,
        sandboxes: SANDBOXES,
        keys: KEYS,
        keysInTwoSpellings: runs.filter((run) => run.spellings.length === 2).length,
        requests,
        concurrency: CONCURRENCY,
        durationMs: Math.round(durationMs),
        requestsPerSecond: Math.round(requests / (durationMs / 1000)),
        keysPerSandbox,
      }
      mkdirSync(dirname(FIGURES), { recursive: true })
      writeFileSync(FIGURES, `${JSON.stringify(figures, null, 2)}\n`)
      const spread = Object.entries(keysPerSandbox)
        .map(([name, count]) => `${name} ${count}`)
        .join(', ')
      console.log(
        `HAProxy ${figures.haproxy}: ${KEYS} keys (${figures.keysInTwoSpellings} in two spellings), ${requests} requests through the balancer in ${(durationMs / 1000).toFixed(2)} s, ${figures.requestsPerSecond} req/s with ${CONCURRENCY} keys at a time; keys per sandbox: ${spread}`,
      )
      return { runs, homes, backends }
    })

    it(
      'every key reads back its own writes, whichever spelling of its header it sends',
      async () => {
        const { runs } = await drive()
        for (const { key, seed, created, listed, got } of runs) {
          const nextId = Math.max(...seed.map((pet) => pet.id)) + 1
          // Its own id sequence: the key's writes were never interleaved with another key's.
          expect(
            created.map((pet) => pet.id),
            key,
          ).toEqual(Array.from({ length: PETS_PER_KEY }, (_, n) => nextId + n))
          expect(
            created.map((pet) => pet.name),
            key,
          ).toEqual(Array.from({ length: PETS_PER_KEY }, (_, n) => `${key} pet ${n + 1}`))
          expect(listed, key).toEqual([...seed, ...created])
          expect(got, key).toEqual(created)
        }
      },
      TIMEOUT_MS,
    )

    it(
      "no key sees another key's pets",
      async () => {
        const { runs } = await drive()
        for (const { key, listed } of runs) {
          const foreign = listed.filter((pet) => /^tenant-\d{3} pet/.test(pet.name) && !pet.name.startsWith(`${key} `))
          expect(foreign, key).toEqual([])
        }
      },
      TIMEOUT_MS,
    )

    it(
      "each key's data lives in one sandbox, and every answer to that key came from it",
      async () => {
        const { runs, homes, backends } = await drive()
        runs.forEach((run, i) => {
          expect([...run.homes], run.key).toEqual([serverName(homes[i] ?? -1)])
        })
        // A stray request of any key (a read included) would have made that key a tenant elsewhere.
        const tenants = await Promise.all(
          backends.map(async (backend) => {
            const { body } = await call(backend, 'GET', '/__sandbox/health', 200)
            return (body as { tenants: number }).tenants
          }),
        )
        // Each sandbox: the default key's tenant, and the keys whose home it is; nothing else.
        expect(tenants).toEqual(backends.map((_, i) => 1 + homes.filter((home) => home === i).length))
      },
      TIMEOUT_MS,
    )

    it(
      `spreads the keys over all ${SANDBOXES} sandboxes`,
      async () => {
        const { homes } = await drive()
        for (let i = 0; i < SANDBOXES; i++) {
          expect(homes.filter((home) => home === i).length, `keys whose home is ${serverName(i)}`).toBeGreaterThan(0)
        }
      },
      TIMEOUT_MS,
    )
  },
)

describe.skipIf(!needs('haproxy'))('admin routes through HAProxy', () => {
  it(
    "a reset with a key resets that key's data only, on its home",
    async () => {
      const { balancer, backends } = await stack()
      const keys = Array.from({ length: 12 }, (_, i) => `reset-${String(i).padStart(2, '0')}`)
      await inParallel(keys, CONCURRENCY, async (key) => {
        for (const n of [1, 2]) {
          await call(balancer, 'POST', '/v1/pets', 201, `Bearer ${key}`, { name: `${key} pet ${n}`, categoryId: 1 })
        }
      })
      const homes = await Promise.all(keys.map(homeOf))
      // The key to reset, another key with the same home, and a key with another home.
      const sameHome = backends.map((_, i) => keys.filter((_, k) => homes[k] === i)).find((group) => group.length >= 2)
      const [reset = '', neighbour = ''] = sameHome ?? []
      const home = homes[keys.indexOf(reset)] ?? -1
      const elsewhere = keys.find((_, k) => homes[k] !== home) ?? ''
      expect(
        [reset, neighbour, elsewhere].every((key) => key !== ''),
        `two keys with one home and a key with another, among ${keys.length} keys homed on ${homes.map(serverName).join(' ')}`,
      ).toBe(true)

      const answer = await call(balancer, 'POST', '/__sandbox/reset', 204, `bearer   ${reset}`)
      expect(answer.home).toBe(serverName(home))

      const ownNames = async (key: string) =>
        ((await call(balancer, 'GET', '/v1/pets?limit=100', 200, `Bearer ${key}`)).body as Pet[])
          .map((pet) => pet.name)
          .filter((name) => name.startsWith('reset-'))
      expect(await ownNames(reset)).toEqual([])
      expect(await createdOnEachSandbox(reset)).toEqual(backends.map(() => []))
      for (const key of [neighbour, elsewhere]) {
        expect(await ownNames(key), key).toEqual([`${key} pet 1`, `${key} pet 2`])
      }
    },
    TIMEOUT_MS,
  )

  it(
    "sends requests without a key to the default key's home, every time",
    async () => {
      const { balancer } = await stack()
      const created = await call(balancer, 'POST', '/v1/pets', 201, `Bearer ${DEFAULT_API_KEY}`, {
        name: 'Made with the default key',
        categoryId: 1,
      })
      // Without a key, the admin routes read the default key's data: here, on its home.
      const keyless = await Promise.all(
        Array.from({ length: 12 }, () => call(balancer, 'GET', '/__sandbox/pets?limit=1000', 200)),
      )
      for (const answer of keyless) {
        expect(answer.home).toBe(created.home)
        expect((answer.body as { pets: Pet[] }).pets.map((pet) => pet.name)).toContain('Made with the default key')
      }
    },
    TIMEOUT_MS,
  )
})
