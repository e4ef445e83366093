import { getResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { createSandbox, defaultSandbox, handlers, type Pet, type Sandbox } from '../src/index.js'
import { expectConforms } from './support/openapi-check.js'

const KEY = 'petstore-sandbox-key'

async function send(sandbox: Sandbox, url: string, init: RequestInit & { key?: string; basePath?: string } = {}) {
  const { key = KEY, basePath, ...rest } = init
  const headers = new Headers(rest.headers)
  headers.set('Authorization', `Bearer ${key}`)
  const response = await getResponse([...sandbox.handlers], new Request(url, { ...rest, headers }))
  if (response) await expectConforms(rest.method ?? 'GET', url, response, basePath)
  return response
}

describe('createSandbox', () => {
  it('keeps two sandboxes apart', async () => {
    const one = createSandbox()
    const two = createSandbox()
    const created = await send(one, 'https://a.test/v1/pets', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":"Only here","categoryId":1}',
    })
    const { id } = (await created?.json()) as Pet
    expect((await send(one, `https://a.test/v1/pets/${id}`))?.status).toBe(200)
    expect((await send(two, `https://a.test/v1/pets/${id}`))?.status).toBe(404)
  })

  it('is one msw handler for the API and one for the admin routes', () => {
    const sandbox = createSandbox()
    expect(sandbox.handlers).toHaveLength(1)
    expect(sandbox.adminHandlers).toHaveLength(1)
  })

  it('routes what fetch hands over: in-process, dot segments are already gone', async () => {
    const sandbox = createSandbox()
    // new Request() normalises the URL before msw sees it; docs/behaviour.md says so.
    const request = new Request('https://a.test/v1/pets/../pets/%2e%2e/pets/1')
    expect(new URL(request.url).pathname).toBe('/v1/pets/1')
    const response = await send(sandbox, request.url)
    expect(response?.status).toBe(200)
    expect(await response?.json()).toMatchObject({ id: 1 })
  })

  it('matches any origin under /v1 by default, and nothing outside it', async () => {
    const sandbox = createSandbox()
    for (const url of [
      'https://api.example.com/v1/pets',
      'http://localhost:5173/v1/pets',
      'http://127.0.0.1:1/v1/pets/',
    ]) {
      expect((await send(sandbox, url))?.status, url).toBe(200)
    }
    for (const url of [
      'https://a.test/api/v1/pets',
      'https://a.test/v2/pets',
      'https://a.test/pets',
      'https://a.test/v1pets',
    ]) {
      expect(await send(sandbox, url), url).toBeUndefined()
    }
  })

  it('matches only the given origin when baseUrl has one', async () => {
    const sandbox = createSandbox({ baseUrl: 'https://api.example.com/v1/' })
    expect((await send(sandbox, 'https://api.example.com/v1/pets'))?.status).toBe(200)
    expect(await send(sandbox, 'https://other.example.com/v1/pets')).toBeUndefined()
    const created = await send(sandbox, 'https://api.example.com/v1/pets', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":"Rex","categoryId":1}',
    })
    expect(created?.headers.get('location')).toBe('/v1/pets/33')
  })

  it('serves under another path prefix, with links that follow it', async () => {
    const sandbox = createSandbox({ baseUrl: '/api/v1' })
    const response = await send(sandbox, 'https://a.test/api/v1/pets/1', { basePath: '/api/v1' })
    expect(response?.status).toBe(200)
    expect(response?.headers.get('link')).toBe('</api/v1/pets>; rel="successor-version"')
    expect(await send(sandbox, 'https://a.test/v1/pets')).toBeUndefined()
  })

  it('answers 405 with Allow for OPTIONS in-process (the server answers OPTIONS with CORS instead)', async () => {
    const response = await send(createSandbox(), 'https://a.test/v1/beta/anything', { method: 'OPTIONS' })
    expect(response?.status).toBe(405)
    expect(response?.headers.get('allow')).toBe('GET, HEAD, POST, PUT, PATCH, DELETE')
  })

  it('accepts only the given API keys', async () => {
    const sandbox = createSandbox({ apiKeys: ['alpha', 'beta'] })
    expect((await send(sandbox, 'https://a.test/v1/pets', { key: 'alpha' }))?.status).toBe(200)
    expect((await send(sandbox, 'https://a.test/v1/pets', { key: 'beta' }))?.status).toBe(200)
    expect((await send(sandbox, 'https://a.test/v1/pets'))?.status).toBe(401)
    expect(sandbox.apiKeys).toEqual(['alpha', 'beta'])
  })

  it('seeds from the given fixtures and continues ids after the highest', async () => {
    const sandbox = createSandbox({ fixtures: [{ id: 41, name: 'Solo', categoryId: 9, status: 'pending' }] })
    expect(await sandbox.pets.list()).toEqual([{ id: 41, name: 'Solo', categoryId: 9, status: 'pending' }])
    expect((await sandbox.pets.create({ name: 'Next', categoryId: 9 })).id).toBe(42)
  })

  it('applies the configured body cap', async () => {
    const sandbox = createSandbox({ maxBodyBytes: 40 })
    const response = await send(sandbox, 'https://a.test/v1/pets', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'A name long enough to pass forty bytes', categoryId: 1 }),
    })
    expect(response?.status).toBe(413)
    expect(await sandbox.pets.count()).toBe(32)
  })

  it('refuses invalid options with a message saying what to do', () => {
    expect(() => createSandbox({ baseUrl: 'ftp://x/v1' })).toThrow('baseUrl "ftp://x/v1" is not valid')
    expect(() => createSandbox({ apiKeys: [] })).toThrow('apiKeys is empty')
    expect(() => createSandbox({ maxBodyBytes: 0 })).toThrow('maxBodyBytes must be a positive integer')
    expect(() => createSandbox({ fixtures: [{ id: 1, name: 'x' } as Pet] })).toThrow(
      'entry 0 (id 1): categoryId is required',
    )
  })

  it('answers an unexpected failure with a 500 Error body, not a crash', async () => {
    const sandbox = createSandbox()
    // The scenario book is consulted on every pet operation: a broken one stands for any bug.
    Object.assign(sandbox.scenarios, {
      take: () => {
        throw new Error('disk on fire')
      },
    })
    const errors: unknown[] = []
    const original = console.error
    console.error = (...args: unknown[]) => errors.push(args)
    try {
      const response = await send(sandbox, 'https://a.test/v1/pets')
      expect(response?.status).toBe(500)
      expect(await response?.json()).toEqual({
        code: 'internal_error',
        message: 'The sandbox failed to handle this request; see its log',
        status: 500,
      })
      expect(errors).toHaveLength(1)
    } finally {
      console.error = original
    }
  })
})

describe('the default sandbox', () => {
  it('exports ready handlers backed by defaultSandbox', async () => {
    expect(handlers).toBe(defaultSandbox.handlers)
    const response = await getResponse(
      [...handlers],
      new Request('https://a.test/v1/pets?limit=2', { headers: { Authorization: `Bearer ${KEY}` } }),
    )
    expect(((await response?.json()) as Pet[]).map((pet) => pet.id)).toEqual([1, 2])
  })
})
