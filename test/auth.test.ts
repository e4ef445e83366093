import { createSandboxCore } from '../src/core/sandbox.js'
import { describe, expect, it } from 'vitest'
import { constantTimeEqualText, createAuthenticator } from '../src/core/api/auth.js'
import { ApiError } from '../src/core/http/errors.js'

describe('constantTimeEqualText', () => {
  it.each([
    ['abc', 'abc', true],
    ['abc', 'abd', false],
    ['abc', 'ab', false],
    ['ab', 'abc', false],
    ['', '', true],
    ['a', '', false],
    ['\u00e9', 'e\u0301', false],
    ['key\u0000', 'key', false],
  ])('%j vs %j is %s', (a, b, equal) => {
    expect(constantTimeEqualText(a, b)).toBe(equal)
  })
})

describe('createAuthenticator', () => {
  const authenticate = createAuthenticator(['key-one', 'key-two'])
  const failure = (header: string | null) => {
    try {
      authenticate(header)
    } catch (error) {
      return error as ApiError
    }
    throw new Error(`accepted ${String(header)}`)
  }

  it('accepts every configured key, with any case of the scheme and extra spaces, answering the key', () => {
    expect(authenticate('Bearer key-one')).toBe('key-one')
    expect(authenticate('bearer key-two')).toBe('key-two')
    expect(authenticate('BEARER   key-one  ')).toBe('key-one')
    expect(authenticate('  Bearer key-two')).toBe('key-two')
  })

  it('answers a key accepted by pattern or in any-key mode as sent, and only a well-formed one', () => {
    const byPattern = createAuthenticator(['key-one'], { pattern: /team-[a-z]+/ })
    expect(byPattern('Bearer team-red')).toBe('team-red')
    expect(byPattern('Bearer key-one')).toBe('key-one')
    expect(() => byPattern('Bearer team-9')).toThrow('API key is not valid')
    expect(() => byPattern('Bearer xteam-red')).toThrow('API key is not valid')
    const anyKey = createAuthenticator(['key-one'], { any: true })
    expect(anyKey('Bearer worker-7')).toBe('worker-7')
    expect(() => anyKey('Bearer bad,key')).toThrow('API key is not valid')
  })

  it('tells a missing credential from a wrong one in the challenge', () => {
    expect(failure(null).headers['WWW-Authenticate']).toBe('Bearer realm="petstore"')
    expect(failure('Bearer nope').headers['WWW-Authenticate']).toBe('Bearer realm="petstore", error="invalid_token"')
    expect(failure('Bearer key-one-and-more').message).toBe('API key is not valid')
    expect(failure('Bearer').message).toContain('API key is empty')
    expect(failure('Token key-one').message).toBe(
      'Authorization scheme must be Bearer, got "Token": send "Authorization: Bearer <API key>"',
    )
  })

  it.each(['petstore-sandbox-key', 's3cr3t-key-with-no-scheme', 'weird-scheme s3cr3t'])(
    'never quotes a credential back: %s',
    (header) => {
      const { message } = failure(header)
      expect(message).toMatch(/^Authorization scheme must be Bearer/)
      for (const word of header.split(' ')) expect(message).not.toContain(word)
    },
  )

  it('refuses to start with no keys or a key that cannot be sent as a bearer token (the options schema)', () => {
    expect(() => createSandboxCore({ apiKeys: [] })).toThrow('apiKeys is empty')
    expect(() => createSandboxCore({ apiKeys: ['ok-key', 'has space'] })).toThrow(
      'API key "has space" is not a valid bearer token',
    )
  })
})
