/**
 * Body intake: every decision about a request body before it is parsed, in one place. The cap of
 * each route (bodyBytes, or stateBytes for a state import), 413 from a declared length before
 * reading, 413 for a body read past its cap, the large-body slot (largeBodies: one state import
 * read at a time), the Content-Type and the content coding (415, unread: checkBodyHead), and a body that never came whole (the client
 * left, or its chunked framing broke: 400). A route that takes no body still has a budget and a
 * framing for one: a declared length over the cap is refused unread, and a chunked body is read to
 * its end within the cap before the route acts.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { ApiError } from './errors.js'
import { header, type BodyRead, type CoreRequest, type RequestHeaders } from './http.js'
import { checkJsonContentType, readJsonBody } from './json-body.js'
import type { OperationSpec } from './routes.js'
import { RETRY, type Stage } from './stage.js'
import type { Limits } from '../limits.js'

/** The rows that take a body. */
export const readsBody = (operation: OperationSpec): boolean => operation.body !== undefined
const largeBody = (operation: OperationSpec) => operation.body?.limit === 'stateBytes'
const CODING = { 'Accept-Encoding': 'sometimes' } as const

/** An API call's body-head stage, as http/stages.ts lists it: what checkBodyHead refuses, unread. */
export const BODY_HEAD_STAGE: Stage = {
  name: 'body-head',
  says: ['Content-Length, Content-Type, Content-Encoding'],
  file: 'http/body.ts',
  answers: [{ codes: ['payload_too_large'] }, { codes: ['unsupported_media_type'], when: readsBody }],
  errorHeaders: { unsupported_media_type: CODING },
}

/** An API call's body stage: the body read within its cap (takeBody), the large-body slot. */
export const BODY_STAGE: Stage = {
  name: 'body',
  says: ["the body, read within its cap; a held call's", 'judged'],
  file: 'http/body.ts',
  answers: [
    { codes: ['bad_request', 'payload_too_large', 'invalid_body'], when: readsBody },
    { codes: ['service_unavailable'], when: largeBody },
  ],
  errorHeaders: { service_unavailable: RETRY },
}

/** An admin request's body stage: its head, then the body within its cap. */
export const ADMIN_BODY_STAGE: Stage = {
  name: 'body',
  says: ["the body's head, then the body within its cap"],
  file: 'http/body.ts',
  answers: [
    { codes: ['payload_too_large'] },
    { codes: ['unsupported_media_type', 'bad_request', 'invalid_body'], when: readsBody },
    { codes: ['service_unavailable'], when: largeBody },
  ],
  errorHeaders: { unsupported_media_type: CODING, service_unavailable: RETRY },
}

/** The 413 of a body over its cap. */
export function tooLarge(maxBytes: number): ApiError {
  return new ApiError('payload_too_large', `body must be at most ${maxBytes} bytes`)
}

/** The cap on an operation's body: its own limit, or bodyBytes for a route that reads none. */
export function capOf(operation: OperationSpec, limits: Limits): number {
  return limits[operation.body?.limit ?? 'bodyBytes']
}

/** How many large bodies (state imports) are being read now: the largeBodies budget's use. */
export interface BodySlots {
  large: number
}

/** A release for a request that holds no large-body slot. */
export const NO_SLOT = (): void => undefined

/**
 * Reads the body of a request every other rule has let through, within its route's cap. A body
 * sent with a content coding is refused unread; one declared too large is answered as such
 * without reading; a large one (a state import) waits for no one: past the largeBodies budget it
 * is refused unread with 503. Answers the read and a release for the large-body slot, called when
 * the operation is done with the body.
 */
export async function takeBody(
  request: CoreRequest,
  operation: OperationSpec,
  limits: Limits,
  slots: BodySlots,
): Promise<[BodyRead, () => void]> {
  checkContentCoding(request.headers)
  const cap = capOf(operation, limits)
  // Declared too large: refused from the header, whatever else is being read.
  if (declaredLength(request) > cap) return [{ body: null, truncated: true }, NO_SLOT]
  const release = cap > limits.bodyBytes ? takeLargeSlot(limits, slots) : NO_SLOT
  try {
    const read =
      request.readBody === undefined
        ? { body: request.body, truncated: request.truncated === true }
        : await request.readBody(cap)
    checkFraming(read)
    return [read, release]
  } catch (error) {
    release()
    throw error
  }
}

function takeLargeSlot(limits: Limits, slots: BodySlots): () => void {
  if (slots.large >= limits.largeBodies) {
    throw new ApiError(
      'service_unavailable',
      `The sandbox reads at most ${limits.largeBodies} large bod${limits.largeBodies === 1 ? 'y' : 'ies'} at once (the largeBodies limit); try again in a moment`,
      { 'Retry-After': '1' },
    )
  }
  slots.large++
  let held = true
  return () => {
    if (held) slots.large--
    held = false
  }
}

