/**
 * The keep stage (--record): the pets a forwarded success carries, into the data of the key the
 * call came with. A large answer (upstreamBodyBytes raised) is read and kept in slices, so the
 * other clients are answered meanwhile. The answer goes out as it came.
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import type { OperationId } from './api/contract.js'
import { keepPets, keepPetsInSlices, petsOf, petsOfInSlices, recordsInSlices } from './api/record.js'
import type { TenantStore } from './api/store.js'
import type { Kept } from './api/record.js'
import type { ForwardingState } from './admin/forwarding.js'
import type { Tenants } from './admin/tenants.js'
import type { Limits } from './limits.js'
import { ApiError } from './http/errors.js'
import type { CoreResponse } from './http/http.js'
import { pause } from './http/json-body.js'

/** What the keep stage reads of the sandbox: whose data, its budget, the recorded count. */
export interface KeepContext {
  readonly tenants: Pick<Tenants, 'storeFor' | 'of'>
  readonly limits: Pick<Limits, 'contractProblems'>
  readonly forwarding: Pick<ForwardingState, 'recorded'>
}

/** What it reads and writes of the call: the key it came with, and what was kept. */
export interface KeepCall {
  readonly key: string | undefined
  kept: Kept | undefined
}

export function keep(
  context: KeepContext,
  call: KeepCall,
  operation: OperationId,
  response: CoreResponse,
): CoreResponse | Promise<CoreResponse> {
  const body = response.body
  if (!(typeof body === 'string' || body instanceof Uint8Array || body === null)) return response
  // A large answer (upstreamBodyBytes raised) is read and kept in slices: the other clients are
  // answered meanwhile (docs/performance.md, a recording beside other clients).
  if (recordsInSlices(body)) {
    return petsOfInSlices(operation, response.status, body, pause).then(async (candidates) => {
      const store = candidates === undefined ? undefined : recordingStore(context, call)
      if (candidates !== undefined && store !== undefined) {
        call.kept = await keepPetsInSlices(store, candidates, context.limits.contractProblems, pause)
      }
      if (call.kept !== undefined) context.forwarding.recorded.pets += call.kept.changed
      return response
    })
  }
  const candidates = petsOf(operation, response.status, body)
  const store = candidates === undefined ? undefined : recordingStore(context, call)
  if (candidates !== undefined && store !== undefined) {
    call.kept = keepPets(store, candidates, context.limits.contractProblems)
  }
  if (call.kept !== undefined) context.forwarding.recorded.pets += call.kept.changed
  return response
}

/**
 * The data a forwarded answer is recorded into: the key's. Without one the sandbox accepts, or
 * past the tenants cap, there is none, and `call.kept` says why (the answer still goes out).
 */
function recordingStore(context: KeepContext, call: KeepCall): TenantStore | undefined {
  const { key } = call
  if (key === undefined) {
    call.kept = {
      pets: 0,
      changed: 0,
      refused: ['nothing recorded: the call came with no key the sandbox accepts, so it has no data to record into'],
    }
    return undefined
  }
  try {
    return context.tenants.storeFor(context.tenants.of(key).owner)
  } catch (error) {
    // Past the tenants cap with every tenant busy: the answer still goes out, unrecorded.
    if (!(error instanceof ApiError)) throw error
    call.kept = { pets: 0, changed: 0, refused: [`nothing recorded: ${error.message}`] }
    return undefined
  }
}
