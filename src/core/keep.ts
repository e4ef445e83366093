/**
 * The keep stage (--record): the pets a forwarded success carries, into the sandbox's data: the
 * one data set in shared mode, whatever key the call came with (the upstream judged it), and the
 * caller's own under --isolate. A large answer (upstreamBodyBytes raised) is read and kept in
 * slices, so the other clients are answered meanwhile. The answer goes out as it came.
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import type { OperationId } from './api/contract.js'
import type { Authenticate } from './api/auth.js'
import { keepPets, keepPetsInSlices, petsOf, petsOfInSlices, recordsInSlices } from './api/record.js'
import type { TenantStore } from './api/store.js'
import type { Kept, Unrecorded } from './api/record.js'
import type { ForwardingState } from './state/forwarding-state.js'
import type { Tenants } from './state/tenants.js'
import type { Limits } from './limits.js'
import { ApiError } from './http/errors.js'
import { header, type CoreRequest, type CoreResponse } from './http/http.js'
import { pause } from './http/json-body.js'

/** What the keep stage reads of the sandbox: whose data, its budget, the recorded count, the causes told. */
export interface KeepContext {
  readonly tenants: Pick<Tenants, 'storeFor' | 'of'>
  readonly limits: Pick<Limits, 'contractProblems'>
  readonly forwarding: Pick<ForwardingState, 'recorded' | 'unrecorded'>
  /** Each key its own data (--isolate): a call the sandbox holds no data for records nothing. */
  readonly isolated: boolean
  /** The sandbox's own judgement of a key, read again only to say why a call records nothing. */
  readonly authenticate: Authenticate
}

/** What it reads and writes of the call: the key it came with, and what was kept. */
export interface KeepCall {
  readonly request: CoreRequest
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
      counted(context, call)
      return response
    })
  }
  const candidates = petsOf(operation, response.status, body)
  const store = candidates === undefined ? undefined : recordingStore(context, call)
  if (candidates !== undefined && store !== undefined) {
    call.kept = keepPets(store, candidates, context.limits.contractProblems)
  }
  counted(context, call)
  return response
}

/**
 * What was kept, counted; and an answer that left nothing, marked `told` when it is the first of
 * its cause since the start: its access log line says why, the later ones only their journal
 * entries. The causes told are the sandbox's own (ForwardingState), never the module's.
 */
function counted(context: KeepContext, call: KeepCall): void {
  const { kept } = call
  if (kept === undefined) return
  context.forwarding.recorded.pets += kept.changed
  const { nothing } = kept
  if (nothing === undefined || context.forwarding.unrecorded.has(nothing)) return
  context.forwarding.unrecorded.add(nothing)
  call.kept = { ...kept, told: true }
}

/**
 * The data a forwarded answer is recorded into. Shared mode: the one data set, whatever key the
 * call came with, or none: the upstream judged the key, and there is data to record into. Under
 * --isolate: the caller's own. A call the sandbox holds no data for (no key, a key it refuses
 * itself, every tenant busy) records nothing, and `call.kept` says why (the answer still goes out).
 */
function recordingStore(context: KeepContext, call: KeepCall): TenantStore | undefined {
  const { key, request } = call
  const { tenants } = context
  if (!context.isolated) return tenants.storeFor(tenants.of(undefined).owner)
  if (key === undefined) {
    const authorization = header(request.headers, 'authorization')
    call.kept =
      authorization === undefined || authorization.trim() === ''
        ? nothingKept('no key', "the call came with no key, and under --isolate a call records into its own key's data")
        : nothingKept(
            'refused key',
            `under --isolate a call records into its own key's data, and the sandbox itself refuses this call's key (${refusal(context.authenticate, authorization)}): give the caller a key both the upstream and the sandbox take (--api-key, --api-key-pattern)`,
          )
    return undefined
  }
  try {
    return tenants.storeFor(tenants.of(key).owner)
  } catch (error) {
    // Past the tenants cap with every tenant busy: the answer still goes out, unrecorded.
    if (!(error instanceof ApiError)) throw error
    call.kept = nothingKept('tenants', error.message)
    return undefined
  }
}

function nothingKept(cause: Unrecorded, why: string): Kept {
  return { pets: 0, changed: 0, refused: [`nothing recorded: ${why}`], nothing: cause }
}

/**
 * The sandbox's own 401 message for a credential: its own words, quoting at most the name of a
 * registered scheme, never the key. (A key it takes has a tenant and never gets here.)
 */
function refusal(authenticate: Authenticate, authorization: string): string {
  try {
    authenticate(authorization)
    return 'it was refused'
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    return error.message
  }
}
