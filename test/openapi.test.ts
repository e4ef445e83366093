import { readFileSync } from 'node:fs'
import SwaggerParser from '@apidevtools/swagger-parser'
import type { OpenAPIV3_1 } from 'openapi-types'
import { describe, expect, it } from 'vitest'
import { createAdminOpenApiDocument, createOpenApiDocument } from '../src/core/docs/openapi.js'
import { openapi, violations } from './support/openapi-check.js'

const committed = readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')
const json = (body: unknown, status: number, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } })
const url = (path: string) => `https://petstore.test${path}`

describe('openapi.json', () => {
  // Whether the committed file is current, not whether it is right: the document and its
  // generator are one source, so comparing them proves nothing of what the sandbox answers.
  // Correctness is checked in openapi-independent.test.ts, against a hand-written table of each
  // operation's statuses, Error codes and headers, and against answers recorded from a server.
  it('is what the contract generates: run `npm run openapi` after changing the contract', () => {
    expect(JSON.parse(committed)).toEqual(createOpenApiDocument())
    const admin = readFileSync(new URL('../admin-openapi.json', import.meta.url), 'utf8')
    expect(JSON.parse(admin)).toEqual(createAdminOpenApiDocument())
  })

  it('gives createPet an example a reader can execute, and the list its bound of 100', () => {
    const document = createOpenApiDocument() as unknown as OpenAPIV3_1.Document
    const create = document.paths?.['/pets']?.post?.requestBody as OpenAPIV3_1.RequestBodyObject
    expect(create.content['application/json']?.example).toEqual({ name: 'Rex', categoryId: 1, status: 'available' })
    const list = document.paths?.['/pets']?.get?.responses['200'] as OpenAPIV3_1.ResponseObject
    expect(list.content?.['application/json']?.schema).toMatchObject({ type: 'array', maxItems: 100 })
    // The refusal of id is words, not a schema rule that tools read as "id is required".
    expect(JSON.stringify(document.components?.schemas?.NewPet)).not.toContain('"not"')
    expect(document.components?.schemas?.NewPet?.description).toContain('`id` is assigned by the service')
  })

  it('is a valid OpenAPI 3.1 document according to swagger-parser', async () => {
    const document = structuredClone(openapi) as unknown as OpenAPIV3_1.Document
    await expect(SwaggerParser.validate(document)).resolves.toBeDefined()
  })

  it('declares the three operations, the bearer scheme and the deprecation of getPet', () => {
    const document = createOpenApiDocument() as unknown as OpenAPIV3_1.Document
    expect(document.info.version).toBe('1.0.0')
    expect(document.paths?.['/pets']?.get?.operationId).toBe('listPets')
    expect(document.paths?.['/pets']?.post?.operationId).toBe('createPet')
    const getPet = document.paths?.['/pets/{petId}']?.get
    expect(getPet?.operationId).toBe('getPet')
    expect(getPet?.deprecated).toBe(true)
    for (const response of Object.values(getPet?.responses ?? {})) {
      expect(Object.keys((response as OpenAPIV3_1.ResponseObject).headers ?? {})).toEqual(
        expect.arrayContaining(['Deprecation', 'Sunset', 'Link']),
      )
    }
    expect(document.components?.securitySchemes?.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(document.servers?.map((server) => server.url)).toEqual([
      '/v1',
      'https://api.example.com/v1',
      'https://staging.api.example.com/v1',
    ])
  })
})

describe('the response check', () => {
  const pet = { id: 1, name: 'Rex', categoryId: 1 }
  const deprecation = {
    Deprecation: '@1767225600',
    Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
    Link: '</v1/pets>; rel="successor-version"',
  }

  it('passes a conforming response', async () => {
    expect(await violations('GET', url('/v1/pets'), json([pet], 200))).toEqual([])
    expect(await violations('GET', url('/v1/pets/1'), json(pet, 200, deprecation))).toEqual([])
  })

  it.each([
    ['an undeclared status', 'GET', '/v1/pets', json([pet], 418), /status 418 is not declared/],
    ['a body of the wrong shape', 'GET', '/v1/pets', json([{ ...pet, id: '1' }], 200), /body does not match/],
    ['an extra field on a Pet', 'GET', '/v1/pets', json([{ ...pet, owner: 'x' }], 200), /body does not match/],
    [
      'a missing deprecation header',
      'GET',
      '/v1/pets/1',
      json(pet, 200, { Sunset: deprecation.Sunset, Link: deprecation.Link }),
      /header Deprecation is missing/,
    ],
    [
      'an Error whose status is not the HTTP status',
      'GET',
      '/v1/pets',
      json({ code: 'unauthorized', message: 'x', status: 400 }, 401, { 'WWW-Authenticate': 'Bearer' }),
      /body does not match/,
    ],
    [
      'an Error code the operation does not give',
      'GET',
      '/v1/pets',
      json({ code: 'invalid_body', message: 'x', status: 400 }, 400),
      /body does not match/,
    ],
    ['a 201 without Location', 'POST', '/v1/pets', json(pet, 201), /header Location is missing/],
    [
      'a non-JSON content type',
      'GET',
      '/v1/pets',
      new Response('[]', { status: 200, headers: { 'Content-Type': 'text/plain' } }),
      /content type text\/plain is not declared/,
    ],
    ['an answer of 200 on an unknown path', 'GET', '/v1/owners', json([], 200), /expected 404 or 401, got 200/],
    [
      'a 405 without Allow',
      'DELETE',
      '/v1/pets/1',
      json({ code: 'method_not_allowed', message: 'x', status: 405 }, 405),
      /405 without Allow/,
    ],
  ])('flags %s', async (_, method, path, response, problem) => {
    expect((await violations(method, url(path), response)).join('\n')).toMatch(problem)
  })
})
