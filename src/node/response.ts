/**
 * Writing the core's answer: onto a ServerResponse (a plain body with its length, or an event
 * stream that respects backpressure), or straight onto a socket where Node gives no response.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { STATUS_CODES, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { isEventStream, type CoreResponse } from '../core/http/http.js'
import type { Flight } from './shutdown.js'

/**
 * Writes the core's answer. `last`: this connection carries no other request (a body left unread,
 * or the server closing). Returns `cut` when the connection was already gone (a shutdown's bound).
 * An event stream that ends (a shutdown, or a reader that fell behind) has `lingerMs` to take its
 * last bytes; a reader that does not is cut, so a stalled reader never holds its connection.
 */
export function writeAnswer(
  response: ServerResponse,
  answer: CoreResponse,
  last: boolean,
  stream?: { flight: Flight; lingerMs: number },
): 'sent' | 'cut' {
  // The connection, not the response's socket: a pipelined answer waits with no socket of its own.
  if (response.destroyed || response.req.socket.destroyed) return 'cut'
  const { body } = answer
  if (isEventStream(body)) {
    response.writeHead(answer.status, answer.headers)
    const state: { open: boolean; stop?: () => void } = { open: true }
    // One step: unsubscribe from the core and end the response, so nothing is written after the end.
    const finish = () => {
      if (!state.open) return
      state.open = false
      state.stop?.()
      response.end()
      if (response.writableFinished) return
      const cut = setTimeout(() => response.destroy(), stream?.lingerMs ?? 0).unref()
      response.once('close', () => {
        clearTimeout(cut)
      })
    }
    // The backlog the core weighs against its budget: what the reader had not taken before this
    // text (a chunk written now waits for the next tick whatever the reader does).
    state.stop = body.open((text) => {
      if (!state.open) return 0
      const backlog = response.writableLength
      response.write(text)
      return backlog
    }, finish)
    // Ended while opening: unsubscribe now that there is something to unsubscribe.
    if (!state.open) state.stop()
    response.once('close', finish)
    stream?.flight.stream(response, finish)
    return 'sent'
  }
  const length = body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength
  // A flat list of names and values: no object spread per answer (writeHead takes either).
  const headers: string[] = []
  for (const name in answer.headers) headers.push(name, answer.headers[name] as string)
  // A 204 carries no Content-Length (RFC 9110 section 8.6), nor a 304, which would give its 200's.
  if (answer.status !== 204 && answer.status !== 304) headers.push('Content-Length', String(length))
  if (last) headers.push('Connection', 'close')
  response.writeHead(answer.status, headers)
  response.end(body ?? undefined)
  return 'sent'
}

/**
 * The answer as raw HTTP/1.1 onto a socket, then the end of the connection: for a request Node
 * could not parse, and for CONNECT, where Node gives a socket instead of a response.
 */
export function writeRaw(socket: Duplex, answer: CoreResponse): void {
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const body = typeof answer.body === 'string' ? answer.body : ''
  const headers = Object.entries(answer.headers).map(([name, value]) => `${name}: ${value}\r\n`)
  socket.end(
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? 'Error'}\r\n${headers.join('')}` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
}
