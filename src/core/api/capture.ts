/**
 * `capture`: a fixtures file from a live API, by reads only. The steps are listPets with the
 * largest limit, with no status and with each, then getPet for a range of ids when asked; every
 * pet is held to the interface and the store's own rules (record.ts's `checkForeignPet`), and one that
 * fails is left out and named. The result is sorted by id and valid for `--fixtures` as it stands.
 * The interface has no paging: a list that comes back full is said to be so.
 *
 * May import: core/api, core/http, core/limits.ts, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import { LIST_LIMIT, PET_STATUSES, type Pet } from './contract.js'
import { checkForeignPet } from './record.js'
import type { PlainAnswer } from '../http/http.js'
import { readJson } from '../http/json.js'

/** One read: what it is called in a report, and its target under the API's base path. */
export interface CaptureStep {
  readonly label: string
  readonly target: string
  readonly many: boolean
}

/** The largest range `--ids` may name: each id is one request. */
export const MAX_CAPTURE_IDS = 10_000

export function captureSteps(ids?: { readonly from: number; readonly to: number }): CaptureStep[] {
  const lists: CaptureStep[] = [undefined, ...PET_STATUSES].map((status) => ({
    label: status === undefined ? 'listPets' : `listPets (status ${status})`,
    target: `/pets?limit=${LIST_LIMIT.max}${status === undefined ? '' : `&status=${status}`}`,
    many: true,
  }))
  const gets: CaptureStep[] = []
  if (ids !== undefined) {
    for (let id = ids.from; id <= ids.to; id++) gets.push({ label: `getPet ${id}`, target: `/pets/${id}`, many: false })
  }
  return [...lists, ...gets]
}

/** What a capture found: the pets to write, those left out and why, and what the reader should know. */
export interface Captured {
  readonly pets: readonly Pet[]
  readonly leftOut: readonly string[]
  readonly notes: readonly string[]
}

export interface Capture {
  take(step: CaptureStep, answer: PlainAnswer): void
  /** A read that got no answer: named with the pets left out, so the exit code says so. */
  failed(step: CaptureStep, why: string): void
  result(): Captured
}

export function createCapture(): Capture {
  const pets = new Map<number, Pet>()
  const leftOut: string[] = []
  const notes: string[] = []
  const keep = (step: CaptureStep, candidate: unknown, index: number) => {
    const checked = checkForeignPet(candidate)
    if (checked.ok) {
      pets.set(checked.value.id, checked.value)
      return
    }
    const problems = checked.problems
    const id = (candidate as { id?: unknown } | null)?.id
    const which = typeof id === 'number' ? `pet ${id}` : step.many ? `item ${index}` : 'the pet'
    leftOut.push(`${step.label}: ${which} left out: ${problems.join('; ')}`)
  }
  return {
    take(step, answer) {
      // getPet of an id there is none of: nothing to capture, and nothing wrong.
      if (!step.many && answer.status === 404) return
      if (answer.status !== 200) {
        leftOut.push(`${step.label}: answered ${answer.status}, not 200: nothing from it`)
        return
      }
      const reading = readJson(answer.body, 'body')
      if (!reading.ok) {
        leftOut.push(`${step.label}: the body is not JSON: nothing from it`)
        return
      }
      const value = reading.value
      if (step.many) {
        if (!Array.isArray(value)) {
          leftOut.push(`${step.label}: the body is not a list: nothing from it`)
          return
        }
        value.forEach((item, index) => {
          keep(step, item, index)
        })
        if (value.length >= LIST_LIMIT.max) {
          notes.push(
            `${step.label} came back full (${value.length} pets, its most): the interface has no paging, so there may be more; --ids reads them one by one`,
          )
        }
      } else {
        keep(step, value, 0)
      }
    },
    failed(step, why) {
      leftOut.push(`${step.label}: no answer (${why}): nothing from it`)
    },
    result: () => ({ pets: [...pets.values()].sort((a, b) => a.id - b.id), leftOut, notes }),
  }
}
