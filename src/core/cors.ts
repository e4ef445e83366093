/**
 * CORS for the HTTP server, read off the route table: the request headers any route reads and
 * the response headers any route sets are the ones allowed and exposed, so a new header on a
 * row reaches browsers without a second list to keep in step.
 *
 * Who may read: pages from local origins everywhere (a front end on localhost:5173 works with no
 * flag, as with Vite since 2025); pages from the origins given with --cors-origin (`*`: any) the
 * API only. The admin routes, the reference page (which shows the key) and the document stay
 * readable from local origins only, whatever the flag.
 *
 * May import: other core files, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import { header, type CoreRequest } from './http.js'
import { isLocalOrigin } from './local.js'
import { allowedMethods, METHODS, type Area, type Route } from './routes.js'

export interface CorsPolicy {
  /** Whether a page from this origin may read answers from this area. */
  allows(origin: string, area: Area): boolean
  /** Headers for an answer to a request whose Origin is allowed; undefined for any other. */
  answer(request: CoreRequest, area: Area): Record<string, string> | undefined
  /** The headers of a preflight answer for a route (or any route, when none matched). */
  preflight(request: CoreRequest, route: Route | undefined, area: Area): Record<string, string>
}

export function createCorsPolicy(routes: readonly Route[], corsOrigins: readonly string[]): CorsPolicy {
  const anyOrigin = corsOrigins.includes('*')
  const listed = new Set(corsOrigins.map((origin) => origin.toLowerCase().replace(/\/$/, '')))
  const named = (origin: string, area: Area) =>
    isLocalOrigin(origin) || (area === 'api' && listed.has(origin.toLowerCase()))
  const allows = (origin: string, area: Area) => named(origin, area) || (area === 'api' && anyOrigin)
  // An origin let in by `*` alone is answered `*`, never echoed: `null` (sandboxed frames,
  // file: pages) or any other is not vouched for by name.
  const allowOrigin = (origin: string, area: Area) => (named(origin, area) ? origin : '*')
  const operations = routes.flatMap((route) => Object.values(route.methods))
  const allowedHeaders = [
    operations.some((operation) => operation.key !== 'none') && 'Authorization',
    operations.some((operation) => operation.body !== undefined) && 'Content-Type',
    operations.some((operation) => operation.simulated === true) && 'Prefer',
  ].filter((name): name is string => name !== false)
  const exposed = new Set<string>()
  for (const operation of operations) {
    for (const success of operation.success) for (const name of Object.keys(success.headers ?? {})) exposed.add(name)
    for (const name of Object.keys(operation.headers ?? {})) exposed.add(name)
  }
  // What the pipeline itself adds: the challenge of a 401, Allow on a 405, and the simulated conditions' headers.
  for (const name of pipelineHeaders(operations)) exposed.add(name)
  const exposeHeaders = [...exposed].join(',')
  const allowHeaders = allowedHeaders.join(',')
  const allMethods = METHODS.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method])).join(', ')

  return {
    allows,
    answer(request, area) {
      const origin = header(request.headers, 'origin')
      if (origin === undefined) return undefined
      // Vary either way: the same URL answers other origins differently.
      return allows(origin, area)
        ? {
            'Access-Control-Allow-Origin': allowOrigin(origin, area),
            Vary: 'Origin',
            'Access-Control-Expose-Headers': exposeHeaders,
          }
        : { Vary: 'Origin' }
    },
    preflight(request, route, area) {
      const origin = header(request.headers, 'origin')
      return {
        ...(origin !== undefined && { 'Access-Control-Allow-Origin': allowOrigin(origin, area) }),
        Vary: 'Origin',
        'Access-Control-Allow-Methods': route === undefined ? allMethods : allowedMethods(route),
        'Access-Control-Allow-Headers': allowHeaders,
        'Access-Control-Max-Age': '600',
      }
    },
  }
}

/** Response headers the pipeline sets around operations, given what the operations are. */
function pipelineHeaders(operations: readonly { key: string; simulated?: boolean; body?: unknown }[]): string[] {
  return [
    ...(operations.some((operation) => operation.key !== 'none') ? ['WWW-Authenticate'] : []),
    'Allow',
    // A 503 past a budget (tenants, large bodies) says when to try again; a 415 for a coded body says which coding to use.
    'Retry-After',
    ...(operations.some((operation) => operation.body !== undefined) ? ['Accept-Encoding'] : []),
    ...(operations.some((operation) => operation.simulated === true) ? ['Preference-Applied'] : []),
  ]
}
