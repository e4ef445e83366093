/**
 * The request journal (the Requests panel): loaded once from `/__sandbox/requests`, then kept
 * live from the server's `request` events, newest first and capped in the DOM. Rows are buttons
 * with one tab stop for the list (arrow keys, Home and End move); pressing one shows its
 * headers (already redacted by the server) and body. In isolated mode each row names its tenant
 * beside the tenant's colour. A request sent to the upstream (`--upstream`) says so, with the
 * count of its answer's contract violations (the sentences on hover and in its details); the
 * Traffic panel is told of each entry too (upstream-traffic.ts), for its count and latest violations.
 *
 * May import: other dashboard files, and core files that import nothing (state/counters.ts).
 */
import { statusClass } from '../core/state/counters.js'
import { adminUrl, getJson, scope, type JournalEntry } from './api.js'
import { byId, h, messageOf, swatch } from './dom.js'
import { countForwarded, resetForwarded } from './upstream-traffic.js'

const CAP = 200
// Node's own reason phrases (node:http's STATUS_CODES), put in by the build (scripts/build-dashboard.mjs).
declare const STATUS_REASONS: Readonly<Record<number, string>>
const REASONS = STATUS_REASONS

const entries = new WeakMap<Element, JournalEntry>()
let newest = 0
let ready = false
let pending: JournalEntry[] = []
let frame = 0
let selected: number | undefined
let sequence = 0

const list = () => byId('journal') as HTMLOListElement

/** Replaces the list with the journal as the server holds it now. */
export async function loadJournal(): Promise<void> {
  const mine = ++sequence
  ready = false
  // Whatever arrived before now is in the answer; what arrives while it loads is kept.
  pending = []
  try {
    const all = await getJson<JournalEntry[]>(adminUrl('/requests'))
    if (mine !== sequence) return
    list().replaceChildren()
    newest = 0
    if (!all.some((entry) => entry.id === selected)) clearDetails()
    // The Traffic panel counts every forwarded entry held, not only the rows shown here.
    resetForwarded()
    countForwarded(all)
    pending = [...all.slice(-CAP), ...pending]
  } catch (error) {
    if (mine !== sequence) return
    byId('journal-empty').textContent = `Could not load the journal: ${messageOf(error)}`
  }
  ready = true
  flush()
}

/** One entry from the live stream. */
export function liveEntry(entry: JournalEntry): void {
  if (scope.tenant !== undefined) {
    const mine = entry.tenantId === undefined ? entry.tenant === scope.label : entry.tenantId === scope.tenant
    if (!mine) return
  }
  pending.push(entry)
  // While the tab is hidden no frame comes: keep only what the list could show.
  if (pending.length > CAP * 2) pending = pending.slice(-CAP)
  if (ready && frame === 0) frame = requestAnimationFrame(flush)
}

function flush(): void {
  frame = 0
  const fresh = pending.filter((entry) => entry.id > newest).sort((a, b) => a.id - b.id)
  pending = []
  if (fresh.length === 0) {
    empty()
    return
  }
  newest = fresh.at(-1)?.id ?? newest
  countForwarded(fresh)
  const ol = list()
  const focused = document.activeElement
  ol.prepend(...fresh.slice(-CAP).reverse().map(row))
  while (ol.children.length > CAP) ol.lastElementChild?.remove()
  if (focused instanceof HTMLElement && !focused.isConnected) ol.querySelector('button')?.focus()
  if (ol.querySelector('button[tabindex="0"]') === null) ol.querySelector('button')?.setAttribute('tabindex', '0')
  empty()
}

function empty(): void {
  const none = list().children.length === 0
  byId('journal-empty').hidden = !none
  if (none) byId('journal-empty').textContent = 'No requests yet.'
}

function row(entry: JournalEntry): HTMLLIElement {
  const status = entry.status
  const button = h(
    'button',
    'req',
    h('span', 'time', timeOf(entry.time)),
    ' ',
    h('span', 'method', entry.method),
    ' ',
    h('span', 'path', ...breakable(pathOf(entry))),
    ' ',
    h('span', `code c${statusClass(status)}`, `${status} ${REASONS[status] ?? ''}`.trim()),
    ' ',
    h('span', 'dur', `${durationOf(entry.durationMs)} ms`),
    ' ',
    h('span', 'op', entry.operation ?? 'no operation', ...upstreamMarks(entry)),
    ' ',
    h('span', 'tenant', entry.tenant !== null && swatch(entry.tenantHue), entry.tenant ?? ''),
  )
  button.type = 'button'
  button.tabIndex = -1
  button.setAttribute('aria-controls', 'request-details')
  if (entry.id === selected) button.setAttribute('aria-current', 'true')
  entries.set(button, entry)
  return h('li', undefined, button)
}

/** What a forwarded request adds to its row: where it went, and how its answer broke the contract. */
function upstreamMarks(entry: JournalEntry): HTMLSpanElement[] {
  if (!entry.forwarded) return []
  const marks = [h('span', 'upstream', '→ upstream')]
  const count = entry.violations.length
  if (count > 0) {
    const badge = h(
      'span',
      'violations',
      entry.moreViolations
        ? `${count} or more contract violations`
        : `${count} contract violation${count === 1 ? '' : 's'}`,
    )
    badge.title = entry.violations.join('\n')
    marks.push(badge)
  }
  return marks
}

