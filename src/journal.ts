/**
 * The request journal: what clients actually sent and what they got, newest last, bounded so
 * a long demo never grows without limit (the oldest entries are dropped).
 */

export const DEFAULT_JOURNAL_LIMIT = 1000

export interface JournalEntry {
  /** Increases by one per recorded request, across drops. */
  readonly id: number
  readonly time: string
  /** listPets, createPet or getPet; null for requests that matched no operation. */
  readonly operation: string | null
  readonly method: string
  readonly url: string
  readonly path: string
  readonly query: Readonly<Record<string, string | string[]>>
  /** Request headers, with the Authorization credential redacted. */
  readonly headers: Readonly<Record<string, string>>
  /** The body parsed as JSON, its text when it is not JSON, or null when there was none. */
  readonly body: unknown
  readonly status: number
  readonly durationMs: number
}

export interface JournalFilter {
  operation?: string | null
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

export interface WritableJournal extends RequestJournal {
  /** False when the limit is 0: callers can skip building entries at all. */
  readonly enabled: boolean
  record(entry: Omit<JournalEntry, 'id'>, tenant: string | undefined): void
  /** Entries recorded for one tenant's key (isolated mode). */
  forTenant(tenant: string): JournalEntry[]
  /** Drops one tenant's entries. */
  clearTenant(tenant: string): void
}

export function createJournal(limit: number): WritableJournal {
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new TypeError(`Failed to create the sandbox: journalLimit must be a whole number, got ${limit}`)
  }
  let entries: { entry: JournalEntry; tenant: string | undefined }[] = []
  let nextId = 1
  const matches = (entry: JournalEntry, filter: JournalFilter) =>
    (filter.operation === undefined || entry.operation === filter.operation) &&
    (filter.method === undefined || entry.method === filter.method.toUpperCase()) &&
    (filter.status === undefined || entry.status === filter.status)

  return {
    enabled: limit > 0,
    record(entry, tenant) {
      if (limit === 0) return
      entries.push({ entry: Object.freeze({ id: nextId++, ...entry }), tenant })
      // Trim in batches: one splice per overflow would make every request O(limit).
      if (entries.length > limit * 1.25 + 1) entries = entries.slice(-limit)
    },
    all: () => entries.slice(-limit).map(({ entry }) => entry),
    filter: (filter) => entries.slice(-limit).flatMap(({ entry }) => (matches(entry, filter) ? [entry] : [])),
    last: () => entries.at(-1)?.entry,
    forTenant: (tenant) => entries.slice(-limit).flatMap((item) => (item.tenant === tenant ? [item.entry] : [])),
    clear() {
      entries = []
    },
    clearTenant(tenant) {
      entries = entries.filter((item) => item.tenant !== tenant)
    },
  }
}
