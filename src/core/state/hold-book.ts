/**
 * Holds: the next calls of an operation wait, answering nothing, until a test releases them. A
 * loading state is then tested without a timer: add a hold, make the page ask, wait for the hold
 * to be reached, assert the spinner, release, assert the data. A delay would make that test slow
 * or racy; a hold makes it exact.
 *
 * A hold catches the next `times` calls of its operation (its tenant's, in isolated mode; with no
 * key, everyone's). A release lets go of every call it holds now and ends it; with a scenario
 * status, they answer that failure instead. Held calls across the sandbox have a budget
 * (`heldRequests`): past it a call is answered 503 at once. A client that goes away is dropped
 * from its hold; reset, `close()` and shutdown release everything, each call answering as usual.
 *
 * May import: core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import type { OperationId } from '../api/contract.js'
import { ApiError } from '../http/errors.js'
import type { Hold } from './shapes.js'

/** How a held call goes on: answered as usual, with a scenario's failure, or dropped (its client left). */
export type Let = { readonly status?: number } | { readonly gone: true }

interface Waiter {
  /** The key of the call it holds (isolated mode), for a reset of that key. */
  readonly scope: string | undefined
  readonly go: (how: Let) => void
}

interface Entry {
  readonly id: number
  readonly operation: OperationId
  /** The key whose calls it catches (isolated mode), or undefined: every call. */
  readonly scope: string | undefined
  remaining: number
  caught: number
  readonly waiting: Set<Waiter>
  /** Told each time a call is caught: what `reached()` waits for. */
  readonly reached: Set<() => void>
}

/** A call caught by a hold: `until` settles when it is let go; `heldMs` says for how long, after. */
export interface Caught {
  readonly until: Promise<Let>
  heldMs(): number
  /**
   * The call was found refused before its wait (its body judged): it leaves the hold, and the
   * hold's counts (`remaining`, `caught`, `holding`, heldRequests) read as if it had never been
   * caught. `until` then never settles; nothing waits on it. Does nothing once the call was let go.
   */
  uncatch(): void
}

export interface HoldBook {
  /** Adds a hold; past the `holds` budget, a 400 naming it. */
  add(scope: string | undefined, operation: OperationId, times: number): Hold
  /** The holds a key sees: its own and the shared ones in isolated mode, every one otherwise. */
  list(scope: string | undefined): Hold[]
  /** Lets go of every call the hold has now, answering `status` when given, and ends it. */
  release(scope: string | undefined, id: number, status?: number): Hold
  /** Resolves once the hold has caught a call (at once when it has, or when it is gone). */
  reached(id: number): Promise<void>
  /**
   * Ends the holds of a key (or every hold), their calls answered as usual; a key's calls waiting
   * in shared holds go too (the shared holds stay for the other keys).
   */
  releaseAll(scope?: string): void
  /** The stage of an API call: the first hold that catches it, or undefined; 503 past the budget. */
  take(operation: OperationId, scope: string | undefined, signal: () => AbortSignal | undefined): Caught | undefined
  /** Calls held now, across the sandbox: what health shows beside the heldRequests budget. */
  holding(): number
  /** Holds that exist now, across keys: what health shows beside the holds budget. */
  count(): number
}

/** Thrown when no hold has the id (or it is another key's): the admin route answers 404. */
export function holdNotFound(id: number): ApiError {
  return new ApiError(
    'hold_not_found',
    `no hold ${id}: it was released, or never added (GET /__sandbox/holds lists them)`,
  )
}

