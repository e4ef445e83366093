// Browser storage for a persisted sandbox, measured in Chromium: a benchmark, not a test (issue 43,
// items 1 and 2: "choose IndexedDB or localStorage by measurement", and "@msw/data's sync() and
// persist() measured beside your choice"). Pages are built and served as bench/browser-persist.mjs
// builds them (esbuild, msw's service worker from node:http, Debian's chromium with the shared flags).
//
// A. localStorage against IndexedDB, with a 10,000-pet state document (`sandbox.exportState()`):
//    a whole write and a whole read (+ JSON.parse), and the write one create needs (localStorage
//    has no partial write of a key: the whole document again, or a key per pet; IndexedDB: one
//    small record). Each as the page's thread sees it (performance.now around the synchronous
//    calls; CDP Performance.getMetrics TaskDuration over the evaluate, less an empty evaluate's)
//    and as wall time to committed. Then localStorage's quota, and whether a read of localStorage
//    inside a Web Lock sees what another tab wrote under the same lock (two pages incrementing one
//    counter; IndexedDB the same way beside it).
// B. @msw/data 1.x (Collection + zod 4 schema, its sync() and persist() extensions, behind msw
//    handlers as an app writes them) beside createSandbox({ persist }): two tabs creating 20 pets
//    each at once, a created pet across a reload and across a closed and reopened tab, and the time
//    to usable data after a reload with 10,000 records.
//
// Run alone: `nice -n 19 node bench/browser-storage.mjs` prints JSON. RUNS overrides the rounds.
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
const STORED = 10_000
const BURST = 20
const PER_CREATE = 50
const HEADERS = `{ Authorization: 'Bearer petstore-sandbox-key', 'Content-Type': 'application/json' }`

/** Times the page reports: its startup (worker, first answer, data loaded) and the calls the runs make. */
const COMMON = `
const headers = ${HEADERS}
async function call(method, path, body) {
  const response = await fetch(path, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) })
  return { status: response.status, count: response.headers.get('x-count'), body: await response.json() }
}
function tick() {
  return new Promise((resolve) => { const channel = new MessageChannel(); channel.port1.onmessage = resolve; channel.port2.postMessage(0) })
}
async function startup(worker, loaded, began) {
  const started = performance.now()
  await worker.start({ quiet: true })
  const workerStartMs = performance.now() - started
  const first = await call('GET', '/v1/pets?limit=1')
  return {
    workerStartMs,
    firstAnswerMs: performance.now() - started,
    // From before the store was made (createSandbox, or new Collection, which hydrates in its constructor).
    firstAnswerSinceStartMs: performance.now() - began,
    firstStatus: first.status,
    // How many records the first answer was made from (the @msw/data page says so in a header).
    firstAnswerCount: first.count === null ? null : Number(first.count),
    loadMs: await loaded,
  }
}
const api = {
  create: async (name) => (await call('POST', '/v1/pets', { name, categoryId: 1 })).body.id,
  burst: (prefix, count) => Promise.all(Array.from({ length: count }, (_, index) => api.create(prefix + ' ' + index))),
}
`

/** createSandbox({ persist: { key } }) (or no persist with ?persist=0), and Part A's storage calls. */
const OURS_PAGE = `
import { setupWorker } from 'msw/browser'
import { createSandbox } from './src/index.ts'
${COMMON}
const params = new URLSearchParams(location.search)
const began = performance.now()
const sandbox = createSandbox(params.get('persist') === '0' ? {} : { persist: { key: params.get('key') ?? 'bench' } })
const loaded = sandbox.pets.count().then(() => performance.now() - began)
const worker = setupWorker(...sandbox.handlers)
globalThis.bench = {
  ...api,
  ...(await startup(worker, loaded, began)),
  count: () => sandbox.pets.count(),
  list: async () => (await call('GET', '/v1/pets?limit=100')).body.map((pet) => ({ id: pet.id, name: pet.name })),
  async fill(count) {
    const pets = Array.from({ length: count }, (_, index) => ({
      id: index + 1, name: 'Pet ' + (index + 1), categoryId: 1 + (index % 5), status: 'available',
    }))
    await sandbox.restore({ pets, nextId: count + 1 })
  },
  exportState: () => sandbox.exportState(),
}
globalThis.storage = await import('./bench-storage-calls.js')
document.body.dataset.ready = 'true'
`

