/**
 * Reading a Fetch Request into plain values for the contract checks: the query as
 * single strings, the body as parsed JSON within a byte cap. Failures are ApiErrors.
 */
import { isSafeNumber, parse } from 'lossless-json'
import { InexactNumber } from './contract.js'
import { ApiError } from './errors.js'

/** Default cap on request bodies: far above any real NewPet, far below anything harmful. */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024

/**
 * The query parameters named in `known`, each given at most once. Others are ignored,
 * as most HTTP APIs do; a repeated known parameter is ambiguous and refused.
 */
export function readQuery(url: URL, known: readonly string[]): Record<string, string> {
  const query: Record<string, string> = {}
  for (const name of known) {
    const values = url.searchParams.getAll(name)
    if (values.length > 1) {
      throw new ApiError('invalid_parameter', `${name} must be given at most once, got ${values.length} values`)
    }
    if (values[0] !== undefined) query[name] = values[0]
  }
  return query
}

/**
 * The request body parsed as JSON. Refuses a non-JSON content type (415), a body over
 * `maxBytes` (413, counted while streaming so a huge body is never buffered), and an
 * empty, non-UTF-8 or malformed body, including one with a duplicated key (400).
 */
export async function readJsonBody(
  request: Request,
  maxBytes: number,
  onText: (text: string) => void = () => undefined,
): Promise<unknown> {
  const contentType = request.headers.get('content-type')
  if (contentType !== null && !isJsonMediaType(contentType)) {
    throw new ApiError(
      'unsupported_media_type',
      `Content-Type must be application/json, got ${JSON.stringify(contentType)}`,
    )
  }
  const declaredLength = Number(request.headers.get('content-length') ?? 0)
  if (declaredLength > maxBytes) throw tooLarge(maxBytes)

  const bytes = await readBytes(request, maxBytes)
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new ApiError('invalid_body', 'body must be UTF-8 encoded JSON')
  }
  onText(text)
  if (text.trim() === '') {
    throw new ApiError('invalid_body', 'body is required: send a JSON object with name and categoryId')
  }
  try {
    // lossless-json rather than JSON.parse: it hands over each number's literal, so one
    // that a JavaScript number would round (1.00000000000000001) stays recognisable.
    return parse(text, null, (literal) => (isSafeNumber(literal) ? Number(literal) : new InexactNumber(literal)))
  } catch (error) {
    const detail = error instanceof SyntaxError ? `: ${error.message}` : ''
    throw new ApiError('invalid_body', `body is not valid JSON${detail}`)
  }
}

function isJsonMediaType(contentType: string): boolean {
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? ''
  return mediaType === 'application/json' || /^application\/[^/]+\+json$/.test(mediaType)
}

async function readBytes(request: Request, maxBytes: number): Promise<Uint8Array> {
  if (request.body === null) return new Uint8Array(0)
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      // Not awaited: msw tees request bodies, and a tee branch's cancel() settles only once
      // the other branch is cancelled too, which may be never.
      reader.cancel().catch(() => undefined)
      throw tooLarge(maxBytes)
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return bytes
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError('payload_too_large', `body must be at most ${maxBytes} bytes`)
}
