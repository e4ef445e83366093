/**
 * The one place an answered API request is written down: the traffic counters, the journal, and
 * the event stream (the request itself, and a change of the key's pets when a write succeeded on
 * the sandbox's own data). It sits on every request's path: the journal keeps references, and
 * nothing is built for the event stream when no one reads it. ("Record" is --record's word, the
 * pets of a forwarded answer kept: api/record.ts. The interface keeps api-call.ts's names,
 * `Recorder` and `record`, until that file is free to take `JournalWriter` and `write`.)
 *
 * May import: core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import type { Counters } from './counters.js'
import type { EventBus } from './events.js'
import type { Answered, WritableJournal } from './request-journal.js'
import type { Tenants } from './tenants.js'

export interface Recorder {
  /** Records one answered request; `changed`: it wrote the sandbox's own pet data (a create that succeeded, not forwarded). */
  record(recorded: Answered, changed: boolean): void
}

export function createRecorder(parts: {
  readonly counters: Counters
  readonly journal: WritableJournal
  readonly events: EventBus
  readonly tenants: Tenants
}): Recorder {
  const { counters, journal, events, tenants } = parts
  return {
    record(recorded, changed) {
      counters.count(recorded.status, Date.now())
      if (!journal.enabled) return
      const kept = journal.add(recorded)
      if (!events.listening()) return
      const entry = kept ? journal.last() : undefined
      if (entry !== undefined) events.emit({ type: 'request', key: recorded.tenant, entry })
      if (changed) events.emit({ type: 'change', key: tenants.of(recorded.tenant).scope })
    },
  }
}
