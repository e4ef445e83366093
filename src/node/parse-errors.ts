/**
 * What Node's parser could not read, or its request timeout ended (`clientError`): answered by
 * the core (core/http/unparsable.ts) in its turn on the connection, which then ends.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import type { Duplex } from 'node:stream'
import { answerUnparsable } from '../core/http/unparsable.js'
import { ignore, type Adapter } from './listener.js'
import { writeRaw } from './response.js'

/** What Node's parser, or its request timeout, reports on a connection. */
export type ParseError = Error & { code?: string; rawPacket?: Buffer; reason?: string }

/** A request Node could not parse, or that took too long: answered when its turn comes, then the connection ends. */
export function onClientError(adapter: Adapter, error: ParseError, socket: Duplex): void {
  const { limits } = adapter
  socket.on('error', ignore)
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    adapter.timedOut.add(socket)
    // A body being read: its call ends as timed out (408 in the journal), not as a client gone.
    adapter.sockets.interrupted(socket)?.timedOut()
  }
  // A socket's own failure (a reset, a broken pipe): no one is left to answer.
  if (error.code !== 'ERR_HTTP_REQUEST_TIMEOUT' && error.code?.startsWith('HPE_') !== true) {
    socket.destroy()
    return
  }
  // A client that neither reads its answer nor closes is cut after lingerMs: it holds nothing.
  const answer = () => {
    writeRaw(socket, answerUnparsable(unparsable(error), limits))
    setTimeout(() => socket.destroy(), limits.lingerMs).unref()
  }
  // A request already answered on this connection goes out first, then this one's error. A
  // request cut short has no answer to wait for: a timeout still tells the client so (408).
  if (adapter.sockets.whenIdle(socket, answer)) return
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    answer()
  } else if (error.code !== 'HPE_INVALID_EOF_STATE' && adapter.sockets.interrupted(socket) !== undefined) {
    // A body whose framing broke mid-way (a bad chunk size, a chunk longer than declared), the
    // client still there: the request is the core's to answer (400 when it reads the body), and
    // then the connection ends. Node parses nothing more on it, so a request pipelined behind
    // it never runs. (The end of the stream mid-body, INVALID_EOF_STATE, is a client gone.)
    adapter.sockets.interrupted(socket)?.malformed(describeParseError(error))
  } else if (error.code === 'HPE_INVALID_TRANSFER_ENCODING') {
    // The parser handed the request over and then could not frame its body (`gzip` alone): the
    // core answers it from its headers (501), and then the connection ends, within lingerMs.
    const cut = () => {
      socket.destroy()
    }
    adapter.sockets.whenAnswered(socket, cut)
    setTimeout(cut, limits.lingerMs).unref()
  } else {
    socket.destroy()
  }
}

/** A parse error in a few words: llhttp's reason (`Invalid character in chunk size`), or its code. */
function describeParseError(error: Error & { code?: string; reason?: string }): string {
  const reason = error.reason ?? error.code ?? 'unreadable'
  return reason.charAt(0).toLowerCase() + reason.slice(1)
}

/** What Node's parser reports, in the core's terms. */
function unparsable(error: ParseError) {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { kind: 'timeout' } as const
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return { kind: 'too-large', packet: error.rawPacket?.toString('latin1') ?? '' } as const
  }
  return { kind: 'invalid', reason: error.reason } as const
}
