/**
 * The request target, read as sent. `new URL()` and `new Request()` remove dot segments and
 * decode `%2e`, which is how `/v1/%2e%2e/__sandbox/reset` once reached the admin routes: here
 * the path is only split from its query, never decoded or normalised.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import type { Limits } from '../limits.js'
import { ApiError } from './errors.js'

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

/**
 * The one 414 rule: a target longer than the targetLength limit. No route is anywhere near, and
 * logs and the journal keep what they are sent. `whole` is false when a parser gave up part way
 * through the target, so only a lower bound of its length is known.
 */
export function targetTooLong(target: string, limits: Limits, whole = true): ApiError | undefined {
  if (target.length <= limits.targetLength) return undefined
  return new ApiError(
    'uri_too_long',
    whole
      ? `The request target is ${target.length} characters long; the sandbox reads targets of up to ${limits.targetLength}`
      : `The request target is longer than the ${limits.targetLength} characters the sandbox reads`,
  )
}
