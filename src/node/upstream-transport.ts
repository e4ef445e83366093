/**
 * The upstream a server forwards to (`--upstream`), as the core wants it: a label that may be
 * shown (the origin: no credentials, path or query, which can hold secrets), the operations
 * forwarded from the start, the upstream's own key, and `send` over node:http(s) through
 * `exchange()`, whose failures become the core's UpstreamFailure of the same kind (an exchange
 * the request's signal calls off is `aborted`, its socket closed). The rules (which headers go,
 * which come back, the contract check, the budgets, 502 or 504) are the core's.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { OPERATIONS, type OperationId } from '../core/api/contract.js'
import { UpstreamFailure, type Upstream, type UpstreamRequest } from '../core/upstream.js'
import type { PlainAnswer } from '../core/http/http.js'
import { exchange, ExchangeFailure } from './http-client.js'

export interface UpstreamOptions {
  /** The API's base URL, e.g. `https://staging.example.com/v1`: forwarded operations go there. */
  readonly upstream?: string | undefined
  /** The operations forwarded from the start (`all`: every one). Default: none. */
  readonly forward?: readonly OperationId[] | 'all' | undefined
  /** Sent upstream as `Authorization: Bearer <key>` in place of the client's credential. */
  readonly upstreamKey?: string | undefined
  /**
   * Keep every pet a forwarded answer carries (`--record`), once it passes the interface and the
   * store's rules: the sandbox then answers from them when forwarding is off. Default: false.
   */
  readonly record?: boolean | undefined
}

/**
 * What may be shown of an upstream URL: its scheme and host[:port]. User and password, path and
 * query stay out of banners, logs, the journal and the dashboard.
 */
export function upstreamLabel(url: URL): string {
  return `${url.protocol}//${url.host}`
}

/**
 * The core's upstream, or undefined without `upstream`. The options are checked already
 * (checkServerOptions): the URL is http(s) and has no fragment.
 *
 * The URL's path goes before every forwarded target (`/v1` + `/pets?limit=5`), and its query,
 * if any, before the client's own parameters. A user and password in the URL are never sent:
 * the Pet Store authenticates with a bearer key, given by `upstreamKey`.
 */
export function createUpstream(options: UpstreamOptions): Upstream | undefined {
  if (options.upstream === undefined) return undefined
  const url = new URL(options.upstream)
  const origin = upstreamLabel(url)
  const basePath = url.pathname.replace(/\/+$/, '')
  const baseQuery = url.search.slice(1)
  const forward = options.forward === 'all' ? OPERATIONS : (options.forward ?? [])
  return {
    label: origin,
    basePath,
    forward,
    record: options.record === true,
    ...(options.upstreamKey !== undefined && { key: options.upstreamKey }),
    send: (request) => send(origin, targetOf(basePath, baseQuery, request.target), request),
  }
}

/** The upstream URL's path, then the client's path; the URL's query, then the client's. */
function targetOf(basePath: string, baseQuery: string, target: string): string {
  const mark = target.indexOf('?')
  const path = mark === -1 ? target : target.slice(0, mark)
  const query = mark === -1 ? '' : target.slice(mark + 1)
  const joined = [baseQuery, query].filter((part) => part !== '').join('&')
  return `${basePath}${path}${joined === '' ? '' : `?${joined}`}`
}

async function send(origin: string, target: string, request: UpstreamRequest): Promise<PlainAnswer> {
  try {
    return await exchange({
      method: request.method,
      origin,
      target,
      headers: request.headers,
      body: request.body,
      timeoutMs: request.timeoutMs,
      maxBytes: request.maxBytes,
      ...(request.signal !== undefined && { signal: request.signal }),
    })
  } catch (error) {
    if (error instanceof ExchangeFailure) throw new UpstreamFailure(error.kind, error.message)
    throw error
  }
}
