/**
 * Waiting, the browser-safe way.
 *
 * May import: other core files, zod, lossless-json, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */

// Unref'd where the platform allows: a delayed answer must not keep a closed server's process alive.
export function sleep(ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer: unknown = setTimeout(resolve, ms)
    if (typeof timer === 'object' && timer !== null && 'unref' in timer && typeof timer.unref === 'function') {
      ;(timer as { unref: () => void }).unref()
    }
  })
}
