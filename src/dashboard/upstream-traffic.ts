/**
 * The Traffic panel's word on the upstream (`--upstream`): how many requests went there and how
 * many of their answers broke the contract, then the latest violation sentences, newest first.
 * It counts the journal entries the page reads anyway (the Requests panel's load and its live
 * events), so it asks the server for nothing more; the block shows once health names an upstream,
 * or a forwarded entry arrives. The page renders no slot for it: it is built here, after the chart.
 *
 * May import: other dashboard files.
 */
import type { Health, JournalEntry } from './api.js'
import { byId, h, num } from './dom.js'

/** Violation sentences shown: the latest few say what is going wrong; the journal has them all. */
const SHOWN = 5

const counts = { forwarded: 0, violating: 0, newest: 0, upstream: false, stale: false }
let latest: { entry: JournalEntry; sentence: string }[] = []
let parts: { block: HTMLElement; summary: HTMLElement; list: HTMLOListElement; none: HTMLElement } | undefined

function build(): NonNullable<typeof parts> {
  const summary = h('p', 'forwarded-summary')
  summary.id = 'forwarded-summary'
  const heading = h('h3', undefined, 'Sent to the upstream')
  heading.id = 'forwarded-heading'
  const listHeading = h('h4', undefined, 'Latest contract violations, newest first')
  listHeading.id = 'forwarded-violations-heading'
  const list = h('ol', 'forwarded-violations')
  list.id = 'forwarded-violations'
  list.setAttribute('aria-labelledby', listHeading.id)
  const none = h('p', 'hint')
  const block = h(
    'section',
    'forwarded',
    heading,
    summary,
    h('p', 'hint', 'Counted from the request journal, as the Requests panel lists it.'),
    listHeading,
    list,
    none,
  )
  block.id = 'forwarded'
  block.setAttribute('aria-labelledby', heading.id)
  block.hidden = true
  byId('traffic-panel').append(block)
  return { block, summary, list, none }
}

/** Follows health: with an upstream the block shows, even before anything went there. */
export function showForwardedFor(upstream: Health['upstream']): void {
  counts.upstream = upstream !== null
  render()
}

/** Starts over from the journal as the server holds it now (a load, a reset, another tenant). */
export function resetForwarded(): void {
  counts.forwarded = 0
  counts.violating = 0
  counts.newest = 0
  counts.stale = true
  latest = []
}

/** Counts entries in id order; one already counted (the live stream and a load overlap) is skipped. */
export function countForwarded(entries: readonly JournalEntry[]): void {
  let changed = counts.stale
  counts.stale = false
  for (const entry of entries) {
    if (entry.id <= counts.newest) continue
    counts.newest = entry.id
    if (!entry.forwarded) continue
    changed = true
    counts.forwarded++
    if (entry.violations.length === 0) continue
    counts.violating++
    // The newest entry first, its sentences in its own order.
    latest = [...entry.violations.map((sentence) => ({ entry, sentence })), ...latest].slice(0, SHOWN)
  }
  if (changed) render()
}

function render(): void {
  if (!counts.upstream && counts.forwarded === 0) {
    if (parts !== undefined) parts.block.hidden = true
    return
  }
  parts ??= build()
  const { block, summary, list, none } = parts
  block.hidden = false
  const requests = `${num(counts.forwarded)} request${counts.forwarded === 1 ? '' : 's'}`
  const text = `Forwarded to the upstream: ${requests}, ${num(counts.violating)} with contract violations.`
  if (summary.textContent !== text) summary.textContent = text
  list.replaceChildren(
    ...latest.map(({ entry, sentence }) =>
      h(
        'li',
        undefined,
        h('span', 'forwarded-request', `${entry.operation ?? entry.method} ${entry.status}`),
        ': ',
        sentence,
      ),
    ),
  )
  list.hidden = latest.length === 0
  none.hidden = latest.length > 0
  none.textContent = counts.forwarded === 0 ? 'None yet.' : 'None: every answer kept the contract.'
}
