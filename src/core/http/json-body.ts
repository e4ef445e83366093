/**
 * Reading a request body as JSON, from the bytes body intake let through (body.ts): the content
 * type, UTF-8, and JSON whose numbers keep their literals. Failures are ApiErrors. Large bodies
 * (a state import) are parsed in slices, so they never hold the event loop for long.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { ApiError } from './errors.js'
import { header, type RequestHeaders } from './http.js'
import { readJson, readJsonInSlices } from './json.js'

/** Texts longer than this are parsed in slices; shorter ones at once (a NewPet is under 1 KiB). */
export const SLICED_FROM_LENGTH = 256 * 1024

/** Gives the event loop a turn: what a slice of parsing ends with. */
export function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0))
}

/** A body sent as anything but JSON is refused (415) before its size or its text are looked at. */
export function checkJsonContentType(headers: RequestHeaders): void {
  const contentType = header(headers, 'content-type')
  if (contentType !== undefined && !readsAsJson(contentType)) {
    throw new ApiError(
      'unsupported_media_type',
      `Content-Type must be application/json, got ${JSON.stringify(contentType)}`,
    )
  }
}

/**
 * The request body parsed as JSON, from bytes within their cap (body.ts). Refuses an empty,
 * non-UTF-8 or malformed body, including one with a duplicated key (400). `onText` sees the text
 * before parsing, so the journal can keep what was sent even when it is not JSON.
 */
export async function readJsonBody(
  bytes: Uint8Array,
  emptyHint: string,
  onText: (text: string) => void = () => undefined,
): Promise<unknown> {
  let text: string
  try {
    // The byte-order mark stays in the text: readJson skips one, for bodies as for files.
    text = bytes.byteLength < SLICED_FROM_LENGTH ? WHOLE.decode(bytes) : await decodeInSlices(bytes)
  } catch {
    throw new ApiError('invalid_body', 'body must be UTF-8 encoded JSON')
  }
  onText(text)
  if (text.replace(/^\uFEFF/, '').trim() === '') throw new ApiError('invalid_body', `body is required: ${emptyHint}`)
  // The one JSON reader: numbers keep their literals (1.00000000000000001 is not 1), duplicate
  // keys are refused, and nesting has a limit.
  const reading =
    text.length < SLICED_FROM_LENGTH ? readJson(text, 'body') : await readJsonInSlices(text, 'body', pause)
  if (!reading.ok) throw new ApiError('invalid_body', reading.problems.join('; '))
  return reading.value
}

function decoder(): TextDecoder {
  return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
}

// A decoder used without `stream` keeps nothing between calls: one serves every small body
// (making one per request was 0.4% of a createPet profile under wrk). Sliced decoding streams,
// so it makes its own.
const WHOLE = decoder()

/** Bytes decoded between two pauses: a millisecond or so of work. */
const BYTES_PER_SLICE = 1024 * 1024

/** A large body decoded a slice at a time (a character split between slices is kept whole). */
export async function decodeInSlices(bytes: Uint8Array): Promise<string> {
  const reader = decoder()
  const parts: string[] = []
  for (let start = 0; start < bytes.byteLength; start += BYTES_PER_SLICE) {
    parts.push(reader.decode(bytes.subarray(start, start + BYTES_PER_SLICE), { stream: true }))
    await pause()
  }
  parts.push(reader.decode())
  return parts.join('')
}

/**
 * Whether the sandbox reads a request body of this Content-Type as JSON: `application/json`, or
 * any `application/*+json` (RFC 6839's structured suffix), parameters aside, as docs/behaviour.md
 * says. Lenient on purpose: a client's body is JSON whatever JSON type it names. An answer checked
 * against the interface document is held to the document's own type instead
 * (api/answer-check.ts, `isDocumentedMediaType`).
 */
function readsAsJson(contentType: string): boolean {
  // What clients send nearly always, checked without splitting it.
  if (contentType === 'application/json') return true
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? ''
  return mediaType === 'application/json' || /^application\/[^/]+\+json$/.test(mediaType)
}
