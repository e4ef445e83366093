/**
 * Checks a response against the committed documents, openapi.json for the API under its base path
 * and admin-openapi.json for the admin routes under /__sandbox: the status must be declared for
 * the operation, the content type and body must match, and declared headers must be there.
 * A request the document has no operation for must get what the document implies:
 * 405 with Allow on a known path, 404 elsewhere, both as Error bodies.
 *
 * The document is generated from the route table, so on its own this check would only hold the
 * answers to what the rows say. The document itself is checked in openapi-independent.test.ts,
 * against a hand-written table and against answers recorded from a server (issue 17).
 */
import { readFileSync } from 'node:fs'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { expect } from 'vitest'

interface Operation {
  responses: Record<
    string,
    { content?: Record<string, unknown>; headers?: Record<string, { required?: boolean; schema: object }> }
  >
}
type PathItem = Record<string, Operation>
interface Document {
  paths: Record<string, PathItem>
}

const load = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')) as Document
export const openapi = load('openapi.json')
export const adminOpenapi = load('admin-openapi.json')
type Source = 'openapi' | 'admin'
const documents: Record<Source, Document> = { openapi, admin: adminOpenapi }

const ajv = new Ajv2020({ strict: false, allErrors: true })
ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) })
ajv.addSchema(openapi, 'openapi')
ajv.addSchema(adminOpenapi, 'admin')

const pointer = (...parts: string[]) => parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')

const validators = new Map<string, ReturnType<typeof ajv.compile>>()
function validator(source: Source, ref: string) {
  let validate = validators.get(`${source}#${ref}`)
  if (validate === undefined) {
    validate = ajv.compile({ $ref: `${source}#/${ref}` })
    validators.set(`${source}#${ref}`, validate)
  }
  return validate
}

const ADMIN = '/__sandbox'

const templates = (Object.keys(documents) as Source[]).flatMap((source) =>
  Object.keys(documents[source].paths).map((template) => ({
    source,
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  })),
)

// The areas the interface names without a shape answer 501, and no document describes them
// (docs/behaviour.md lists them).
const PLACEHOLDERS = /^\/(store\/orders|experimental\/|beta\/)/

/** Whether a document speaks for this path: the API under the base path, or an admin route (not the pages' assets). */
function covered(pathname: string, basePath: string): boolean {
  const under = (mount: string) => pathname === mount || pathname.startsWith(`${mount}/`)
  if (under(basePath)) return !PLACEHOLDERS.test(pathname.slice(basePath.length))
  return under(ADMIN) && !pathname.startsWith(`${ADMIN}/docs/`)
}

/**
 * The document and path template matching a pathname, if any: API paths are relative to the
 * base path (openapi.json), admin routes to /__sandbox (admin-openapi.json).
 */
export function findPath(pathname: string, basePath = '/v1'): { source: Source; template: string } | undefined {
  const source: Source = pathname === ADMIN || pathname.startsWith(`${ADMIN}/`) ? 'admin' : 'openapi'
  const rest = (source === 'admin' ? pathname.slice(ADMIN.length) || '/' : pathname.slice(basePath.length)).replace(
    /(.)\/$/,
    '$1',
  )
  return templates.find((entry) => entry.source === source && entry.pattern.test(rest))
}

/**
 * Returns the ways a response breaks the document; empty when it conforms.
 * Reads a clone, so the caller can still read the body.
 */
