/**
 * What a user writes with clients generated from the two documents: openapi-typescript's types
 * (api.d.ts, admin.d.ts, written by test/generated-clients.test.ts, not committed) and
 * openapi-fetch. The test type-checks this file under --strict against them, then runs it against
 * a sandbox. A wrong path, body or parameter in a document fails one or the other.
 */
import createClient from 'openapi-fetch'
import type { paths as AdminPaths } from './admin.js'
import type { paths as ApiPaths } from './api.js'

export async function useClients(origin: string, key: string) {
  const api = createClient<ApiPaths>({ baseUrl: `${origin}/v1`, headers: { Authorization: `Bearer ${key}` } })
  // The admin document's server is /__sandbox; from this machine its routes take no key.
  const admin = createClient<AdminPaths>({ baseUrl: `${origin}/__sandbox` })

  const reset = await admin.POST('/reset')
  const created = await api.POST('/pets', { body: { name: 'Rex', categoryId: 1, status: 'available' } })
  const id: number = created.data?.id ?? 0
  const listed = await api.GET('/pets', { params: { query: { limit: 5, status: 'available' } } })
  const got = await api.GET('/pets/{petId}', { params: { path: { petId: id } } })
  const missing = await api.GET('/pets/{petId}', { params: { path: { petId: 999_999 } } })
  const scenario = await admin.POST('/scenarios', { body: { operation: 'listPets', status: 503, times: 1 } })
  const failed = await api.GET('/pets')
  const journal = await admin.GET('/requests', { params: { query: { operation: 'createPet' } } })
  return {
    reset: reset.response.status,
    created: { status: created.response.status, id, name: created.data?.name },
    listed: { status: listed.response.status, names: (listed.data ?? []).map((pet) => pet.name) },
    got: { status: got.response.status, name: got.data?.name },
    missing: { status: missing.response.status, code: missing.error?.code },
    scenario: { status: scenario.response.status, operation: scenario.data?.operation },
    failed: { status: failed.response.status, code: failed.error?.code },
    journal: { status: journal.response.status, paths: (journal.data ?? []).map((entry) => entry.path) },
  }
}
