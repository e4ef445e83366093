/**
 * Bearer authentication with constant-time key comparison. Browser-safe: no
 * node:crypto, so the comparison is written out over the strings' code units.
 *
 * May import: core/api, core/http, core/limits.ts, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import { ApiError } from '../http/errors.js'

export const DEFAULT_API_KEY = 'petstore-sandbox-key'

// The IANA HTTP Authentication Scheme Registry: names that are safe to quote back.
const KNOWN_SCHEMES = new Set([
  'basic',
  'concealed',
  'digest',
  'dpop',
  'gnap',
  'hoba',
  'mutual',
  'negotiate',
  'oauth',
  'privatetoken',
  'scram-sha-1',
  'scram-sha-256',
  'vapid',
  'token',
  'ntlm',
  'aws4-hmac-sha256',
])

// RFC 6750 b64token: the only characters a bearer credential may hold.
export const TOKEN_PATTERN = /^[A-Za-z0-9\-._~+/]+=*$/

interface ExtraKeys {
  /** Also accept any key this matches in full (isolated mode). */
  pattern?: RegExp | undefined
  /** Also accept any well-formed key (isolated mode without a pattern). */
  any?: boolean
}

/** Answers with the key an Authorization header carries, or throws a 401 ApiError. */
export type Authenticate = (authorization: string | null | undefined) => string

export function createAuthenticator(apiKeys: readonly string[], extra: ExtraKeys = {}): Authenticate {
  const pattern =
    extra.pattern === undefined
      ? undefined
      : new RegExp(`^(?:${extra.pattern.source})$`, extra.pattern.flags.replace(/[gy]/g, ''))
  // The keys were checked with the options (options.ts): each is a bearer token.
  const accepted = [...apiKeys]

  return (authorization) => {
    if (authorization === null || authorization === undefined || authorization.trim() === '') {
      throw unauthorized('Authorization header is missing; send "Authorization: Bearer <API key>"', false)
    }
    // What almost every request sends, read without a regular expression: `Bearer <key>`.
    const plain =
      authorization.startsWith('Bearer ') && authorization.indexOf(' ', 7) === -1 ? authorization.slice(7) : undefined
    const credential = plain !== undefined && plain !== '' ? plain : readCredential(authorization)
    // Compare against every key without stopping early, so timing says nothing about which key or prefix matched.
    let matched = false
    for (const key of accepted) matched = constantTimeEqualText(key, credential) || matched
    // The extra keys are open by design (any key, or a pattern), so there is no secret to time.
    if (!matched && TOKEN_PATTERN.test(credential)) {
      matched = extra.any === true || pattern?.test(credential) === true
    }
    if (!matched) throw unauthorized('API key is not valid', true)
    return credential
  }
}

/** The credential of any other spelling of the header, or the 401 that says what is wrong with it. */
function readCredential(authorization: string): string {
  // The scheme is case-insensitive (RFC 7235 section 2.1); the credential is not.
  const match = /^(\S+)(?:[ ]+(.*))?$/.exec(authorization.trim())
  const scheme = match?.[1] ?? ''
  const credential = match?.[2]?.trim() ?? ''
  if (scheme.toLowerCase() !== 'bearer') {
    // Only a registered scheme's name is quoted back: a lone word may be the key itself.
    const named = KNOWN_SCHEMES.has(scheme.toLowerCase()) ? `, got ${JSON.stringify(scheme)}` : ''
    const shape = credential === '' ? '; the header holds no scheme, or no credential after it' : ''
    throw unauthorized(
      `Authorization scheme must be Bearer${named}${shape}: send "Authorization: Bearer <API key>"`,
      false,
    )
  }
  if (credential === '') {
    throw unauthorized('API key is empty; send "Authorization: Bearer <API key>"', true)
  }
  return credential
}

/** The 401 and its challenge (RFC 6750 section 3): `invalid_token` once a credential was given. */
export function unauthorized(message: string, credentialGiven: boolean): ApiError {
  const challenge = credentialGiven ? 'Bearer realm="petstore", error="invalid_token"' : 'Bearer realm="petstore"'
  return new ApiError('unauthorized', message, { 'WWW-Authenticate': challenge })
}

/**
 * A key as logs, the journal and the dashboard show it: its first and last characters (4 and 2
 * of a key of 12 or more, 2 and 1 of a shorter one, none of one under 6), so `worker-1` and
 * `worker-2` are told apart, and never the key itself.
 */
export function maskKey(key: string): string {
  const [head, tail] = key.length >= 12 ? [4, 2] : key.length >= 6 ? [2, 1] : [0, 0]
  const hidden = '*'.repeat(Math.min(key.length - head - tail, 8))
  return `${key.slice(0, head)}${hidden}${key.slice(key.length - tail)} (${key.length} characters)`
}

/**
 * Compares two strings in time that depends only on the longer length, over UTF-16 code units:
 * no credential is encoded to bytes on every request (a TextEncoder call was 1.3% of a listPets
 * profile under wrk).
 */
export function constantTimeEqualText(a: string, b: string): boolean {
  let difference = a.length ^ b.length
  const length = Math.max(a.length, b.length)
  for (let i = 0; i < length; i++) difference |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0)
  return difference === 0
}
