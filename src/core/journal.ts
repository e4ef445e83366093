/**
 * The request journal: what clients actually sent and what they got, newest last, bounded so
 * a long demo never grows without limit (the oldest entries are dropped).
 *
 * Recording keeps references only (the headers object, the body, the target); entries are
 * built when someone reads the journal. Recording sits on every request's path, reading rarely.
 *
 * May import: other core files, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import type { JournalEntry } from './admin-contract.js'
import { header, type RequestHeaders } from './http.js'
import type { OperationId } from './scenarios.js'
import { parseTarget } from './target.js'

export const DEFAULT_JOURNAL_LIMIT = 1000

export type { JournalEntry }

export interface JournalFilter {
  operation?: OperationId | null
  method?: string
  status?: number
}

export interface RequestJournal {
  /** Every recorded request, oldest first. */
  all(): JournalEntry[]
  /** The recorded requests matching every given field. */
  filter(filter: JournalFilter): JournalEntry[]
  /** The newest recorded request, if any. */
  last(): JournalEntry | undefined
  clear(): void
}

/** What the core hands over per request: cheap to take, turned into a JournalEntry on reading. */
export interface Recorded {
  /** Epoch milliseconds on the sandbox's clock. */
  readonly time: number
  readonly operation: OperationId | null
  readonly method: string
  readonly target: string
  readonly headers: RequestHeaders
  readonly body: unknown
  readonly status: number
  readonly durationMs: number
  /** The key the request authenticated with, if it did. */
  readonly tenant: string | undefined
}

export interface WritableJournal extends RequestJournal {
  /** False when the limit is 0: callers can skip recording at all. */
  readonly enabled: boolean
  record(recorded: Recorded): void
  /** Entries recorded for one tenant's key (isolated mode). */
  forTenant(tenant: string): JournalEntry[]
  /** Drops one tenant's entries. */
  clearTenant(tenant: string): void
}

interface Item {
  readonly id: number
  readonly recorded: Recorded
  entry?: JournalEntry
}

/** `label` names a tenant's key in entries: masked in isolated mode, null when there is one tenant. */
export function createJournal(limit: number, label: (key: string) => string | null = () => null): WritableJournal {
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new TypeError(`Failed to create the sandbox: journalLimit must be a whole number, got ${limit}`)
  }
  let items: Item[] = []
  let nextId = 1
  const entryOf = (item: Item): JournalEntry => (item.entry ??= toEntry(item.id, item.recorded, label))
  const kept = () => items.slice(-limit)
  const matches = (entry: JournalEntry, filter: JournalFilter) =>
    (filter.operation === undefined || entry.operation === filter.operation) &&
    (filter.method === undefined || entry.method === filter.method.toUpperCase()) &&
    (filter.status === undefined || entry.status === filter.status)

  return {
    enabled: limit > 0,
    record(recorded) {
      if (limit === 0) return
      items.push({ id: nextId++, recorded })
      // Trim in batches: one splice per overflow would make every request O(limit).
      if (items.length > limit * 1.25 + 1) items = items.slice(-limit)
    },
    all: () => kept().map(entryOf),
    filter: (filter) =>
      kept()
        .map(entryOf)
        .filter((entry) => matches(entry, filter)),
    last: () => {
      const item = items.at(-1)
      return item === undefined ? undefined : entryOf(item)
    },
    forTenant: (tenant) => kept().flatMap((item) => (item.recorded.tenant === tenant ? [entryOf(item)] : [])),
    clear() {
      items = []
    },
    clearTenant(tenant) {
      items = items.filter((item) => item.recorded.tenant !== tenant)
    },
  }
}

function toEntry(id: number, recorded: Recorded, label: (key: string) => string | null): JournalEntry {
  const target = parseTarget(recorded.target)
  const query: Record<string, string | string[]> = {}
  const params = new URLSearchParams(target?.query ?? '')
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name)
    query[name] = values.length === 1 ? (values[0] ?? '') : values
  }
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(recorded.headers)) {
    if (value === undefined) continue
    const text = typeof value === 'string' ? value : value.join(', ')
    headers[name] = name === 'authorization' || name === 'proxy-authorization' ? redact(text) : text
  }
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
    tenant: recorded.tenant === undefined ? null : label(recorded.tenant),
  })
}

/** Keeps a scheme visible (a wrong scheme is a common mistake); a credential, never. */
function redact(value: string): string {
  const match = /^(\S+)\s+\S/.exec(value.trim())
  return match === null ? '[redacted]' : `${match[1] ?? ''} [redacted]`
}