export async function violations(method: string, url: string, response: Response, basePath = '/v1'): Promise<string[]> {
  const { pathname } = new URL(url)
  if (!covered(pathname, basePath)) return [] // the reference page and its assets, or outside everything
  // A CORS preflight is answered by the server's CORS layer, not by an operation.
  if (method === 'OPTIONS' && response.headers.has('access-control-allow-methods')) return []
  const text = await response.clone().text()
  if (method === 'HEAD') {
    // GET's status and headers, never a body (RFC 9110 section 9.3.2): judged against GET's responses.
    if (text !== '') return [`HEAD ${pathname} ${response.status}: a body was sent`]
    const found = findPath(pathname, basePath)
    const get = found === undefined ? undefined : documents[found.source].paths[found.template]?.get
    const expected = get === undefined ? (found === undefined ? [404] : [405]) : Object.keys(get.responses).map(Number)
    return expected.includes(response.status) || response.status === 401
      ? []
      : [`HEAD ${pathname}: GET declares ${expected.join(', ')}, got ${response.status}`]
  }
  const problems: string[] = []
  const contentType = response.headers.get('content-type') ?? ''
  let body: unknown
  try {
    // An empty answer (204) has no body; the document must then declare none.
    body = text === '' && response.status === 204 ? undefined : JSON.parse(text)
  } catch {
    return [`${method} ${pathname} ${response.status}: body is not JSON: ${text.slice(0, 80)}`]
  }

  const found = findPath(pathname, basePath)
  const source = found?.source ?? 'openapi'
  const template = found?.template
  const operation = template === undefined ? undefined : documents[source].paths[template]?.[method.toLowerCase()]
  if (template === undefined || operation === undefined) {
    // No operation: the document implies 404 for an unknown path, 405 for a known path.
    const expected = template === undefined ? 404 : 405
    if (response.status !== expected && response.status !== 401) {
      problems.push(
        `${method} ${pathname}: no operation in the document, so expected ${expected} or 401, got ${response.status}`,
      )
    }
    if (response.status === 405 && !response.headers.has('allow'))
      problems.push(`${method} ${pathname}: 405 without Allow`)
    const validate = validator(source, pointer('components', 'schemas', 'Error'))
    if (!validate(body)) problems.push(`${method} ${pathname}: Error body invalid: ${ajv.errorsText(validate.errors)}`)
    if ((body as { status?: unknown }).status !== response.status)
      problems.push(`${method} ${pathname}: Error.status differs from ${response.status}`)
    return problems
  }

  const declared = operation.responses[String(response.status)]
  if (declared === undefined) return [`${method} ${template}: status ${response.status} is not declared`]
  const mediaType = contentType.split(';')[0]?.trim() ?? ''
  if (body === undefined) {
    if (declared.content !== undefined) problems.push(`${method} ${template} ${response.status}: the body is missing`)
  } else if (declared.content?.[mediaType] === undefined) {
    problems.push(`${method} ${template} ${response.status}: content type ${contentType} is not declared`)
  } else {
    const validate = validator(
      source,
      pointer(
        'paths',
        template,
        method.toLowerCase(),
        'responses',
        String(response.status),
        'content',
        mediaType,
        'schema',
      ),
    )
    if (!validate(body))
      problems.push(`${method} ${template} ${response.status}: body does not match: ${ajv.errorsText(validate.errors)}`)
  }
  for (const [name, header] of Object.entries(declared.headers ?? {})) {
    const value = response.headers.get(name)
    if (value === null) {
      if (header.required === true) problems.push(`${method} ${template} ${response.status}: header ${name} is missing`)
      continue
    }
    const validate = validator(
      source,
      pointer('paths', template, method.toLowerCase(), 'responses', String(response.status), 'headers', name, 'schema'),
    )
    if (!validate(value))
      problems.push(
        `${method} ${template} ${response.status}: header ${name}=${value}: ${ajv.errorsText(validate.errors)}`,
      )
  }
  return problems
}

/** Fails the current test when the response breaks the document. */
export async function expectConforms(
  method: string,
  url: string,
  response: Response,
  basePath?: string,
): Promise<void> {
  expect(await violations(method, url, response, basePath), `${method} ${url} against the documents`).toEqual([])
}

/** fetch(), with every response checked against the document. */
export async function checkedFetch(input: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(input, init)
  await expectConforms(init.method ?? 'GET', input, response)
  return response
}
