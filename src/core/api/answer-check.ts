/**
 * The check of an answer against the interface: whether it keeps the interface document's
 * promises, whoever gave it: an upstream the sandbox forwards to (`--upstream`), or a live server
 * `verify` checks. It lives beside the API's schemas, which it reads. Only what the document
 * states is checked here: the statuses it lists per operation, JSON, the Pet and Error shapes,
 * an Error's `status` equal to the HTTP status, and an `id` on every Pet. The sandbox's own
 * choices where the document is silent (name lengths, error codes, headers) are not: a real
 * service may choose otherwise and still keep the contract.
 *
 * May import: core/api, core/http, core/limits.ts, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import * as z from 'zod'
import { problemsAt, PetStatusSchema, type OperationId } from './contract.js'
import type { PlainAnswer } from '../http/http.js'
import { eachArrayItemSteps, preview } from '../http/json.js'
import { LIMITS } from '../limits.js'
import { drain, drainInSlices } from './slices.js'

/**
 * The statuses the interface document lists for each operation, and what its success carries.
 * It leaves "the response for invalid query parameters" open: listPets and getPet may refuse a
 * bad parameter with 400 or 422, the two statuses services use for it.
 */
export const INTERFACE_ANSWERS: Readonly<
  Record<
    OperationId,
    { readonly statuses: readonly number[]; readonly refusals: readonly number[]; readonly success: 'pets' | 'pet' }
  >
> = {
  listPets: { statuses: [200, 401], refusals: [400, 422], success: 'pets' },
  createPet: { statuses: [201, 400, 401], refusals: [], success: 'pet' },
  getPet: { statuses: [200, 401, 404], refusals: [400, 422], success: 'pet' },
}

/** The sentence for a status the document does not list for an operation. */
export function unlistedStatus(operation: OperationId, status: number): string {
  const { statuses, refusals } = INTERFACE_ANSWERS[operation]
  return `status ${status} is not one the interface lists for ${operation} (${statuses.join(', ')}${refusals.length > 0 ? `, or ${refusals.join(' or ')} for a bad parameter` : ''})`
}

/** A Pet as the document describes it: the four fields and their types, nothing the sandbox adds. */
const InterfacePetSchema = z.object({
  id: z.int(),
  name: z.string(),
  categoryId: z.int(),
  status: PetStatusSchema.optional(),
})

const InterfaceErrorSchema = z.object({ code: z.string(), message: z.string(), status: z.int() })
const SHAPES: Readonly<Record<'pet' | 'error', z.ZodType>> = { pet: InterfacePetSchema, error: InterfaceErrorSchema }

/**
 * Whether an answer's Content-Type is the one the interface document gives its answers:
 * `application/json`, with parameters or not. Strict on purpose: an answer in another JSON type
 * (`application/problem+json`) breaks the document's promise, though a request body of that
 * type is read as JSON (http/json-body.ts, `readsAsJson`).
 */
export function isDocumentedMediaType(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/json\s*(?:;|$)/i.test(contentType.trim())
}

/**
 * The ways an answer breaks the document, one sentence each, in the order found. The check stops
 * at the contractProblems budget (20): a relayed list of 12,000 bad pets costs 20 sentences and
 * the items up to them, not 12,000 of each.
 */
export interface Violations {
  readonly problems: readonly string[]
  /** The check stopped at its bound with more to find: the count reads `20+`. */
  readonly more: boolean
}

/** The count as every surface shows it: `3`, or `20+` past the bound. */
export function violationCount(violations: Violations): string {
  return `${violations.problems.length}${violations.more ? '+' : ''}`
}

/** The violations with problems found before them first (a relay's own), within the same bound. */
export function after(
  first: readonly string[],
  violations: Violations,
  max: number = LIMITS.contractProblems.value,
): Violations {
  if (first.length === 0) return violations
  const problems = [...first, ...violations.problems]
  return { problems: problems.slice(0, max), more: violations.more || problems.length > max }
}

/** An answer that keeps the document. */
export const NO_VIOLATIONS: Violations = Object.freeze({ problems: Object.freeze([]), more: false })

