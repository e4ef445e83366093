/**
 * Reading a request's body, only when the core asks for it (body intake, core/http/body.ts), and
 * only as much of it as the core's cap allows.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { header, type BodyRead, type RequestHeaders } from '../core/http/http.js'

/** A read that Node's request timeout ended: its 408 went out, and no one is left to answer. */
const TIMED_OUT: BodyRead = { body: null, truncated: false, incomplete: true, timedOut: true }

/**
 * Reads the body only when the core asks, and stops at the first chunk past `limit`: enough for
 * the core to see that a body is too large without the rest being read (a declared length over
 * the limit is refused by the core before it asks). `unread` tells how much of the body is left
 * in the connection.
 *
 * A class, not closures per request: one object holds what a read needs.
 */
export class BodyReader {
  private readonly declared: string | undefined
  private readonly chunked: boolean
  private readonly length: number
  private received = 0
  /** The client went away mid-body: there is no one left to answer. */
  gone = false
  /** What broke the body's framing, once the parser said so. */
  private broken: string | undefined
  /** Node's request timeout ended the request before its body came whole. */
  private expired = false
  /** Ends the read under way, if one is, with the given outcome. */
  private endRead: ((read: BodyRead) => void) | undefined

  constructor(
    private readonly request: IncomingMessage,
    private readonly response: ServerResponse,
    private readonly headers: RequestHeaders,
  ) {
    this.declared = header(headers, 'content-length')
    this.chunked = headers['transfer-encoding'] !== undefined
    this.length = this.declared === undefined ? 0 : Number(this.declared)
  }

  unread(): number {
    return this.request.complete ? 0 : this.chunked ? Infinity : Math.max(0, this.length - this.received)
  }

  /**
   * Node's request timeout ended the request mid-body and its 408 went out (parse-errors.ts): the
   * read under way ends as timed out, so the core journals that 408; no one is left to answer.
   */
  timedOut(): void {
    if (this.request.complete || this.broken !== undefined) return
    this.gone = true
    this.expired = true
    this.endRead?.(TIMED_OUT)
  }

  /** The parser gave up on the body's framing: a read under way, or the next one, answers `malformed`. */
  malformed(reason: string): void {
    if (this.broken !== undefined) return
    this.broken = reason
    this.endRead?.({ body: null, truncated: false, malformed: reason })
  }

  read(limit: number): Promise<BodyRead> {
    const { request, response } = this
    if (this.broken !== undefined) return Promise.resolve({ body: null, truncated: false, malformed: this.broken })
    if (this.expired) return Promise.resolve(TIMED_OUT)
    if (this.declared === undefined && !this.chunked) return Promise.resolve({ body: null, truncated: false })
    // The client waits for this before it sends the body (Expect: 100-continue).
    if (this.headers.expect !== undefined && !response.headersSent) response.writeContinue()
    // Events rather than `for await`: the async iterator costs a promise per chunk on the hot path.
    return new Promise((resolve) => {
      const chunks: Buffer[] = []
      const onData = (chunk: Buffer) => {
        this.received += chunk.length
        if (this.received <= limit) {
          chunks.push(chunk)
          return
        }
        request.off('data', onData).off('end', onEnd).pause()
        resolve({ body: new Uint8Array(0), truncated: true })
      }
      const onEnd = () => {
        resolve({
          body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, this.received),
          truncated: false,
        })
      }
      // A client that goes away mid-body ends the request without 'end' (and not always with 'error').
      const onGone = () => {
        if (request.complete || this.broken !== undefined) return
        this.gone = true
        resolve({ body: null, truncated: false, incomplete: true })
      }
      // Made in a local, then assigned: V8's parser allocates a function literal written straight
      // into a property in the old generation (CheckAssigningFunctionLiteralToProperty), where it
      // would keep this read (its promise, its Buffer) alive past every scavenge; V8 then learns to
      // tenure the allocations around it (issue 49: createPet lost a third of its speed).
      const endRead = (read: BodyRead) => {
        request.off('data', onData).off('end', onEnd).pause()
        resolve(read)
      }
      this.endRead = endRead
      request.on('data', onData).on('end', onEnd).on('error', onGone).on('close', onGone)
    })
  }
}
