/**
 * The request journal: what clients actually sent and what they got, newest last, bounded in
 * entries and in bytes (the journalEntries and journalBytes limits) so a long demo never grows
 * without limit: the oldest entries are dropped as new ones come, one for one.
 *
 * Adding an answered request keeps references only (the headers object, the body, the target);
 * entries are built when someone reads the journal. `add` sits on every request's path, reading
 * rarely.
 *
 * May import: core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import type { JournalEntry, JournalFilter } from './shapes.js'
import type { OperationId } from '../api/contract.js'
import { header, type RequestHeaders } from '../http/http.js'
import { LIMITS } from '../limits.js'
import { parseTarget } from '../http/target.js'
import type { TenantLabel } from './tenants.js'

/** What an entry costs besides its target, headers and body: its fields and the objects around them. */
const ENTRY_OVERHEAD_BYTES = 256

export type { JournalEntry, JournalFilter }

export interface RequestJournal {
  /** Every request kept, oldest first. */
  all(): JournalEntry[]
  /** The requests kept that match every given field. */
  filter(filter: JournalFilter): JournalEntry[]
  /** The newest request kept, if any. */
  last(): JournalEntry | undefined
  clear(): void
}

/** What the core hands over per request: cheap to take, turned into a JournalEntry on reading. */
export interface Answered {
  /** Epoch milliseconds on the sandbox's clock. */
  readonly time: number
  readonly operation: OperationId | null
  readonly method: string
  readonly target: string
  readonly headers: RequestHeaders
  /** The headers' size, when the adapter counted it; else the journal counts it. */
  readonly headerBytes?: number | undefined
  readonly body: unknown
  /** The body's size as sent, in bytes: what the journal counts for it. */
  readonly bodyBytes: number
  readonly status: number
  readonly durationMs: number
  /** The key the request authenticated with, if it did. */
  readonly tenant: string | undefined
  /** Sent to the upstream (`--upstream`); not when left out. */
  readonly forwarded?: boolean
  /** The ways the upstream's answer breaks the interface document; none when left out. */
  readonly violations?: readonly string[]
  /** The contract check stopped at its bound (contractProblems) with more to find. */
  readonly moreViolations?: boolean
  /** How long a hold kept it waiting, in ms; none caught it when left out. */
  readonly heldMs?: number
  /** With --record: the pets its forwarded answer left in the data, and why any were not kept. */
  readonly recorded?: { readonly pets: number; readonly refused: readonly string[] }
}

export interface WritableJournal extends RequestJournal {
  /** False when the limit is 0: callers can skip the journal at all. */
  readonly enabled: boolean
  /** Keeps a request; false when it was not kept (larger than the whole byte budget). */
  add(answered: Answered): boolean
  /** Entries kept for one tenant's key (isolated mode). */
  forTenant(tenant: string): JournalEntry[]
  /** Drops one tenant's entries. */
  clearTenant(tenant: string): void
  /** The entries kept, and their estimated size in bytes. */
  usage(): { entries: number; bytes: number }
}

interface Item {
  readonly id: number
  readonly recorded: Answered
  readonly bytes: number
  entry?: JournalEntry
}

/** `label` names a tenant's key in entries (isolated mode: labelTenant); null when there is one tenant. */
export function createJournal(
  limit: number,
  label: (key: string) => TenantLabel | null = () => null,
  maxBytes: number = LIMITS.journalBytes.value,
): WritableJournal {
  // `limit` was checked with every other option in core/options.ts before the sandbox was built.
  // A queue: items[head..] are kept. Dropping moves head; the array is compacted now and then,
  // so adding an entry is O(1) and never holds more than the budgets allow.
  let items: Item[] = []
  let head = 0
  let bytes = 0
  let nextId = 1
  const entryOf = (item: Item): JournalEntry => (item.entry ??= toEntry(item.id, item.recorded, label))
  const kept = () => items.slice(head)
  const replaceWith = (next: Item[]) => {
    items = next
    head = 0
    bytes = next.reduce((sum, item) => sum + item.bytes, 0)
  }

  return {
    enabled: limit > 0 && maxBytes > 0,
    add(recorded) {
      if (limit === 0 || maxBytes === 0) return false
      const size = sizeOf(recorded)
      // An entry larger than the whole budget is not kept, and drops nothing.
      if (size > maxBytes) return false
      items.push({ id: nextId++, recorded, bytes: size })
      bytes += size
      while (items.length - head > limit || bytes > maxBytes) {
        bytes -= (items[head] as Item).bytes
        items[head] = undefined as unknown as Item
        head++
      }
      if (head > 1024 && head * 2 > items.length) {
        items = items.slice(head)
        head = 0
      }
      return true
    },
    all: () => kept().map(entryOf),
    filter: (filter) =>
      kept()
        .map(entryOf)
        .filter((entry) => matchesFilter(entry, filter)),
    last: () => {
      const item = items.length > head ? items.at(-1) : undefined
      return item === undefined ? undefined : entryOf(item)
    },
    forTenant: (tenant) => kept().flatMap((item) => (item.recorded.tenant === tenant ? [entryOf(item)] : [])),
    clear() {
      replaceWith([])
    },
    clearTenant(tenant) {
      replaceWith(kept().filter((item) => item.recorded.tenant !== tenant))
    },
    usage: () => ({ entries: items.length - head, bytes }),
  }
}

