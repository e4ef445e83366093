/**
 * One HTTP exchange with another server, for `verify` and `--upstream`: node:http and node:https
 * (Node itself, no client library), the request target sent exactly as given (fetch would
 * normalise `%2e%2e` and drop a trailing `?`), a time budget over the whole exchange and a byte
 * budget on the answer, both from the core's limits. Every failure is an ExchangeFailure of one
 * kind, with a one-line message; nothing hangs and nothing throws anything else.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { PlainAnswer } from '../core/http/http.js'

export interface Exchange {
  readonly method: string
  /** The whole URL: origin and the target as it must be sent. */
  readonly origin: string
  readonly target: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: Uint8Array | string | null
  /** The whole exchange, connecting included. */
  readonly timeoutMs: number
  /** The answer's body beyond this is not read: the exchange fails as `too_large`. */
  readonly maxBytes: number
  /** Ends the exchange early (its client went away): it fails as `aborted`, and its socket is closed. */
  readonly signal?: AbortSignal
}

/**
 * An answer as received. Its text is decoded when a check asks: a list is checked from its bytes,
 * and relayed as they are. A class whose prototype holds that getter, not an object literal with
 * one of its own per exchange (what cost 0.12.5's listPets a third of its speed, issue 40).
 */
class ReceivedAnswer implements PlainAnswer {
  private text: string | undefined = undefined
  readonly repeated?: readonly string[]

  constructor(
    readonly status: number,
    readonly headers: Readonly<Record<string, string>>,
    repeated: readonly string[],
    readonly bytes: Buffer,
  ) {
    if (repeated.length > 0) this.repeated = repeated
  }

  get body(): string {
    return (this.text ??= this.bytes.toString('utf8'))
  }
}

export type FailureKind = 'connect' | 'timeout' | 'too_large' | 'protocol' | 'aborted'

export class ExchangeFailure extends Error {
  override readonly name = 'ExchangeFailure'
  constructor(
    readonly kind: FailureKind,
    message: string,
  ) {
    super(message)
  }
}

/** Sends one request and reads its whole answer (header names in lower case, repeats joined by `, ` and named in `repeated`; the body as UTF-8), within the exchange's budgets. */
export function exchange(sent: Exchange): Promise<PlainAnswer> {
  return new Promise((resolve, reject) => {
    let url: URL
    try {
      url = new URL(sent.origin)
    } catch {
      reject(new ExchangeFailure('connect', `${sent.origin} is not a URL`))
      return
    }
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)({
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port === '' ? undefined : Number(url.port),
      method: sent.method,
      path: sent.target,
      headers: sent.headers,
      // A fresh connection per exchange: a pooled socket the other side closed would fail a request that never left.
      agent: false,
    })
    let settled = false
    const finish = (failure: ExchangeFailure | undefined, answer?: PlainAnswer) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      sent.signal?.removeEventListener('abort', abort)
      if (failure === undefined && answer !== undefined) resolve(answer)
      else reject(failure ?? new ExchangeFailure('protocol', 'no answer'))
      request.destroy()
    }
    const timer = setTimeout(() => {
      finish(new ExchangeFailure('timeout', `no whole answer within ${sent.timeoutMs} ms`))
    }, sent.timeoutMs)
    const abort = () => {
      finish(new ExchangeFailure('aborted', 'the exchange was called off'))
    }
    if (sent.signal?.aborted === true) abort()
    sent.signal?.addEventListener('abort', abort, { once: true })
    request.on('error', (error: NodeJS.ErrnoException) => {
      finish(new ExchangeFailure(connectCodes.has(error.code ?? '') ? 'connect' : 'protocol', describe(error, url)))
    })
    request.on('response', (response) => {
      const body = new BodyBytes(response.headers['content-length'], sent.maxBytes)
      response.on('error', (error) => {
        finish(new ExchangeFailure('protocol', `the answer broke off: ${error.message}`))
      })
      response.on('data', (chunk: Buffer) => {
        if (!body.add(chunk)) {
          finish(new ExchangeFailure('too_large', `the answer's body is over ${sent.maxBytes} bytes`))
        }
      })
      response.on('end', () => {
        const { headers, repeated } = flatten(response.rawHeaders)
        finish(undefined, new ReceivedAnswer(response.statusCode ?? 0, headers, repeated, body.whole()))
      })
      response.on('aborted', () => {
        finish(new ExchangeFailure('protocol', 'the answer broke off before its end'))
      })
    })
    request.end(sent.body ?? undefined)
  })
}

/**
 * An answer's body as it arrives, within a byte budget. With a Content-Length it goes straight
 * into one buffer of that size, so no chunk list is held beside a copy of it: a relayed answer
 * costs its size once (bench/relay-memory.mjs).
 */
class BodyBytes {
  private readonly chunks: Buffer[] = []
  private readonly into: Buffer | undefined
  private length = 0

  constructor(
    declared: string | undefined,
    private readonly maxBytes: number,
  ) {
    const size = declared === undefined || !/^\d+$/.test(declared) ? Number.NaN : Number(declared)
    if (size <= maxBytes) this.into = Buffer.allocUnsafe(size)
  }

  /** Takes a chunk; false once the body is over the budget (or over its declared length). */
  add(chunk: Buffer): boolean {
    const next = this.length + chunk.byteLength
    if (next > this.maxBytes || (this.into !== undefined && next > this.into.byteLength)) return false
    if (this.into === undefined) this.chunks.push(chunk)
    else chunk.copy(this.into, this.length)
    this.length = next
    return true
  }

  whole(): Buffer {
    return this.into === undefined ? Buffer.concat(this.chunks, this.length) : this.into.subarray(0, this.length)
  }
}

/** Errors that mean the server was never reached. */
const connectCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL'])

function describe(error: NodeJS.ErrnoException, url: URL): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return `nothing listens at ${url.host} (connection refused)`
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the name ${url.hostname} does not resolve`
    case 'ECONNRESET':
      return `${url.host} closed the connection without an answer`
    default:
      return `${url.host}: ${error.code ?? error.message}`
  }
}

/** Header names in lower case, repeats joined by `, `; and the names that came more than once. */
function flatten(raw: readonly string[]): { headers: Record<string, string>; repeated: string[] } {
  const headers: Record<string, string> = {}
  const repeated = new Set<string>()
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = (raw[index] as string).toLowerCase()
    const value = raw[index + 1] as string
    // Object.hasOwn: a header named like an Object.prototype property is only data.
    if (Object.hasOwn(headers, name)) {
      repeated.add(name)
      headers[name] = `${headers[name] as string}, ${value}`
    } else {
      Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true })
    }
  }
  return { headers, repeated: [...repeated] }
}