/**
 * Part A's calls, run in the page. Each returns what the page's thread spent synchronously
 * (syncMs) and the wall time to the data being written or read (wallMs).
 */
const STORAGE_CALLS = `
let database
function openDb() {
  return (database ??= new Promise((resolve, reject) => {
    const request = indexedDB.open('bench-storage', 1)
    request.onupgradeneeded = () => request.result.createObjectStore('records')
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error)
  }))
}
function done(transaction) {
  return new Promise((resolve, reject) => {
    transaction.oncomplete = resolve
    transaction.onerror = transaction.onabort = () => reject(transaction.error)
  })
}
export async function idbPut(records) {
  const db = await openDb()
  const start = performance.now()
  const transaction = db.transaction('records', 'readwrite')
  for (const [name, value] of records) transaction.objectStore('records').put(value, name)
  const syncMs = performance.now() - start
  await done(transaction)
  return { syncMs, wallMs: performance.now() - start }
}
export async function idbGet(name, parse) {
  const db = await openDb()
  const start = performance.now()
  const transaction = db.transaction('records', 'readonly')
  const request = transaction.objectStore('records').get(name)
  const callMs = performance.now() - start
  await done(transaction)
  const got = performance.now()
  if (parse) JSON.parse(request.result)
  const end = performance.now()
  return { syncMs: callMs + end - got, getMs: got - start, parseMs: end - got, wallMs: end - start, length: request.result?.length }
}
export function lsSet(name, text) {
  const start = performance.now()
  localStorage.setItem(name, text)
  const ms = performance.now() - start
  return { syncMs: ms, wallMs: ms }
}
export function lsGet(name) {
  const start = performance.now()
  const text = localStorage.getItem(name)
  const got = performance.now()
  JSON.parse(text)
  const end = performance.now()
  return { getMs: got - start, parseMs: end - got, wallMs: end - start, syncMs: end - start, length: text.length }
}
/** Every pet under a key of its own ("p:" + id): what a key-per-pet layout reads on a reload. */
export function lsWriteKeys(text) {
  for (const pet of JSON.parse(text).pets) localStorage.setItem('p:' + pet.id, JSON.stringify(pet))
}
export function lsReadKeys() {
  const start = performance.now()
  const pets = []
  for (let index = 0; index < localStorage.length; index++) {
    const name = localStorage.key(index)
    if (name.startsWith('p:')) pets.push(JSON.parse(localStorage.getItem(name)))
  }
  const ms = performance.now() - start
  return { syncMs: ms, wallMs: ms, pets: pets.length }
}
let parsed
/** What one create would write, N times: the whole document again, a key per pet, or one IndexedDB record. */
export async function perCreate(way, text, count) {
  // Parsed once, before any evaluate is measured (prepare()): a create has its data in memory.
  const doc = (parsed ??= JSON.parse(text))
  let next = doc.nextId
  const times = []
  for (let index = 0; index < count; index++) {
    const pet = { id: next, name: 'New ' + index, categoryId: 1, status: 'available' }
    next += 1
    const start = performance.now()
    if (way === 'localStorageWholeDocument') {
      doc.pets.push(pet)
      doc.nextId = next
      localStorage.setItem('doc', JSON.stringify(doc))
      times.push({ syncMs: performance.now() - start, wallMs: performance.now() - start })
    } else if (way === 'localStorageKeyPerPet') {
      localStorage.setItem('pet:' + pet.id, JSON.stringify(pet))
      localStorage.setItem('nextId', String(next))
      times.push({ syncMs: performance.now() - start, wallMs: performance.now() - start })
    } else {
      times.push(await idbPut([['pet:' + pet.id, pet]]))
    }
  }
  return times
}
/** The largest text (in characters) localStorage takes under one key, and what it says past it. */
export function lsQuota() {
  localStorage.clear()
  const attempt = (chars) => {
    try {
      localStorage.setItem('quota', 'x'.repeat(chars))
      localStorage.removeItem('quota')
      return 'ok'
    } catch (error) {
      return error.name
    }
  }
  const tries = {}
  for (const mb of [2.5, 5, 10]) tries[mb + 'M chars'] = attempt(mb * 1_000_000)
  let low = 0
  let high = 20_000_000
  while (high - low > 1024) {
    const middle = Math.floor((low + high) / 2)
    if (attempt(middle) === 'ok') low = middle
    else high = middle
  }
  return { tries, largestChars: low }
}
export async function idbQuota() {
  const estimate = await navigator.storage.estimate()
  let twentyMillionChars
  try {
    await idbPut([['big', 'x'.repeat(20_000_000)]])
    twentyMillionChars = 'ok'
  } catch (error) {
    twentyMillionChars = error.name
  }
  await idbPut([['big', null]])
  return { estimateQuotaBytes: estimate.quota, twentyMillionChars }
}
/** count increments of one counter, each under the Web Lock: read, then write. */
export async function lockedIncrements(way, count) {
  for (let index = 0; index < count; index++) {
    await navigator.locks.request('bench-counter', async () => {
      if (way === 'localStorage') {
        localStorage.setItem('counter', String(Number(localStorage.getItem('counter') ?? 0) + 1))
      } else {
        const { value } = await new Promise((resolve) => openDb().then((db) => {
          const request = db.transaction('records', 'readonly').objectStore('records').get('counter')
          request.onsuccess = () => resolve({ value: request.result ?? 0 })
        }))
        await idbPut([['counter', value + 1]])
      }
    })
  }
}
export async function counter(way) {
  if (way === 'localStorage') return Number(localStorage.getItem('counter') ?? 0)
  const db = await openDb()
  return new Promise((resolve) => {
    const request = db.transaction('records', 'readonly').objectStore('records').get('counter')
    request.onsuccess = () => resolve(request.result ?? 0)
  })
}
export async function resetCounter() {
  localStorage.removeItem('counter')
  await idbPut([['counter', 0]])
}
`

