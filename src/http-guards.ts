/**
 * Node only: what the server refuses before a request reaches the MSW handlers, each as a
 * JSON Error. These are malformed HTTP and abuse of the admin routes; API rules stay in
 * the handlers (which authenticate first).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { errorBody, type ErrorCode } from './errors.js'

/** Writes an Error body on any Node response, express's included. */
export function writeError(
  response: ServerResponse,
  code: ErrorCode,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  const error = errorBody(code, message)
  const body = JSON.stringify(error)
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value)
  response.statusCode = error.status
  response.setHeader('Content-Type', 'application/json; charset=utf-8')
  response.setHeader('Content-Length', Buffer.byteLength(body))
  response.end(body)
}

// The Fetch API cannot build a Request with TRACE, so it never reaches a handler. (Node's
// parser refuses TRACK itself, and hands CONNECT to answerConnect.)
const FORBIDDEN_METHODS = new Set(['TRACE'])

/**
 * Checks the request line before express sees it, and rewrites an absolute-form target
 * (`GET http://host/v1/pets`) to its path, as RFC 9112 asks servers to accept it.
 * Returns false when it has answered the request itself.
 */
export function admitRequest(request: IncomingMessage, response: ServerResponse): boolean {
  const method = request.method ?? ''
  if (FORBIDDEN_METHODS.has(method)) {
    writeError(response, 'not_implemented', `The ${method} method is not supported`)
    return false
  }
  const target = request.url ?? '/'
  if (!target.startsWith('/')) {
    if (!URL.canParse(target)) {
      writeError(response, 'bad_request', `Request target ${JSON.stringify(target)} is not a path or an absolute URL`)
      return false
    }
    const url = new URL(target)
    request.url = `${url.pathname}${url.search}`
  }
  // A path starting with "//" would be re-read as a host by the MSW bridge's new URL().
  if (request.url?.startsWith('//')) {
    writeError(response, 'not_found', `${request.url.split('?')[0] ?? ''} does not exist`)
    return false
  }
  const host = request.headers.host
  // A slash, query or credentials in Host would parse as a URL with the rest moved into its path.
  if (host !== undefined && (/[\s/?#@\\]/.test(host) || !URL.canParse(`http://${host}`))) {
    writeError(response, 'bad_request', `Host header ${JSON.stringify(host)} is not a valid host`)
    return false
  }
  return true
}

/** Answers requests Node's parser rejects (bad request line, oversized headers) with JSON. */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    writeRawError(socket, 'headers_too_large', 'Request headers are too large', 'Request Header Fields Too Large')
  } else {
    writeRawError(socket, 'bad_request', 'The request is not valid HTTP', 'Bad Request')
  }
}

/** Answers CONNECT, which Node hands over as a raw socket: the sandbox is no proxy. */
export function answerConnect(_request: IncomingMessage, socket: Duplex): void {
  writeRawError(socket, 'not_implemented', 'The CONNECT method is not supported', 'Not Implemented')
}

// For the two cases above, where Node gives a socket instead of a response.
function writeRawError(socket: Duplex, code: ErrorCode, message: string, reason: string): void {
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const body = errorBody(code, message)
  const text = JSON.stringify(body)
  socket.end(
    `HTTP/1.1 ${body.status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  )
}

/**
 * Refuses a declared oversized body outside the handlers' paths before anything reads it.
 * Under those paths the handlers do it themselves (the API after authentication, state
 * imports with a larger cap), counting chunked bodies too.
 */
export function rejectOversizedBody(handledPaths: readonly string[], maxBytes: number) {
  const handled = (path: string) =>
    handledPaths.some((prefix) => path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`))
  return (request: IncomingMessage, response: ServerResponse, next: () => void): void => {
    const declared = Number(request.headers['content-length'] ?? 0)
    if (declared <= maxBytes || handled(request.url ?? '/')) {
      next()
      return
    }
    // The body is left unread, so the connection cannot be reused.
    writeError(response, 'payload_too_large', `body must be at most ${maxBytes} bytes`, { Connection: 'close' })
  }
}

/**
 * The admin routes change state without a key, so a web page on another site must not
 * reach them: a cross-site form or fetch POST needs no preflight. Requests without an
 * Origin (curl, scripts), from the sandbox's own origin and from loopback origins
 * (a local front end) are let through.
 */
export function onlyLocalOrigins(request: IncomingMessage, response: ServerResponse, next: () => void): void {
  const origin = request.headers.origin
  if (origin === undefined || isLoopbackOrigin(origin) || origin === `http://${request.headers.host ?? ''}`) {
    next()
    return
  }
  writeError(response, 'forbidden', `Admin routes accept requests from this machine only, not from origin ${origin}`)
}

function isLoopbackOrigin(origin: string): boolean {
  if (!URL.canParse(origin)) return false
  const { hostname } = new URL(origin)
  return hostname === 'localhost' || hostname === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(hostname)
}
