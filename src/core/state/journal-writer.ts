/**
 * The one place an answered API request is written down: the traffic counters, the journal, and
 * the event stream (the request itself, and a change of the key's pets when a write succeeded on
 * the sandbox's own data). It sits on every request's path: the journal keeps references, and
 * nothing is built for the event stream when no one reads it. ("Record" is --record's word only,
 * the pets of a forwarded answer kept: api/record.ts.)
 *
 * May import: core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import type { Counters } from './counters.js'
import type { EventBus } from './events.js'
import type { Answered, WritableJournal } from './request-journal.js'
import type { Tenants } from './tenants.js'

export interface JournalWriter {
  /** Writes one answered request down; `changed`: it wrote the sandbox's own pet data (a create that succeeded, not forwarded). */
  write(answered: Answered, changed: boolean): void
}

export function createJournalWriter(parts: {
  readonly counters: Counters
  readonly journal: WritableJournal
  readonly events: EventBus
  readonly tenants: Tenants
}): JournalWriter {
  const { counters, journal, events, tenants } = parts
  return {
    write(answered, changed) {
      counters.count(answered.status, Date.now())
      if (!journal.enabled) return
      const kept = journal.add(answered)
      if (!events.listening()) return
      const entry = kept ? journal.last() : undefined
      if (entry !== undefined) events.emit({ type: 'request', key: answered.tenant, entry })
      if (changed) events.emit({ type: 'change', key: tenants.of(answered.tenant).scope })
    },
  }
}
