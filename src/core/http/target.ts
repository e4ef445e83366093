/**
 * The request target, read as sent. `new URL()` and `new Request()` remove dot segments and
 * decode `%2e`, which is how `/v1/%2e%2e/__sandbox/reset` once reached the admin routes: here
 * the path is only split from its query, never decoded or normalised.
 *
 * May import: core/http, core/limits.ts, zod; core/api and core/admin as types only. No msw, no node:*, no adapter.
 */

export interface Target {
  /** The path exactly as sent, e.g. `/v1/pets/%31`. */
  readonly path: string
  /** The query without its `?`, as sent; empty when there is none. */
  readonly query: string
  /** The origin of an absolute-form target (`http://host`), else undefined. */
  readonly origin: string | undefined
}

// RFC 9112 absolute-form: scheme "://" authority, then the path and query.
const ABSOLUTE_FORM = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*)(.*)$/s

/** Splits a request target into path and query; undefined when it is neither a path nor an absolute URL. */
export function parseTarget(target: string): Target | undefined {
  if (target.startsWith('/')) return split(target, undefined)
  const absolute = ABSOLUTE_FORM.exec(target)
  const origin = absolute?.[1]
  if (origin === undefined || !URL.canParse(origin)) return undefined
  const rest = absolute?.[2] ?? ''
  return split(rest.startsWith('/') ? rest : `/${rest}`, origin)
}

function split(pathAndQuery: string, origin: string | undefined): Target {
  const mark = pathAndQuery.indexOf('?')
  return mark === -1
    ? { path: pathAndQuery, query: '', origin }
    : { path: pathAndQuery.slice(0, mark), query: pathAndQuery.slice(mark + 1), origin }
}
