/**
 * Who the server is, as the request tells it: its Host, and behind a trusted proxy the proxy's
 * `X-Forwarded-*` or `Forwarded` headers. The Host rule (head.ts) checks these names; the
 * Origin rule (cors.ts) compares a page's origin with the server's own.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { header, type CoreRequest } from './http.js'

/** host[:port] of an absolute-form target's origin, as a Host header would say it. */
export function authorityOf(origin: string): string {
  return origin.replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//, '')
}

/**
 * The nearest proxy's word: X-Forwarded-Proto/-Host first, as Caddy and nginx set them (and
 * overwrite what a client sent), then `Forwarded` (RFC 7239), which they pass on as the client
 * sent it unless told to set it. The last element is the nearest proxy's.
 */
function forwardedParameter(request: CoreRequest, name: 'proto' | 'host' | 'for'): string | undefined {
  const legacy = header(request.headers, `x-forwarded-${name}`)?.split(',').at(-1)?.trim()
  if (legacy !== undefined && legacy !== '') return legacy
  const forwarded = header(request.headers, 'forwarded')
  if (forwarded === undefined) return undefined
  const nearest = forwarded.split(',').at(-1) ?? ''
  for (const pair of nearest.split(';')) {
    const [key, value] = pair.split('=', 2)
    if (key?.trim().toLowerCase() === name && value !== undefined) return value.trim().replace(/^"(.*)"$/, '$1')
  }
  return undefined
}

export function forwardedHost(request: CoreRequest): string | undefined {
  return forwardedParameter(request, 'host')
}

function forwardedProto(request: CoreRequest): string | undefined {
  const proto = forwardedParameter(request, 'proto')?.toLowerCase()
  return proto === 'https' || proto === 'http' ? proto : undefined
}

/**
 * The address of whoever sent the request: the peer the adapter saw, or with trustProxy the
 * client the nearest proxy names (X-Forwarded-For, then Forwarded's `for`). Undefined in-process.
 */
export function clientAddress(request: CoreRequest, trustProxy: boolean): string | undefined {
  if (!trustProxy) return request.remoteAddress
  const named = forwardedParameter(request, 'for')
  // Forwarded writes IPv6 as "[::1]" and may add a port; a name such as "unknown" is kept as is.
  return named === undefined ? request.remoteAddress : named.replace(/^\[([^\]]*)\](?::\d+)?$/, '$1')
}

/** The origin pages of this server have: from the Host, or with trustProxy from the proxy's headers. */
export function ownOrigin(request: CoreRequest, trustProxy: boolean): string | undefined {
  const host = header(request.headers, 'host') ?? ''
  const proto = trustProxy ? (forwardedProto(request) ?? 'http') : 'http'
  const name = trustProxy ? (forwardedHost(request) ?? host) : host
  // As an Origin header says it: lower case, without the scheme's default port.
  return URL.canParse(`${proto}://${name}`) ? new URL(`${proto}://${name}`).origin : undefined
}