/** An estimate of what an entry holds: its target, headers and body as sent, and a fixed overhead. */
function sizeOf(recorded: Answered): number {
  let size = ENTRY_OVERHEAD_BYTES + recorded.target.length + recorded.bodyBytes
  if (recorded.violations !== undefined) for (const violation of recorded.violations) size += violation.length
  if (recorded.headerBytes !== undefined) return size + recorded.headerBytes
  const { headers } = recorded
  for (const name in headers) {
    const value = headers[name]
    size += name.length + (typeof value === 'string' ? value.length : (value?.join('').length ?? 0))
  }
  return size
}

function toEntry(id: number, recorded: Answered, label: (key: string) => TenantLabel | null): JournalEntry {
  const target = parseTarget(recorded.target)
  // Object.fromEntries defines each name as an own property: a name such as __proto__ is only data.
  const params = new URLSearchParams(target?.query ?? '')
  const query: Record<string, string | string[]> = Object.fromEntries(
    [...new Set(params.keys())].map((name) => {
      const values = params.getAll(name)
      return [name, values.length === 1 ? (values[0] ?? '') : values]
    }),
  )
  const headers: Record<string, string> = Object.fromEntries(
    Object.entries(recorded.headers).flatMap(([name, value]) => {
      if (value === undefined) return []
      const text = typeof value === 'string' ? value : value.join(', ')
      return [[name, name === 'authorization' || name === 'proxy-authorization' ? redact(text) : text]]
    }),
  )
  const origin = target?.origin ?? `http://${header(recorded.headers, 'host') ?? 'localhost'}`
  return Object.freeze({
    id,
    time: new Date(recorded.time).toISOString(),
    operation: recorded.operation,
    method: recorded.method,
    url: target?.origin === undefined ? `${origin}${recorded.target}` : recorded.target,
    path: target?.path ?? recorded.target,
    query,
    headers,
    body: recorded.body,
    status: recorded.status,
    durationMs: Math.round(recorded.durationMs * 100) / 100,
    ...tenantOf(recorded.tenant === undefined ? null : label(recorded.tenant)),
    forwarded: recorded.forwarded === true,
    violations: [...(recorded.violations ?? [])],
    heldMs: recorded.heldMs === undefined ? null : Math.round(recorded.heldMs * 100) / 100,
    recorded:
      recorded.recorded === undefined
        ? null
        : { pets: recorded.recorded.pets, refused: [...recorded.recorded.refused] },
    moreViolations: recorded.moreViolations === true,
  })
}

function tenantOf(shown: TenantLabel | null): { tenant: string | null; tenantHue: number | null } {
  return { tenant: shown?.label ?? null, tenantHue: shown?.hue ?? null }
}

/** Keeps a scheme visible (a wrong scheme is a common mistake); a credential, never. */
function redact(value: string): string {
  const match = /^(\S+)\s+\S/.exec(value.trim())
  return match === null ? '[redacted]' : `${match[1] ?? ''} [redacted]`
}

/** Whether an entry has every field a filter gives; the method in any case. */
export function matchesFilter(entry: JournalEntry, filter: JournalFilter): boolean {
  return (
    (filter.operation === undefined || entry.operation === (filter.operation === 'none' ? null : filter.operation)) &&
    (filter.method === undefined || entry.method === filter.method.toUpperCase()) &&
    (filter.status === undefined || entry.status === filter.status)
  )
}
