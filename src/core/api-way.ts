/**
 * What an API call holds on its way through its stages (api-call.ts runs them), what they share,
 * and the two waits a refused call waits out too: delay (--delay) and wait (a hold, until a test
 * releases it).
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import type { Commit } from './commit.js'
import type { Authenticate } from './api/auth.js'
import type { ApiOperation } from './api/exchange.js'
import type { Kept } from './api/record.js'
import type { TenantStore } from './api/store.js'
import type { Clock } from './state/clock.js'
import type { ForwardingState } from './state/forwarding-state.js'
import type { Caught, HoldBook } from './state/hold-book.js'
import type { JournalWriter } from './state/journal-writer.js'
import { simulatedFailure, type Simulation } from './state/scenarios.js'
import type { Tenants } from './state/tenants.js'
import type { BodySlots } from './http/body.js'
import { ApiError } from './http/errors.js'
import type { BodyRead, CoreRequest, CoreResponse } from './http/http.js'
import type { Match, RouteTable } from './http/routes.js'
import type { Target } from './http/target.js'
import type { Limits } from './limits.js'
import type { ForwardContext, ForwardRecord } from './upstream.js'

/** What every API call of one sandbox shares. */
export interface ApiContext {
  readonly table: RouteTable<ApiOperation>
  /** The API's endpoints, for the 404's message. */
  readonly endpoints: string
  readonly limits: Limits
  readonly authenticate: Authenticate
  readonly tenants: Tenants
  /** Each key its own data (--isolate): what a forwarded answer is recorded into (keep.ts). */
  readonly isolated: boolean
  readonly simulation: Simulation
  readonly forwarding: ForwardingState
  readonly holds: HoldBook
  /** With --upstream: where forwarded operations go. */
  readonly forward: ForwardContext | undefined
  readonly journalWriter: JournalWriter
  readonly clock: Clock
  /** Name the tenant on answers (isolated mode, with a host's access log): one object more per answer. */
  readonly labelTenants: boolean
  readonly bodies: BodySlots
  /** Each operation's JSON headers with its own, built once. */
  readonly jsonHeaders: Map<ApiOperation, Readonly<Record<string, string>>>
  /** Told about unexpected failures (which answer 500). */
  readonly report: (error: unknown, request: CoreRequest) => void
  /** With --state-file, saving each change before its answer: the commit stage's wait (commit.ts). */
  readonly commit: Commit | undefined
}

/** What one API request holds from its first stage to its finish. */
export interface ApiWay extends ForwardRecord {
  readonly request: CoreRequest
  readonly target: Target
  readonly started: number
  readonly match: Match<ApiOperation> | undefined
  readonly operation: ApiOperation | undefined
  /** The operation goes to the upstream (decided once, before the key is read). */
  readonly forward: boolean
  /** --delay's draw for this call, taken when it arrives (see api-call.ts). */
  readonly delay: number
  key: string | undefined
  /** The key's data, held until the call is finished. */
  store: TenantStore | undefined
  /** The first refusal: answered once the delay and a hold are waited out. */
  refusal: unknown
  /** The hold that keeps the call until a test lets it go; none once the call was found refused. */
  held: Caught | undefined
  read: BodyRead | undefined
  /** Gives back the large-body slot, if the call took one. */
  release: () => void
  applied: readonly string[]
  /** How long a hold kept it, once one let it go. */
  heldMs: number | undefined
  /** With --record, read when the call is forwarded: switching it off stops it for the calls still to come. */
  keeping: boolean
  /** With --record, what a forwarded answer left in the data. */
  kept: Kept | undefined
  /** The JSON body, when it was parsed before a hold's wait (a held call's body is judged first). */
  parsed: { readonly value: unknown } | undefined
  /** The answer of forward or the operation, before the finish stage. */
  answer: CoreResponse | undefined
  /** The answer as finished, with its headers: what the call returns. */
  finished: CoreResponse | undefined
}

/**
 * A stage's work here; its name, codes and headers are declared in http/stages.ts. Undefined when
 * it is done, a promise when it waits; a throw or a rejection is the call's refusal.
 */
export type ApiRun = (way: ApiWay, context: ApiContext) => void | Promise<void>

/** The operation of a way past its route stage, which refuses a way without one. */
export const routed = (way: ApiWay) => way.operation as ApiOperation

/**
 * After a wait: whether the client closed its connection meanwhile. Its call then becomes a
 * refusal, written in the journal and answered to no one, and changes nothing (a createPet
 * creates no pet). The signal is read only now, so a call that waits for nothing pays no listener.
 */
export function leftDuring(way: ApiWay, wait: string): boolean {
  if (way.request.signal?.aborted !== true) return false
  way.refusal ??= new ApiError('bad_request', `The client closed the connection during ${wait}`)
  return true
}

/** A refused call waits out --delay too: a refusal is no faster than an answer. */
export const delay: ApiRun = (way, context) => {
  if (way.delay <= 0) return undefined
  return context.simulation.delays.sleep(way.delay).then(() => {
    leftDuring(way, 'its delay')
  })
}

/** The hold that caught the call, until a test lets it go (with a failure to answer, or none). */
export const wait: ApiRun = (way) => {
  const { held } = way
  if (held === undefined) return undefined
  return held.until.then((how) => {
    way.heldMs = held.heldMs()
    if ('gone' in how) {
      // No one reads this answer: it is the journal's entry for a request its client gave up on.
      way.refusal ??= new ApiError('bad_request', 'The client closed the connection while its request was held')
    } else if (how.status !== undefined) {
      way.refusal ??= simulatedFailure(how.status, 'a released hold')
    }
  })
}
