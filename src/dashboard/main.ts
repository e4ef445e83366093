/**
 * The dashboard's entry, bundled as `app.js`: wires the panels to the page, reads the mode and
 * the tenants from health, listens to the server's events (`request`: the live journal;
 * `change`: the pet table; `checkpoints`: their list) and polls health (5 s) and traffic (2 s)
 * while the page is visible.
 * A page without a key (served to another machine) first asks for one, and again whenever an
 * admin route refuses it; with a key, the events are read through fetch, which can send it.
 *
 * May import: other dashboard files.
 */
import { zodConfig } from './jitless.js'
import {
  ADMIN,
  adminKey,
  adminUrl,
  call,
  getJson,
  keyRefused,
  onRefused,
  readEvents,
  scope,
  useKey,
  type Health,
  type JournalEntry,
  type Tenant,
} from './api.js'
import { loadTraffic, setUpChart } from './chart.js'
import { loadCheckpoints, setUpCheckpoints } from './checkpoints.js'
import { loadHolds } from './holds.js'
import { hasScenarios, loadScenarios, setUpControls } from './control-panel.js'
import { loadPets, setUpData } from './data.js'
import { showForwardedFor } from './upstream-traffic.js'
import { showUpstream, switchesSent } from './forwarding.js'
import { byId, h, isSending, messageOf, num, paintHue, poll, say, setSending, throttle } from './dom.js'
import { liveEntry, loadJournal, setUpJournal } from './journal.js'

// Made before any schema (jitless.ts): the page's policy forbids eval.
if (zodConfig.jitless !== true) throw new Error('zod must not compile with eval under the dashboard policy')

const root = byId('dashboard')
const pageKey = root.dataset.apiKey ?? ''
let started = false
let booted = false
let tenants: Tenant[] = []
let tenantsKey = ''
/**
 * The open event stream, if any, and whether the data must be loaded again when it opens: at the
 * start, and after events may have been missed. The page loads its data at once, so it shows it
 * even where the stream never opens (a proxy that holds it back), and again once the stream is
 * open: the sandbox subscribes a stream before it sends its first byte, so a change made while it
 * opened is in that second load or comes as an event after it. (With the first load alone, a
 * request made in between never reached the journal shown.)
 */
let live: { close(): void } | undefined
let lost = true

function reloadScoped(): Promise<unknown> {
  return Promise.allSettled([loadPets(0), loadJournal(), loadScenarios(), loadCheckpoints(), loadHolds()])
}

/** Sets a text only when it differs, so live regions do not repeat themselves. */
function text(id: string, value: string): void {
  const element = byId(id)
  if (element.textContent !== value) element.textContent = value
}

function uptime(seconds: number): string {
  const parts: string[] = []
  const units: [number, string][] = [
    [86_400, 'd'],
    [3600, 'h'],
    [60, 'min'],
  ]
  let left = seconds
  for (const [size, unit] of units) {
    if (left >= size || parts.length > 0) parts.push(`${Math.floor(left / size)} ${unit}`)
    left %= size
  }
  parts.push(`${left} s`)
  return parts.join(' ')
}

async function loadHealth(): Promise<void> {
  try {
    const asked = switchesSent()
    const health = await getJson<Health>(`${ADMIN}/health`)
    text('health-version', health.version)
    text('health-uptime', uptime(health.uptimeSeconds))
    text('health-mode', health.mode === 'isolated' ? 'isolated (one copy of the data per key)' : 'shared')
    text('health-tenants', num(health.tenants))
    text('health-pets', num(health.pets) + (health.mode === 'isolated' ? " (the default key's)" : ''))
    text('health-evictions', num(health.evictions))
    root.dataset.mode = health.mode
    showUpstream(health.upstream, asked)
    showForwardedFor(health.upstream)
    text('health-error', '')
  } catch (error) {
    text('health-error', `Could not read the health: ${messageOf(error)}`)
    return
  }
  if (root.dataset.mode !== 'isolated') return
  try {
    await loadTenants()
  } catch (error) {
    text('health-error', `Could not list the tenants: ${messageOf(error)}`)
  }
}

