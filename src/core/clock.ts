/**
 * The sandbox's clock. With `now` given, time starts there and runs on from it, so a demo can
 * rehearse the day after getPet's sunset while everything else (uptime, delays) stays real.
 *
 * May import: other core files, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
export type Clock = () => Date

export function createClock(now: Date | string | undefined): Clock {
  if (now === undefined) return () => new Date()
  const start = typeof now === 'string' ? new Date(now) : now
  if (Number.isNaN(start.getTime())) {
    throw new TypeError(
      `Failed to create the sandbox: now ${JSON.stringify(String(now))} is not a date. Use ISO 8601, e.g. 2031-01-01T00:00:00Z.`,
    )
  }
  const offset = start.getTime() - Date.now()
  return () => new Date(Date.now() + offset)
}
