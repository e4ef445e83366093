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
import { checkObject, PetSchema, type Checked, type OperationId, type Pet } from './contract.js'
import type { TenantStore } from './store.js'
import { ApiError } from '../http/errors.js'
import { decodeInSlices, SLICED_FROM_LENGTH } from '../http/json-body.js'
import { readJson, readJsonInSlices } from '../http/json.js'
import { drain, drainInSlices } from './slices.js'

/** What one forwarded answer left in the data: what the journal says of it. */
export interface Kept {
  /** Pets that passed both checks (new, changed or already there as they are). */
  readonly pets: number
  /** Of those, the pets that were new or changed: what was written. */
  readonly changed: number
  /** Why each pet that did not pass was left out, and why nothing was kept when nothing could be. */
  readonly refused: readonly string[]
  /** Why nothing of the answer could be kept, by cause (its reason is the last of `refused`). */
  readonly nothing?: Unrecorded
  /** The first answer left unrecorded for its cause: its access log line says why (keep.ts). */
  readonly told?: true
}

/**
 * Why a forwarded answer left nothing in the data: under --isolate, a call with no key or with a
 * key the sandbox itself refuses (it has no data of its own), or every tenant busy; anywhere, a
 * budget reached. A handful of causes, so the set of those already told stays this small.
 */
export type Unrecorded = 'no key' | 'refused key' | 'tenants' | 'budget'

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
  if (!carries(operation, status, body)) return undefined
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body)
  return candidatesOf(operation, readJson(text, 'body'))
}

/**
 * petsOf for a large answer (`upstreamBodyBytes` raised to tens of MiB): decoded and read in
 * slices with `pause()` between, so the other clients are answered meanwhile. Same answer.
 */
export async function petsOfInSlices(
  operation: OperationId,
  status: number,
  body: string | Uint8Array | null,
  pause: () => Promise<void>,
): Promise<unknown[] | undefined> {
  if (!carries(operation, status, body)) return undefined
  let text: string
  try {
    text = typeof body === 'string' ? body : await decodeInSlices(body)
  } catch {
    return undefined
  }
  return candidatesOf(operation, await readJsonInSlices(text, 'body', pause))
}

/** Whether the answer is one that carries pets: the operation's success, with a body. */
function carries(
  operation: OperationId,
  status: number,
  body: string | Uint8Array | null,
): body is string | Uint8Array {
  return status === CARRIES[operation].status && body !== null
}

function candidatesOf(operation: OperationId, reading: ReturnType<typeof readJson>): unknown[] | undefined {
  if (!reading.ok) return undefined
  const value = reading.value
  if (CARRIES[operation].many) return Array.isArray(value) ? value : undefined
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? [value] : undefined
}

/** Whether an answer is large enough to be recorded in slices. */
export function recordsInSlices(body: string | Uint8Array | null): boolean {
  const size = body === null ? 0 : typeof body === 'string' ? body.length : body.byteLength
  return size >= SLICED_FROM_LENGTH
}

/** Pets checked, compared or merged between two pauses of keepPetsInSlices: a few ms of work. */
const PETS_PER_SLICE = 5_000

/**
 * Keeps the pets that pass both checks in `store`; `max` reasons at most (the contractProblems
 * budget), then how many more. Past the createdPets budget nothing is kept, and the reason says so.
 */
export function keepPets(store: TenantStore, candidates: readonly unknown[], max: number): Kept {
  return drain(keepSteps(store, candidates, max))
}

/**
 * keepPets in slices, `pause()` between them: a list of 1,000,000 pets is checked a slice at a time,
 * and the store takes the pets in one step at the end (a merge of two lists in id order).
 */
export async function keepPetsInSlices(
  store: TenantStore,
  candidates: readonly unknown[],
  max: number,
  pause: () => Promise<void>,
): Promise<Kept> {
  return drainInSlices(keepSteps(store, candidates, max), pause)
}

function* keepSteps(store: TenantStore, candidates: readonly unknown[], max: number): Generator<void, Kept> {
  const good = new Map<number, Pet>()
  const refused: string[] = []
  let more = 0
  for (let index = 0; index < candidates.length; index++) {
    if (index > 0 && index % PETS_PER_SLICE === 0) yield
    const candidate = candidates[index]
    const checked = checkForeignPet(candidate)
    if (checked.ok) {
      good.set(checked.value.id, checked.value)
      continue
    }
    const id = (candidate as { id?: unknown } | null)?.id
    const which = typeof id === 'number' ? `pet ${id}` : `item ${index}`
    if (refused.length < max) refused.push(`${which} not recorded: ${checked.problems.join('; ')}`)
    else more++
  }
  if (more > 0) refused.push(`and ${more} more not recorded`)
  const changed: Pet[] = []
  let compared = 0
  for (const pet of good.values()) {
    if (++compared % PETS_PER_SLICE === 0) yield
    if (!samePet(store.get(pet.id), pet)) changed.push(pet)
  }
  if (changed.length === 0) return { pets: good.size, changed: 0, refused }
  changed.sort((a, b) => a.id - b.id)
  // One step from here: the store as it is now (a write between two slices is kept), with the
  // changed pets in place of the stored ones of their ids.
  const { pets, nextId } = store.view()
  const highest = changed.at(-1)?.id ?? 0
  try {
    store.restore({ pets: mergeById(pets, changed), nextId: Math.max(nextId, highest + 1) })
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    return { pets: 0, changed: 0, refused: [...refused, `nothing recorded: ${error.message}`], nothing: 'budget' }
  }
  return { pets: good.size, changed: changed.length, refused }
}

/** Two lists in id order, merged in id order; a pet of `over` replaces the stored pet of its id. */
function mergeById(stored: readonly Pet[], over: readonly Pet[]): Pet[] {
  const merged: Pet[] = []
  let i = 0
  let j = 0
  while (i < stored.length || j < over.length) {
    const a = stored[i]
    const b = over[j]
    if (b === undefined || (a !== undefined && a.id < b.id)) {
      merged.push(a as Pet)
      i++
    } else {
      if (a !== undefined && a.id === b.id) i++
      merged.push(b)
      j++
    }
  }
  return merged
}

/**
 * A pet from another server, checked once: the store's Pet is stricter than the interface
 * document's in every field (what `--fixtures` refuses too), so one check names both kinds of
 * problem. The pet to keep (its fields in the contract's order, nothing else), or why not.
 * `record` and `capture` both hold pets to it.
 */
export function checkForeignPet(candidate: unknown): Checked<Pet> {
  return checkObject(PetSchema, candidate, 'pet')
}

function samePet(stored: Pet | undefined, pet: Pet): boolean {
  return (
    stored !== undefined &&
    stored.name === pet.name &&
    stored.categoryId === pet.categoryId &&
    stored.status === pet.status
  )
}