/**
 * @msw/data 1.x as its README shows it: a Collection with a Standard Schema (zod 4) and the sync()
 * and persist() extensions, behind msw handlers. It has no auto-increment: the handler gives a new
 * pet the largest id it holds + 1, as its docs' `id: index + 1` seeding leads an app to. The seed
 * (32 pets, ids 1-32) is made only when the origin's localStorage is empty: hydration is not
 * awaited and not announced, so an app has no other way to tell "stored data coming" from "none".
 */
const DATA_PAGE = `
import { http, HttpResponse } from 'msw'
import { setupWorker } from 'msw/browser'
import { Collection } from '@msw/data'
import { persist, serializeRecord } from '@msw/data/extensions/persist'
import { sync } from '@msw/data/extensions/sync'
import { z } from 'zod'
${COMMON}
const params = new URLSearchParams(location.search)
const began = performance.now()
const hadStored = localStorage.length > 0
const pets = new Collection({
  schema: z.object({ id: z.number(), name: z.string(), categoryId: z.number(), status: z.string() }),
  // ?ext=persist: without sync(), whose create hook also broadcasts every hydrated record.
  extensions: params.get('ext') === 'persist' ? [persist()] : [persist(), sync()],
})
const countAtOnce = pets.count()
if (!hadStored) {
  await pets.createMany(32, (index) => ({ id: index + 1, name: 'Seed ' + (index + 1), categoryId: 1 + (index % 5), status: 'available' }))
}
// Loaded when the count reaches what the run stored (?expect=), polled between tasks (so it reads late
// by whatever tasks queue first); at most 5 s of waiting.
async function until(count) {
  while (pets.count() < count && performance.now() - began < 5000) await tick()
  return pets.count() >= count ? performance.now() - began : null
}
const loaded = until(Number(params.get('expect') ?? 0))
const nextId = () => pets.all().reduce((max, pet) => Math.max(max, pet.id), 0) + 1
const worker = setupWorker(
  http.get('/v1/pets', ({ request }) => {
    const limit = Number(new URL(request.url).searchParams.get('limit') ?? 20)
    const all = pets.all()
    const page = [...all].sort((a, b) => a.id - b.id).slice(0, limit)
    return HttpResponse.json(page, { headers: { 'X-Count': String(all.length) } })
  }),
  http.post('/v1/pets', async ({ request }) => {
    const body = await request.json()
    const pet = await pets.create({ id: nextId(), name: body.name, categoryId: body.categoryId, status: 'available' })
    return HttpResponse.json(pet, { status: 201 })
  }),
)
globalThis.bench = {
  ...api,
  ...(await startup(worker, loaded, began)),
  countAtOnce,
  count: () => pets.count(),
  list: () => pets.all().map((pet) => ({ id: pet.id, name: pet.name })),
  async fill(count) {
    pets.clear()
    await pets.createMany(count, (index) => ({ id: index + 1, name: 'Pet ' + (index + 1), categoryId: 1 + (index % 5), status: 'available' }))
  },
  /**
   * What its unload listener does (persist.ts: every record serialised, one setItem under its
   * key), done and timed here: the reload then hydrates whether or not Chromium ran the listener.
   */
  unloadWriteMs() {
    const id = pets[Object.getOwnPropertySymbols(pets).find((symbol) => symbol.description === 'kCollectionId')]
    const start = performance.now()
    localStorage.setItem('msw/data/storage/' + id, JSON.stringify({ version: 1, collectionId: id, records: pets.all().map(serializeRecord) }))
    return performance.now() - start
  },
  storedRecords() {
    const key = Object.keys(localStorage).find((name) => name.startsWith('msw/data/storage/'))
    return key === undefined ? 0 : JSON.parse(localStorage.getItem(key)).records.length
  },
}
document.body.dataset.ready = 'true'
`