async function loadTenants(): Promise<void> {
  tenants = await getJson<Tenant[]>(`${ADMIN}/tenants`)
  const key = JSON.stringify(tenants.map((tenant) => [tenant.id, tenant.label, tenant.hue]))
  byId('tenant-field').hidden = false
  byId('create-isolated').hidden = false
  if (key === tenantsKey) return
  tenantsKey = key
  const labels = tenants.map((tenant) => tenant.label)
  const select = byId('tenant') as HTMLSelectElement
  select.replaceChildren(
    ...tenants.map((tenant) => {
      const twice = labels.indexOf(tenant.label) !== labels.lastIndexOf(tenant.label)
      const option = h('option', undefined, twice ? `${tenant.label} [${tenant.id}]` : tenant.label)
      option.value = tenant.id
      return option
    }),
  )
  const kept =
    tenants.find((tenant) => tenant.id === scope.tenant) ??
    tenants.find((tenant) => tenant.label === 'default') ??
    tenants[0]
  select.value = kept?.id ?? ''
  paintHue(byId('tenant-swatch'), kept?.hue)
  if (kept?.id === scope.tenant) return
  if (booted && scope.label !== undefined)
    say(`The tenant ${scope.label} is gone; showing ${kept?.label ?? 'no tenant'}.`)
  choose(kept)
}

function choose(tenant: Tenant | undefined): void {
  scope.tenant = tenant?.id
  scope.label = tenant?.label
  paintHue(byId('tenant-swatch'), tenant?.hue)
  if (!booted) return
  void reloadScoped()
  // A key in Authorization scopes the stream to its own tenant: follow the one shown instead.
  if (adminKey() !== undefined) {
    lost = true
    connect()
  }
}

function parse(data: string): unknown {
  try {
    return JSON.parse(data)
  } catch {
    return undefined
  }
}

const petsSoon = throttle(() => void loadPets(), 400)
const scenariosSoon = throttle(() => void loadScenarios(), 1000)
const checkpointsSoon = throttle(() => void loadCheckpoints(), 300)
const holdsSoon = throttle(() => void loadHolds(), 200)
// Health is polled every 5 s; what moves its counts (the pets, the pets recorded) reloads it
// sooner, at most once a second however busy the traffic.
const healthSoon = throttle(() => void loadHealth(), 1000)

/** Whether an event about `data`'s tenant concerns the one shown (null: every tenant, or shared mode). */
function forShownTenant(data: string): boolean {
  const tenant = (parse(data) as { tenant?: string | null } | undefined)?.tenant ?? null
  return tenant === null || scope.tenant === undefined || tenant === scope.tenant
}

function opened(): void {
  if (!lost) {
    text('connection', 'Live updates: on')
    return
  }
  lost = false
  // Caught up first (what happened while the stream opened, or was down): "on" then says the page
  // shows the sandbox as it is, and follows it from here.
  void reloadScoped().then(() => {
    if (!lost) text('connection', 'Live updates: on')
  })
}

function onEvent(type: string, data: string): void {
  if (type === 'request') {
    const entry = parse(data) as JournalEntry | undefined
    if (entry !== undefined) liveEntry(entry)
    if (hasScenarios()) scenariosSoon()
    if (entry?.recorded != null) healthSoon()
  } else if (type === 'change') {
    if (forShownTenant(data)) petsSoon()
    healthSoon()
  } else if (type === 'checkpoints') {
    if (forShownTenant(data)) checkpointsSoon()
  } else if (type === 'holds') {
    if (forShownTenant(data)) holdsSoon()
  } else if (type === 'forwarding') {
    healthSoon()
  }
}

