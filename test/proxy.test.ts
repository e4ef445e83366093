/**
 * `--trust-proxy` (trustProxy): the dashboard behind a proxy that terminates TLS. Debian's Caddy
 * serves https://sandbox.test:PORT with its internal CA (`tls internal`) in front of two
 * sandboxes, one started with trustProxy and one without; Debian's chromium, driven by
 * playwright-core, maps sandbox.test to 127.0.0.1 and ignores the untrusted certificate. With
 * trustProxy a reset from the page is let through; without it the page's admin POST is refused
 * 403, its origin being https:// and the sandbox's own origin taken as http://. A direct request
 * claiming https in X-Forwarded-Proto or Forwarded is believed only with trustProxy.
 *
 * sandbox.test is not a local name: local origins are always let through on the admin routes,
 * so only a real name puts the Origin rule to the test. Needs the caddy binary, 2.6 or later
 * (Debian: apt-get install caddy): without it the tests are skipped, with a notice at the end of
 * the run (under CI=true the run fails). Caddy runs with everything it
 * writes (its CA, certificate, autosaved config) in a temporary directory, never the real home.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { needs } from './support/programs.js'
import { startServer, type RunningServer } from '../src/server.js'
import { launchChromium } from './support/chromium.js'

const NAME = 'sandbox.test'
const KEY = 'petstore-sandbox-key'
const AUTH = { Authorization: `Bearer ${KEY}` }
/** How long the page may take to show what the sandbox did (live events, throttled reloads). */
const LIVE = { timeout: 10_000, interval: 50 }
// Starting Caddy, two sandboxes and Chromium on a loaded CI machine; no assertion is about time.
const TIMEOUT_MS = 60_000

interface Pet {
  id: number
  name: string
}

/** One sandbox and the Caddy site in front of it. */
interface Site {
  server: RunningServer
  /** The port Caddy serves this sandbox on, over TLS. */
  port: number
  /** `https://sandbox.test:PORT`: the dashboard's origin in the browser. */
  origin: string
}

interface Stack {
  /** Started with trustProxy. */
  trusted: Site
  /** Started without it. */
  untrusted: Site
  browser: Browser
  /** Caddy's local root certificate (PEM), for Node's own requests through it. */
  ca: Buffer
}

interface Answer {
  status: number
  body: string
}

/** What the test started, for afterAll to stop even when the stack failed half-way. */
const started: {
  dir?: string
  caddy?: { child: ChildProcess; exited: Promise<unknown> }
  servers: RunningServer[]
  browser?: Browser
} = { servers: [] }
const contexts: BrowserContext[] = []

afterAll(async () => {
  for (const context of contexts.splice(0)) await context.close()
  await started.browser?.close()
  const { caddy } = started
  if (caddy !== undefined) {
    if (caddy.child.exitCode === null && caddy.child.signalCode === null) caddy.child.kill('SIGKILL')
    await caddy.exited
  }
  await Promise.all(started.servers.map((server) => server.close()))
  if (started.dir !== undefined) rmSync(started.dir, { recursive: true, force: true })
})

/** Runs make() once, on first use; every later call gets the same promise (and the same failure). */
function shared<T>(make: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined
  return () => (promise ??= make())
}

/**
 * Caddy's configuration (its JSON, what the Caddyfile `https://sandbox.test:PORT { bind 127.0.0.1;
 * tls internal; reverse_proxy UPSTREAM }` adapts to), one server per upstream, each listening on
 * port 0: Caddy binds a port of the system's choosing and logs it, so no port is found free first
 * and then taken by someone else before Caddy binds it. Debug logging: the line that says the
 * certificate is in the cache is the readiness event. No HTTP/3, which would listen on UDP too.
 */
