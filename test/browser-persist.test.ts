/**
 * createSandbox({ persist }) in a real browser: a tiny page (the package's source bundled by
 * esbuild beside msw's setupWorker) served by a node:http server with msw's service worker, and
 * driven in Debian's Chromium. Real reloads, and real second pages of one browser context (tabs
 * sharing the origin's storage). Each test keeps its data under a key of its own (`?key=`), so the
 * tests share one context without sharing data.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, extname, join, normalize, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeSharedContexts, sharedChromium } from './support/chromium.js'
import { needs } from './support/programs.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const SEED = 32
// Waits for what the page shows, not a pause: the bound only turns a hang into a failure.
const LIVE = { timeout: 10_000, interval: 50 }

/**
 * The page: a sandbox (persisted under `?key=`, unless `?persist=0`; with three pets of its own
 * under `?fixtures=small`) behind msw's worker, and `window.app` to drive it. `firstCount` is the
 * answer to an in-process call made right after createSandbox, before any storage could answer.
 */
const PAGE_SCRIPT = `
import { setupWorker } from 'msw/browser'
import { createSandbox } from './src/index.ts'

const params = new URLSearchParams(location.search)
const small = [
  { id: 1, name: 'Pebble', categoryId: 1, status: 'available' },
  { id: 2, name: 'Moss', categoryId: 2, status: 'pending' },
  { id: 3, name: 'Juniper', categoryId: 3 },
]
const sandbox = createSandbox({
  ...(params.get('persist') !== '0' && { persist: { key: params.get('key') ?? 'petstore-sandbox' } }),
  ...(params.get('fixtures') === 'small' && { fixtures: small }),
})
const firstCount = sandbox.pets.count()
const worker = setupWorker(...sandbox.handlers)
const headers = { Authorization: 'Bearer petstore-sandbox-key', 'Content-Type': 'application/json' }
async function call(method, path, body) {
  const response = await fetch(path, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) })
  return { status: response.status, body: await response.json() }
}
window.app = {
  sandbox,
  firstCount: () => firstCount,
  list: async () => (await call('GET', '/v1/pets?limit=100')).body.map((pet) => pet.id + ' ' + pet.name),
  create: async (name) => (await call('POST', '/v1/pets', { name, categoryId: 1 })).body.id,
  reset: () => sandbox.reset(),
}
await worker.start({ quiet: true })
document.body.dataset.ready = 'true'
`

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript' }

