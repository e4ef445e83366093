/**
 * Notices the sandbox logs about events a client can repeat at will (a tenant evicted, an event
 * reader dropped, a client gone mid-request, a connection refused). The first of a kind is
 * logged as it is; the rest within the window are counted and told in one line when the window
 * ends, so key churn or a flood of resets costs a bounded number of lines.
 *
 * May import: core/admin, core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */

type NoticeKind = 'eviction' | 'overflow' | 'client-gone' | 'connection-refused' | 'busy'

export interface Notices {
  /** Logs `line`, or counts it when one of its kind was logged within the window. */
  notice(kind: NoticeKind, line: string): void
  /** Writes the pending summaries now (a shutdown). */
  flush(): void
}

const PLURAL: Readonly<Record<NoticeKind, string>> = {
  eviction: 'tenants evicted',
  overflow: 'event stream readers closed for falling behind',
  'client-gone': 'clients gone before their request was complete',
  'connection-refused': 'connections refused past the connection budget',
  busy: 'requests refused with 503 while every slot was busy',
}

export function createNotices(write: (line: string) => void, windowMs: number): Notices {
  const windows = new Map<NoticeKind, { count: number; timer: ReturnType<typeof setTimeout> }>()
  const close = (kind: NoticeKind) => {
    const open = windows.get(kind)
    if (open === undefined) return
    clearTimeout(open.timer)
    windows.delete(kind)
    if (open.count > 0) {
      write(`${open.count} more ${PLURAL[kind]} in the last ${Math.round(windowMs / 1000)} s`)
    }
  }
  return {
    notice(kind, line) {
      const open = windows.get(kind)
      if (open !== undefined) {
        open.count++
        return
      }
      write(line)
      const timer = setTimeout(() => {
        close(kind)
      }, windowMs)
      // A pending summary never keeps a process alive (Node); browsers have no unref.
      ;(timer as { unref?: () => void }).unref?.()
      windows.set(kind, { count: 0, timer })
    },
    flush() {
      for (const kind of [...windows.keys()]) close(kind)
    },
  }
}