async function buildPages(out) {
  const common = {
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2023',
    minify: true,
    logLevel: 'warning',
    plugins: [
      {
        name: 'storage-calls',
        setup(esbuild) {
          esbuild.onResolve({ filter: /^\.\/bench-storage-calls\.js$/ }, () => ({ path: 'calls', namespace: 'calls' }))
          esbuild.onLoad({ filter: /.*/, namespace: 'calls' }, () => ({ contents: STORAGE_CALLS, loader: 'js' }))
        },
      },
    ],
  }
  for (const [name, contents] of [
    ['ours', OURS_PAGE],
    ['data', DATA_PAGE],
  ]) {
    await build({
      ...common,
      stdin: { contents, resolveDir: root, loader: 'ts', sourcefile: `${name}.ts` },
      outdir: join(out, name),
      entryNames: 'page',
    })
  }
}

function serve(out) {
  const worker = readFileSync(join(root, 'node_modules/msw/lib/mockServiceWorker.js'))
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost')
    if (url.pathname === '/') {
      const script = url.searchParams.get('lib') === 'data' ? '/data/page.js' : '/ours/page.js'
      const html = `<!doctype html><html><head><link rel="icon" href="data:,"></head><body><script type="module" src="${script}"></script></body></html>`
      return response.writeHead(200, { 'Content-Type': 'text/html' }).end(html)
    }
    if (url.pathname === '/mockServiceWorker.js') {
      return response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(worker)
    }
    const file = normalize(join(out, url.pathname))
    if (!file.startsWith(out + sep) || !existsSync(file)) return response.writeHead(404).end()
    response.writeHead(200, {
      'Content-Type': extname(file) === '.js' ? 'text/javascript' : 'application/octet-stream',
    })
    response.end(readFileSync(file))
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

async function open(page, url) {
  await page.goto(url)
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 60_000 })
}

async function taskMs(cdp) {
  const { metrics } = await cdp.send('Performance.getMetrics')
  return metrics.find((metric) => metric.name === 'TaskDuration').value * 1000
}

/** The page thread's busy milliseconds over one evaluate, less an empty evaluate's, and its result. */
async function onThread(page, cdp, fn, arg) {
  let before = await taskMs(cdp)
  await page.evaluate(() => 0)
  const empty = (await taskMs(cdp)) - before
  before = await taskMs(cdp)
  const result = await page.evaluate(fn, arg)
  return { threadMs: (await taskMs(cdp)) - before - empty, result }
}

const summary = (values) => {
  const kept = values.filter((value) => typeof value === 'number')
  if (kept.length === 0) return { medianMs: null, runs: values }
  const sorted = [...kept].sort((a, b) => a - b)
  return {
    medianMs: Number(median(kept).toFixed(3)),
    min: Number(sorted[0].toFixed(3)),
    max: Number(sorted.at(-1).toFixed(3)),
    runs: values.map((value) => (typeof value === 'number' ? Number(value.toFixed(3)) : value)),
  }
}
const summarise = (object) =>
  Object.fromEntries(
    Object.entries(object).map(([name, values]) => [name, Array.isArray(values) ? summary(values) : summarise(values)]),
  )
const push = (into, name, value) => (into[name] ??= []).push(value)

