/**
 * Which operations the upstream answers (`--upstream`), switched at run time: one set per
 * sandbox, server-wide, under `--isolate` too (the upstream is one service, not a tenant's), and
 * left alone by a reset (it is how the sandbox is deployed, not data). The pipeline asks it one
 * question per pet request, and counts here the exchanges waiting for the upstream (health
 * reports them against upstreamRequests); the admin route, health and the dashboard read and set it.
 *
 * May import: core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { createTurns, type Turns } from './turns.js'
import type { Forwarding } from './shapes.js'
import { OPERATIONS, type OperationId } from '../api/contract.js'
import type { Unrecorded } from '../api/record.js'
import { ApiError } from '../http/errors.js'

export interface ForwardingState {
  /** The upstream as it may be shown (its origin), or null when the server has none. */
  readonly upstream: string | null
  /** The operations forwarded now: the pipeline's one lookup per pet request. */
  readonly forwarded: ReadonlySet<string>
  /** Replaces the forwarded operations; 409 when there is no upstream to forward to. */
  set(forward: readonly OperationId[]): void
  /** Whether forwarded answers' pets are kept (`--record`): read once per forwarded answer. */
  readonly record: boolean
  /** Switches recording; 409 when switched on with no upstream. */
  setRecord(on: boolean): void
  /** Pets recorded so far (new or changed), for the dashboard and GET /__sandbox/forwarding. */
  readonly recorded: { pets: number }
  /** Why answers were left unrecorded, by cause (api/record.ts): the access log tells each once. */
  readonly unrecorded: Set<Unrecorded>
  /** Forwarded requests waiting for the upstream now: the upstreamRequests budget's use. */
  readonly exchanges: { waiting: number }
  /** Large answers, checked and recorded one at a time (turns.ts). */
  readonly large: Turns
}

/**
 * In-process there is never an upstream: the set stays empty. `changed` hears each switch made
 * after the start that changes something (the dashboard follows it through the event stream); a
 * switch to what is already so says nothing.
 */
export function createForwarding(
  upstream: string | null,
  forward: readonly OperationId[] = [],
  record = false,
  changed: () => void = () => undefined,
): ForwardingState {
  const forwarded = new Set<string>()
  const noUpstream = (what: string) =>
    new ApiError(
      'conflict',
      `This sandbox has no upstream to ${what}: start the sandbox with --upstream <api-url> (startServer: upstream)`,
    )
  /** Replaces the set; whether that changed it. */
  const forwardOnly = (next: readonly OperationId[]): boolean => {
    if (next.length > 0 && upstream === null) throw noUpstream('forward to')
    const before = [...forwarded].join()
    forwarded.clear()
    // In the order the operations are listed, whatever order they were given in.
    for (const operation of OPERATIONS) if (next.includes(operation)) forwarded.add(operation)
    return [...forwarded].join() !== before
  }
  forwardOnly(forward)
  const state: ForwardingState = {
    upstream,
    forwarded,
    exchanges: { waiting: 0 },
    large: createTurns(),
    record,
    recorded: { pets: 0 },
    unrecorded: new Set(),
    setRecord(on) {
      if (on && upstream === null) throw noUpstream('record from')
      if (state.record === on) return
      ;(state as { record: boolean }).record = on
      changed()
    },
    set(next) {
      if (forwardOnly(next)) changed()
    },
  }
  return state
}

/** What GET and PUT /__sandbox/forwarding answer. */
export function forwardingOf(state: ForwardingState): Forwarding {
  return {
    upstream: state.upstream,
    forward: OPERATIONS.filter((operation) => state.forwarded.has(operation)),
    operations: [...OPERATIONS],
    record: state.record,
    recorded: state.recorded.pets,
  }
}

/**
 * The operations a PUT body names: `{"forward": [...]}` or `{"forward": "all"}`. Unknown names
 * are quoted back once each (the first ten, then how many more) with the names there are;
 * nothing changes when one is wrong.
 */
export function readForwardInput(body: unknown): { forward?: readonly OperationId[]; record?: boolean } {
  const hint =
    'send {"forward": ["listPets", "getPet"]}, {"forward": "all"}, {"forward": []}, {"record": true}, or forward and record together'
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError('invalid_body', `The body must be a JSON object: ${hint}`)
  }
  const problems: string[] = []
  const extra = Object.keys(body).filter((name) => name !== 'forward' && name !== 'record')
  if (extra.length > 0) problems.push(`forward and record are the only fields, got ${quoted(extra)}`)
  const { forward, record } = body as { forward?: unknown; record?: unknown }
  if (record !== undefined && typeof record !== 'boolean') {
    problems.push(`record must be true or false, got ${JSON.stringify(record)}`)
  }
  if (forward === undefined && record === undefined && extra.length === 0) {
    problems.push(`forward or record is required: ${hint}`)
  }
  let operations: readonly OperationId[] | undefined
  if (forward !== undefined) {
    try {
      operations = readOperations(forward, hint)
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      problems.push(error.message)
    }
  }
  if (problems.length > 0) throw new ApiError('invalid_body', problems.join('; '))
  return {
    ...(operations !== undefined && { forward: operations }),
    ...(typeof record === 'boolean' && { record }),
  }
}

function readOperations(forward: unknown, hint: string): readonly OperationId[] {
  if (forward === 'all') return OPERATIONS
  if (!Array.isArray(forward) || forward.some((name) => typeof name !== 'string')) {
    throw new ApiError('invalid_body', `forward must be a list of operation names or "all": ${hint}`)
  }
  const names = forward as string[]
  const unknown = [...new Set(names.filter((name) => !(OPERATIONS as readonly string[]).includes(name)))]
  if (unknown.length > 0) {
    throw new ApiError(
      'invalid_body',
      `forward names ${quoted(unknown)}, which ${unknown.length === 1 ? 'is not an operation' : 'are not operations'}; the operations are ${OPERATIONS.join(', ')}`,
    )
  }
  return names as OperationId[]
}

/** Names quoted back in a message: a few are enough to see the mistake. */
const QUOTED = 10

/**
 * The first QUOTED names, quoted, then how many more: a 16 KiB body of names would otherwise make
 * a message as long, repeated in the answer and in the journal.
 */
function quoted(names: readonly string[]): string {
  const shown = names
    .slice(0, QUOTED)
    .map((name) => JSON.stringify(name))
    .join(', ')
  return names.length > QUOTED ? `${shown} and ${names.length - QUOTED} more` : shown
}
