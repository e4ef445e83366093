/**
 * Requests per second by status class over the last five minutes: what the dashboard's chart
 * draws. The journal keeps 1,000 entries, which minutes of traffic outrun; these counters keep
 * 300 seconds in a ring, four numbers each, whatever the rate. Their classes are statusClass's,
 * which the terminal's access log and the dashboard's journal colour by too: it imports nothing, so
 * the dashboard's bundle takes it as it is.
 *
 * May import: nothing.
 */

/**
 * A status's class, the one bucketing of statuses: 2 to 5 (2xx to 5xx). A status below 200 counts
 * as 2xx and one past 599 as 5xx, so four classes hold every answer the journal can show.
 */
export function statusClass(status: number): 2 | 3 | 4 | 5 {
  return Math.min(Math.max(Math.floor(status / 100), 2), 5) as 2 | 3 | 4 | 5
}

export const COUNTER_SECONDS = 300

interface SecondCounts {
  /** Epoch seconds. */
  readonly t: number
  readonly c2xx: number
  readonly c3xx: number
  readonly c4xx: number
  readonly c5xx: number
}

export interface Counters {
  count(status: number, nowMs: number): void
  /** The last COUNTER_SECONDS seconds up to now, oldest first, empty seconds as zeros. */
  series(nowMs: number): SecondCounts[]
}

export function createCounters(): Counters {
  // Slot i holds second `seconds[i]`; a slot whose second has passed out of the window is stale.
  const seconds = new Float64Array(COUNTER_SECONDS).fill(-1)
  const counts = new Uint32Array(COUNTER_SECONDS * 4)
  return {
    count(status, nowMs) {
      const second = Math.floor(nowMs / 1000)
      const slot = second % COUNTER_SECONDS
      if (seconds[slot] !== second) {
        seconds[slot] = second
        counts.fill(0, slot * 4, slot * 4 + 4)
      }
      const kind = statusClass(status) - 2
      counts[slot * 4 + kind] = (counts[slot * 4 + kind] ?? 0) + 1
    },
    series(nowMs) {
      const now = Math.floor(nowMs / 1000)
      const series: SecondCounts[] = []
      for (let t = now - COUNTER_SECONDS + 1; t <= now; t++) {
        const slot = t % COUNTER_SECONDS
        const live = seconds[slot] === t
        const at = (kind: number) => (live ? (counts[slot * 4 + kind] ?? 0) : 0)
        series.push({ t, c2xx: at(0), c3xx: at(1), c4xx: at(2), c5xx: at(3) })
      }
      return series
    },
  }
}