/** A: the 10,000-pet document, written and read whole each way, and one create's write each way. */
async function partA(context, origin) {
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  await cdp.send('Performance.enable')
  await open(page, `${origin}/?persist=0`)
  await page.evaluate((count) => globalThis.bench.fill(count), STORED)
  const textLength = await page.evaluate(async () => {
    globalThis.stateText = await globalThis.bench.exportState()
    await globalThis.storage.perCreate('localStorageKeyPerPet', globalThis.stateText, 0) // parses it once
    globalThis.storage.lsWriteKeys(globalThis.stateText)
    return globalThis.stateText.length
  })
  const calls = {
    localStorageSetItem: () => globalThis.storage.lsSet('state', globalThis.stateText),
    localStorageGetItemParse: () => globalThis.storage.lsGet('state'),
    localStorageKeyPerPetReadAll: () => globalThis.storage.lsReadKeys(),
    indexedDbPut: () => globalThis.storage.idbPut([['state', globalThis.stateText]]),
    indexedDbGetParse: () => globalThis.storage.idbGet('state', true),
  }
  const whole = {}
  const perCreate = {}
  for (let run = 0; run < RUNS + 1; run++) {
    const names = Object.keys(calls)
    for (const name of run % 2 === 0 ? names : names.reverse()) {
      const { threadMs, result } = await onThread(page, cdp, calls[name])
      if (run === 0) continue // warms each path
      push((whole[name] ??= {}), 'syncMs', result.syncMs)
      push(whole[name], 'wallMs', result.wallMs)
      push(whole[name], 'threadMs', threadMs)
      if (result.parseMs !== undefined) push(whole[name], 'parseMs', result.parseMs)
    }
    const ways = ['localStorageWholeDocument', 'localStorageKeyPerPet', 'indexedDbOneRecord']
    for (const way of run % 2 === 0 ? ways : ways.reverse()) {
      const { threadMs, result } = await onThread(
        page,
        cdp,
        ([w, n]) => globalThis.storage.perCreate(w, globalThis.stateText, n),
        [way, PER_CREATE],
      )
      if (run === 0) continue
      push((perCreate[way] ??= {}), 'syncMs', median(result.map((time) => time.syncMs)))
      push(perCreate[way], 'wallMs', median(result.map((time) => time.wallMs)))
      push(perCreate[way], 'threadMs', threadMs / PER_CREATE)
    }
    await page.evaluate(() => {
      for (const name of Object.keys(localStorage)) if (name.startsWith('pet:')) localStorage.removeItem(name)
    })
  }
  const quota = {
    localStorage: await page.evaluate(() => globalThis.storage.lsQuota()),
    indexedDb: await page.evaluate(() => globalThis.storage.idbQuota()),
  }
  await page.close()
  return {
    stateTextChars: textLength,
    whole: summarise(whole),
    perCreate: { creates: PER_CREATE, ...summarise(perCreate) },
    quota,
  }
}

/** A: two pages, each incrementing one counter N times under one Web Lock; what a read inside it missed. */
async function lockedCounter(context, browser, origin) {
  // Whether the two pages got renderer processes of their own (one shared would see its own writes).
  const cdp = await browser.newBrowserCDPSession()
  const renderers = async () =>
    (await cdp.send('SystemInfo.getProcessInfo')).processInfo.filter((process) => process.type === 'renderer').length
  const result = { renderersBefore: await renderers() }
  const pages = [await context.newPage(), await context.newPage()]
  for (const page of pages) await open(page, `${origin}/?persist=0`)
  result.renderersWithTheTwoPages = await renderers()
  const N = 200
  for (const way of ['localStorage', 'indexedDb']) {
    const lost = []
    for (let run = 0; run < RUNS; run++) {
      await pages[0].evaluate(() => globalThis.storage.resetCounter())
      await Promise.all(
        pages.map((page) => page.evaluate(([w, n]) => globalThis.storage.lockedIncrements(w, n), [way, N])),
      )
      lost.push(2 * N - (await pages[0].evaluate((w) => globalThis.storage.counter(w), way)))
    }
    result[way] = { increments: 2 * N, lostPerRun: lost }
  }
  for (const page of pages) await page.close()
  return result
}