/** Collects problems up to a bound; past it, only says there were more. */
class Problems {
  readonly list: string[] = []
  more = false

  constructor(private readonly max: number) {}

  get full(): boolean {
    return this.more
  }

  add(problem: string): void {
    if (this.list.length < this.max) this.list.push(problem)
    else this.more = true
  }

  result(): Violations {
    return this.list.length === 0 ? NO_VIOLATIONS : { problems: this.list, more: this.more }
  }
}

/**
 * Every way `answer` breaks the document for `operation`, up to `max`. A status the document
 * does not list is named, and its body is still checked as an Error when it is one (a 5xx from a
 * real service is an Error too).
 */
export function contractViolations(
  operation: OperationId,
  answer: PlainAnswer,
  max: number = LIMITS.contractProblems.value,
): Violations {
  return drain(contractSteps(operation, answer, max))
}

/**
 * contractViolations for a large answer (a list of a million pets, `upstreamBodyBytes` raised):
 * `pause()` every few thousand items, so the other clients are answered meanwhile. Same answer.
 */
export async function contractViolationsInSlices(
  operation: OperationId,
  answer: PlainAnswer,
  max: number,
  pause: () => Promise<void>,
): Promise<Violations> {
  return drainInSlices(contractSteps(operation, answer, max), pause)
}

function* contractSteps(operation: OperationId, answer: PlainAnswer, max: number): Generator<void, Violations> {
  const { statuses, refusals, success } = INTERFACE_ANSWERS[operation]
  const problems = new Problems(max)
  if (!statuses.includes(answer.status) && !refusals.includes(answer.status)) {
    problems.add(unlistedStatus(operation, answer.status))
  }
  yield* bodyViolations(answer, success, problems)
  return problems.result()
}

/** What the document says of any error answer, on any path: a JSON Error whose status is the HTTP status. */
export function errorViolations(answer: PlainAnswer, max: number = LIMITS.contractProblems.value): Violations {
  const problems = new Problems(max)
  if (answer.status >= 400) drain(bodyViolations(answer, undefined, problems))
  return problems.result()
}

const WHAT: Readonly<Record<'pets' | 'pet' | 'error', string>> = {
  pets: 'a list of Pets',
  pet: 'a Pet',
  error: 'an Error',
}

function* bodyViolations(
  answer: PlainAnswer,
  success: 'pets' | 'pet' | undefined,
  problems: Problems,
): Generator<void, void> {
  const shape = answer.status >= 400 ? 'error' : answer.status >= 200 && answer.status < 300 ? success : undefined
  if (shape === undefined) return
  const contentType = answer.headers['content-type']
  if (!isDocumentedMediaType(contentType)) {
    problems.add(
      `Content-Type is ${contentType === undefined ? 'missing' : preview(contentType)}, not application/json`,
    )
    return
  }
  const add = (found: readonly string[]) => {
    for (const problem of found) problems.add(`the body is not ${WHAT[shape]}: ${problem}`)
  }
  const notJson = () => {
    problems.add(answer.body.trim() === '' ? 'the body is empty, not JSON' : 'the body is not valid JSON')
  }
  if (shape === 'pets') {
    // One item at a time: the check stops at its bound, and the list is never held whole.
    const bytes = answer.bytes ?? new TextEncoder().encode(answer.body)
    const reading = yield* eachArrayItemSteps(bytes, (item, index) => {
      add(problemsAt(InterfacePetSchema, item, ['body', index]))
      return !problems.full
    })
    if (reading === 'invalid') notJson()
    if (reading !== 'not-array') return
  }
  let body: unknown
  try {
    // V8's JSON.parse does not recurse: any depth parses. Nothing below stringifies the value whole.
    body = JSON.parse(answer.body)
  } catch {
    notJson()
    return
  }
  if (shape === 'pets') {
    add([`body must be an array, got ${preview(body)}`])
    return
  }
  const found = problemsAt(SHAPES[shape], body, ['body'])
  add(found)
  if (shape !== 'error' || found.length > 0) return
  const { status } = body as { status: number }
  if (status !== answer.status) problems.add(`the Error's status is ${status}, not the HTTP status ${answer.status}`)
}
