/**
 * What each connection still owes (answers not yet finished, and the request a parse error can
 * cut short), and how a connection ends after a last answer that leaves a body unread.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type { BodyReader } from './body-reader.js'

/**
 * Answers not yet finished per connection. A parse error after complete pipelined requests is
 * answered only once their answers are out: the client gets them all, in order. A parse error in
 * the middle of a request (a body cut short) ends the connection: that request cannot be answered.
 * A WeakMap rather than a field on the socket: a new field would give sockets a second shape,
 * and Node's own socket code, which runs on every request, slower property reads.
 */
export interface SocketTracker {
  begin(socket: Duplex, request: IncomingMessage, reader: BodyReader): void
  end(socket: Duplex, request: IncomingMessage): void
  /** Runs `then` once every request on the socket is answered; false (and nothing run) when one is incomplete. */
  whenIdle(socket: Duplex, then: () => void): boolean
  /** Runs `then` once every request on the socket is answered, complete or not. */
  whenAnswered(socket: Duplex, then: () => void): void
  /** The body reader of the newest request, when that request is still arriving: what a parse error cuts short. */
  interrupted(socket: Duplex): BodyReader | undefined
}

interface Owed {
  count: number
  /** The newest request: the one a parse error can interrupt. */
  last: IncomingMessage | undefined
  /** Its body reader. */
  reader: BodyReader | undefined
  waiting: (() => void)[] | undefined
}

export function createSocketTracker(): SocketTracker {
  const bySocket = new WeakMap<Duplex, Owed>()
  const owed = (socket: Duplex) => bySocket.get(socket)
  return {
    begin(socket, request, reader) {
      const entry = owed(socket)
      if (entry === undefined) {
        bySocket.set(socket, { count: 1, last: request, reader, waiting: undefined })
        return
      }
      entry.count++
      entry.last = request
      entry.reader = reader
    },
    end(socket, request) {
      const entry = owed(socket)
      if (entry === undefined) return
      entry.count--
      if (entry.last === request) {
        entry.last = undefined
        entry.reader = undefined
      }
      if (entry.count === 0 && entry.waiting !== undefined) for (const then of entry.waiting.splice(0)) then()
    },
    whenIdle(socket, then) {
      const entry = owed(socket)
      if (entry === undefined || entry.count === 0) {
        then()
        return true
      }
      if (entry.last !== undefined && !entry.last.complete) return false
      ;(entry.waiting ??= []).push(then)
      return true
    },
    whenAnswered(socket, then) {
      const entry = owed(socket)
      if (entry === undefined || entry.count === 0) then()
      else (entry.waiting ??= []).push(then)
    },
    interrupted(socket) {
      const entry = owed(socket)
      return entry?.last !== undefined && !entry.last.complete ? entry.reader : undefined
    },
  }
}

/**
 * After an answer that leaves a body unread, Node closes the connection at once; a client still
 * sending would then get a reset, which can destroy the answer before it reads it. Instead the
 * connection is half-closed, what still comes is read and dropped, and it is cut after `ms`.
 */
export function lingerOnClose(socket: Socket, ms: number): void {
  const cut = () => {
    socket.destroy()
  }
  // A local first, not a literal assigned to the property: see body-reader.ts's endRead.
  const destroySoon = () => {
    socket.end()
    socket.resume()
    socket.once('end', cut)
    setTimeout(cut, ms).unref()
  }
  socket.destroySoon = destroySoon
}
