/**
 * Cross-site attacks on the HTTP server in a real browser: Debian's chromium driven by
 * playwright-core. Pages served here by small node:http servers, under names that
 * --host-resolver-rules maps to 127.0.0.1, try to read the key, reset the data and create pets;
 * a page on localhost (a local front end) may, and a page on a --cors-origin may call the API only.
 *
 * Requests are tracked, never routed: with page.route on, Playwright answers CORS preflights
 * itself (204, any origin), which would hide the sandbox's own answer to them.
 */
import { mkdirSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { needs } from './support/programs.js'
import { startServer, type RunningServer } from '../src/server.js'
import { launchChromium } from './support/chromium.js'

const KEY = 'petstore-sandbox-key'
const AUTH = { Authorization: `Bearer ${KEY}` }
/** How Chromium's fetch fails on a CORS refusal: the page learns nothing else. */
const REJECTED = { kind: 'rejected', error: 'TypeError: Failed to fetch' }
/** Screenshots of every page go here when set, e.g. SCREENSHOT_DIR=test-results (as SCREENSHOT in reference-page). */
const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR

/** What a fetch from the page got: an answer it may read (opaque ones read as status 0, no body), or a rejection. */
type Outcome =
  | { kind: 'read'; status: number; type: string; text: string; headers: Record<string, string> }
  | { kind: 'rejected'; error: string }

interface FetchInit {
  method?: string
  mode?: RequestMode
  headers?: Record<string, string>
  body?: string
}

/** fetch() run by the page itself, so the browser's CORS rules apply; the outcome is also written onto the page. */
function pageFetch(page: Page, url: string, init: FetchInit = {}): Promise<Outcome> {
  return page.evaluate(
    async ([url, init]): Promise<Outcome> => {
      let outcome: Outcome
      try {
        const response = await fetch(url, init)
        const text = await response.text()
        const headers = Object.fromEntries(response.headers)
        outcome = { kind: 'read', status: response.status, type: response.type, text, headers }
      } catch (error) {
        outcome = { kind: 'rejected', error: String(error) }
      }
      const line = document.createElement('li')
      line.textContent = `${init.method ?? 'GET'} ${url} (${init.mode ?? 'cors'}): ${
        outcome.kind === 'read' ? `${outcome.type} ${outcome.status} ${outcome.text.slice(0, 100)}` : outcome.error
      }`
      document.querySelector('#log')?.append(line)
      return outcome
    },
    [url, init] as const,
  )
}

/**
 * A real HTML form POST from the page into a hidden iframe, as a cross-site attack sends it
 * (no preflight, whatever the enctype). Playwright reads the answer, which the page cannot.
 */
async function postForm(
  page: Page,
  action: string,
  fields: Record<string, string>,
  enctype = 'application/x-www-form-urlencoded',
): Promise<{ status: number; body: string }> {
  const answered = page.waitForResponse(
    (response) => response.url() === action && response.request().method() === 'POST',
  )
  await page.evaluate(
    ([action, fields, enctype]) => {
      const name = `sink-${document.querySelectorAll('iframe').length}`
      const sink = document.createElement('iframe')
      sink.name = name
      const form = document.createElement('form')
      form.method = 'post'
      form.action = action
      form.enctype = enctype
      form.target = name
      for (const [field, value] of Object.entries(fields)) {
        const input = document.createElement('input')
        input.type = 'hidden'
        input.name = field
        input.value = value
        form.append(input)
      }
      document.body.append(sink, form)
      form.submit()
    },
    [action, fields, enctype] as const,
  )
  const response = await answered
  await response.finished()
  return { status: response.status(), body: await response.text() }
}

/** A site that serves one HTML page at `/` (and 404 for anything else), on 127.0.0.1. */
async function startSite(title: string): Promise<{ port: number; server: Server }> {
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head>
<body><h1>${title}</h1><ol id="log"></ol></body></html>`
  const server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/') {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html)
    } else {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found')
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { port: (server.address() as AddressInfo).port, server }
}

function stopSite(server: Server | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (server === undefined) {
      resolve()
      return
    }
    server.closeAllConnections()
    server.close(() => {
      resolve()
    })
  })
}

const portOf = (origin: string): string => new URL(origin).port

describe.skipIf(!needs('chromium'))('pages from other sites against the sandbox in headless Chromium', () => {
  let browser: Browser
  let server: RunningServer
  /** The sandbox's request log: `METHOD target status ms`, preflights included. */
  const served: string[] = []
  let evil: { port: number; server: Server }
  let front: { port: number; server: Server }
  let evilOrigin: string
  let frontOrigin: string
  /** URLs requested by pages that are not on an origin a test serves; checked after each test. */
  const contexts: { context: BrowserContext; origins: string[]; stray: string[] }[] = []

  beforeAll(async () => {
    ;[server, evil, front] = await Promise.all([
      startServer({ port: 0, log: (line) => served.push(line), logPolling: true }),
      startSite('evil.test'),
      startSite('A front end on localhost'),
    ])
    evilOrigin = `http://evil.test:${evil.port}`
    frontOrigin = `http://localhost:${front.port}`
    // Two names that lead to this machine, besides the launcher's no-network flags.
    browser = await launchChromium(['--host-resolver-rules=MAP evil.test 127.0.0.1, MAP rebind.example 127.0.0.1'])
    if (SCREENSHOT_DIR !== undefined) mkdirSync(SCREENSHOT_DIR, { recursive: true })
  }, 60_000)

  afterAll(async () => {
    await browser.close()
    await Promise.all([server.close(), stopSite(evil.server), stopSite(front.server)])
  })

  // A test that failed before finish() leaves its contexts open.
  afterEach(async () => {
    for (const { context } of contexts.splice(0)) await context.close()
  })

  /** A fresh context (no shared cache or preflight cache) whose requests must stay on `origins`. */
  async function open(url: string, origins: string[]): Promise<Page> {
    const context = await browser.newContext()
    const entry = { context, origins, stray: [] as string[] }
    context.on('request', (request) => {
      if (!origins.includes(new URL(request.url()).origin)) entry.stray.push(request.url())
    })
    contexts.push(entry)
    const page = await context.newPage()
    await page.goto(url)
    return page
  }

  /** Closes the test's contexts, after checking that nothing was fetched from elsewhere. */
  async function finish(page: Page, screenshot: string): Promise<void> {
    if (SCREENSHOT_DIR !== undefined)
      await page.screenshot({ path: join(SCREENSHOT_DIR, `cross-site-${screenshot}.png`) })
    for (const { context, stray } of contexts.splice(0)) {
      await context.close()
      expect(stray).toEqual([])
    }
  }

  /** Log lines of the sandbox written since `from`, without their timings. */
  const servedSince = (from: number): string[] => served.slice(from).map((line) => line.replace(/ [\d.]+ ms$/, ''))

  describe('a page from a non-local name (evil.test)', () => {
    it('cannot read the reference page, its key, or the OpenAPI document', async () => {
      const page = await open(`${evilOrigin}/`, [evilOrigin, server.url])
      const from = served.length

      const site = await pageFetch(page, `${server.url}/`)
      expect(site).toEqual(REJECTED)
      const opaque = await pageFetch(page, `${server.url}/`, { mode: 'no-cors' })
      expect(opaque).toEqual({ kind: 'read', status: 0, type: 'opaque', text: '', headers: {} })
      const document = await pageFetch(page, `${server.url}/openapi.json`)
      expect(document).toEqual(REJECTED)

      // The sandbox did answer (the browser withheld the answers): the key never reached the page.
      expect(servedSince(from)).toEqual(['GET / 200', 'GET / 200', 'GET /openapi.json 200'])
      expect(await page.content()).not.toContain(KEY)
      await finish(page, 'evil-read')
    })

    it('cannot reset the data, add a scenario or replace the state, by fetch or by a cross-site form POST', async () => {
      await server.sandbox.reset()
      const seeded = await server.sandbox.pets.count()
      const evidence = await server.sandbox.pets.create({ name: 'Evidence', categoryId: 1 })
      const before = await server.sandbox.snapshot()
      expect(before.pets).toHaveLength(seeded + 1)
      const page = await open(`${evilOrigin}/`, [evilOrigin, server.url])
      const from = served.length

      // fetch, no-cors: sent without preflight, with Origin; the page gets an opaque answer.
      const reset = await pageFetch(page, `${server.url}/__sandbox/reset`, { method: 'POST', mode: 'no-cors' })
      expect(reset).toMatchObject({ kind: 'read', type: 'opaque', status: 0 })

      // A real form POST into an iframe: no preflight either.
      const form = await postForm(page, `${server.url}/__sandbox/reset`, { confirm: 'yes' })
      expect(form.status).toBe(403)
      expect(JSON.parse(form.body)).toEqual({
        code: 'forbidden',
        status: 403,
        message: `Admin routes accept requests from this machine only, not from origin ${evilOrigin}`,
      })

      // The text/plain form trick that sends a JSON body: {"operation":"createPet","status":503,"x":"="}
      const scenario = await postForm(
        page,
        `${server.url}/__sandbox/scenarios`,
        { '{"operation":"createPet","status":503,"x":"': '"}' },
        'text/plain',
      )
      expect(scenario.status).toBe(403)

      // Replacing the state needs a JSON body, hence a preflight, which the sandbox refuses.
      const replace = await pageFetch(page, `${server.url}/__sandbox/state`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ pets: [], nextId: 1 }),
      })
      expect(replace).toEqual(REJECTED)

      expect(servedSince(from)).toEqual([
        'POST /__sandbox/reset 403',
        'POST /__sandbox/reset 403',
        'POST /__sandbox/scenarios 403',
        'OPTIONS /__sandbox/state 403',
      ])
      expect(await server.sandbox.pets.count()).toBe(seeded + 1)
      expect(await server.sandbox.pets.get(evidence.id)).toEqual(evidence)
      expect(await server.sandbox.snapshot()).toEqual(before)
      expect(server.sandbox.scenarios.list()).toEqual([])
      await finish(page, 'evil-reset')
    })

    it('cannot create a pet: the preflight of a keyed JSON POST is refused, and a no-cors POST carries no key', async () => {
      await server.sandbox.reset()
      const count = await server.sandbox.pets.count()
      const page = await open(`${evilOrigin}/`, [evilOrigin, server.url])
      const from = served.length

      const keyed = await pageFetch(page, `${server.apiUrl}/pets`, {
        method: 'POST',
        headers: { ...AUTH, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Intruder', categoryId: 1 }),
      })
      expect(keyed).toEqual(REJECTED)

      // no-cors drops Authorization (not a safelisted header) and keeps text/plain.
      const plain = await pageFetch(page, `${server.apiUrl}/pets`, {
        method: 'POST',
        mode: 'no-cors',
        headers: { ...AUTH, 'Content-Type': 'text/plain' },
        body: JSON.stringify({ name: 'Intruder', categoryId: 1 }),
      })
      expect(plain).toMatchObject({ kind: 'read', type: 'opaque', status: 0, text: '' })

      expect(servedSince(from)).toEqual(['OPTIONS /v1/pets 403', 'POST /v1/pets 401'])
      expect(server.sandbox.requests.filter({ method: 'POST' }).map((entry) => entry.status)).toEqual([401])
      expect(await server.sandbox.pets.count()).toBe(count)
      expect((await server.sandbox.pets.list()).map((pet) => pet.name)).not.toContain('Intruder')
      await finish(page, 'evil-create')
    })

    it('cannot frame the dashboard or the reference page: the browser refuses to show them, while its own page frames', async () => {
      const page = await open(`${evilOrigin}/`, [evilOrigin, server.url])
      const refusals: string[] = []
      page.on('console', (message) => {
        if (/frame/i.test(message.text())) refusals.push(message.text())
      })
      // Each target in an iframe of the evil page; the page's own `/` is the control that frames fine.
      const framed = async (url: string): Promise<string | null> => {
        await page.evaluate(
          (url) =>
            new Promise<void>((resolve) => {
              const frame = document.createElement('iframe')
              frame.name = url
              frame.src = url
              frame.onload = () => {
                resolve()
              }
              document.body.append(frame)
            }),
          url,
        )
        const frame = page.frames().find((each) => each.name() === url)
        // A refused frame holds Chromium's error page ("127.0.0.1 is blocked"), not the target's document.
        return (await frame?.evaluate(() => document.title).catch(() => null)) ?? null
      }
      expect(await framed(`${evilOrigin}/`)).toBe('evil.test')
      const dashboard = await framed(`${server.url}/__sandbox/`)
      const reference = await framed(`${server.url}/`)
      expect([dashboard, reference]).not.toContain('Pet Store sandbox: dashboard')
      expect([dashboard, reference]).not.toContain('Pet Store sandbox: API reference')
      // Chromium's console messages reach this process on their own way: waited for, not read once.
      await expect.poll(() => refusals.length, { timeout: 10_000, interval: 50 }).toBe(2)
      for (const refusal of refusals) expect(refusal).toMatch(/frame-ancestors 'none'|X-Frame-Options/)
      // The sandbox answered both; the browser would not show them.
      const answered = await fetch(`${server.url}/__sandbox/`)
      expect(answered.headers.get('x-frame-options')).toBe('DENY')
      expect(answered.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
      await finish(page, 'evil-frame')
    })

    it('cannot read the state, the request journal, the scenarios or the health of the sandbox', async () => {
      await server.sandbox.reset()
      await server.sandbox.pets.create({ name: 'Secret', categoryId: 1 })
      const page = await open(`${evilOrigin}/`, [evilOrigin, server.url])
      const from = served.length

      for (const path of ['/state', '/requests', '/scenarios', '/health']) {
        const read = await pageFetch(page, `${server.url}/__sandbox${path}`)
        expect(read, path).toEqual(REJECTED)
        const keyed = await pageFetch(page, `${server.url}/__sandbox${path}`, { headers: AUTH })
        expect(keyed, `${path} with the key`).toEqual(REJECTED)
      }
      expect(servedSince(from)).toEqual(
        ['/state', '/requests', '/scenarios', '/health'].flatMap((path) => [
          `GET /__sandbox${path} 403`,
          `OPTIONS /__sandbox${path} 403`,
        ]),
      )
      expect(await page.content()).not.toContain('Secret')
      await finish(page, 'evil-admin-read')
    })
  })

  it('refuses a DNS-rebinding page served by the sandbox itself under a non-local name, so its same-origin calls reach nothing', async () => {
    await server.sandbox.reset()
    await server.sandbox.pets.create({ name: 'Evidence', categoryId: 1 })
    const before = await server.sandbox.snapshot()
    const rebindOrigin = `http://rebind.example:${portOf(server.url)}`
    const context = await browser.newContext()
    const stray: string[] = []
    context.on('request', (request) => {
      if (new URL(request.url()).origin !== rebindOrigin) stray.push(request.url())
    })
    const page = await context.newPage()

    const navigation = await page.goto(`${rebindOrigin}/`)
    expect(navigation?.status()).toBe(403)
    const refusal = {
      code: 'forbidden',
      status: 403,
      message:
        `Host "rebind.example:${portOf(server.url)}" is not allowed: the sandbox answers local names and IP addresses only. ` +
        'To reach it as rebind.example, start it with --allowed-host rebind.example (or PETSTORE_ALLOWED_HOSTS=rebind.example)',
    }
    expect(await navigation?.json()).toEqual(refusal)
    const shown = await page.locator('body').innerText()
    expect(shown).toContain('--allowed-host rebind.example')
    expect(shown).not.toContain(KEY)

    // The page is same-origin with whatever answers rebind.example: every answer is readable, and each is the refusal.
    const attempts: [string, FetchInit][] = [
      ['/', {}],
      ['/__sandbox/reset', { method: 'POST' }],
      ['/__sandbox/state', {}],
      [
        '/v1/pets',
        {
          method: 'POST',
          headers: { ...AUTH, 'Content-Type': 'application/json' },
          body: '{"name":"X","categoryId":1}',
        },
      ],
    ]
    for (const [path, init] of attempts) {
      const outcome = await pageFetch(page, path, init)
      expect(outcome, path).toMatchObject({ kind: 'read', type: 'basic', status: 403 })
      if (outcome.kind === 'read') expect(JSON.parse(outcome.text)).toEqual(refusal)
    }
    expect(await server.sandbox.snapshot()).toEqual(before)
    expect(server.sandbox.requests.all()).toEqual([])

    if (SCREENSHOT_DIR !== undefined) await page.screenshot({ path: join(SCREENSHOT_DIR, 'cross-site-rebind.png') })
    await context.close()
    expect(stray).toEqual([])
  })

  it('lets a front end on another localhost port call the API with the key, read the health and reset the data', async () => {
    await server.sandbox.reset()
    const seeded = await server.sandbox.pets.count()
    const page = await open(`${frontOrigin}/`, [frontOrigin, server.url])

    const list = await pageFetch(page, `${server.apiUrl}/pets?limit=2`, { headers: AUTH })
    expect(list).toMatchObject({ kind: 'read', type: 'cors', status: 200 })
    if (list.kind === 'read') expect((JSON.parse(list.text) as { id: number }[]).map((pet) => pet.id)).toEqual([1, 2])

    const create = await pageFetch(page, `${server.apiUrl}/pets`, {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Frontend', categoryId: 2, status: 'available' }),
    })
    expect(create).toMatchObject({ kind: 'read', type: 'cors', status: 201 })
    if (create.kind !== 'read') return
    const created = JSON.parse(create.text) as { id: number; name: string }
    // Location is exposed to the page.
    expect(create.headers.location).toBe(`/v1/pets/${created.id}`)
    expect(await server.sandbox.pets.count()).toBe(seeded + 1)
    expect(await server.sandbox.pets.get(created.id)).toEqual({
      id: created.id,
      name: 'Frontend',
      categoryId: 2,
      status: 'available',
    })

    const health = await pageFetch(page, `${server.url}/__sandbox/health`)
    expect(health).toMatchObject({ kind: 'read', type: 'cors', status: 200 })
    if (health.kind === 'read') expect(JSON.parse(health.text)).toMatchObject({ status: 'ok', pets: seeded + 1 })

    const reset = await pageFetch(page, `${server.url}/__sandbox/reset`, { method: 'POST' })
    expect(reset).toMatchObject({ kind: 'read', type: 'cors', status: 204 })
    expect(await server.sandbox.pets.count()).toBe(seeded)
    expect(await server.sandbox.pets.get(created.id)).toBeUndefined()
    await finish(page, 'localhost-front-end')
  })

  it('lets a page from a --cors-origin call the API, but not read the reference page or reach the admin routes', async () => {
    const log: string[] = []
    const listed = await startServer({
      port: 0,
      corsOrigins: [evilOrigin],
      log: (line) => log.push(line),
      logPolling: true,
    })
    try {
      const seeded = await listed.sandbox.pets.count()
      const page = await open(`${evilOrigin}/`, [evilOrigin, listed.url])

      const list = await pageFetch(page, `${listed.apiUrl}/pets?limit=2`, { headers: AUTH })
      expect(list).toMatchObject({ kind: 'read', type: 'cors', status: 200 })
      if (list.kind === 'read') expect(JSON.parse(list.text)).toHaveLength(2)
      const create = await pageFetch(page, `${listed.apiUrl}/pets`, {
        method: 'POST',
        headers: { ...AUTH, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Allowed', categoryId: 1 }),
      })
      expect(create).toMatchObject({ kind: 'read', type: 'cors', status: 201 })
      expect(await listed.sandbox.pets.count()).toBe(seeded + 1)

      for (const path of ['/', '/openapi.json', '/__sandbox/state', '/__sandbox/health']) {
        expect(await pageFetch(page, `${listed.url}${path}`), path).toEqual(REJECTED)
      }
      expect(await pageFetch(page, `${listed.url}/__sandbox/reset`, { method: 'POST' })).toEqual(REJECTED)
      const form = await postForm(page, `${listed.url}/__sandbox/reset`, {})
      expect(form.status).toBe(403)
      expect(log.map((line) => line.replace(/ [\d.]+ ms$/, ''))).toEqual([
        'OPTIONS /v1/pets?limit=2 204',
        'GET /v1/pets?limit=2 200',
        'OPTIONS /v1/pets 204',
        'POST /v1/pets 201',
        'GET / 200',
        'GET /openapi.json 200',
        'GET /__sandbox/state 403',
        'GET /__sandbox/health 403',
        'POST /__sandbox/reset 403',
        'POST /__sandbox/reset 403',
      ])
      expect(await listed.sandbox.pets.count()).toBe(seeded + 1)
      expect(await page.content()).not.toContain(KEY)
      await finish(page, 'cors-origin')
    } finally {
      await listed.close()
    }
  })
})
