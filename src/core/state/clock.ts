/**
 * The sandbox's clock. With `now` given, time starts there and runs on from it, so a demo can
 * rehearse the day after getPet's sunset while everything else (uptime, delays) stays real.
 *
 * May import: core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
/** Epoch milliseconds on the sandbox's clock: a number, so no request makes a Date it does not need. */
export type Clock = () => number

export function createClock(now: Date | string | undefined): Clock {
  if (now === undefined) return Date.now
  const start = typeof now === 'string' ? new Date(now) : now
  const offset = start.getTime() - Date.now()
  return () => Date.now() + offset
}
