/**
 * Recording (`--record`): the pets a forwarded answer carries, kept in a tenant's data so that
 * the sandbox answers from them once forwarding is off, and a state file keeps them. A pet is kept
 * only when it passes both the interface document's Pet (what the answer check holds an upstream
 * to: any integer id, any string name) and the store's own rules (what `--fixtures` accepts:
 * a positive id, a name of 1 to 255 characters that is not blank, ...). Pets are inserted or replaced by id, the id
 * sequence moves past the largest, and pets beyond the seed count against the createdPets budget
 * as an import's do. The same pets again change nothing: a page that polls the list writes
 * nothing and counts nothing.
 *
 * May import: core/api, core/http, core/limits.ts, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import { interfacePetProblems } from './answer-check.js'
import { checkPet, type OperationId, type Pet } from './contract.js'
import type { TenantStore } from './store.js'
import { ApiError } from '../http/errors.js'
import { readJson } from '../http/json.js'

/** What one forwarded answer left in the data: what the journal says of it. */
export interface Kept {
  /** Pets that passed both checks (new, changed or already there as they are). */
  readonly pets: number
  /** Of those, the pets that were new or changed: what was written. */
  readonly changed: number
  /** Why each pet that did not pass was left out, and why nothing was kept when nothing could be. */
  readonly refused: readonly string[]
}

/** The success that carries pets, per operation: a list of them, or one. */
const CARRIES: Readonly<Record<OperationId, { readonly status: number; readonly many: boolean }>> = {
  listPets: { status: 200, many: true },
  getPet: { status: 200, many: false },
  createPet: { status: 201, many: false },
}

/**
 * The pets an answer carries, as sent: undefined when it carries none to record (another status,
 * a body that is not JSON, a list that is not one). Bounded by the answer's own cap
 * (upstreamBodyBytes), and read by the sandbox's JSON reader, whose depth is bounded.
 */
export function petsOf(
  operation: OperationId,
  status: number,
  body: string | Uint8Array | null,
): unknown[] | undefined {
  const { status: success, many } = CARRIES[operation]
  if (status !== success || body === null) return undefined
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body)
  const reading = readJson(text, 'body')
  if (!reading.ok) return undefined
  const value = reading.value
  if (many) return Array.isArray(value) ? value : undefined
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? [value] : undefined
}

/**
 * Keeps the pets that pass both checks in `store`; `max` reasons at most (the contractProblems
 * budget), then how many more. Past the createdPets budget nothing is kept, and the reason says so.
 */
export function keepPets(store: TenantStore, candidates: readonly unknown[], max: number): Kept {
  const good = new Map<number, Pet>()
  const refused: string[] = []
  let more = 0
  candidates.forEach((candidate, index) => {
    const problems = petProblems(candidate)
    if (problems.length === 0) {
      const checked = checkPet(candidate)
      if (checked.ok) good.set(checked.value.id, checked.value)
      return
    }
    const id = (candidate as { id?: unknown } | null)?.id
    const which = typeof id === 'number' ? `pet ${id}` : `item ${index}`
    if (refused.length < max) refused.push(`${which} not recorded: ${problems.join('; ')}`)
    else more++
  })
  if (more > 0) refused.push(`and ${more} more not recorded`)
  const changed = [...good.values()].filter((pet) => !samePet(store.get(pet.id), pet))
  if (changed.length === 0) return { pets: good.size, changed: 0, refused }
  const { pets, nextId } = store.snapshot()
  const byId = new Map(pets.map((pet) => [pet.id, pet]))
  for (const pet of changed) byId.set(pet.id, pet)
  // A loop, not Math.max(...ids): an answer may carry more pets than a call takes arguments.
  let highest = 0
  for (const pet of changed) highest = Math.max(highest, pet.id)
  try {
    store.restore({ pets: [...byId.values()].sort((a, b) => a.id - b.id), nextId: Math.max(nextId, highest + 1) })
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    return { pets: 0, changed: 0, refused: [...refused, `nothing recorded: ${error.message}`] }
  }
  return { pets: good.size, changed: changed.length, refused }
}

/**
 * Why a pet from another server cannot be kept: the interface document's Pet first, then the
 * store's own rules, which name what the interface lets through (what `--fixtures` refuses).
 * Empty when it can be kept. `record` and `capture` both hold pets to it.
 */
export function petProblems(candidate: unknown): string[] {
  const against = interfacePetProblems(candidate, ['pet'])
  if (against.length > 0) return against
  const checked = checkPet(candidate)
  return checked.ok ? [] : checked.problems
}

function samePet(stored: Pet | undefined, pet: Pet): boolean {
  return (
    stored !== undefined &&
    stored.name === pet.name &&
    stored.categoryId === pet.categoryId &&
    stored.status === pet.status
  )
}
