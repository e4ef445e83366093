/**
 * What every answer gets last, whatever gave it: nosniff when it lacks it, no stream for HEAD
 * (GET's status and headers, a body that would go nowhere), the mark of a poll on the admin
 * routes and the site (a host's access log leaves those out unless asked), and on a server the
 * CORS headers for an allowed Origin.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import type { CorsPolicy } from './cors.js'
import { isEventStream, withNosniff, type CoreRequest, type CoreResponse } from './http.js'
import type { Area } from './routes.js'

export function completeAnswer(
  request: CoreRequest,
  answered: CoreResponse,
  area: Area,
  cors: CorsPolicy | undefined,
): CoreResponse {
  let response = answered
  // JSON answers carry it already (JSON_HEADERS): only pages, assets, streams and 204s are copied.
  const sniffless = withNosniff(response.headers)
  if (sniffless !== response.headers) response = { ...response, headers: sniffless }
  if (request.method === 'HEAD' && isEventStream(response.body)) response = { ...response, body: null }
  if (area !== 'api' && response.status < 400 && (request.method === 'GET' || request.method === 'HEAD')) {
    response = { ...response, polling: true }
  }
  if (cors === undefined || request.method === 'OPTIONS') return response
  const headers = cors.answer(request, area)
  return headers === undefined ? response : { ...response, headers: { ...response.headers, ...headers } }
}
