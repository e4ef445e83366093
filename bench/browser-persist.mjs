// createSandbox({ persist }) in Chromium: a benchmark, not a test (issue 43, item 7). A tiny page
// (the package's source bundled by esbuild beside msw's setupWorker, as test/browser-persist.test.ts
// builds it) served from node:http with msw's service worker, in Debian's chromium with the
// shared flags of test/support/chromium-flags.json (V8's defaults, as a user's browser runs it).
//
// 1. First answer after a reload: the page times from just before `worker.start()` to the first
//    `GET /v1/pets?limit=1` answered, with 10,000 stored pets (persist), beside the same page
//    without persist (the seed, 32 pets). Each run is a normal reload (a hard one bypasses the worker).
// 2. What a create adds on the page's thread: CDP `Performance.getMetrics` TaskDuration (the main
//    thread's busy time) over N sequential creates made from the page, with and without persist,
//    divided by N; the difference is persist's cost. With the 32-pet seed and with 10,000 stored.
//    Rounds alternate which mode goes first (the first pays for the other's garbage).
//
// Run alone: `nice -n 19 node bench/browser-persist.mjs` prints JSON. RUNS and CREATES override.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { extname, join, normalize, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { chromium } from 'playwright-core'
import FLAGS from '../test/support/chromium-flags.json' with { type: 'json' }
import { median } from './stats.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const RUNS = Number(process.env.RUNS ?? 7)
const CREATES = Number(process.env.CREATES ?? 200)
const STORED = 10_000

const PAGE_SCRIPT = `
import { setupWorker } from 'msw/browser'
import { createSandbox } from './src/index.ts'

const params = new URLSearchParams(location.search)
const persist = params.get('persist') !== '0'
const created = performance.now()
const sandbox = createSandbox(persist ? { persist: { key: params.get('key') ?? 'bench' } } : {})
// Answered once the stored data is loaded: how long the load takes, beside the worker's start.
const loaded = sandbox.pets.count().then(() => performance.now() - created)
const worker = setupWorker(...sandbox.handlers)
const headers = { Authorization: 'Bearer petstore-sandbox-key', 'Content-Type': 'application/json' }
const started = performance.now()
await worker.start({ quiet: true })
const workerStartMs = performance.now() - started
const first = await fetch('/v1/pets?limit=1', { headers })
await first.json()
const answered = performance.now()
globalThis.bench = {
  firstAnswerMs: answered - started,
  workerStartMs,
  loadMs: await loaded,
  async fill(count) {
    const pets = Array.from({ length: count }, (_, index) => ({
      id: index + 1, name: 'Pet ' + (index + 1), categoryId: 1 + (index % 5), status: 'available',
    }))
    await sandbox.restore({ pets, nextId: count + 1 })
  },
  async count() { return sandbox.pets.count() },
  async creates(count) {
    for (let index = 0; index < count; index++) {
      const response = await fetch('/v1/pets', { method: 'POST', headers, body: JSON.stringify({ name: 'New ' + index, categoryId: 1 }) })
      if (response.status !== 201) throw new Error('create answered ' + response.status)
      await response.json()
    }
  },
}
document.body.dataset.ready = 'true'
`

async function buildPage(out) {
  await build({
    stdin: { contents: PAGE_SCRIPT, resolveDir: root, loader: 'ts', sourcefile: 'page.ts' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2023',
    outdir: out,
    entryNames: 'page',
    minify: true,
    logLevel: 'warning',
  })
}

function serve(out) {
  const worker = readFileSync(join(root, 'node_modules/msw/lib/mockServiceWorker.js'))
  const html =
    '<!doctype html><html><head><link rel="icon" href="data:,"></head><body><script type="module" src="/page.js"></script></body></html>'
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/'
    if (path === '/') return response.writeHead(200, { 'Content-Type': 'text/html' }).end(html)
    if (path === '/mockServiceWorker.js') {
      return response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(worker)
    }
    const file = normalize(join(out, path))
    if (!file.startsWith(out + sep) || !existsSync(file)) return response.writeHead(404).end()
    response.writeHead(200, {
      'Content-Type': extname(file) === '.js' ? 'text/javascript' : 'application/octet-stream',
    })
    response.end(readFileSync(file))
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

async function ready(page) {
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 60_000 })
}

