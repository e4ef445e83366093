/**
 * THE budget table: every resource that grows with what clients send has one row here, and the
 * code enforces it from here. The health route reports each budget beside its current use, the
 * CLI's `--limit name=value` and the `limits` option set them, and the README's Limits table is
 * this table (test/limits.test.ts holds the two equal).
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */

type LimitUnit = 'bytes' | 'count' | 'ms' | 'characters' | 'levels'

export interface Limit {
  readonly value: number
  readonly unit: LimitUnit
  /** The smallest and largest values a user may set; equal when the limit is fixed. */
  readonly min: number
  readonly max: number
  /** What the budget bounds, for the docs. */
  readonly what: string
  /** What a client meets past it. */
  readonly beyond: string
  /** Enforced by the HTTP server only (sockets, timeouts); in-process there is nothing to bound. */
  readonly serverOnly?: boolean
}

const KiB = 1024
const MiB = 1024 * KiB

export const LIMITS = {
  bodyBytes: {
    value: 16 * KiB,
    unit: 'bytes',
    min: 1,
    max: 64 * MiB,
    what: 'request body, API and admin routes',
    beyond: '413 `payload_too_large`, judged from `Content-Length` before reading',
  },
  stateBytes: {
    // The largest import parsed in slices with no step over 50 ms on this project's 2-core machine
    // (measured with a one-off script, bench/budgets.mjs, removed after 0.9.1; the figures are in
    // docs/performance.md, commits 4b86bea and 9c7f1bb): 16 MiB stalled for 58-90 ms, in its last
    // steps and its GC.
    value: 8 * MiB,
    unit: 'bytes',
    min: 1,
    max: 256 * MiB,
    what: 'state import body (`PUT /__sandbox/state`)',
    beyond: '413 `payload_too_large`',
  },
  largeBodies: {
    value: 1,
    unit: 'count',
    min: 1,
    max: 16,
    what: 'state imports read and parsed at once',
    beyond: '503 `service_unavailable`, `Retry-After: 1`, body not read',
  },
  unreadBodyBytes: {
    value: 64 * KiB,
    unit: 'bytes',
    min: 0,
    max: 16 * MiB,
    what: 'unread body of a refused request that is read and dropped to keep the connection',
    beyond: 'the answer says `Connection: close` and the connection is closed',
    serverOnly: true,
  },
  lingerMs: {
    value: 2_000,
    unit: 'ms',
    min: 0,
    max: 60_000,
    what: 'a connection closed on an unread body keeps reading and dropping it, so the client reads its answer; an ended event stream may take its last bytes',
    beyond: 'cut',
    serverOnly: true,
  },
  targetLength: {
    value: 8 * KiB,
    unit: 'characters',
    min: 8 * KiB,
    max: 8 * KiB,
    what: 'request target',
    beyond: '414 `uri_too_long`',
  },
  jsonDepth: {
    value: 100,
    unit: 'levels',
    min: 100,
    max: 100,
    what: 'JSON nesting of arrays and objects',
    beyond: '400, "nested too deeply"',
  },
  tenants: {
    value: 1000,
    unit: 'count',
    min: 2,
    max: 1_000_000,
    what: "tenants (`--isolate`), the default key's included",
    beyond: 'the least recently used idle one is evicted; when all are busy, 503 with `Retry-After: 1`',
  },
  createdPetsPerTenant: {
    value: 1_000_000,
    unit: 'count',
    min: 0,
    max: 100_000_000,
    what: 'pets one tenant creates between two resets',
    beyond: '507 `insufficient_storage`',
  },
  createdPets: {
    value: 2_000_000,
    unit: 'count',
    min: 0,
    max: 100_000_000,
    what: 'pets created in all tenants together, since their resets',
    beyond: '507 `insufficient_storage`',
  },
  scenarios: {
    value: 100,
    unit: 'count',
    min: 100,
    max: 100,
    what: 'scenarios at once (per key, and shared)',
    beyond: '400 `invalid_body`',
  },
  holds: {
    // take() looks through the holds on every pet call while any exists: a script that adds holds
    // in a loop must not make every call slower without end.
    value: 100,
    unit: 'count',
    min: 100,
    max: 100,
    what: 'holds at once (`POST /__sandbox/holds`), across keys',
    beyond: '400 `invalid_body`',
  },
  checkpoints: {
    value: 20,
    unit: 'count',
    min: 0,
    max: 1000,
    what: 'checkpoints one tenant keeps (`POST /__sandbox/checkpoints`)',
    beyond: '507 `insufficient_storage`',
  },
  checkpointBytes: {
    // A checkpoint is a copy of the data: the 32 seeded pets weigh about 2 KB, a million generated ones about 80 MB.
    value: 64 * MiB,
    unit: 'bytes',
    min: 0,
    max: 1024 * MiB,
    what: "checkpoints of all tenants together, weighed as their data's JSON",
    beyond: '507 `insufficient_storage`',
  },
  delayMs: {
    value: 60_000,
    unit: 'ms',
    min: 60_000,
    max: 60_000,
    what: 'one delay (`--delay`, `delayMs`, `Prefer: delay`)',
    beyond: '400 (refused at start for `--delay`)',
  },
  journalEntries: {
    value: 1000,
    unit: 'count',
    min: 0,
    max: 1_000_000,
    what: 'journal entries',
    beyond: 'the oldest are dropped',
  },
  journalBytes: {
    value: 8 * MiB,
    unit: 'bytes',
    min: 0,
    max: 1024 * MiB,
    what: 'journal size (targets, headers and bodies kept)',
    beyond: 'the oldest entries are dropped',
  },
  listCacheBytes: {
    value: 16 * MiB,
    unit: 'bytes',
    min: 0,
    max: 1024 * MiB,
    what: '`listPets` answers kept for repeated polls, all tenants together',
    beyond: 'the least recently used answers are dropped and built again when asked',
  },
  eventStreams: {
    value: 16,
    unit: 'count',
    min: 0,
    max: 10_000,
    what: 'event stream readers at once (`/__sandbox/events`, the dashboard)',
    beyond: '503 `service_unavailable` with `Retry-After: 5`',
  },
  eventBacklogBytes: {
    value: 1 * MiB,
    unit: 'bytes',
    min: 1 * KiB,
    max: 256 * MiB,
    what: "one event stream reader's unsent bytes",
    beyond: 'a last `overflow` event, then the stream is closed (cut after `lingerMs` if that is not taken)',
  },
  connections: {
    value: 1000,
    unit: 'count',
    min: 1,
    max: 100_000,
    what: 'open connections',
    beyond: 'a new connection is closed at once',
    serverOnly: true,
  },
  headersTimeoutMs: {
    value: 10_000,
    unit: 'ms',
    min: 1,
    max: 600_000,
    what: 'time to send the request line and headers',
    beyond: '408 `request_timeout`, connection closed',
    serverOnly: true,
  },
  requestTimeoutMs: {
    value: 30_000,
    unit: 'ms',
    min: 1,
    max: 600_000,
    what: 'time to send a whole request, body included',
    beyond: '408 `request_timeout`, connection closed',
    serverOnly: true,
  },
  keepAliveTimeoutMs: {
    value: 5_000,
    unit: 'ms',
    min: 1,
    max: 600_000,
    what: 'an idle keep-alive connection',
    beyond: 'closed',
    serverOnly: true,
  },
  shutdownTimeoutMs: {
    value: 5_000,
    unit: 'ms',
    min: 0,
    max: 600_000,
    what: 'requests in flight at Ctrl-C or SIGTERM',
    beyond: 'cut',
    serverOnly: true,
  },
  parentWatchMs: {
    // A read of /proc per look: nothing to weigh. The npx that started the server may be gone a
    // second before the server says so and stops (node/parent-watch.ts).
    value: 1_000,
    unit: 'ms',
    min: 0,
    max: 600_000,
    what: 'started by `npx`: how often it looks whether npx is still there; 0 never looks',
    beyond: 'npx gone: the server stops as on SIGTERM',
    serverOnly: true,
  },
  upstreamTimeoutMs: {
    value: 10_000,
    unit: 'ms',
    min: 1,
    max: 600_000,
    what: 'one forwarded request to `--upstream`, connecting included',
    beyond: '504 `gateway_timeout`',
    serverOnly: true,
  },
  upstreamBodyBytes: {
    value: 1 * MiB,
    unit: 'bytes',
    min: 1 * KiB,
    max: 64 * MiB,
    what: "a forwarded answer's body",
    beyond: '502 `bad_gateway`',
    serverOnly: true,
  },
  upstreamRequests: {
    // Each holds a socket and up to upstreamBodyBytes: 64 MiB at most with the defaults. It also
    // ends a forwarding loop (a sandbox that reaches itself): each turn holds one until the last is refused.
    value: 64,
    unit: 'count',
    min: 1,
    max: 10_000,
    what: 'forwarded requests waiting for the upstream at once',
    beyond: '503 `service_unavailable`, `Retry-After: 1`',
    serverOnly: true,
  },
  heldRequests: {
    // Each holds its request (and, over HTTP, a socket) until a test releases it: a test that
    // forgets one must not grow the process.
    value: 100,
    unit: 'count',
    min: 1,
    max: 10_000,
    what: 'API requests waiting in holds at once (`POST /__sandbox/holds`)',
    beyond: '503 `service_unavailable`, `Retry-After: 1`, answered at once',
  },
  contractProblems: {
    // A relayed list of 12,000 bad pets would otherwise be checked, described and kept in full per
    // answer: 32 clients relaying such lists took the process from 55 MB to 930 MB (issue 27).
    value: 20,
    unit: 'count',
    min: 20,
    max: 20,
    what: "problems the contract check names per answer (`--upstream`'s relayed answers, `verify`'s rows)",
    beyond: 'the check stops; the count reads `20+`',
  },
  stateSaveIntervalMs: {
    // Every write would otherwise be a write to disk: one save a second keeps a burst to one file write.
    value: 1_000,
    unit: 'ms',
    min: 10,
    max: 600_000,
    what: '`--state-file`: the least time between two saves after changes',
    beyond: 'later changes go into the next save',
    serverOnly: true,
  },
  stateLockStaleMs: {
    // A restarted container's process has a new PID namespace, where a pid says nothing: it
    // judges the lock by the mtime its holder touches every quarter of this (node/state-lock.ts).
    value: 4_000,
    unit: 'ms',
    min: 100,
    max: 600_000,
    what: "`--state-file`: how long a lock from another PID namespace (another container's) may go untouched before it is taken over; its holder touches it every quarter of this",
    beyond: 'the lock is taken over: its holder is gone',
    serverOnly: true,
  },
  noticeWindowMs: {
    value: 10_000,
    unit: 'ms',
    min: 1,
    max: 3_600_000,
    what: 'log: repeats of one notice (evictions, overflows, dropped clients)',
    beyond: 'the first is logged, the rest counted in one line per window',
  },
} as const satisfies Record<string, Limit>