function caddyConfig(upstreams: readonly string[]): unknown {
  return {
    admin: { disabled: true },
    logging: { logs: { default: { level: 'DEBUG' } } },
    apps: {
      http: {
        servers: Object.fromEntries(
          upstreams.map((upstream, index) => [
            `site${index}`,
            {
              // Caddy refuses one address for two servers, even port 0: the network is spelled
              // differently for each (tcp4 is what tcp means for 127.0.0.1).
              listen: [`${index === 0 ? 'tcp' : `tcp4`}/127.0.0.1:0`],
              protocols: ['h1', 'h2'],
              automatic_https: { disable_redirects: true },
              routes: [
                {
                  match: [{ host: [NAME] }],
                  handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: upstream }] }],
                  terminal: true,
                },
              ],
            },
          ]),
        ),
      },
      pki: { certificate_authorities: { local: { install_trust: false } } },
      tls: { automation: { policies: [{ subjects: [NAME], issuers: [{ module: 'internal' }] }] } },
    },
  }
}

/**
 * Resolves with the ports Caddy listens on, once it serves its configuration and holds the
 * certificate for sandbox.test in its cache (it obtains it from its internal CA after it starts
 * serving: a handshake before then fails). Fails as soon as Caddy exits or cannot be started.
 */
function caddyReady(child: ChildProcess, listeners: number): Promise<number[]> {
  // Caddy's last lines, for the message when it fails.
  const stderr: string[] = []
  const ports: number[] = []
  return new Promise((resolve, reject) => {
    let serving = false
    let cached = false
    const lines = createInterface({ input: child.stderr as NodeJS.ReadableStream })
    lines.on('line', (line) => {
      stderr.push(line)
      if (stderr.length > 50) stderr.shift()
      let entry: { msg?: unknown; subjects?: unknown; actual_address?: unknown }
      try {
        entry = JSON.parse(line) as typeof entry
      } catch {
        return
      }
      if (entry.msg === 'port 0 listener' && typeof entry.actual_address === 'string') {
        ports.push(Number(/:(\d+)$/.exec(entry.actual_address)?.[1]))
      }
      if (entry.msg === 'serving initial configuration') serving = true
      if (
        entry.msg === 'added certificate to cache' &&
        Array.isArray(entry.subjects) &&
        entry.subjects.includes(NAME)
      ) {
        cached = true
      }
      if (serving && cached) {
        if (ports.length === listeners && ports.every((port) => port > 0)) resolve(ports)
        else
          reject(
            new Error(
              `caddy is serving, but logged ports [${ports.join(', ')}] for ${listeners} listeners:\n${stderr.join('\n')}`,
            ),
          )
      }
    })
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      reject(new Error(`caddy exited (${code ?? signal}) before it was ready:\n${stderr.join('\n')}`))
    })
  })
}

/**
 * Starts the two sandboxes, Caddy in front of them and Chromium, once, on the first test's call:
 * a test that fails to start them says why in its own failure.
 */
