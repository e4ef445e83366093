import { describe, expect, it } from 'vitest'
import { constantTimeEqual, createAuthenticator } from '../src/core/auth.js'
import { ApiError } from '../src/core/errors.js'

const bytes = (text: string) => new TextEncoder().encode(text)

describe('constantTimeEqual', () => {
  it.each([
    ['abc', 'abc', true],
    ['abc', 'abd', false],
    ['abc', 'ab', false],
    ['ab', 'abc', false],
    ['', '', true],
    ['a', '', false],
  ])('%j vs %j is %s', (a, b, equal) => {
    expect(constantTimeEqual(bytes(a), bytes(b))).toBe(equal)
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

  it('accepts every configured key, with any case of the scheme and extra spaces', () => {
    expect(() => {
      authenticate('Bearer key-one')
      authenticate('bearer key-two')
      authenticate('BEARER   key-one  ')
    }).not.toThrow()
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

  it('refuses to start with no keys or a key that cannot be sent as a bearer token', () => {
    expect(() => createAuthenticator([])).toThrow('apiKeys is empty')
    expect(() => createAuthenticator(['has space'])).toThrow('is not a valid bearer token')
  })
})
