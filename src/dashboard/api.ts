/**
 * The dashboard's calls to the admin routes under `/__sandbox` and to the API, and the shapes
 * they answer. Every refusal becomes an Error carrying the sandbox's own message.
 *
 * May import: nothing (browser fetch only).
 */

export const ADMIN = '/__sandbox'

export type PetStatus = 'available' | 'pending' | 'sold'

export interface Pet {
  id: number
  name: string
  categoryId: number
  status?: PetStatus
  created: boolean
}

export interface PetPage {
  total: number
  offset: number
  limit: number
  pets: Pet[]
}

export interface Health {
  status: string
  version: string
  uptimeSeconds: number
  pets: number
  mode: 'shared' | 'isolated'
  tenants: number
  evictions: number
}

export interface Tenant {
  id: string
  label: string
  pets: number
  createdSinceReset: number
}

export interface JournalEntry {
  id: number
  time: string
  operation: string | null
  method: string
  url: string
  path: string
  query: Record<string, string | string[]>
  headers: Record<string, string>
  body?: unknown
  status: number
  durationMs: number
  /** The tenant's masked label (isolated mode), or null. */
  tenant?: string | null
  /** The tenant's handle, when the server sends it (lets the live journal filter exactly). */
  tenantId?: string | null
}

export interface Scenario {
  id: number
  operation: string
  status?: number
  delayMs?: number
  retryAfterSeconds?: number
  remaining?: number
}

export interface ScenarioInput {
  operation: 'listPets' | 'createPet' | 'getPet' | '*'
  status?: number
  delayMs?: number
  times?: number
}

export interface Traffic {
  seconds: number
  now: number
  series: { t: number; c2xx: number; c3xx: number; c4xx: number; c5xx: number }[]
}

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
