/**
 * What the admin routes and the site's pages are given, narrow: the request as read, the key
 * that scopes it (isolated mode), whether it came from another machine, its JSON body when the
 * route reads one, the sandbox's controls (controls.ts: what the in-process methods call too) and,
 * for the pages and their assets, what they show. Nothing else of the sandbox reaches them.
 *
 * May import: core/admin, core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import type { CoreRequest, CoreResponse } from '../http/http.js'
import type { OperationSpec, Route } from '../http/routes.js'
import type { Target } from '../http/target.js'
import type { Controls } from './controls.js'

/** A file the server ships (the reference page's scripts and styles), served by the core's asset route. */
export interface Asset {
  readonly type: string
  readonly bytes: Uint8Array
}

/** What the pages and their assets show: the key to pre-fill, where the API is, the files shipped. */
export interface SiteContext {
  readonly defaultKey: string
  readonly basePath: string
  /**
   * The sandbox's origin as a request names it, which the served documents put first among their
   * servers; undefined in-process, and whenever it is not known for sure (core/docs/served-document.ts).
   */
  origin(request: CoreRequest): string | undefined
  /** Files the host serves under /__sandbox/docs and /__sandbox/ui; none in-process. */
  assets(name: string): Asset | undefined
}

export interface AdminExchange {
  readonly request: CoreRequest
  readonly target: Target
  /** Path parameters, as sent (not decoded). */
  readonly params: Readonly<Record<string, string>>
  /** The key the request sent (or its `?tenant=` handle stands for): it scopes the control in isolated mode. */
  readonly key: string | undefined
  /** The request came from another machine (its page gets no key). */
  readonly elsewhere: boolean
  /** The JSON body, when the route reads one. */
  readonly body: unknown
  readonly controls: Controls
  readonly site: SiteContext
}

/** A row of the admin routes or the site: runs over an AdminExchange. */
export interface AdminOperation extends OperationSpec {
  run(exchange: AdminExchange): CoreResponse | Promise<CoreResponse>
}

export type AdminRoute = Route<AdminOperation>
