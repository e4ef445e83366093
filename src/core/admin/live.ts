/**
 * What the dashboard watches live: the event stream (each API request, each change of a tenant's
 * pets, each checkpoint saved or deleted) and the traffic counters. A reader past eventStreams is
 * refused (503); one whose unsent bytes pass eventBacklogBytes gets a last `overflow` event and is
 * closed; a comment line every 15 s keeps a quiet connection open.
 *
 * May import: core/admin, core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { ApiError } from '../http/errors.js'
import type { CoreResponse, EventStream } from '../http/http.js'
import type { Limits } from '../limits.js'
import { COUNTER_SECONDS, type Counters } from '../state/counters.js'
import type { EventBus, SandboxEvent } from '../state/events.js'
import type { Notices } from './notices.js'
import type { Tenants } from '../state/tenants.js'

export interface LiveControls {
  /** The event stream of a key's tenant (isolated mode), or of everyone; 503 past eventStreams. */
  events(key: string | undefined): CoreResponse
  /** API requests per second by status class, oldest first. */
  traffic(now: number): { seconds: number; now: number; series: ReturnType<Counters['series']> }
}

interface LiveParts {
  readonly events: EventBus
  readonly counters: Counters
  readonly tenants: Tenants
  readonly limits: Limits
  readonly notices: Notices
}

export function createLiveControls(parts: LiveParts): LiveControls {
  const { events, tenants, limits, notices } = parts
  // The same text for every reader: made once per event by the bus.
  const format = (event: SandboxEvent): string => {
    const tenant = event.key === undefined ? null : (tenants.handleOf(event.key) ?? null)
    const tenantId = tenants.of(event.key).scope === undefined ? null : tenant
    const data = event.type === 'request' ? { ...event.entry, tenantId } : { tenant }
    return `event: ${event.type}\ndata: ${JSON.stringify(data)}\n\n`
  }
  return {
    events(key) {
      const { eventStreams } = limits
      if (events.count() >= eventStreams) {
        notices.notice('busy', `refused an event stream reader: ${eventStreams} are reading already`)
        throw new ApiError(
          'service_unavailable',
          `The sandbox serves at most ${eventStreams} event stream readers at once (the eventStreams limit); close one or try again later`,
          { 'Retry-After': '5' },
        )
      }
      const body = eventStream(parts, tenants.of(key).scope, format)
      return {
        status: 200,
        headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store' },
        body,
      }
    },
    traffic: (now) => ({ seconds: COUNTER_SECONDS, now, series: parts.counters.series(now) }),
  }
}

/** One reader's stream: the events of its scope (all, with none), pings, and the backlog rule. */
function eventStream(
  { events, limits, notices }: LiveParts,
  scoped: string | undefined,
  format: (event: SandboxEvent) => string,
): EventStream {
  const { eventBacklogBytes } = limits
  return {
    open(send, end) {
      let open = true
      const subscription = events.subscribe((event) => {
        if (scoped !== undefined && event.key !== undefined && event.key !== scoped) return
        deliver(events.text(event, format))
      })
      const ping = setInterval(() => {
        deliver(': ping\n\n')
      }, 15_000)
      // Unsubscribe and stop pinging in the same step as the end: nothing is sent after it.
      function close(): void {
        if (!open) return
        open = false
        subscription.stop()
        clearInterval(ping)
      }
      function deliver(text: string): void {
        if (!open) return
        const backlog = send(text)
        subscription.backlog = backlog
        if (backlog <= eventBacklogBytes) return
        send(`event: overflow\ndata: ${JSON.stringify({ backlogBytes: backlog, budgetBytes: eventBacklogBytes })}\n\n`)
        close()
        end()
        notices.notice(
          'overflow',
          `closed an event stream reader that fell ${backlog} bytes behind (eventBacklogBytes ${eventBacklogBytes})`,
        )
      }
      deliver(': connected\n\n')
      return close
    },
  }
}