/** Opens the event stream (closing any other): EventSource without a key, fetch with one. */
function connect(): void {
  live?.close()
  const retry = () => {
    text('connection', 'Live updates: off, retrying in 5 s')
    setTimeout(() => {
      if (live === handle) connect()
    }, 5000)
  }
  let handle: { close(): void }
  if (adminKey() === undefined) {
    const source = new EventSource(`${ADMIN}/events`)
    handle = source
    source.addEventListener('open', opened)
    source.addEventListener('error', () => {
      lost = true
      if (source.readyState === EventSource.CLOSED) retry()
      else text('connection', 'Live updates: reconnecting')
    })
    for (const type of ['request', 'change', 'checkpoints', 'holds', 'forwarding']) {
      source.addEventListener(type, (event) => {
        onEvent(type, (event as MessageEvent<string>).data)
      })
    }
  } else {
    const controller = new AbortController()
    handle = {
      close: () => {
        controller.abort()
      },
    }
    const ended = () => {
      if (controller.signal.aborted) return
      lost = true
      // Refused: the key form asks, and connects again once a key is entered.
      if (keyRefused()) text('connection', 'Live updates: off until the API key is entered')
      else retry()
    }
    readEvents(adminUrl('/events'), controller.signal, opened, onEvent).then(ended, ended)
  }
  live = handle
}

/** Shows the key form with the sandbox's refusal (or none, the first time). */
function askForKey(message: string): void {
  text('key-error', message)
  if (message !== '') text('connection', 'Live updates: off until the API key is entered')
  const form = byId('key-form')
  if (!form.hidden) return
  form.hidden = false
  byId('key-input').focus()
}

function setUpKeyForm(): void {
  const form = byId('key-form') as HTMLFormElement
  const input = byId('key-input') as HTMLInputElement
  onRefused(askForKey)
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const key = input.value.trim()
    if (isSending(form)) return
    if (key === '') {
      text('key-error', 'Enter the API key.')
      input.focus()
      return
    }
    setSending(form, true)
    text('key-error', '')
    useKey(key)
    call(`${ADMIN}/health`)
      .then(() => {
        form.hidden = true
        input.value = ''
        byId('main').focus()
        say('The API key is accepted.')
        if (started) refresh()
        else void start()
      })
      .catch((error: unknown) => {
        // A 401 has put the sandbox's message in the form already.
        text('key-error', messageOf(error))
        input.select()
      })
      .finally(() => {
        setSending(form, false)
      })
  })
}

/** After a key is entered again: everything the refusal left empty. */
function refresh(): void {
  void loadHealth()
  void loadTraffic()
  void reloadScoped()
  lost = true
  connect()
}

async function boot(): Promise<void> {
  setUpKeyForm()
  setUpJournal()
  setUpChart()
  setUpControls(
    () => {
      void reloadScoped()
    },
    () => void loadPets(0),
  )
  // A rewind may bring back scenarios saved with it; the pets stay on the page shown.
  setUpCheckpoints(() => {
    void loadPets()
    void loadScenarios()
  })
  const select = byId('tenant') as HTMLSelectElement
  select.addEventListener('change', () => {
    const tenant = tenants.find((candidate) => candidate.id === select.value)
    choose(tenant)
    say(`Showing the data of ${tenant?.label ?? 'no tenant'}.`)
  })
  if (pageKey === '' && adminKey() === undefined) {
    // Another machine's page: nothing is asked of the sandbox before the key is there.
    text('connection', 'Live updates: off until the API key is entered')
    askForKey('')
    return
  }
  await start()
}

async function start(): Promise<void> {
  started = true
  // The create form sends the page's key, or the one entered here.
  setUpData(pageKey === '' ? (adminKey() ?? '') : pageKey, root.dataset.apiBase ?? '/v1')
  await loadHealth()
  booted = true
  void reloadScoped()
  connect()
  poll(loadHealth, 5000, false)
  poll(loadTraffic, 2000)
}

void boot()
