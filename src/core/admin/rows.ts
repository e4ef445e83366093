/**
 * What every admin row shares: a key is optional (when sent it is checked, and scopes the row to
 * that key's data in isolated mode), the sentence that says so, the `?tenant=` parameter, and a
 * whole number read from the query or the path.
 *
 * May import: core/admin, core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { ApiError } from '../http/errors.js'
import { ADMIN_PATH } from '../http/mounts.js'
import type { AdminOperation } from './exchange.js'

/** A whole number from a query parameter, within bounds, quoted as sent when it is not one. */
export function whole(text: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (text === undefined) return fallback
  const number = Number(text)
  if (!/^[0-9]+$/.test(text) || number < min || number > max) {
    throw new ApiError(
      'invalid_parameter',
      `${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`,
    )
  }
  return number
}

export const SCOPE = 'With a key in isolated mode: that key only.'

export function admin(operation: Omit<AdminOperation, 'key'>): AdminOperation {
  return { key: 'optional', ...operation }
}

export const TENANT_PARAMETER = {
  name: 'tenant',
  in: 'query',
  required: false,
  description: `Isolated mode: a tenant handle from GET ${ADMIN_PATH}/tenants (instead of its key in Authorization)`,
  schema: { type: 'string' },
}