/** B(1): two tabs creating BURST pets each at once; ids held twice and pets a tab does not hold. */
async function twoTabs(context, origin, query) {
  const pages = [await context.newPage(), await context.newPage()]
  for (const page of pages) await open(page, `${origin}/?${query}`)
  const before = await Promise.all(pages.map((page) => page.evaluate(() => globalThis.bench.count())))
  const ids = await Promise.all(
    pages.map((page, tab) => page.evaluate(([p, n]) => globalThis.bench.burst(p, n), [`Tab${tab}`, BURST])),
  )
  // The other tab's last creates may still be on their way (a BroadcastChannel message): wait until
  // each tab's count stops moving for half a second.
  const settled = async (page) => {
    let last = -1
    for (;;) {
      const count = await page.evaluate(() => globalThis.bench.count())
      if (count === last) return
      last = count
      await page.waitForTimeout(500)
    }
  }
  await Promise.all(pages.map(settled))
  const made = ids.flat()
  const lists = await Promise.all(pages.map((page) => page.evaluate(() => globalThis.bench.list())))
  const names = Array.from({ length: 2 }, (_, tab) =>
    Array.from({ length: BURST }, (_, index) => `Tab${tab} ${index}`),
  ).flat()
  const result = {
    countBefore: before,
    created: made.length,
    distinctIdsAnswered: new Set(made).size,
    idsAnsweredTwice: made.length - new Set(made).size,
    perTab: lists.map((list) => {
      const byId = new Map()
      for (const pet of list) byId.set(pet.id, [...(byId.get(pet.id) ?? []), pet.name])
      const held = new Set(list.map((pet) => pet.name))
      return {
        records: list.length,
        createdMissing: names.filter((name) => !held.has(name)).length,
        idsHeldByMoreThanOneRecord: [...byId.values()].filter((namesOfId) => namesOfId.length > 1).length,
      }
    }),
  }
  for (const page of pages) await page.close()
  return result
}

/**
 * B(2): a created pet after a normal reload, after its tab is closed and another opened, and
 * after its tab crashed (CDP Page.crash: no unload runs); and what a tab left open counts while
 * another reloads (@msw/data's hydration creates records, which its sync() broadcasts).
 */
async function survives(context, origin, query) {
  const page = await context.newPage()
  await open(page, `${origin}/?${query}`)
  const other = await context.newPage()
  await open(other, `${origin}/?${query}`)
  const reloadName = 'Reloaded pet'
  await page.evaluate((name) => globalThis.bench.create(name), reloadName)
  await page.reload()
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 60_000 })
  const afterReload = (await page.evaluate(() => globalThis.bench.list())).some((pet) => pet.name === reloadName)
  const otherBefore = await other.evaluate(() => globalThis.bench.count())
  await page.reload()
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 60_000 })
  await page.waitForTimeout(500)
  const otherAfter = await other.evaluate(() => globalThis.bench.count())
  await other.close()
  const closeName = 'Closed-tab pet'
  await page.evaluate((name) => globalThis.bench.create(name), closeName)
  await page.close()
  const again = await context.newPage()
  await open(again, `${origin}/?${query}`)
  const list = await again.evaluate(() => globalThis.bench.list())
  const crashName = 'Crashed-tab pet'
  await again.evaluate((name) => globalThis.bench.create(name), crashName)
  const crashed = new Promise((resolve) => again.once('crash', resolve))
  const cdp = await context.newCDPSession(again)
  // Never answered: the renderer is gone (and the crashed page is left to its context's close).
  cdp.send('Page.crash').catch(() => {})
  await crashed
  const last = await context.newPage()
  await open(last, `${origin}/?${query}`)
  const afterCrash = await last.evaluate(() => globalThis.bench.list())
  await last.close()
  return {
    keptAfterReload: afterReload,
    keptAfterCloseAndReopen: list.some((pet) => pet.name === closeName),
    keptAfterCrash: afterCrash.some((pet) => pet.name === crashName),
    otherOpenTabCount: { beforeAReload: otherBefore, afterIt: otherAfter },
  }
}

/**
 * B(3): each reload's startup with 10,000 stored records, the three pages taking turns (the order
 * rotates each round). Before each @msw/data reload the page writes what its unload listener would
 * (timed), so it hydrates 10,000 whether or not Chromium runs the listener.
 */
