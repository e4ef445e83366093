/**
 * CORS for the HTTP server, read off the route table: the request headers any route reads and
 * the response headers any route sets are the ones allowed and exposed, so a new header on a
 * row reaches browsers without a second list to keep in step.
 *
 * Who may read: pages from local origins everywhere (a front end on localhost:5173 works with no
 * flag, as with Vite since 2025); pages from the origins given with --cors-origin (`*`: any) the
 * API only. The admin routes, the reference page (which shows the key) and the document stay
 * readable from local origins and the sandbox's own, whatever the flag; the same rule keeps
 * other sites' pages from steering the admin routes at all (`refuseAdmin`).
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { requestHeadersOf, responseHeadersOf } from './answers.js'
import { ApiError } from './errors.js'
import { ownOrigin } from './forwarded.js'
import { errorAnswer, header, type CoreRequest, type CoreResponse } from './http.js'
import { isLocalOrigin } from './local.js'
import { allowedMethods, METHODS, type Area, type Route, type RouteTable } from './routes.js'

export interface CorsPolicy {
  /** Whether a page from this origin may read answers from this area. */
  allows(request: CoreRequest, origin: string, area: Area): boolean
  /**
   * The admin routes change state without a key, so a web page on another site must not reach
   * them: a cross-site form or fetch POST needs no preflight. The refusal for such a request;
   * undefined for one without an Origin (curl, scripts) or from an admin origin.
   */
  refuseAdmin(request: CoreRequest): ApiError | undefined
  /** Headers for an answer to a request whose Origin is allowed; undefined for any other. */
  answer(request: CoreRequest, area: Area): Record<string, string> | undefined
  /** The headers of a preflight answer for a route (or any route, when none matched). */
  preflight(request: CoreRequest, route: Route | undefined, area: Area): Record<string, string>
}

export function createCorsPolicy(
  routes: readonly Route[],
  corsOrigins: readonly string[],
  trustProxy: boolean,
): CorsPolicy {
  const anyOrigin = corsOrigins.includes('*')
  const listed = new Set(corsOrigins.map((origin) => origin.toLowerCase().replace(/\/$/, '')))
  /**
   * The one Origin rule of the admin routes, the reference page and the document: local origins,
   * and the sandbox's own (its Host already passed the allowlist), whatever --cors-origin says.
   */
  const isAdminOrigin = (request: CoreRequest, origin: string) =>
    isLocalOrigin(origin) || originOf(origin) === ownOrigin(request, trustProxy)
  const named = (request: CoreRequest, origin: string, area: Area) =>
    area === 'api' ? isLocalOrigin(origin) || listed.has(origin.toLowerCase()) : isAdminOrigin(request, origin)
  const allows = (request: CoreRequest, origin: string, area: Area) =>
    named(request, origin, area) || (area === 'api' && anyOrigin)
  // An origin let in by `*` alone is answered `*`, never echoed: `null` (sandboxed frames,
  // file: pages) or any other is not vouched for by name.
  const allowOrigin = (request: CoreRequest, origin: string, area: Area) =>
    named(request, origin, area) ? origin : '*'
  const operations = routes.flatMap((route) => Object.values(route.methods))
  const allowHeaders = requestHeadersOf(operations).join(',')
  const exposeHeaders = [
    ...new Set(
      routes.flatMap((route) =>
        Object.values(route.methods).flatMap((operation) => [...responseHeadersOf(operation, route.area)]),
      ),
    ),
  ].join(',')
  const allMethods = METHODS.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method])).join(', ')

  return {
    allows,
    refuseAdmin(request) {
      const origin = header(request.headers, 'origin')
      if (origin === undefined || isAdminOrigin(request, origin)) return undefined
      const own = ownOrigin(request, trustProxy)
      const sent = originOf(origin)
      // The page's own host over https while the sandbox sees http: a proxy terminating TLS.
      const proxied = !trustProxy && own !== undefined && sent.startsWith('https://') && sent.slice(8) === own.slice(7)
      return new ApiError(
        'forbidden',
        `Admin routes accept requests from this machine only, not from origin ${origin}` +
          (proxied ? '. Behind a proxy that terminates TLS, start the sandbox with --trust-proxy' : ''),
      )
    },
    answer(request, area) {
      const origin = header(request.headers, 'origin')
      if (origin === undefined) return undefined
      // Vary either way: the same URL answers other origins differently.
      return allows(request, origin, area)
        ? {
            'Access-Control-Allow-Origin': allowOrigin(request, origin, area),
            Vary: 'Origin',
            'Access-Control-Expose-Headers': exposeHeaders,
          }
        : { Vary: 'Origin' }
    },
    preflight(request, route, area) {
      const origin = header(request.headers, 'origin')
      return {
        ...(origin !== undefined && { 'Access-Control-Allow-Origin': allowOrigin(request, origin, area) }),
        Vary: 'Origin',
        'Access-Control-Allow-Methods': route === undefined ? allMethods : allowedMethods(route),
        'Access-Control-Allow-Headers': allowHeaders,
        'Access-Control-Max-Age': '600',
      }
    },
  }
}

/** An Origin as the server's own origin is spelled (lower case, no default port); as sent when it is no URL. */
function originOf(origin: string): string {
  return URL.canParse(origin) ? new URL(origin).origin : origin
}

/**
 * The answer to a CORS preflight (OPTIONS, on a server): 204 with what the route allows, or 403
 * for an Origin that may not read this area.
 */
export function answerPreflight(
  cors: CorsPolicy,
  table: RouteTable,
  request: CoreRequest,
  path: string,
  area: Area,
): CoreResponse {
  const origin = header(request.headers, 'origin')
  if (origin !== undefined && !cors.allows(request, origin, area)) return errorAnswer(originRefused(origin, area))
  return { status: 204, headers: cors.preflight(request, table.match(path, area)?.route, area), body: null }
}

function originRefused(origin: string, area: Area): ApiError {
  return new ApiError(
    'forbidden',
    area === 'api'
      ? `Pages from origin ${origin} may not call the API; start the sandbox with --cors-origin ${origin} (or PETSTORE_CORS_ORIGINS) to let them`
      : `Pages from origin ${origin} may not read the admin routes, the reference page or the document: they are for local origins and the sandbox's own only`,
  )
}