/** A read body within its cap, or the 413: what an operation (or the upstream) gets is whole. */
export function checkWithinCap(read: BodyRead, cap: number): Uint8Array {
  const bytes = read.body ?? new Uint8Array(0)
  if (read.truncated || bytes.byteLength > cap) throw tooLarge(cap)
  return bytes
}

/** A body read to its end, or the refusal when it never came whole: the client left, or its chunked framing broke. */
export function checkFraming(read: BodyRead): void {
  if (read.timedOut === true) {
    throw new ApiError('request_timeout', 'The body did not arrive whole within the request timeout (requestTimeoutMs)')
  }
  if (read.incomplete === true) {
    throw new ApiError('bad_request', 'The client closed the connection before the body was complete')
  }
  if (read.malformed !== undefined) {
    throw new ApiError(
      'bad_request',
      `The chunked body cannot be read: ${read.malformed}. Nothing more is read on this connection`,
    )
  }
}

/**
 * The body of a route that reads none still has a budget, and a framing: a Content-Length over
 * the cap is refused unread; a chunked body (whose length no header gives) is read to its end
 * within the cap before the route acts, so a broken framing or an oversized body refuses the
 * request (400, 413) and changes nothing. Undefined when there is nothing to wait for.
 */
export function checkUnusedBody(request: CoreRequest, limits: Limits): Promise<void> | undefined {
  const cap = limits.bodyBytes
  if (request.truncated === true || declaredLength(request) > cap) throw tooLarge(cap)
  if (request.readBody === undefined || request.headers['transfer-encoding'] === undefined) return undefined
  return request.readBody(cap).then((read) => {
    checkFraming(read)
    checkWithinCap(read, cap)
  })
}

/**
 * Every refusal of a body that its request's head decides, before the call waits on anything or
 * reads a byte: a content coding (415), a JSON operation's Content-Type (415), a Content-Length
 * over the cap (413). `json`: the sandbox parses the body itself (a forwarded body is the
 * upstream's to judge, and only its size and coding are the sandbox's). A route that takes no
 * body still has its cap. A hold then catches only calls the sandbox would answer.
 */
export function checkBodyHead(request: CoreRequest, operation: OperationSpec, limits: Limits, json: boolean): void {
  if (operation.body === undefined) {
    if (request.truncated === true || declaredLength(request) > limits.bodyBytes) throw tooLarge(limits.bodyBytes)
    return
  }
  checkContentCoding(request.headers)
  if (json) checkJsonContentType(request.headers)
  const cap = capOf(operation, limits)
  if (request.truncated === true || declaredLength(request) > cap) throw tooLarge(cap)
}

/**
 * A body sent with a content coding (gzip, br...) is refused before it is read: the sandbox
 * reads identity bodies only, and says so (RFC 7694: 415 with Accept-Encoding).
 */
export function checkContentCoding(headers: RequestHeaders): void {
  const coding = header(headers, 'content-encoding')
  if (coding === undefined) return
  const codings = coding
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== '' && item !== 'identity')
  if (codings.length === 0) return
  throw new ApiError(
    'unsupported_media_type',
    `Content-Encoding ${JSON.stringify(coding)} is not supported: send the body uncompressed, without Content-Encoding`,
    { 'Accept-Encoding': 'identity' },
  )
}

/** Whether the head announces a body: a Content-Length over 0, or a chunked one (whose length it cannot tell). */
export function declaresBody(request: CoreRequest): boolean {
  return declaredLength(request) > 0 || request.headers['transfer-encoding'] !== undefined
}

/** The body's length as Content-Length declares it; 0 without one. */
export function declaredLength(request: CoreRequest): number {
  const length = header(request.headers, 'content-length')
  return length === undefined ? 0 : Number(length)
}

/**
 * An operation's JSON body: its content type (415), then its size (413), then its text (400).
 * `seen` keeps what was sent, for the journal: its size, then its text, then what it parsed to.
 */
export async function jsonBodyOf(
  request: CoreRequest,
  read: BodyRead | undefined,
  operation: OperationSpec & { readonly body: NonNullable<OperationSpec['body']> },
  limits: Limits,
  seen: { body: unknown; bytes: number },
): Promise<unknown> {
  const given = read ?? EMPTY
  seen.bytes = given.body?.byteLength ?? 0
  checkJsonContentType(request.headers)
  const bytes = checkWithinCap(given, capOf(operation, limits))
  const body = await readJsonBody(bytes, operation.body.emptyHint, (text) => {
    seen.body = text
  })
  seen.body = body
  return body
}

const EMPTY: BodyRead = Object.freeze({ body: null, truncated: false })
