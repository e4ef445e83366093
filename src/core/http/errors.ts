/**
 * The one error path: every refusal, whichever stage or operation makes it, and every failure of
 * the sandbox's own, becomes an Error body `{ code, message, status }` through `errorBody`.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import * as z from 'zod'

/** The interface's Error: what every refusal answers, whichever folder refuses. */
export const ErrorSchema = z.object({
  code: z.string().meta({ description: 'Machine-readable error code' }),
  message: z.string().meta({ description: 'Human-readable description' }),
  status: z.int().min(400).max(599).meta({ description: 'The HTTP status code' }),
})

export type ErrorBody = z.infer<typeof ErrorSchema>

/**
 * Stable, machine-readable error codes. The interface leaves the values open;
 * these are the sandbox's, documented in the README.
 */
export const ERROR_CODES = {
  bad_request: 400,
  invalid_parameter: 400,
  invalid_body: 400,
  unauthorized: 401,
  forbidden: 403,
  pet_not_found: 404,
  checkpoint_not_found: 404,
  hold_not_found: 404,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  expectation_failed: 417,
  too_many_requests: 429,
  headers_too_large: 431,
  internal_error: 500,
  not_implemented: 501,
  bad_gateway: 502,
  service_unavailable: 503,
  gateway_timeout: 504,
  insufficient_storage: 507,
} as const

export type ErrorCode = keyof typeof ERROR_CODES

/**
 * A refusal that maps onto one Error response. Thrown by a stage or an operation, and caught
 * once by the call it runs in, which answers it with http.ts's `errorAnswer`.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError'
  readonly status: number

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message)
    this.status = ERROR_CODES[code]
  }

  toBody(): ErrorBody {
    return errorBody(this.code, this.message)
  }
}

/** Builds an Error body whose `status` always equals the HTTP status its code maps to. */
export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { code, message, status: ERROR_CODES[code] }
}
