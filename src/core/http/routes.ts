/**
 * THE route table's shape and its matcher. Every route is one row: a path pattern under its
 * area's mount, and per method the operation with what the pipeline needs to know of it (key,
 * body cap, simulated conditions, headers) and what the OpenAPI document says of it. Dispatch,
 * `Allow`, the 404/405/501 answers, the OpenAPI document and the CORS headers all read these rows.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import type { z } from 'zod'
import type { ErrorCode } from './errors.js'
import { escapeRegExp } from './base-url.js'
import { ADMIN_PATH } from './mounts.js'

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
export type Method = (typeof METHODS)[number]

/** Where a route is mounted: under the API's base path, under `/__sandbox`, or at the site root. */
export type Area = 'api' | 'admin' | 'site'

/** A response the operation documents besides its errors. */
export interface Success {
  readonly status: number
  readonly description: string
  /** A component schema name, or a zod schema for the body; none for an empty body. */
  readonly schema?: string | { readonly arrayOf: string; readonly maxItems?: number } | z.ZodType
  /** Header names on this response, with their descriptions. */
  readonly headers?: Readonly<Record<string, string>>
  /** A media type other than JSON (pages, scripts). */
  readonly mediaType?: string
}

/**
 * What the route table, the dispatcher, `Allow`, CORS and the OpenAPI document know of an
 * operation: everything but how it runs. Each area adds its own `run` over an exchange of its
 * own (api/exchange.ts, admin/exchange.ts, docs/site.ts), so nothing here knows what an
 * operation is given.
 */
export interface OperationSpec {
  /** The OpenAPI operationId; for the pet operations also what the journal and scenarios call them. */
  readonly id: string
  readonly summary: string
  readonly description?: string
  readonly deprecated?: boolean
  /** `required`: 401 without a valid key. `optional`: checked when sent, scopes to that key (admin). */
  readonly key: 'required' | 'optional' | 'none'
  /** Scenarios, `Prefer` and the run-wide failure rate apply (the pet operations). */
  readonly simulated?: boolean
  /** Reads or writes the key's pets: its tenant is made if need be, and held until the answer. */
  readonly petData?: boolean
  /** Makes the key's tenant when it has none (an admin write in isolated mode): past the tenants cap, 503. */
  readonly makesTenant?: boolean
  /**
   * Changes the data or the checkpoints when it succeeds: the API's event stream says so, and with
   * --state-file the change is on disk before the answer (commit.ts).
   */
  readonly writes?: boolean
  /** The operation reads a JSON body: the limit that caps it, its schema and a hint for an empty one. */
  readonly body?: {
    readonly limit: 'bodyBytes' | 'stateBytes'
    readonly schema: string | z.ZodType
    readonly emptyHint: string
    /** A body the reference page's "Try it out" starts from, and generated docs show. */
    readonly example?: unknown
    /** An empty body (no bytes at all) is taken as none: the operation runs with `body` undefined. */
    readonly optional?: boolean
    /**
     * Throws the 400 of a parsed body the operation would refuse. A held call's body is judged
     * with it before the call waits, so a refused call is answered at once (api-call.ts).
     */
    readonly check?: (body: unknown) => void
  }
  /** Headers on every answer of this operation, errors included. */
  readonly headers?: Readonly<Record<string, string>>
  /** Error codes the operation itself answers; the pipeline's own (401, 413, ...) are added from the row. */
  readonly errors: readonly ErrorCode[]
  readonly success: readonly Success[]
  /** Query and path parameters, as OpenAPI parameter objects (built only for the document). */
  readonly parameters?: () => readonly Readonly<Record<string, unknown>>[]
  /** Left out of the OpenAPI document: the reference page and its assets. */
  readonly hidden?: boolean
  /** A file the package ships, the same for every reader: the admin routes' Origin rule does not apply. */
  readonly shipped?: boolean
}

export interface Route<O extends OperationSpec = OperationSpec> {
  readonly area: Area
  /** The path under the area's mount, with `{name}` for a segment: `/pets/{petId}`. */
  readonly path: string
  readonly methods: Readonly<Partial<Record<Method, O>>>
}

export interface Match<O extends OperationSpec = OperationSpec> {
  readonly route: Route<O>
  readonly params: Readonly<Record<string, string>>
}

export interface RouteTable<O extends OperationSpec = OperationSpec> {
  readonly routes: readonly Route<O>[]
  /** The area a path belongs to: under the base path, under /__sandbox, or neither. */
  areaOf(path: string): Area
  /** The route of an area a path matches, with its parameters; a trailing slash is ignored. */
  match(path: string, area: Area): Match<O> | undefined
}

export function createRouteTable<O extends OperationSpec>(
  basePath: string,
  routes: readonly Route<O>[],
): RouteTable<O> {
  const compiled = routes.map((route) => {
    const names: string[] = []
    const mount = route.area === 'api' ? basePath : route.area === 'admin' ? ADMIN_PATH : ''
    const source = route.path
      .split('/')
      .map((segment) => {
        const name = /^\{(\w+)\}$/.exec(segment)?.[1]
        if (name === undefined) return escapeRegExp(segment)
        names.push(name)
        return '([^/]+)'
      })
      .join('/')
    // `/` is the site root exactly; under a mount (`/__sandbox/`) the slash is optional.
    const pattern =
      route.path === '/'
        ? `^${escapeRegExp(mount)}${mount === '' ? '/' : '/?'}$`
        : `^${escapeRegExp(mount)}${source}/?$`
    return { route, names, pattern: new RegExp(pattern) }
  })
  // The mounts with their slash, made once: areaOf runs on every request.
  const apiPrefix = `${basePath}/`
  const adminPrefix = `${ADMIN_PATH}/`
  const under = (path: string, mount: string, prefix: string) => path === mount || path.startsWith(prefix)
  return {
    routes,
    areaOf: (path) =>
      under(path, basePath, apiPrefix) ? 'api' : under(path, ADMIN_PATH, adminPrefix) ? 'admin' : 'site',
    match(path, area) {
      for (const { route, names, pattern } of compiled) {
        if (route.area !== area) continue
        const found = pattern.exec(path)
        if (found === null) continue
        const params: Record<string, string> = {}
        for (let index = 0; index < names.length; index++) params[names[index] as string] = found[index + 1] ?? ''
        return { route, params }
      }
      return undefined
    },
  }
}

/** The methods a route answers, for `Allow` and CORS: HEAD wherever GET is (RFC 9110 section 9.3.2). */
export function allowedMethods(route: Route): string {
  return METHODS.flatMap((method) =>
    route.methods[method] === undefined ? [] : method === 'GET' ? ['GET', 'HEAD'] : [method],
  ).join(', ')
}

/** The operation a method runs on a route: HEAD runs GET's, and its answer goes without a body. */
export function operationFor<O extends OperationSpec>(route: Route<O>, method: string): O | undefined {
  return route.methods[(method === 'HEAD' ? 'GET' : method) as Method]
}
