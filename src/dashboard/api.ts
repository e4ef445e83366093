/**
 * The dashboard's calls to the admin routes under `/__sandbox` and to the API, and the shapes
 * they answer. Every refusal becomes an Error (a Refusal) carrying the sandbox's own message and its
 * status.
 *
 * Another machine's page has no key (the admin routes want one from there): the key the person
 * enters travels in `Authorization` on every admin call, never in a URL, and stays in this tab's
 * sessionStorage. A 401 from an admin route forgets it and tells `onRefused`; until a key is
 * entered again, admin calls fail at once with that message instead of asking the sandbox.
 *
 * May import: the core's contract files and zod (types only, erased in the bundle) and its mounts.
 */

import type { z } from 'zod'
import type { CheckpointSchema, JournalEntry as Entry, PetPage } from '../core/admin/contract.js'
import { ADMIN_PATH as ADMIN } from '../core/http/mounts.js'

export { ADMIN }
export type {
  CheckpointInput,
  Forwarding,
  Hold,
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
/** A checkpoint as the list shows it: the contract exports its schema only. */
export type Checkpoint = z.infer<typeof CheckpointSchema>

/** A call that did not work: the sandbox's message, and its status (0 when it did not answer). */
export class Refusal extends Error {
  readonly status: number

  constructor(message: string, status: number) {
    super(message)
    this.status = status
  }
}

/** The status of a refused call (0: none, or not a call's error). */
export const statusOf = (error: unknown): number => (error instanceof Refusal ? error.status : 0)

/** The tenant every scoped call is made for (isolated mode) and its label, or none. */
export const scope: { tenant: string | undefined; label: string | undefined } = { tenant: undefined, label: undefined }

const STORED_KEY = 'petstore-sandbox.admin-key'

const credentials: {
  key: string | undefined
  refused: string | undefined
  onRefused: (message: string) => void
} = { key: undefined, refused: undefined, onRefused: () => undefined }

/** The key admin calls send: one entered on this page, or one kept from earlier in this tab. */
export function adminKey(): string | undefined {
  if (credentials.key === undefined) {
    try {
      credentials.key = sessionStorage.getItem(STORED_KEY) ?? undefined
    } catch {
      // Storage refused (a sandboxed frame, a strict privacy setting): ask every time.
    }
  }
  return credentials.key
}

/** Sends `key` on admin calls from now on (and on the API's calls that sent the page's key). */
export function useKey(key: string): void {
  credentials.key = key
  credentials.refused = undefined
  try {
    sessionStorage.setItem(STORED_KEY, key)
  } catch {
    // Kept in memory only.
  }
}

/** True while the sandbox refuses the key and no other has been entered. */
export const keyRefused = (): boolean => credentials.refused !== undefined

/** `tell(message)` runs when an admin route answers 401: the sandbox's message, to ask for a key. */
export function onRefused(tell: (message: string) => void): void {
  credentials.onRefused = tell
}

function refuse(message: string): void {
  credentials.refused = message
  credentials.key = undefined
  try {
    sessionStorage.removeItem(STORED_KEY)
  } catch {
    // Nothing kept.
  }
  credentials.onRefused(message)
}

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

/** Fetches (an admin route with the key, when one is in use), and throws an Error with the sandbox's message when it refuses. */
export async function call(url: string, init: RequestInit = {}): Promise<Response> {
  const admin = url.startsWith(ADMIN)
  if (admin && credentials.refused !== undefined) throw new Refusal(credentials.refused, 401)
  const key = admin ? adminKey() : undefined
  const headers = new Headers(init.headers)
  if (key !== undefined) headers.set('Authorization', `Bearer ${key}`)
  let response: Response
  try {
    response = await fetch(url, { ...init, headers })
  } catch {
    throw new Refusal('The sandbox did not answer. Is it running?', 0)
  }
  if (response.ok) return response
  let message = `${response.status} ${response.statusText}`.trim()
  try {
    const body = (await response.json()) as { message?: unknown }
    if (typeof body.message === 'string' && body.message !== '') message = body.message
  } catch {
    // Not JSON: keep the status line.
  }
  // A late answer to a key entered before the current one says nothing about the current one.
  if (admin && response.status === 401 && key === credentials.key && credentials.refused === undefined) {
    refuse(message)
  }
  throw new Refusal(message, response.status)
}

export async function getJson<T>(url: string): Promise<T> {
  return (await (await call(url)).json()) as T
}

/** `key`: the API's key (the create form's); a key entered on the page since then replaces it. */
export async function sendJson(url: string, method: string, body: unknown, key?: string): Promise<Response> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' }
  const bearer = key === undefined ? undefined : (credentials.key ?? key)
  if (bearer !== undefined) headers.Authorization = `Bearer ${bearer}`
  return call(url, {
    method,
    headers,
    body: typeof body === 'string' || body instanceof Blob ? body : JSON.stringify(body),
  })
}

/**
 * Reads a server-sent event stream with fetch, which (unlike EventSource) can send the key in a
 * header: `opened` once the sandbox answers, then `on(type, data)` per event. Resolves when the
 * stream ends; rejects with the sandbox's message when it refuses, or when `signal` aborts.
 */
export async function readEvents(
  url: string,
  signal: AbortSignal,
  opened: () => void,
  on: (type: string, data: string) => void,
): Promise<void> {
  const response = await call(url, { headers: { Accept: 'text/event-stream' }, cache: 'no-store', signal })
  if (response.body === null) throw new Error('The event stream has no body')
  opened()
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  let rest = ''
  let type = ''
  let data: string[] = []
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return
    const lines = (rest + value).split('\n')
    rest = lines.pop() ?? ''
    for (const raw of lines) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
      if (line === '') {
        // A blank line ends an event; one without data is dispatched to no one (as EventSource does).
        if (data.length > 0) on(type === '' ? 'message' : type, data.join('\n'))
        type = ''
        data = []
        continue
      }
      // A line that starts with ":" is a comment (the sandbox's pings).
      const colon = line.indexOf(':')
      if (colon === 0) continue
      const field = colon === -1 ? line : line.slice(0, colon)
      const text = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
      if (field === 'event') type = text
      else if (field === 'data') data.push(text)
    }
  }
}