export function createHoldBook(
  max: number,
  /** The most holds at once (the holds budget). */
  most: number,
  /** Told of every change a list would show: a hold added, released, a call caught or gone. */
  changed: (scope: string | undefined) => void = () => undefined,
  now: () => number = () => performance.now(),
): HoldBook {
  const holds = new Map<number, Entry>()
  let nextId = 1
  const count = { held: 0 }

  const view = (entry: Entry): Hold => ({
    id: entry.id,
    operation: entry.operation,
    remaining: entry.remaining,
    holding: entry.waiting.size,
    caught: entry.caught,
  })
  const visible = (entry: Entry, scope: string | undefined) =>
    scope === undefined || entry.scope === undefined || entry.scope === scope
  const end = (entry: Entry, how: Let) => {
    holds.delete(entry.id)
    changed(entry.scope)
    for (const waiter of entry.waiting) waiter.go(how)
    entry.waiting.clear()
    // Nothing more will be caught: a reached() still waiting would wait forever.
    for (const tell of entry.reached) tell()
    entry.reached.clear()
  }

  return {
    add(scope, operation, times) {
      if (holds.size >= most) {
        throw new ApiError(
          'invalid_body',
          `there are already ${most} holds (the holds limit); release some before adding more`,
        )
      }
      const entry: Entry = {
        id: nextId++,
        operation,
        scope,
        remaining: times,
        caught: 0,
        waiting: new Set(),
        reached: new Set(),
      }
      holds.set(entry.id, entry)
      changed(scope)
      return view(entry)
    },
    list: (scope) => [...holds.values()].filter((entry) => visible(entry, scope)).map(view),
    release(scope, id, status) {
      const entry = holds.get(id)
      if (entry === undefined || !visible(entry, scope)) throw holdNotFound(id)
      const summary = view(entry)
      end(entry, status === undefined ? {} : { status })
      return summary
    },
    reached(id) {
      const entry = holds.get(id)
      // Caught once already (its call may have left since): reached, whatever it holds now.
      if (entry === undefined || entry.caught > 0) return Promise.resolve()
      return new Promise((resolve) => entry.reached.add(resolve))
    },
    releaseAll(scope) {
      for (const entry of [...holds.values()]) {
        if (scope === undefined || entry.scope === scope) end(entry, {})
        else if (entry.scope === undefined) {
          const mine = [...entry.waiting].filter((waiter) => waiter.scope === scope)
          for (const waiter of mine) waiter.go({})
          if (mine.length > 0) changed(undefined)
        }
      }
    },
    take(operation, scope, signalOf) {
      if (holds.size === 0) return undefined
      const entry = firstCatching(holds, operation, scope)
      if (entry === undefined) return undefined
      if (count.held >= max) {
        throw new ApiError(
          'service_unavailable',
          `${max} requests are held already (the heldRequests limit); release a hold first`,
          { 'Retry-After': '1' },
        )
      }
      // Read only now: over HTTP, the signal costs a listener that requests no hold catches never pay for.
      const caught = catchCall(entry, scope, signalOf(), count, now, changed)
      for (const tell of entry.reached) tell()
      entry.reached.clear()
      changed(entry.scope)
      return caught
    },
    holding: () => count.held,
    count: () => holds.size,
  }
}

/** The first hold that catches a call of `operation` from `scope`, oldest first. */
function firstCatching(
  holds: ReadonlyMap<number, Entry>,
  operation: OperationId,
  scope: string | undefined,
): Entry | undefined {
  for (const entry of holds.values()) {
    if (entry.operation !== operation || entry.remaining === 0) continue
    if (entry.scope !== undefined && entry.scope !== scope) continue
    return entry
  }
  return undefined
}

/** Counts the call against the hold and waits in it until let go: released, or its client gone. */
function catchCall(
  entry: Entry,
  scope: string | undefined,
  signal: AbortSignal | undefined,
  count: { held: number },
  now: () => number,
  changed: (scope: string | undefined) => void,
): Caught {
  entry.remaining -= 1
  entry.caught += 1
  count.held += 1
  const since = now()
  let settled = -1
  let waiter: Waiter | undefined
  let leave: (() => void) | undefined
  const until = new Promise<Let>((resolve) => {
    waiter = {
      scope,
      go(how) {
        if (settled >= 0) return
        settled = now()
        count.held -= 1
        if (waiter !== undefined) entry.waiting.delete(waiter)
        if ('gone' in how) changed(entry.scope)
        if (leave !== undefined) signal?.removeEventListener('abort', leave)
        resolve(how)
      },
    }
    const gone = () => {
      waiter?.go({ gone: true })
    }
    leave = gone
    entry.waiting.add(waiter)
    if (signal?.aborted === true) gone()
    else signal?.addEventListener('abort', gone, { once: true })
  })
  return {
    until,
    heldMs: () => (settled >= 0 ? settled : now()) - since,
    uncatch() {
      if (settled >= 0 || waiter === undefined) return
      settled = since
      count.held -= 1
      entry.remaining += 1
      entry.caught -= 1
      entry.waiting.delete(waiter)
      if (leave !== undefined) signal?.removeEventListener('abort', leave)
      changed(entry.scope)
    },
  }
}