export type LimitName = keyof typeof LIMITS
export type Limits = Readonly<Record<LimitName, number>>
export const LIMIT_NAMES = Object.keys(LIMITS) as LimitName[]

/** Thrown for a limit that does not exist or a value outside its range; the message says which. */
export class LimitError extends TypeError {
  override readonly name = 'LimitError'
}

export function isLimitName(name: string): name is LimitName {
  return Object.hasOwn(LIMITS, name)
}

/** The table's defaults with the given values on top, each checked against its range. */
export function resolveLimits(overrides: Readonly<Partial<Record<string, number | undefined>>> = {}): Limits {
  const limits = {} as Record<LimitName, number>
  for (const name of LIMIT_NAMES) limits[name] = LIMITS[name].value
  const problems: string[] = []
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) continue
    if (!isLimitName(name)) {
      problems.push(`${name} is not a limit; the limits are ${LIMIT_NAMES.join(', ')}`)
      continue
    }
    const { min, max } = LIMITS[name]
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      problems.push(
        min === max
          ? `${name} is fixed at ${min}, got ${value}`
          : `${name} must be a whole number from ${min} to ${max}, got ${value}`,
      )
      continue
    }
    limits[name] = value
  }
  if (problems.length > 0) throw new LimitError(`Failed to create the sandbox: ${problems.join('; ')}`)
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new LimitError(
      `Failed to create the sandbox: headersTimeoutMs (${limits.headersTimeoutMs}) must not exceed requestTimeoutMs (${limits.requestTimeoutMs})`,
    )
  }
  return Object.freeze(limits)
}

/**
 * A value as `--limit` takes it: a whole number, or with a unit its row allows
 * (`16KiB`, `8MiB`, `1GiB` for bytes; `500ms`, `30s` for times).
 */
export function parseLimitValue(name: LimitName, text: string): number | undefined {
  const match = /^(\d+)\s*([A-Za-z]*)$/.exec(text.trim())
  if (match === null) return undefined
  const number = Number(match[1])
  const suffix = (match[2] ?? '').toLowerCase()
  if (suffix === '') return number
  const scale =
    LIMITS[name].unit === 'bytes'
      ? { b: 1, kib: KiB, mib: MiB, gib: 1024 * MiB }[suffix]
      : LIMITS[name].unit === 'ms'
        ? { ms: 1, s: 1000 }[suffix]
        : undefined
  return scale === undefined ? undefined : number * scale
}
