/**
 * A document as a server serves it: its relative server (`/v1`, `/__sandbox`) follows an
 * absolute one, the sandbox's own address, so a tool that reads the document from the live URL
 * (a generator, an importer) finds where to call with nothing typed. The relative one stays:
 * the committed files and the in-process sandbox know no address, and a page resolves it against
 * where it loaded the document.
 *
 * May import: core/docs, core/admin, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { forwardedHost, ownOrigin } from '../http/forwarded.js'
import { header, type CoreRequest } from '../http/http.js'

/**
 * The sandbox's origin as this request names it, for a document to show; undefined when it is
 * not known for sure. Only on a server, whose head checks let the request in when its Host (and,
 * trusted, the proxy's forwarded host) is allowed. Even so, what the client sent is written into
 * the document only when it is a plain host name or IP address with an optional port: with
 * `--allowed-host all` the check lets any well-formed Host through. Proxy headers the sandbox does
 * not trust (no `--trust-proxy`) mean a proxy stands in front whose scheme and name are unknown:
 * no address then, rather than a wrong one (`http://` under a TLS proxy).
 */
export function documentOrigin(request: CoreRequest, trustProxy: boolean): string | undefined {
  const forwarded = PROXY_HEADERS.some((name) => header(request.headers, name) !== undefined)
  if (forwarded && !trustProxy) return undefined
  const name = (trustProxy ? forwardedHost(request) : undefined) ?? header(request.headers, 'host')
  if (name === undefined || !PLAIN_HOST.test(name)) return undefined
  return ownOrigin(request, trustProxy)
}

const PROXY_HEADERS = ['forwarded', 'x-forwarded-host', 'x-forwarded-proto']

// A DNS name (letters, digits, inner hyphens; dot-separated labels), an IPv4 address or a
// bracketed IPv6 address, then an optional port: nothing else of a Host reaches a document.
const LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?'
const PLAIN_HOST = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*|\\[[0-9a-fA-F:.]+\\])(?::\\d{1,5})?$`)

/** A document's text, built once, with the sandbox's address put first among its servers on request. */
export interface ServedDocument {
  text(origin: string | undefined): string
}

export function servedDocument(document: Readonly<Record<string, unknown>>): ServedDocument {
  const text = JSON.stringify(document)
  const servers = document.servers as readonly { url: string }[] | undefined
  const relative = servers?.[0]?.url
  // JSON.stringify escapes every quote inside a string, so the first `"servers":[` is a key: the
  // document's own, which comes before `paths` and `components`.
  const marker = '"servers":['
  const at = text.indexOf(marker) + marker.length
  if (relative === undefined || !relative.startsWith('/') || at < marker.length) return { text: () => text }
  const before = text.slice(0, at)
  const after = text.slice(at)
  return {
    text(origin) {
      if (origin === undefined) return text
      const own = {
        url: `${origin}${relative}`,
        description: 'This sandbox, at the address this document was fetched from',
      }
      return `${before}${JSON.stringify(own)},${after}`
    },
  }
}
