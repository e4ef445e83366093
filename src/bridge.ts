/**
 * Node only: serves MSW handlers over HTTP through msw's public `getResponse`, present in msw 2
 * and 3. It replaces @mswjs/http-middleware, which calls msw's internal `handleRequest` (removed
 * in msw 3), hands bodies over as web streams, and ran at 1% of a bare node:http server here.
 * Bodies are read into one buffer, at most `maxBodyBytes(path) + 1` bytes, so a handler still
 * sees that a body is too large (and answers 413 after authenticating) without the rest being read.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { getResponse, type RequestHandler } from 'msw'

export interface BridgeOptions {
  /** The largest body a handler under this path reads; one more byte is passed on, no more. */
  maxBodyBytes: (path: string) => number
}

/** An express-style middleware: answers with the first handler that matches, else calls next(). */
export function createBridge(handlers: readonly RequestHandler[], options: BridgeOptions) {
  const list = [...handlers]
  return (request: IncomingMessage, response: ServerResponse, next: (error?: unknown) => void): void => {
    answer(list, request, response, options).then((answered) => {
      if (!answered) next()
    }, next)
  }
}

async function answer(
  handlers: RequestHandler[],
  request: IncomingMessage,
  response: ServerResponse,
  options: BridgeOptions,
): Promise<boolean> {
  const method = request.method ?? 'GET'
  const path = request.url ?? '/'
  const headers = new Headers()
  const raw = request.rawHeaders
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i] ?? '', raw[i + 1] ?? '')
  const { body, complete } = await readBody(request, method, options.maxBodyBytes(path))
  const fetchRequest = new Request(`http://${request.headers.host ?? 'localhost'}${path}`, { method, headers, body })

  const mocked = await getResponse(handlers, fetchRequest)
  if (mocked === undefined) return false
  response.statusCode = mocked.status
  mocked.headers.forEach((value, name) => {
    response.appendHeader(name, value)
  })
  // The rest of an oversized body was never read: this connection cannot carry another request.
  if (!complete) response.setHeader('Connection', 'close')
  const bytes = mocked.body === null ? undefined : Buffer.from(await mocked.arrayBuffer())
  response.end(bytes)
  return true
}

async function readBody(
  request: IncomingMessage,
  method: string,
  limit: number,
): Promise<{ body: Uint8Array<ArrayBuffer> | null; complete: boolean }> {
  if (method === 'GET' || method === 'HEAD') return { body: null, complete: true }
  // A declared length over the limit is judged from the header alone: nothing is read, and
  // the handler (which still sees Content-Length) answers 413 once it has authenticated.
  if (Number(request.headers['content-length'] ?? 0) > limit) return { body: new Uint8Array(0), complete: false }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request as AsyncIterable<Buffer>) {
    chunks.push(chunk)
    size += chunk.length
    if (size > limit) {
      request.pause()
      return { body: concat(chunks, limit + 1), complete: false }
    }
  }
  return { body: concat(chunks, size), complete: true }
}

function concat(chunks: readonly Buffer[], length: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length)
  let offset = 0
  for (const chunk of chunks) {
    if (offset >= length) break
    const part = chunk.subarray(0, length - offset)
    bytes.set(part, offset)
    offset += part.length
  }
  return bytes
}