const timeOf = (iso: string) => {
  const date = new Date(iso)
  return Number.isNaN(date.getTime())
    ? iso
    : `${date.toLocaleTimeString('en-GB', { hour12: false })}.${String(date.getMilliseconds()).padStart(3, '0')}`
}

const durationOf = (ms: number) => (ms < 10 ? ms.toFixed(1) : String(Math.round(ms)))

function pathOf(entry: JournalEntry): string {
  const at = entry.url.indexOf('?')
  return at === -1 ? entry.path : entry.path + entry.url.slice(at)
}

/** A path with a line-break opportunity after each `/`, `?`, `&` and `=`: a long one wraps there. */
function breakable(path: string): (string | HTMLElement)[] {
  return path.split(/(?<=[/?&=])(?=.)/).flatMap((part, index) => (index === 0 ? [part] : [h('wbr'), part]))
}

function select(button: HTMLButtonElement): void {
  const entry = entries.get(button)
  if (entry === undefined) return
  selected = entry.id
  for (const other of list().querySelectorAll('[aria-current]')) other.removeAttribute('aria-current')
  button.setAttribute('aria-current', 'true')
  rove(button)
  showDetails(entry)
}

function rove(button: HTMLButtonElement): void {
  for (const other of list().querySelectorAll('button[tabindex="0"]')) other.setAttribute('tabindex', '-1')
  button.tabIndex = 0
}

function clearDetails(): void {
  selected = undefined
  byId('details-heading').textContent = 'Request details'
  byId('details-body').replaceChildren(h('p', 'hint', 'Select a request to see its headers and body.'))
}

function showDetails(entry: JournalEntry): void {
  byId('details-heading').textContent = `Request ${entry.id}: ${entry.method} ${entry.path}`
  const pairs: [string, string][] = [
    ['URL', entry.url],
    ['Time', entry.time],
    ['Status', `${entry.status} ${REASONS[entry.status] ?? ''}`.trim()],
    ['Duration', `${entry.durationMs} ms`],
    ['Operation', entry.operation ?? 'none'],
  ]
  if (entry.tenant !== null) pairs.push(['Tenant', entry.tenant])
  if (entry.forwarded) {
    const count = entry.violations.length
    const ways = entry.moreViolations ? `in ${count} or more ways` : count === 1 ? 'once' : `${count} ways`
    pairs.push([
      'Answered by',
      `the upstream, ${count === 0 ? 'keeping the contract' : `breaking the contract ${ways}`}`,
    ])
  }
  const headers = Object.entries(entry.headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n')
  const body = bodyText(entry)
  byId('details-body').replaceChildren(
    h(
      'dl',
      'kv',
      ...pairs.map(([name, value]) =>
        h(
          'div',
          undefined,
          h('dt', undefined, name),
          h('dd', undefined, name === 'Tenant' && swatch(entry.tenantHue), value),
        ),
      ),
    ),
    ...(entry.forwarded && entry.violations.length > 0
      ? [
          h('h4', undefined, 'Contract violations'),
          h('ul', 'violation-list', ...entry.violations.map((violation) => h('li', undefined, violation))),
        ]
      : []),
    h('h4', undefined, 'Headers'),
    scrollable(headers, 'Headers'),
    h('h4', undefined, 'Body'),
    scrollable(body, 'Body'),
  )
}

/**
 * What was sent, or why the body was not kept, said the same way for every request: the journal
 * holds null for a body it did not read (only createPet reads one, and a scenario, a delay's end
 * or a refusal can answer before it does), and how much was sent comes from its Content-Length.
 */
export function bodyText(entry: JournalEntry): string {
  if (typeof entry.body === 'string') return entry.body
  if (entry.body !== null && entry.body !== undefined) return JSON.stringify(entry.body, null, 2)
  const length = Object.entries(entry.headers).find(([name]) => name.toLowerCase() === 'content-length')?.[1]
  const chunked = Object.entries(entry.headers).some(
    ([name, value]) => name.toLowerCase() === 'transfer-encoding' && /chunked/i.test(value),
  )
  const sent =
    length !== undefined && Number(length) > 0
      ? `${length} bytes were sent.`
      : chunked
        ? 'A chunked body was sent.'
        : 'No body was sent.'
  const why =
    entry.operation === 'createPet'
      ? `the sandbox answered ${entry.status} before reading it`
      : entry.operation === null
        ? 'no operation took the request'
        : `${entry.operation} reads no body`
  return `Not recorded: ${why}. ${sent}`
}

/** A scrolling block must be reachable by keyboard to be scrolled. */
function scrollable(text: string, label: string): HTMLPreElement {
  const pre = h('pre', undefined, text)
  pre.tabIndex = 0
  pre.setAttribute('aria-label', label)
  return pre
}

export function setUpJournal(): void {
  const ol = list()
  ol.addEventListener('click', (event) => {
    const button = (event.target as Element).closest('button')
    if (button !== null) select(button)
  })
  ol.addEventListener('keydown', (event) => {
    const buttons = [...ol.querySelectorAll('button')]
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement)
    const moves: Record<string, number> = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: buttons.length - 1 }
    const to = moves[event.key]
    const target = to === undefined ? undefined : buttons[Math.max(0, Math.min(buttons.length - 1, to))]
    if (target === undefined) return
    event.preventDefault()
    rove(target)
    target.focus()
  })
}
