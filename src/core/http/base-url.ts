/**
 * Where the API lives. By default any origin with the path prefix `/v1`, so the same
 * handlers answer `/v1/pets` in a browser and `https://any.host/v1/pets` in Node.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */

export const DEFAULT_BASE_PATH = '/v1'

export interface BaseUrl {
  /** An exact origin such as `https://api.example.com`, or undefined for any origin. */
  readonly origin: string | undefined
  /** The path prefix without a trailing slash, such as `/v1`. */
  readonly path: string
}

/** Accepts `https://api.example.com/v1`, `/v1`, or nothing (any origin, `/v1`). */
export function parseBaseUrl(input: string | undefined): BaseUrl {
  if (input === undefined) return { origin: undefined, path: DEFAULT_BASE_PATH }
  if (input.startsWith('/')) {
    if (/[?#]/.test(input)) throw invalidBaseUrl(input)
    return { origin: undefined, path: input.replace(/\/+$/, '') }
  }
  let url: URL
  try {
    url = new URL(input)
  } catch {
    throw invalidBaseUrl(input)
  }
  if (!/^https?:$/.test(url.protocol) || url.search !== '' || url.hash !== '') throw invalidBaseUrl(input)
  return { origin: url.origin, path: url.pathname.replace(/\/+$/, '') }
}

function invalidBaseUrl(input: string): TypeError {
  return new TypeError(
    `Failed to create the sandbox: baseUrl ${JSON.stringify(input)} is not valid. Use an http(s) URL such as "https://api.example.com/v1" or a path such as "/v1".`,
  )
}

/**
 * A RegExp matching absolute request URLs (without query) under the base, whose
 * remaining path matches `pathPattern` (a RegExp source), with an optional trailing slash.
 * Paths are case-sensitive; URL parsing has already lower-cased scheme and host.
 * RegExp paths, unlike msw's `*` wildcard, keep the prefix anchored at the start of the path.
 */
export function routePattern(base: BaseUrl, pathPattern: string): RegExp {
  const origin = base.origin === undefined ? '[a-z][a-z0-9+.-]*://[^/]+' : escapeRegExp(base.origin)
  return new RegExp(`^${origin}${escapeRegExp(base.path)}${pathPattern}/?$`)
}

/** Text matched literally inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
