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

/** A day, then optionally a time and optionally its zone: the ISO 8601 forms the sandbox reads. */
const ISO_DATE = /^(\d{4}-\d{2}-\d{2})(T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/

/**
 * Whether a text is an ISO 8601 date whose day exists: Date.parse rolls 2031-02-30 over into
 * March, so the day is checked against the one it parses to. `instant`: a date and time with its
 * zone, as the sandbox writes them (`2026-11-25T09:30:01.000Z`: a state's savedAt); otherwise a day
 * alone (`2031-01-01`) or a time without a zone passes too (the `now` option). The one rule for
 * every date the sandbox reads.
 */
export function isIsoDate(value: string, instant: boolean): boolean {
  const match = ISO_DATE.exec(value)
  const day = match?.[1]
  if (day === undefined || (instant && match?.[3] === undefined)) return false
  return !Number.isNaN(Date.parse(value)) && new Date(`${day}T00:00:00Z`).toISOString().startsWith(day)
}
