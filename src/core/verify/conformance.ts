/**
 * Whether an answer keeps the interface document's promises, whoever gave it: an upstream the
 * sandbox forwards to (`--upstream`), or a live server `verify` checks. Only what the document
 * states is checked here: the statuses it lists per operation, JSON, the Pet and Error shapes,
 * an Error's `status` equal to the HTTP status, and an `id` on every Pet. The sandbox's own
 * choices where the document is silent (name lengths, error codes, headers) are not: a real
 * service may choose otherwise and still keep the contract.
 *
 * May import: core/verify, core/admin, core/api, core/http, zod. No msw, no node:*, no adapter.
 */
import * as z from 'zod'
import type { OperationId } from '../admin/contract.js'
import { checkObject, PetStatusSchema } from '../api/contract.js'

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
const SHAPES: Readonly<Record<'pets' | 'pet' | 'error', z.ZodType>> = {
  pets: z.object({ body: z.array(InterfacePetSchema) }),
  pet: z.object({ body: InterfacePetSchema }),
  error: z.object({ body: InterfaceErrorSchema }),
}

/** Problems of one body named in full. */
const MAX_PROBLEMS = 3

/** An answer as any transport gives it: header names in lower case, the body as text. */
export interface PlainAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** The body as UTF-8 text, for the checks. */
  readonly body: string
  /** The body's bytes as they came, when the transport has them: what a relay passes on. */
  readonly bytes?: Uint8Array
}

/** Whether a Content-Type is JSON: `application/json`, with parameters or not. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/json\s*(?:;|$)/i.test(contentType.trim())
}

/**
 * Every way `answer` breaks the document for `operation`, one sentence each; none when it keeps
 * it. A status the document does not list is named, and its body is still checked as an Error
 * when it is one (a 5xx from a real service is an Error too).
 */
export function contractViolations(operation: OperationId, answer: PlainAnswer): string[] {
  const { statuses, refusals, success } = INTERFACE_ANSWERS[operation]
  const listed = statuses.includes(answer.status) || refusals.includes(answer.status)
  return [...(listed ? [] : [unlistedStatus(operation, answer.status)]), ...bodyViolations(answer, success)]
}

/** What the document says of any error answer, on any path: a JSON Error whose status is the HTTP status. */
export function errorViolations(answer: PlainAnswer): string[] {
  return answer.status >= 400 ? bodyViolations(answer, undefined) : []
}

function bodyViolations(answer: PlainAnswer, success: 'pets' | 'pet' | undefined): string[] {
  const shape = answer.status >= 400 ? 'error' : answer.status >= 200 && answer.status < 300 ? success : undefined
  if (shape === undefined) return []
  const contentType = answer.headers['content-type']
  if (!isJsonMediaType(contentType)) {
    return [
      `Content-Type is ${contentType === undefined ? 'missing' : JSON.stringify(contentType)}, not application/json`,
    ]
  }
  let body: unknown
  try {
    body = JSON.parse(answer.body)
  } catch {
    return [answer.body.trim() === '' ? 'the body is empty, not JSON' : 'the body is not valid JSON']
  }
  const checked = checkObject(SHAPES[shape], { body }, 'body')
  if (!checked.ok) {
    const what = shape === 'error' ? 'an Error' : shape === 'pets' ? 'a list of Pets' : 'a Pet'
    // One list can break one rule a hundred times: the first few say what is wrong.
    const shown = checked.problems.slice(0, MAX_PROBLEMS).map((problem) => `the body is not ${what}: ${problem}`)
    const more = checked.problems.length - MAX_PROBLEMS
    return more > 0 ? [...shown, `and ${more} more problem${more === 1 ? '' : 's'} in the body`] : shown
  }
  const status = shape === 'error' ? (body as { status: number }).status : answer.status
  return status === answer.status ? [] : [`the Error's status is ${status}, not the HTTP status ${answer.status}`]
}