async function reload10k(context, origin) {
  const pages = {
    ours: { page: await context.newPage(), query: 'key=bench10k' },
    data: { page: await context.newPage(), query: `lib=data&expect=${STORED}` },
    dataPersistOnly: { page: await context.newPage(), query: `lib=data&ext=persist&expect=${STORED}` },
  }
  for (const { page, query } of Object.values(pages)) await open(page, `${origin}/?${query}`)
  const ourPage = pages.ours.page
  await ourPage.evaluate((count) => globalThis.bench.fill(count), STORED)
  await pages.data.page.evaluate((count) => globalThis.bench.fill(count), STORED)
  await pages.dataPersistOnly.page.evaluate((count) => globalThis.bench.fill(count), STORED)
  const unloadWriteMs = []
  const times = {}
  const counts = { ours: [], data: [], dataPersistOnly: [] }
  for (let run = 0; run < RUNS + 1; run++) {
    const all = Object.keys(pages)
    const names = [...all.slice(run % all.length), ...all.slice(0, run % all.length)]
    for (const name of names) {
      const { page } = pages[name]
      if (name !== 'ours') {
        const ms = await page.evaluate(() => globalThis.bench.unloadWriteMs())
        if (name === 'data') unloadWriteMs.push(ms)
      }
      await page.reload()
      await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 60_000 })
      const got = await page.evaluate(() => {
        const { firstAnswerMs, firstAnswerSinceStartMs, loadMs, workerStartMs, countAtOnce, firstAnswerCount } =
          globalThis.bench
        return { firstAnswerMs, firstAnswerSinceStartMs, loadMs, workerStartMs, countAtOnce, firstAnswerCount }
      })
      counts[name].push(await page.evaluate(() => globalThis.bench.count()))
      if (run === 0) continue
      push((times[name] ??= {}), 'firstAnswerMs', got.firstAnswerMs)
      push(times[name], 'firstAnswerSinceStartMs', got.firstAnswerSinceStartMs)
      push(times[name], 'loadMs', got.loadMs)
      push(times[name], 'workerStartMs', got.workerStartMs)
      if (name !== 'ours') {
        push(times[name], 'countRightAfterConstructor', got.countAtOnce)
        push(times[name], 'recordsTheFirstAnswerSaw', got.firstAnswerCount)
      }
    }
  }
  const stored = await pages.data.page.evaluate(() => globalThis.bench.storedRecords())
  for (const { page } of Object.values(pages)) await page.close()
  return {
    storedRecords: STORED,
    ...summarise(times),
    dataUnloadWriteMs: summary(unloadWriteMs.slice(1)),
    countsAfterEachReload: counts,
    dataRecordsInLocalStorageAtEnd: stored,
  }
}

async function main() {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: set CHROMIUM_PATH`)
  const out = mkdtempSync(join(tmpdir(), 'storage-bench-'))
  await buildPages(out)
  const server = await serve(out)
  const origin = `http://127.0.0.1:${server.address().port}`
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS })
  const fresh = () => browser.newContext()
  try {
    const results = { chromium: browser.version(), runs: RUNS }
    results.storage = await partA(await fresh(), origin)
    results.storage.lockedCounter = await lockedCounter(await fresh(), browser, origin)
    results.twoTabsCreatingAtOnce = { perTab: BURST, petstoreSandbox: [], mswData: [] }
    for (let run = 0; run < RUNS; run++) {
      const order = [
        ['petstoreSandbox', `key=tabs-${run}`],
        ['mswData', 'lib=data'],
      ]
      for (const [name, query] of run % 2 === 0 ? order : order.reverse()) {
        const context = await fresh()
        results.twoTabsCreatingAtOnce[name].push(await twoTabs(context, origin, query))
        await context.close()
      }
    }
    results.createdPetSurvives = { petstoreSandbox: [], mswData: [] }
    for (let run = 0; run < 3; run++) {
      for (const [name, query] of [
        ['petstoreSandbox', `key=survive-${run}`],
        ['mswData', 'lib=data'],
      ]) {
        const context = await fresh()
        results.createdPetSurvives[name].push(await survives(context, origin, query))
        await context.close()
      }
    }
    results.reloadWith10k = await reload10k(await fresh(), origin)
    // Chrome is turning unload off (https://developer.chrome.com/docs/web-platform/deprecating-unload)
    // by a staged rollout that Playwright's --disable-field-trial-config keeps out: a browser with it on.
    const later = await chromium.launch({
      executablePath: CHROMIUM,
      args: [...FLAGS, '--enable-features=DeprecateUnload'],
    })
    try {
      const survive = async (query) => {
        const context = await later.newContext()
        const result = await survives(context, origin, query)
        await context.close()
        return result
      }
      results.createdPetSurvivesWithUnloadDeprecated = {
        petstoreSandbox: await survive('key=survive-deprecated'),
        mswData: await survive('lib=data'),
      }
    } finally {
      await later.close()
    }
    console.log(JSON.stringify(results, null, 2))
  } finally {
    await browser.close()
    server.close()
    rmSync(out, { recursive: true, force: true })
  }
}

await main()
