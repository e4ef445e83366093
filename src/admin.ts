/**
 * The admin routes under `/__sandbox`, as MSW handlers: reset, the request journal,
 * scenarios, state in and out, health. Each does over HTTP what a sandbox method does
 * in-process, and shares the API's body reader and error path, so bad input reads the same.
 * A key in `Authorization` scopes reset, journal and state to that key's data (isolated mode).
 */
import { http, HttpResponse, type HttpHandler } from 'msw'
import { routePattern, type BaseUrl } from './base-url.js'
import { ApiError } from './errors.js'
import { toErrorResponse } from './handlers.js'
import type { JournalFilter, WritableJournal } from './journal.js'
import { readJsonBody, readQuery } from './request.js'
import { OPERATIONS, ScenarioError, type ScenarioBook, type ScenarioInput } from './scenarios.js'
import type { Sandbox } from './sandbox.js'
import { StateError } from './store.js'

export const ADMIN_PATH = '/__sandbox'

/** A state export of a large generated collection is far above the API's body cap. */
export const MAX_STATE_BYTES = 64 * 1024 * 1024

interface AdminContext {
  readonly sandbox: Sandbox
  readonly authenticate: (authorization: string | null) => string
  readonly base: BaseUrl
  readonly maxBodyBytes: number
  readonly journal: WritableJournal
}

type AdminRoute = (request: Request, context: AdminContext) => Promise<Response>

export function createAdminHandlers(context: AdminContext): HttpHandler[] {
  const admin = { origin: context.base.origin, path: ADMIN_PATH }
  const route = (path: string) => routePattern(admin, path)
  const answer =
    (handler: AdminRoute) =>
    async ({ request }: { request: Request }) => {
      try {
        return await handler(request, context)
      } catch (error) {
        if (error instanceof ApiError) return toErrorResponse(error)
        throw error
      }
    }
  const only = (allow: string) =>
    answer(async (request) => {
      throw new ApiError(
        'method_not_allowed',
        `${request.method} is not allowed on ${new URL(request.url).pathname}; allowed: ${allow}`,
        {
          Allow: allow,
        },
      )
    })

  return [
    http.post(route('/reset'), answer(reset)),
    http.all(route('/reset'), only('POST')),
    http.get(route('/requests'), answer(listRequests)),
    http.all(route('/requests'), only('GET')),
    http.get(route('/scenarios'), answer(listScenarios)),
    http.post(route('/scenarios'), answer(addScenario)),
    http.delete(route('/scenarios'), answer(clearScenarios)),
    http.all(route('/scenarios'), only('GET, POST, DELETE')),
    http.get(route('/state'), answer(exportState)),
    http.put(route('/state'), answer(importState)),
    http.all(route('/state'), only('GET, PUT')),
    http.get(route('/health'), answer(health)),
    http.all(route('/health'), only('GET')),
  ]
}

/** The key in Authorization, checked like the API's, or undefined when none is sent. */
function keyOf(request: Request, context: AdminContext): string | undefined {
  const header = request.headers.get('authorization')
  return header === null ? undefined : context.authenticate(header)
}

const reset: AdminRoute = async (request, context) => {
  await context.sandbox.reset(keyOf(request, context))
  return new HttpResponse(null, { status: 204 })
}

const listRequests: AdminRoute = async (request, context) => {
  const query = readQuery(new URL(request.url), ['operation', 'method', 'status'])
  const filter: JournalFilter = {}
  if (query.operation !== undefined) {
    const operations: readonly string[] = [...OPERATIONS, 'none']
    if (!operations.includes(query.operation)) {
      throw new ApiError(
        'invalid_parameter',
        `operation must be one of ${operations.join(', ')}, got ${JSON.stringify(query.operation)}`,
      )
    }
    filter.operation = query.operation === 'none' ? null : query.operation
  }
  if (query.method !== undefined) filter.method = query.method
  if (query.status !== undefined) {
    if (!/^[1-5]\d\d$/.test(query.status)) {
      throw new ApiError(
        'invalid_parameter',
        `status must be an HTTP status from 100 to 599, got ${JSON.stringify(query.status)}`,
      )
    }
    filter.status = Number(query.status)
  }
  const key = keyOf(request, context)
  const entries = key !== undefined && context.sandbox.isolated ? context.journal.forTenant(key) : context.journal.all()
  const { operation, method, status } = filter
  return HttpResponse.json(
    entries.filter(
      (entry) =>
        (operation === undefined || entry.operation === operation) &&
        (method === undefined || entry.method === method.toUpperCase()) &&
        (status === undefined || entry.status === status),
    ),
  )
}

/** In isolated mode, a key in Authorization scopes scenarios to that key; otherwise they are shared. */
function scenarioBook(request: Request, context: AdminContext): ScenarioBook {
  const key = keyOf(request, context)
  return (
    (key !== undefined && context.sandbox.isolated ? context.sandbox.scenariosFor(key) : undefined) ??
    context.sandbox.scenarios
  )
}

const listScenarios: AdminRoute = async (request, context) => HttpResponse.json(scenarioBook(request, context).list())

const addScenario: AdminRoute = async (request, context) => {
  const book = scenarioBook(request, context)
  const input = await readJsonBody(request, context.maxBodyBytes)
  try {
    // Only JSON so far: add() checks it against the scenario schema.
    return HttpResponse.json(book.add(input as ScenarioInput), { status: 201 })
  } catch (error) {
    if (error instanceof ScenarioError) throw new ApiError('invalid_body', error.message)
    throw error
  }
}

const clearScenarios: AdminRoute = async (request, context) => {
  scenarioBook(request, context).clear()
  return new HttpResponse(null, { status: 204 })
}

const exportState: AdminRoute = async (request, context) =>
  HttpResponse.json(await context.sandbox.snapshot(keyOf(request, context)))

const importState: AdminRoute = async (request, context) => {
  const key = keyOf(request, context)
  const state = await readJsonBody(request, MAX_STATE_BYTES)
  try {
    await context.sandbox.restore(state, key)
  } catch (error) {
    if (error instanceof StateError) throw new ApiError('invalid_body', error.message)
    throw error
  }
  return new HttpResponse(null, { status: 204 })
}

const health: AdminRoute = async (_request, { sandbox }) => HttpResponse.json(await sandbox.health())
