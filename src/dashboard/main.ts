/**
 * The dashboard's entry, bundled as `app.js`: wires the panels to the page, reads the mode and
 * the tenants from health, listens to the server's events (`request`: the live journal;
 * `change`: the pet table) and polls health (5 s) and traffic (2 s) while the page is visible.
 *
 * May import: other dashboard files.
 */
import { ADMIN, getJson, scope, type Health, type JournalEntry, type Tenant } from './api.js'
import { loadTraffic, setUpChart } from './chart.js'
import { hasScenarios, loadScenarios, setUpControls } from './controls.js'
import { loadPets, setUpData } from './data.js'
import { byId, h, messageOf, num, poll, say, throttle } from './dom.js'
import { liveEntry, loadJournal, setUpJournal } from './journal.js'

const root = byId('dashboard')
let booted = false
let tenants: Tenant[] = []
let tenantsKey = ''

function reloadScoped(): void {
  void loadPets(0)
  void loadJournal()
  void loadScenarios()
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
    const health = await getJson<Health>(`${ADMIN}/health`)
    text('health-version', health.version)
    text('health-uptime', uptime(health.uptimeSeconds))
    text('health-mode', health.mode === 'isolated' ? 'isolated (one copy of the data per key)' : 'shared')
    text('health-tenants', num(health.tenants))
    text('health-pets', num(health.pets) + (health.mode === 'isolated' ? " (the default key's)" : ''))
    text('health-evictions', num(health.evictions))
    root.dataset.mode = health.mode
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
  const key = JSON.stringify(tenants.map((tenant) => [tenant.id, tenant.label]))
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
  if (kept?.id === scope.tenant) return
  if (booted && scope.label !== undefined)
    say(`The tenant ${scope.label} is gone; showing ${kept?.label ?? 'no tenant'}.`)
  choose(kept)
}

function choose(tenant: Tenant | undefined): void {
  scope.tenant = tenant?.id
  scope.label = tenant?.label
  if (booted) reloadScoped()
}

function parse(event: Event): unknown {
  try {
    return JSON.parse((event as MessageEvent<string>).data)
  } catch {
    return undefined
  }
}

function connect(): void {
  const source = new EventSource(`${ADMIN}/events`)
  let lost = false
  const petsSoon = throttle(() => void loadPets(), 400)
  const scenariosSoon = throttle(() => void loadScenarios(), 1000)
  source.addEventListener('open', () => {
    text('connection', 'Live updates: on')
    // Catch up on what happened while the stream was down.
    if (lost) reloadScoped()
    lost = false
  })
  source.addEventListener('error', () => {
    lost = true
    if (source.readyState === EventSource.CLOSED) {
      text('connection', 'Live updates: off, retrying in 5 s')
      setTimeout(connect, 5000)
    } else {
      text('connection', 'Live updates: reconnecting')
    }
  })
  source.addEventListener('request', (event) => {
    const entry = parse(event) as JournalEntry | undefined
    if (entry !== undefined) liveEntry(entry)
    if (hasScenarios()) scenariosSoon()
  })
  source.addEventListener('change', (event) => {
    const tenant = (parse(event) as { tenant?: string | null } | undefined)?.tenant ?? null
    if (tenant === null || scope.tenant === undefined || tenant === scope.tenant) petsSoon()
  })
}

async function boot(): Promise<void> {
  setUpData(root.dataset.apiKey ?? '', root.dataset.apiBase ?? '/v1')
  setUpJournal()
  setUpChart()
  setUpControls(
    () => {
      reloadScoped()
    },
    () => void loadPets(0),
  )
  const select = byId('tenant') as HTMLSelectElement
  select.addEventListener('change', () => {
    const tenant = tenants.find((candidate) => candidate.id === select.value)
    choose(tenant)
    say(`Showing the data of ${tenant?.label ?? 'no tenant'}.`)
  })
  await loadHealth()
  booted = true
  reloadScoped()
  connect()
  poll(loadHealth, 5000, false)
  poll(loadTraffic, 2000)
}

void boot()