const stack = shared(async (): Promise<Stack> => {
  const version = spawnSync('caddy', ['version'], { encoding: 'utf8' })
  // The "port 0 listener" line and `protocols` are 2.6's.
  const [major = 0, minor = 0] = (/^v?(\d+)\.(\d+)/.exec(version.stdout) ?? []).slice(1).map(Number)
  if (major < 2 || (major === 2 && minor < 6)) {
    throw new Error(`This test needs Caddy 2.6 or later, got: ${version.stdout.trim()}`)
  }

  const [trustedServer, untrustedServer] = await Promise.all([
    startServer({ port: 0, trustProxy: true, allowedHosts: [NAME] }),
    startServer({ port: 0, allowedHosts: [NAME] }),
  ])
  started.servers.push(trustedServer, untrustedServer)

  const dir = mkdtempSync(join(tmpdir(), 'petstore-caddy-'))
  started.dir = dir
  const home = join(dir, 'home')
  for (const sub of ['home', 'data', 'config']) mkdirSync(join(dir, sub))
  const config = join(dir, 'caddy.json')
  const upstreams = [trustedServer, untrustedServer].map((server) => new URL(server.url).host)
  writeFileSync(config, JSON.stringify(caddyConfig(upstreams), null, 2))
  const child = spawn('caddy', ['run', '--config', config], {
    cwd: dir,
    env: { ...process.env, HOME: home, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  started.caddy = { child, exited: once(child, 'exit') }
  const ports = await caddyReady(child, upstreams.length)
  const ca = readFileSync(join(dir, 'data/caddy/pki/authorities/local/root.crt'))

  // Caddy logs the ports it got, not which server got which: a request through each port, marked
  // with the port, shows which sandbox it reached.
  const site = (server: RunningServer, port: number): Site => ({ server, port, origin: `https://${NAME}:${port}` })
  const portOf = async (server: RunningServer): Promise<number> => {
    for (const port of ports) {
      const probe = site(server, port)
      const answer = await viaCaddy(ca, probe, 'GET', '/v1/pets?limit=1', { ...AUTH, 'X-Probe': String(port) })
      expect(answer.status, answer.body).toBe(200)
      if (server.sandbox.requests.last()?.headers['x-probe'] === String(port)) return port
    }
    throw new Error(`no port of Caddy's (${ports.join(', ')}) leads to the sandbox at ${server.url}`)
  }
  const trustedPort = await portOf(trustedServer)
  const untrustedPort = await portOf(untrustedServer)
  expect(untrustedPort).not.toBe(trustedPort)

  started.browser = await launchChromium([`--host-resolver-rules=MAP ${NAME} 127.0.0.1`, '--ignore-certificate-errors'])
  return {
    trusted: site(trustedServer, trustedPort),
    untrusted: site(untrustedServer, untrustedPort),
    browser: started.browser,
    ca,
  }
})

/** Reads an answer whole. */
async function answerOf(response: IncomingMessage): Promise<Answer> {
  const chunks: Buffer[] = []
  for await (const chunk of response) chunks.push(chunk as Buffer)
  return { status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }
}

/**
 * A request through Caddy to https://sandbox.test:PORT, its certificate checked against Caddy's
 * root: Node's own client, from outside the browser.
 */
function viaCaddy(
  ca: Buffer,
  site: Site,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      {
        host: '127.0.0.1',
        port: site.port,
        servername: NAME,
        ca,
        method,
        path,
        agent: false,
        // Caddy routes by Host (a site it does not serve answers an empty 200), TLS by servername.
        headers: { Host: `${NAME}:${site.port}`, ...headers },
      },
      (response) => {
        answerOf(response).then(resolve, reject)
      },
    )
    request.on('error', reject)
    request.end(body)
  })
}

/** A request straight to the sandbox, no proxy on the way, with any Host and headers. */
function direct(server: RunningServer, method: string, path: string, headers: Record<string, string>): Promise<Answer> {
  const { hostname, port } = new URL(server.url)
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: hostname, port, method, path, agent: false, headers }, (response) => {
      answerOf(response).then(resolve, reject)
    })
    request.on('error', reject)
    request.end()
  })
}

/** Creates a pet through Caddy; answers it. */
async function createPet(ca: Buffer, site: Site, name: string): Promise<Pet> {
  const created = await viaCaddy(
    ca,
    site,
    'POST',
    '/v1/pets',
    { ...AUTH, 'Content-Type': 'application/json' },
    JSON.stringify({ name, categoryId: 1 }),
  )
  expect(created.status, created.body).toBe(201)
  return JSON.parse(created.body) as Pet
}

/** The headers the sandbox recorded for the last API request it answered: what reached it. */
function lastHeaders(server: RunningServer): Record<string, string> {
  const entry = server.sandbox.requests.last()
  expect(entry).toBeDefined()
  return entry?.headers ?? {}
}

/** What Caddy adds to every request it forwards to the sandbox. */
function forwardedBy(site: Site): Record<string, string> {
  return { host: `${NAME}:${site.port}`, 'x-forwarded-proto': 'https', 'x-forwarded-host': `${NAME}:${site.port}` }
}

