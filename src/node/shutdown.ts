/**
 * A clean close: the requests in flight, counted so a shutdown can wait for them, and the order in
 * which a shutdown lets go of what the server holds, bounded by `shutdownTimeoutMs`.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { once } from 'node:events'
import type { Server, ServerResponse } from 'node:http'
import type { Notices } from '../core/admin/notices.js'
import type { SandboxCore } from '../core/sandbox.js'

/** The requests being answered, so a shutdown can wait for them, and the event streams it ends at once. */
export interface Flight {
  /** Counts a request in flight, until `end` (its response closed). */
  begin(response: ServerResponse): void
  end(response: ServerResponse): void
  /** The response is an event stream: no request to wait for; `end` closes it at shutdown. */
  stream(response: ServerResponse, end: () => void): void
  count(): number
  closing(): boolean
  /**
   * Marks the flight closing (answers from now on close their connection), ends the event streams,
   * then resolves when nothing is in flight, or after `ms`, whichever comes first.
   */
  closeAndWait(ms: number): Promise<void>
}

export function createFlight(): Flight {
  let count = 0
  let closing = false
  let onIdle: (() => void) | undefined
  const streams = new Map<ServerResponse, () => void>()
  const done = () => {
    count--
    if (count === 0) onIdle?.()
  }
  return {
    begin() {
      count++
    },
    end(response) {
      if (streams.delete(response)) return
      done()
    },
    stream(response, end) {
      streams.set(response, end)
      done()
    },
    count: () => count,
    closing: () => closing,
    closeAndWait(ms) {
      closing = true
      for (const end of [...streams.values()]) end()
      if (count === 0) return Promise.resolve()
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, ms)
        onIdle = () => {
          clearTimeout(timer)
          resolve()
        }
      })
    },
  }
}

/** What a shutdown ends besides the server: held calls and delays, the requests in flight, the notices. */
interface ShutdownParts {
  readonly sandbox: Pick<SandboxCore, 'releaseHolds' | 'cutDelays'>
  readonly flight: Flight
  readonly notices: Pick<Notices, 'flush'>
}

/**
 * Stops accepting connections, lets the requests in flight finish within `timeoutMs`, then cuts
 * the connections still open and flushes the notices.
 */
export async function shutDown(server: Server, parts: ShutdownParts, timeoutMs: number): Promise<void> {
  const closed = once(server, 'close')
  server.close()
  server.closeIdleConnections()
  // Held calls answer now: nothing would release them while the server waits for its requests.
  parts.sandbox.releaseHolds()
  await parts.flight.closeAndWait(timeoutMs)
  // Past the bound: cut the connections still open, and answer the delays still pending into them.
  server.closeAllConnections()
  parts.sandbox.cutDelays()
  await closed
  parts.notices.flush()
}
