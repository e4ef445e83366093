/**
 * The admin gate: who may reach the admin routes, and whose data a request there steers. A web
 * page on another site may not (its Origin is refused: a cross-site form POST needs no
 * preflight); another machine needs one of the sandbox's listed keys (isolated mode accepts
 * others, which anyone could make up); a key sent is checked and scopes the request, as does a
 * `?tenant=` handle, which names a tenant without showing its key. The shipped files (the pages'
 * scripts and styles) are the same for everyone: no Origin rule and no key for them.
 *
 * May import: core/admin, core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { unauthorized, type Authenticate } from '../api/auth.js'
import type { CorsPolicy } from '../http/cors.js'
import { ApiError } from '../http/errors.js'
import { clientAddress } from '../http/forwarded.js'
import { header, type CoreRequest } from '../http/http.js'
import { isLoopbackAddress } from '../http/local.js'
import { ADMIN_PATH } from '../http/mounts.js'
import { readQuery } from '../http/query.js'
import type { Area, OperationSpec } from '../http/routes.js'
import type { Target } from '../http/target.js'

export interface AdminGate {
  /** The server's CORS policy, whose one Origin rule the admin routes share; none in-process. */
  readonly cors: CorsPolicy | undefined
  /** Believe a trusted proxy's word on the client's address. */
  readonly trustProxy: boolean
  readonly authenticate: Authenticate
  /** From another machine: the listed keys only. */
  readonly authenticateAdmin: Authenticate
}

/** Refuses a request from a page on another site, before anything else of it is looked at. */
export function refuseOrigin(
  gate: AdminGate,
  request: CoreRequest,
  area: Area,
  operation: OperationSpec | undefined,
): void {
  // The shipped files are the same for everyone, and a page loads its own module scripts with an
  // Origin: left out, so the dashboard behind a TLS proxy loads and can say why its requests fail.
  if (area !== 'admin' || gate.cors === undefined || operation?.shipped === true) return
  const refusal = gate.cors.refuseAdmin(request)
  if (refusal !== undefined) throw refusal
}

/**
 * Lets a routed request in: from another machine, an admin route wants a listed key; a key sent
 * is checked; a `?tenant=` handle stands for its key. Answers the key that scopes the request
 * and whether it came from another machine.
 */
export function admit(
  gate: AdminGate,
  request: CoreRequest,
  target: Target,
  area: Area,
  operation: OperationSpec,
  keyOfHandle: (handle: string) => string | undefined,
): { key: string | undefined; elsewhere: boolean } {
  const authorization = header(request.headers, 'authorization')
  const address = clientAddress(request, gate.trustProxy)
  const elsewhere = address !== undefined && !isLoopbackAddress(address)
  if (elsewhere && area === 'admin' && operation.key === 'optional' && operation.shipped !== true) {
    checkAdminKey(gate, authorization)
  }
  const key = operation.key !== 'none' && authorization !== undefined ? gate.authenticate(authorization) : undefined
  // The dashboard scopes by ?tenant=, a handle that never shows the key itself.
  const handle = key === undefined && operation.key === 'optional' ? tenantParameter(target) : undefined
  return { key: handle === undefined ? key : keyOf(handle, keyOfHandle), elsewhere }
}

/**
 * The admin routes answer this machine freely. Another machine (a sandbox listening beyond
 * loopback, or a LAN client behind a trusted proxy) needs one of the listed API keys: the data
 * and its controls are not open to a whole network without a credential.
 */
function checkAdminKey(gate: AdminGate, authorization: string | undefined): void {
  try {
    gate.authenticateAdmin(authorization)
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    throw unauthorized(
      `${ADMIN_PATH} answers another machine only with one of the sandbox's API keys (--api-key): ${error.message}`,
      authorization !== undefined,
    )
  }
}

/** The `tenant` query parameter, by its exact name, given at most once; undefined when absent. */
function tenantParameter(target: Target): string | undefined {
  return readQuery(target.query, ['tenant']).tenant
}

function keyOf(handle: string, keyOfHandle: (handle: string) => string | undefined): string {
  const key = keyOfHandle(handle)
  if (key === undefined) {
    throw new ApiError(
      'invalid_parameter',
      `tenant ${JSON.stringify(handle)} does not exist (any more); GET ${ADMIN_PATH}/tenants lists them`,
    )
  }
  return key
}
