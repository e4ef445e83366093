/**
 * The one place an answered API request is recorded: the traffic counters, the journal, and the
 * event stream (the request itself, and a change of the key's pets when a write succeeded on the
 * sandbox's own data). Recording sits on every request's path: the journal keeps references, and
 * nothing is built for the event stream when no one reads it.
 *
 * May import: core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import type { Counters } from './counters.js'
import type { EventBus } from './events.js'
import type { Recorded, WritableJournal } from './request-journal.js'
import type { Tenants } from './tenants.js'

export interface Recorder {
  /** Records one answered request; `changed`: it wrote the sandbox's own pet data (a create that succeeded, not forwarded). */
  record(recorded: Recorded, changed: boolean): void
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
      counters.record(recorded.status, Date.now())
      if (!journal.enabled) return
      const kept = journal.record(recorded)
      if (!events.listening()) return
      const entry = kept ? journal.last() : undefined
      if (entry !== undefined) events.emit({ type: 'request', key: recorded.tenant, entry })
      if (changed) events.emit({ type: 'change', key: tenants.of(recorded.tenant).scope })
    },
  }
}