describe('what persist costs a sandbox without it', () => {
  /** The files of dist/ an entry loads on import: its static imports, followed; or its dynamic ones too. */
  const reached = (entry: string, dynamic: boolean): string[] => {
    const seen = new Set<string>()
    const visit = (file: string) => {
      if (seen.has(file)) return
      seen.add(file)
      const text = readFileSync(file, 'utf8')
      const pattern = dynamic
        ? /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s*)(['"])(\.[^'"]+)\1/g
        : /(?:\bfrom\s*|\bimport\s*)(['"])(\.[^'"]+)\1/g
      for (const match of text.matchAll(pattern)) visit(resolve(dirname(file), match[2] ?? ''))
    }
    visit(join(root, entry))
    return [...seen]
  }
  // Only the storage's code says these: the IndexedDB call and the address parameter.
  const holdsStorage = (file: string) => /indexedDB\.open|petstore-reset/.test(readFileSync(file, 'utf8'))

  it('keeps the storage out of what the main entry loads on import: a chunk of its own, loaded with persist', () => {
    const entry = 'dist/src/index.js'
    expect(existsSync(join(root, entry)), 'run `npm run build:js` first').toBe(true)
    expect(reached(entry, false).filter(holdsStorage)).toEqual([])
    expect(reached(entry, true).filter(holdsStorage)).toHaveLength(1)
  })
})

describe.skipIf(!needs('chromium'))('createSandbox({ persist }) in headless Chromium', () => {
  let server: Server
  let origin: string
  let out: string
  let context: BrowserContext
  const printed = new Map<Page, string[]>()

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'persist-page-'))
    await build({
      stdin: { contents: PAGE_SCRIPT, resolveDir: root, loader: 'ts', sourcefile: 'page.ts' },
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2023',
      outdir: out,
      entryNames: 'page',
      logLevel: 'warning',
    })
    const worker = readFileSync(join(root, 'node_modules/msw/lib/mockServiceWorker.js'))
    const html =
      '<!doctype html><html><head><link rel="icon" href="data:,"></head><body><script type="module" src="/page.js"></script></body></html>'
    server = createServer((request, response) => {
      const path = (request.url ?? '/').split('?')[0] ?? '/'
      if (path === '/') {
        response.writeHead(200, { 'Content-Type': 'text/html' }).end(html)
        return
      }
      if (path === '/mockServiceWorker.js') {
        response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(worker)
        return
      }
      const file = normalize(join(out, path))
      try {
        if (!file.startsWith(out + sep)) throw new Error('outside')
        response.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' })
        response.end(readFileSync(file))
      } catch {
        response.writeHead(404).end()
      }
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    context = await (await sharedChromium()).newContext()
  }, 60_000)

  afterAll(async () => {
    await closeSharedContexts()
    await new Promise((resolve) => server.close(resolve))
    rmSync(out, { recursive: true, force: true })
  })

  /** A new tab of the context, its console lines kept. */
  async function tab(query: string): Promise<Page> {
    const page = await context.newPage()
    const lines: string[] = []
    page.on('console', (message) => lines.push(message.text()))
    printed.set(page, lines)
    await open(page, query)
    return page
  }

  async function open(page: Page, query: string): Promise<void> {
    await page.goto(`${origin}/?${query}`)
    await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 20_000 })
  }

  /** A normal reload (a hard one bypasses the service worker, and msw would reload again). */
  async function reload(page: Page): Promise<void> {
    await page.reload()
    await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 20_000 })
  }

  const list = (page: Page) => page.evaluate(() => window.app.list())
  const create = (page: Page, name: string) => page.evaluate((pet) => window.app.create(pet), name)
  const lines = (page: Page) => printed.get(page) ?? []

  /** One record of what a key keeps, read from the page's IndexedDB. */
  const stored = (page: Page, key: string, name: string) =>
    page.evaluate(
      async ([database, record]) => {
        const open = indexedDB.open(database)
        await new Promise<void>((resolve) => {
          open.addEventListener('success', () => {
            resolve()
          })
        })
        const request = open.result.transaction('records').objectStore('records').get(record)
        await new Promise<void>((resolve) => {
          request.addEventListener('success', () => {
            resolve()
          })
        })
        open.result.close()
        return request.result as unknown
      },
      [key, name] as const,
    )

  /** Writes records of what a key keeps, in one transaction. */
  const put = (page: Page, key: string, records: Record<string, unknown>) =>
    page.evaluate(
      async ([database, entries]) => {
        const open = indexedDB.open(database)
        await new Promise<void>((resolve) => {
          open.addEventListener('success', () => {
            resolve()
          })
        })
        const transaction = open.result.transaction('records', 'readwrite')
        for (const [name, value] of Object.entries(entries)) transaction.objectStore('records').put(value, name)
        await new Promise<void>((resolve) => {
          transaction.addEventListener('complete', () => {
            resolve()
          })
        })
        open.result.close()
      },
      [key, records] as const,
    )

  it('keeps a created pet across a reload, loaded before the very first call is answered', async () => {
    const page = await tab('key=reload')
    expect(await create(page, 'Rex')).toBe(SEED + 1)
    await reload(page)
    expect(await page.evaluate(() => window.app.firstCount())).toBe(SEED + 1)
    expect((await list(page)).at(-1)).toBe(`${SEED + 1} Rex`)
    // And the id sequence with it.
    expect(await create(page, 'Next')).toBe(SEED + 2)
    // A create writes that pet alone, a record of its own beside the state written whole before it.
    expect(await stored(page, 'reload', `created:${String(SEED + 2).padStart(16, '0')}`)).toEqual({
      id: SEED + 2,
      name: 'Next',
      categoryId: 1,
    })
    expect(await stored(page, 'reload', 'created')).toBeUndefined()
    expect(await stored(page, 'reload', 'state')).toContain('"name":"Rex"')
    expect(lines(page)).toEqual([])
    await page.close()
  })

  it('gives two tabs creating at once distinct ids, and each lists every pet in its next list', async () => {
    const first = await tab('key=together')
    const second = await tab('key=together')
    const burst = (page: Page, name: string) =>
      page.evaluate(
        (prefix) => Promise.all(Array.from({ length: 20 }, (_, index) => window.app.create(`${prefix} ${index}`))),
        name,
      )
    const [one, two] = await Promise.all([burst(first, 'First'), burst(second, 'Second')])
    const ids = [...one, ...two]
    expect(new Set(ids).size).toBe(40)
    expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, index) => SEED + 1 + index))
    for (const page of [first, second]) {
      const listed = await list(page)
      expect(listed).toHaveLength(SEED + 40)
      for (const [index, id] of one.entries()) expect(listed).toContain(`${id} First ${index}`)
      for (const [index, id] of two.entries()) expect(listed).toContain(`${id} Second ${index}`)
    }
    await first.close()
    await second.close()
  })

  it('resets both tabs and the next reload from either', async () => {
    const first = await tab('key=reset')
    const second = await tab('key=reset')
    await create(first, 'Gone soon')
    expect(await list(second)).toContain(`${SEED + 1} Gone soon`)
    await first.evaluate(() => window.app.reset())
    expect(await list(second)).toHaveLength(SEED)
    await reload(second)
    expect(await list(second)).toHaveLength(SEED)
    await reload(first)
    expect(await list(first)).toHaveLength(SEED)
    // The id sequence was reset too.
    expect(await create(second, 'After')).toBe(SEED + 1)
    await first.close()
    await second.close()
  })

  it('keeps the checkpoints and the scenarios across a reload', async () => {
    const page = await tab('key=kept')
    await create(page, 'Saved')
    await page.evaluate(async () => {
      await window.app.sandbox.checkpoint('before')
      window.app.sandbox.scenarios.add({ operation: 'getPet', status: 503, times: 2 })
    })
    // The scenario is written at the end of its task, outside any call: wait until it is stored.
    await expect
      .poll(async () => ((await stored(page, 'kept', 'meta')) as { scenarios: unknown[] }).scenarios.length, LIVE)
      .toBe(1)
    await reload(page)
    expect((await page.evaluate(() => window.app.sandbox.checkpoints())).map((saved) => saved.name)).toEqual(['before'])
    expect(await page.evaluate(() => window.app.sandbox.scenarios.list())).toEqual([
      { id: 1, operation: 'getPet', status: 503, remaining: 2 },
    ])
    await page.close()
  })

  it('drops the stored data when the seed changed, with exactly one console line', async () => {
    const page = await tab('key=seed')
    await create(page, 'Grown from the bundled seed')
    await open(page, 'key=seed&fixtures=small')
    expect(await list(page)).toEqual(['1 Pebble', '2 Moss', '3 Juniper'])
    expect(lines(page), lines(page).join('\n')).toHaveLength(1)
    expect(lines(page)[0]).toMatch(/^petstore-sandbox: the seed changed since the data stored in this browser/)
    // What grows from the new seed is kept as usual, and said nothing more.
    expect(await create(page, 'Sprout')).toBe(4)
    await reload(page)
    expect((await list(page)).at(-1)).toBe('4 Sprout')
    expect(lines(page)).toHaveLength(1)
    await page.close()
  })

  it('works in memory over corrupt storage, and says so in one console line', async () => {
    const page = await tab('key=corrupt')
    await create(page, 'Before the damage')
    await page.evaluate(async () => {
      const open = indexedDB.open('corrupt')
      await new Promise<void>((resolve) => {
        open.addEventListener('success', () => {
          resolve()
        })
      })
      const transaction = open.result.transaction('records', 'readwrite')
      transaction.objectStore('records').put('{"version": 1, "pets": [', 'state')
      await new Promise<void>((resolve) => {
        transaction.addEventListener('complete', () => {
          resolve()
        })
      })
      open.result.close()
    })
    await reload(page)
    // The line comes when the sandbox has read the storage, which may be after the page is ready.
    await expect.poll(() => lines(page), LIVE).toHaveLength(1)
    expect(lines(page)[0]).toMatch(
      /^petstore-sandbox: the data stored in this browser cannot be used: .*in memory only/,
    )
    expect(await list(page)).toHaveLength(SEED)
    expect(await create(page, 'Still working')).toBe(SEED + 1)
    expect((await list(page)).at(-1)).toBe(`${SEED + 1} Still working`)
    expect(lines(page)).toHaveLength(1)
    await page.close()
  })

  it('checks a state record changed since it was written whole: a bad pet in it is corrupt storage', async () => {
    const page = await tab('key=tampered')
    await create(page, 'Rex')
    await reload(page)
    const text = (await stored(page, 'tampered', 'state')) as string
    // Still JSON, and the meta untouched: only the pet is wrong, which only a check of the pets finds.
    expect(text).toContain('"name":"Rex"')
    await put(page, 'tampered', { state: text.replace('"name":"Rex"', '"name":""') })
    await reload(page)
    await expect.poll(() => lines(page), LIVE).toHaveLength(1)
    expect(lines(page)[0]).toMatch(/^petstore-sandbox: the data stored in this browser cannot be used: .*name/)
    expect(await list(page)).toHaveLength(SEED)
    await page.close()
  })

  it("reads 0.14.0's layout (format 1, created pets in one list) and writes its own over it", async () => {
    const page = await tab('key=format-one')
    await create(page, 'Rex')
    await reload(page)
    const meta = (await stored(page, 'format-one', 'meta')) as Record<string, unknown>
    expect(meta.format).toBe(2)
    const { digest: _digest, ...older } = meta
    const lastly = { id: SEED + 2, name: 'Listed', categoryId: 2 }
    await put(page, 'format-one', { meta: { ...older, format: 1, revision: 99 }, created: [lastly] })
    await reload(page)
    expect(lines(page)).toEqual([])
    expect((await list(page)).slice(-2)).toEqual([`${SEED + 1} Rex`, `${SEED + 2} Listed`])
    expect(await create(page, 'After')).toBe(SEED + 3)
    expect(((await stored(page, 'format-one', 'meta')) as Record<string, unknown>).format).toBe(2)
    expect(await stored(page, 'format-one', 'created')).toBeUndefined()
    await reload(page)
    expect((await list(page)).slice(-3)).toEqual([`${SEED + 1} Rex`, `${SEED + 2} Listed`, `${SEED + 3} After`])
    await page.close()
  })

  it('starts from the seed with ?petstore-reset, and takes the parameter off the address', async () => {
    const page = await tab('key=param')
    await create(page, 'Before the reset')
    await open(page, 'key=param&petstore-reset')
    expect(await list(page)).toHaveLength(SEED)
    expect(page.url()).toBe(`${origin}/?key=param`)
    // Once: a reload now keeps what is made after it.
    expect(await create(page, 'Kept')).toBe(SEED + 1)
    await reload(page)
    expect((await list(page)).at(-1)).toBe(`${SEED + 1} Kept`)
    expect(lines(page)).toEqual([])
    await page.close()
  })

  it('works in memory when the storage is full, and says so in one console line', async () => {
    // A full disk, rehearsed: a quota far below what a write of 5,000 pets needs. Chromium reads an
    // origin's quota when the origin first uses storage, so this is an origin of its own (localhost).
    const full = origin.replace('127.0.0.1', 'localhost')
    const page = await context.newPage()
    const printedHere: string[] = []
    page.on('console', (message) => printedHere.push(message.text()))
    printed.set(page, printedHere)
    const cdp = await context.newCDPSession(page)
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: full, quotaSize: 1_000 })
    try {
      await page.goto(`${full}/?key=full`)
      await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 20_000 })
      // A state of 5,000 pets, answered at once; its write is refused.
      await page.evaluate(async () => {
        const { sandbox } = window.app
        const pets = Array.from({ length: 5_000 }, (_, index) => ({
          id: index + 1,
          name: `Pet ${index + 1}`,
          categoryId: 1,
        }))
        await sandbox.restore({ pets, nextId: 5_001 })
      })
      await expect.poll(() => lines(page).length, LIVE).toBe(1)
      expect(lines(page)[0]).toMatch(
        /^petstore-sandbox: the browser's storage for this origin is full \(QuotaExceededError\)\. .*in memory only/,
      )
      expect(await create(page, 'Still answered')).toBe(5_001)
      expect((await list(page)).length).toBe(100)
      expect(lines(page)).toHaveLength(1)
    } finally {
      await cdp.send('Storage.overrideQuotaForOrigin', { origin: full })
      await page.close()
    }
  })

  it('forgets everything on a reload without persist', async () => {
    const page = await tab('persist=0')
    expect(await create(page, 'Forgotten')).toBe(SEED + 1)
    await reload(page)
    expect(await list(page)).toHaveLength(SEED)
    expect(
      await page.evaluate(async () => (await indexedDB.databases()).map((database) => database.name)),
    ).not.toContain('petstore-sandbox')
    await page.close()
  })
})

declare global {
  interface Window {
    app: {
      sandbox: import('../src/index.js').Sandbox
      firstCount(): Promise<number>
      list(): Promise<string[]>
      create(name: string): Promise<number>
      reset(): Promise<void>
    }
  }
}