/** The page's main-thread busy seconds so far (CDP Performance metrics). */
async function taskSeconds(cdp) {
  const { metrics } = await cdp.send('Performance.getMetrics')
  return metrics.find((metric) => metric.name === 'TaskDuration').value
}

/** Milliseconds of the page's thread per create: N creates, TaskDuration before and after. */
async function msPerCreate(page, cdp) {
  const before = await taskSeconds(cdp)
  await page.evaluate((count) => globalThis.bench.creates(count), CREATES)
  return (((await taskSeconds(cdp)) - before) * 1000) / CREATES
}

async function main() {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: set CHROMIUM_PATH`)
  const out = mkdtempSync(join(tmpdir(), 'persist-bench-'))
  await buildPage(out)
  const server = await serve(out)
  const origin = `http://127.0.0.1:${server.address().port}`
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS })
  try {
    const context = await browser.newContext()
    const page = await context.newPage()
    const cdp = await context.newCDPSession(page)
    await cdp.send('Performance.enable')

    // 1. The first answer after a reload.
    await page.goto(`${origin}/?key=stored`)
    await ready(page)
    await page.evaluate((count) => globalThis.bench.fill(count), STORED)
    const firstAnswer = { persist10k: [], withoutPersist: [] }
    const parts = { persist10k: { load: [], workerStart: [] }, withoutPersist: { load: [], workerStart: [] } }
    for (let run = 0; run < RUNS + 1; run++) {
      for (const [name, query] of run % 2 === 0
        ? [
            ['persist10k', 'key=stored'],
            ['withoutPersist', 'persist=0'],
          ]
        : [
            ['withoutPersist', 'persist=0'],
            ['persist10k', 'key=stored'],
          ]) {
        await page.goto(`${origin}/?${query}`)
        await ready(page)
        const ms = await page.evaluate(() => globalThis.bench.firstAnswerMs)
        if (name === 'persist10k' && (await page.evaluate(() => globalThis.bench.count())) !== STORED) {
          throw new Error('the stored pets were not loaded')
        }
        // The first run of each warms the browser's cache and is not counted.
        if (run > 0) {
          firstAnswer[name].push(ms)
          const { loadMs, workerStartMs } = await page.evaluate(() => globalThis.bench)
          parts[name].load.push(loadMs)
          parts[name].workerStart.push(workerStartMs)
        }
      }
    }

    // 2. The page thread per create.
    const perCreate = { persist32: [], persist10k: [], withoutPersist: [] }
    for (let run = 0; run < RUNS; run++) {
      const order = [
        ['withoutPersist', 'persist=0', 0],
        ['persist32', `key=small-${run}`, 0],
        ['persist10k', `key=large-${run}`, STORED],
      ]
      for (const [name, query, fill] of run % 2 === 0 ? order : [...order].reverse()) {
        await page.goto(`${origin}/?${query}`)
        await ready(page)
        if (fill > 0) await page.evaluate((count) => globalThis.bench.fill(count), fill)
        perCreate[name].push(await msPerCreate(page, cdp))
      }
    }
    const summary = (values) => ({
      medianMs: Number(median(values).toFixed(3)),
      runs: values.map((v) => Number(v.toFixed(3))),
    })
    console.log(
      JSON.stringify(
        {
          chromium: browser.version(),
          firstAnswerAfterReload: {
            storedPets: STORED,
            persist: summary(firstAnswer.persist10k),
            withoutPersist: summary(firstAnswer.withoutPersist),
            // From createSandbox to the stored data loaded (it runs beside the worker's start), and worker.start alone.
            persistLoad: summary(parts.persist10k.load),
            persistWorkerStart: summary(parts.persist10k.workerStart),
            withoutPersistWorkerStart: summary(parts.withoutPersist.workerStart),
          },
          pageThreadPerCreate: {
            creates: CREATES,
            withoutPersist: summary(perCreate.withoutPersist),
            persistSeed32: summary(perCreate.persist32),
            persistStored10k: summary(perCreate.persist10k),
          },
        },
        null,
        2,
      ),
    )
  } finally {
    await browser.close()
    server.close()
    rmSync(out, { recursive: true, force: true })
  }
}

await main()
