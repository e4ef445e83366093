/**
 * Query parameters read as single strings: what the list operations and the journal route take.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { ApiError } from './errors.js'

/**
 * The parameters named in `known`, each given at most once. Others are ignored, as most HTTP
 * APIs do; a repeated known parameter is ambiguous and refused.
 */
export function readQuery(query: string, known: readonly string[]): Record<string, string> {
  const result: Record<string, string> = {}
  if (query === '') return result
  const params = new URLSearchParams(query)
  for (const name of known) {
    const values = params.getAll(name)
    if (values.length > 1) {
      throw new ApiError('invalid_parameter', `${name} must be given at most once, got ${values.length} values`)
    }
    if (values[0] !== undefined) result[name] = values[0]
  }
  return result
}