/** The dashboard page of `site` in a fresh context; every URL it requests must be on its origin. */
async function openDashboard(browser: Browser, site: Site): Promise<{ page: Page; stray: string[] }> {
  const context = await browser.newContext()
  contexts.push(context)
  const stray: string[] = []
  context.on('request', (request) => {
    const url = request.url()
    // data: URLs (the page's empty favicon) load nothing from anywhere.
    if (!url.startsWith('data:') && new URL(url).origin !== site.origin) stray.push(url)
  })
  const page = await context.newPage()
  const loaded = await page.goto(`${site.origin}/__sandbox/`)
  expect(loaded?.status()).toBe(200)
  return { page, stray }
}

/** The answer to the next POST /__sandbox/reset the page sends, once it is whole. */
async function resetAnswer(page: Page, site: Site, send: () => Promise<unknown>) {
  const answered = page.waitForResponse(
    (response) => response.url() === `${site.origin}/__sandbox/reset` && response.request().method() === 'POST',
  )
  await send()
  const response = await answered
  await response.finished()
  return response
}

const rangeOf = (page: Page) => page.locator('#pets-range').innerText()
const rows = (count: number) => `Rows 1–${count} of ${count} pets`

describe.skipIf(!needs('caddy') || !needs('chromium'))(
  'the dashboard behind Caddy terminating TLS',
  { timeout: TIMEOUT_MS },
  () => {
    beforeEach(async () => {
      const { trusted, untrusted } = await stack()
      await Promise.all([trusted.server.sandbox.reset(), untrusted.server.sandbox.reset()])
    }, TIMEOUT_MS)

    afterEach(async () => {
      for (const context of contexts.splice(0)) await context.close()
    })

    it('with trustProxy: loads over https through Caddy, and a reset from the page goes through', async () => {
      const { trusted: site, browser, ca } = await stack()
      const seeded = await site.server.sandbox.pets.count()
      const pet = await createPet(ca, site, 'Doomed behind the proxy')
      // What Caddy sends on (HTTP/1.1 from Node): the Host as the client gave it, and its own
      // X-Forwarded-Proto and -Host. It adds no Forwarded header.
      const fromNode = lastHeaders(site.server)
      expect(fromNode).toMatchObject(forwardedBy(site))
      expect(fromNode).not.toHaveProperty('forwarded')

      const { page, stray } = await openDashboard(browser, site)
      await expect.poll(() => rangeOf(page), LIVE).toBe(rows(seeded + 1))
      await expect.poll(() => page.locator('#connection').innerText(), LIVE).toBe('Live updates: on')
      // The browser speaks HTTP/2 to Caddy; Caddy forwards the same headers for it.
      expect(
        await page.evaluate(
          () => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).nextHopProtocol,
        ),
      ).toBe('h2')
      const listed = await page.evaluate(
        async (authorization) =>
          (await fetch('/v1/pets?limit=1', { headers: { Authorization: authorization } })).status,
        AUTH.Authorization,
      )
      expect(listed).toBe(200)
      const fromBrowser = lastHeaders(site.server)
      expect(fromBrowser).toMatchObject(forwardedBy(site))
      expect(fromBrowser).not.toHaveProperty('forwarded')

      await page.getByRole('button', { name: 'Reset data' }).click()
      expect(await site.server.sandbox.pets.count()).toBe(seeded + 1)
      const reset = await resetAnswer(page, site, () => page.getByRole('button', { name: 'Confirm reset' }).click())
      expect(await reset.request().headerValue('origin')).toBe(site.origin)
      expect(reset.status()).toBe(204)
      await expect.poll(() => page.locator('#status').innerText(), LIVE).toBe('The data is reset.')
      await expect.poll(() => rangeOf(page), LIVE).toBe(rows(seeded))
      expect(await page.locator('#reset-error').innerText()).toBe('')

      // Gone, as the API says through Caddy.
      expect((await viaCaddy(ca, site, 'GET', `/v1/pets/${pet.id}`, AUTH)).status).toBe(404)
      expect(await site.server.sandbox.pets.count()).toBe(seeded)
      expect(stray).toEqual([])
    })

    it('without trustProxy: the reset the page sends is refused 403, and the data stays', async () => {
      const { untrusted: site, browser, ca } = await stack()
      const seeded = await site.server.sandbox.pets.count()
      const pet = await createPet(ca, site, 'Kept behind the proxy')
      // Caddy forwards exactly what it forwards to the trusted sandbox: only the sandbox's belief differs.
      expect(lastHeaders(site.server)).toMatchObject(forwardedBy(site))

      // The page loads (its shipped script and styles are served whatever the Origin), and shows
      // the data; the reset its button sends carries Origin https://sandbox.test:PORT, refused.
      const { page, stray } = await openDashboard(browser, site)
      await expect.poll(() => rangeOf(page), LIVE).toBe(rows(seeded + 1))
      await page.getByRole('button', { name: 'Reset data' }).click()
      const reset = await resetAnswer(page, site, () => page.getByRole('button', { name: 'Confirm reset' }).click())
      expect(await reset.request().headerValue('origin')).toBe(site.origin)
      expect(reset.status()).toBe(403)
      const message =
        `Admin routes accept requests from this machine only, not from origin ${site.origin}. ` +
        'Behind a proxy that terminates TLS, start the sandbox with --trust-proxy'
      expect((JSON.parse(await reset.text()) as { message: string }).message).toBe(message)
      // The page says so, in the reset panel's error.
      await expect.poll(() => page.locator('#reset-error').innerText(), LIVE).toContain('--trust-proxy')

      const read = await viaCaddy(ca, site, 'GET', `/v1/pets/${pet.id}`, AUTH)
      expect(read.status).toBe(200)
      expect(JSON.parse(read.body)).toMatchObject({ id: pet.id, name: 'Kept behind the proxy' })
      expect(await site.server.sandbox.pets.count()).toBe(seeded + 1)
      expect(stray).toEqual([])
    })

    it('without trustProxy, believes no X-Forwarded-Proto or Forwarded sent straight to it', async () => {
      const { trusted, untrusted, ca } = await stack()
      const seeded = await untrusted.server.sandbox.pets.count()
      const pet = await createPet(ca, untrusted, 'Kept from a direct request')
      const host = `${NAME}:${untrusted.port}`
      const origin = `https://${host}`
      const claims: Record<string, string>[] = [
        { 'X-Forwarded-Proto': 'https' },
        { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': host },
        { Forwarded: `proto=https;host="${host}"` },
      ]

      for (const claim of claims) {
        const refused = await direct(untrusted.server, 'POST', '/__sandbox/reset', {
          Host: host,
          Origin: origin,
          ...claim,
        })
        expect(refused.status, JSON.stringify(claim)).toBe(403)
        expect(JSON.parse(refused.body)).toMatchObject({
          message: expect.stringContaining(
            `Admin routes accept requests from this machine only, not from origin ${origin}`,
          ) as unknown,
        })
      }
      expect(await untrusted.server.sandbox.pets.count()).toBe(seeded + 1)
      expect((await viaCaddy(ca, untrusted, 'GET', `/v1/pets/${pet.id}`, AUTH)).status).toBe(200)

      // The requests are otherwise good: the sandbox's own origin without trustProxy is http://Host,
      for (const claim of claims) {
        const own = await direct(untrusted.server, 'POST', '/__sandbox/reset', {
          Host: host,
          Origin: `http://${host}`,
          ...claim,
        })
        expect(own.status, JSON.stringify(claim)).toBe(204)
      }
      expect(await untrusted.server.sandbox.pets.count()).toBe(seeded)
      // and with trustProxy the same claims are believed.
      for (const claim of claims) {
        expect((await createPet(ca, trusted, 'Reset by a believed claim')).id).toBeGreaterThan(seeded)
        const believed = await direct(trusted.server, 'POST', '/__sandbox/reset', {
          Host: host,
          Origin: origin,
          ...claim,
        })
        expect(believed.status, JSON.stringify(claim)).toBe(204)
        expect(await trusted.server.sandbox.pets.count()).toBe(seeded)
      }
    })
  },
)
