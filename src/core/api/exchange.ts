/**
 * What an API operation is given, narrow: the request as read, its path parameters, the key's
 * data held for it (pet operations), its JSON body when it reads one, and the sandbox's clock
 * (getPet's sunset). Nothing else of the sandbox reaches the Pet Store's rules.
 *
 * May import: core/api, core/http, core/limits.ts, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import type { CoreRequest, CoreResponse } from '../http/http.js'
import type { OperationSpec, Route } from '../http/routes.js'
import type { Target } from '../http/target.js'
import type { TenantStore } from './store.js'

export interface ApiExchange {
  readonly request: CoreRequest
  readonly target: Target
  /** Path parameters, as sent (not decoded). */
  readonly params: Readonly<Record<string, string>>
  /** The key's data, held for this request, when the operation reads or writes pets (`petData`). */
  readonly store: TenantStore | undefined
  /** The JSON body, when the operation reads one. */
  readonly body: unknown
  /** The sandbox's clock, in epoch milliseconds. */
  readonly now: () => number
}

/** A row of the API: runs over an ApiExchange. */
export interface ApiOperation extends OperationSpec {
  run(exchange: ApiExchange): CoreResponse | Promise<CoreResponse>
}

export type ApiRoute = Route<ApiOperation>
