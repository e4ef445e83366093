/**
 * The dashboard's calls to the admin routes under `/__sandbox` and to the API, and the shapes
 * they answer. Every refusal becomes an Error carrying the sandbox's own message.
 *
 * May import: the core's contract files (types only, erased in the bundle) and its mounts.
 */

import type { JournalEntry as Entry, PetPage } from '../core/admin/contract.js'
import { ADMIN_PATH as ADMIN } from '../core/http/mounts.js'

export { ADMIN }
export type {
  PetPage,
  SandboxHealth as Health,
  Scenario,
  ScenarioInput,
  Tenant,
  Traffic,
} from '../core/admin/contract.js'

/** A journal entry as the event stream sends it: with the tenant's handle, to filter exactly. */
export type JournalEntry = Entry & { readonly tenantId?: string | null }
export type Pet = PetPage['pets'][number]

/** The tenant every scoped call is made for (isolated mode) and its label, or none. */
export const scope: { tenant: string | undefined; label: string | undefined } = { tenant: undefined, label: undefined }

/** An admin path with the query, plus `tenant` when one is selected. */
export function adminUrl(path: string, query: Record<string, string | number | undefined> = {}): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(name, String(value))
  }
  if (scope.tenant !== undefined) params.set('tenant', scope.tenant)
  const search = params.toString()
  return `${ADMIN}${path}${search === '' ? '' : `?${search}`}`
}

/** Fetches, and throws an Error with the sandbox's message when it refuses. */
export async function call(url: string, init?: RequestInit): Promise<Response> {
  let response: Response
  try {
    response = await fetch(url, init)
  } catch {
    throw new Error('The sandbox did not answer. Is it running?')
  }
  if (response.ok) return response
  let message = `${response.status} ${response.statusText}`.trim()
  try {
    const body = (await response.json()) as { message?: unknown }
    if (typeof body.message === 'string' && body.message !== '') message = body.message
  } catch {
    // Not JSON: keep the status line.
  }
  throw new Error(message)
}

export async function getJson<T>(url: string): Promise<T> {
  return (await (await call(url)).json()) as T
}

export async function sendJson(url: string, method: string, body: unknown, key?: string): Promise<Response> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' }
  if (key !== undefined) headers.Authorization = `Bearer ${key}`
  return call(url, {
    method,
    headers,
    body: typeof body === 'string' || body instanceof Blob ? body : JSON.stringify(body),
  })
}
