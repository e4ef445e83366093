/**
 * The msw adapter: a Fetch Request in, the core's plain request; the core's plain response out,
 * a Response. Two handlers, one for the API's base URL and one for the admin routes, and no
 * rule of the API: every decision is the core's. Browser-safe.
 *
 * May import: msw, and the core's public types and base-url helpers. Never node:* or express.
 */
import { http, type HttpHandler } from 'msw'
import { routePattern, type BaseUrl } from '../core/http/base-url.js'
import { ADMIN_PATH } from '../core/http/mounts.js'
import { isEventStream, type BodyRead, type CoreResponse, type RequestHeaders } from '../core/http/http.js'
import type { SandboxCore } from '../core/sandbox.js'

export interface MswHandlers {
  /** Answers everything under the API's base URL. */
  readonly api: HttpHandler
  /** Answers everything under `/__sandbox` on the same origins. */
  readonly admin: HttpHandler
}

/** The handlers of one core. */
export function createMswHandlers(core: SandboxCore, base: BaseUrl): MswHandlers {
  const answer = async ({ request }: { request: Request }): Promise<Response> => {
    // msw's URL is already normalised (fetch removed dot segments): the core routes it as it is.
    // The body is read only if the core asks for it, within the cap it names.
    const response = await core.handle({
      method: request.method,
      target: request.url,
      headers: headersOf(request.headers),
      body: null,
      readBody: (maxBytes) => readBody(request, maxBytes),
      // Aborted when the caller gives up: a held or forwarded call is then let go.
      signal: request.signal,
    })
    // HEAD carries GET's status and headers, never a body.
    const body = request.method === 'HEAD' ? null : toBody(response.body)
    return new Response(body, { status: response.status, headers: response.headers })
  }
  return {
    api: http.all(routePattern(base, '(?:/.*)?'), answer),
    admin: http.all(routePattern({ origin: base.origin, path: ADMIN_PATH }, '(?:/.*)?'), answer),
  }
}

/** The core's body as a Fetch body; an event stream becomes a ReadableStream that stops when cancelled. */
function toBody(body: CoreResponse['body']): BodyInit | null {
  if (!isEventStream(body)) return body as BodyInit | null
  const encoder = new TextEncoder()
  let stop: (() => void) | undefined
  // Queued bytes count against a high-water mark of 0: desiredSize is minus the reader's backlog.
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        stop = body.open(
          (text) => {
            controller.enqueue(encoder.encode(text))
            return Math.max(0, -(controller.desiredSize ?? 0))
          },
          () => {
            controller.close()
          },
        )
      },
      cancel() {
        stop?.()
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
  )
}

function headersOf(headers: Headers): RequestHeaders {
  const result: Record<string, string> = {}
  headers.forEach((value, name) => {
    result[name] = value
  })
  return result
}

/** At most `limit + 1` bytes of the body: enough for the core to see that it is too large. */
async function readBody(request: Request, limit: number): Promise<BodyRead> {
  if (request.body === null) return { body: null, truncated: false }
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > limit) {
      // Not awaited: msw tees request bodies, and a tee branch's cancel() settles only once
      // the other branch is cancelled too, which may be never.
      reader.cancel().catch(() => undefined)
      return { body: null, truncated: true }
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return { body: bytes, truncated: false }
}
