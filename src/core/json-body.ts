/**
 * Reading a request body as JSON, from the bytes an adapter read: the content type, the cap,
 * UTF-8, and JSON whose numbers keep their literals. Failures are ApiErrors.
 *
 * May import: other core files, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import { ApiError } from './errors.js'
import { header, type CoreRequest } from './http.js'
import { readJson } from './json.js'

/** Default cap on request bodies: far above any real NewPet, far below anything harmful. */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024

/**
 * The request body parsed as JSON. Refuses a non-JSON content type (415), a body over the cap
 * (413; the adapter read at most the cap and said so), and an empty, non-UTF-8 or malformed
 * body, including one with a duplicated key (400). `onText` sees the text before parsing, so
 * the journal can keep what was sent even when it is not JSON.
 */
export function readJsonBody(
  request: CoreRequest,
  maxBytes: number,
  emptyHint: string,
  onText: (text: string) => void = () => undefined,
): unknown {
  const contentType = header(request.headers, 'content-type')
  if (contentType !== undefined && !isJsonMediaType(contentType)) {
    throw new ApiError(
      'unsupported_media_type',
      `Content-Type must be application/json, got ${JSON.stringify(contentType)}`,
    )
  }
  const bytes = request.body ?? new Uint8Array(0)
  if (request.truncated === true || bytes.byteLength > maxBytes) throw tooLarge(maxBytes)
  let text: string
  try {
    // The byte-order mark stays in the text: readJson skips one, for bodies as for files.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    throw new ApiError('invalid_body', 'body must be UTF-8 encoded JSON')
  }
  onText(text)
  if (text.replace(/^\uFEFF/, '').trim() === '') throw new ApiError('invalid_body', `body is required: ${emptyHint}`)
  // The one JSON reader: numbers keep their literals (1.00000000000000001 is not 1), duplicate
  // keys are refused, and nesting has a limit.
  const read = readJson(text, 'body')
  if (!read.ok) throw new ApiError('invalid_body', read.problems.join('; '))
  return read.value
}

export function tooLarge(maxBytes: number): ApiError {
  return new ApiError('payload_too_large', `body must be at most ${maxBytes} bytes`)
}

function isJsonMediaType(contentType: string): boolean {
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? ''
  return mediaType === 'application/json' || /^application\/[^/]+\+json$/.test(mediaType)
}
