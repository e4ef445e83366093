/**
 * The waits of one sandbox: `--delay`, a scenario's `delayMs`, `Prefer: delay`. A pending wait
 * keeps the process alive, so a delayed answer arrives in a plain Node script as in a test
 * runner; a shutdown cuts every pending wait at once, so nothing outlives it.
 *
 * May import: core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */

export interface Delays {
  /** Resolves after `ms`, or at once when the waits are cut. */
  sleep(ms: number): Promise<void>
  /** Ends every pending wait now (their requests go on and answer); later waits still wait. */
  cut(): void
}

export function createDelays(): Delays {
  const waiting = new Map<ReturnType<typeof setTimeout>, () => void>()
  return {
    sleep(ms) {
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(timer)
          resolve()
        }, ms)
        waiting.set(timer, resolve)
      })
    },
    cut() {
      for (const [timer, resolve] of waiting) {
        clearTimeout(timer)
        resolve()
      }
      waiting.clear()
    },
  }
}
