/**
 * The create form's check: the API's own code, bundled into the page at build time, so the form
 * accepts exactly what createPet accepts (`1e2`, `1.0`, `-0`) and refuses what it refuses
 * (`9007199254740992`, a 20-digit number, a blank or 300-character name) with the API's words.
 *
 * The form's text becomes the JSON body it will send: a category id written as a JSON number goes
 * in as that number, anything else as a string (which the API refuses by name), an empty one not
 * at all. That body is read by the core's JSON reader and checked by checkNewPet, as the API does.
 *
 * May import: the core's contract (checkNewPet) and JSON reader, bundled with zod at build time.
 */
import { checkNewPet } from '../core/api/contract.js'
import { readJson } from '../core/http/json.js'

/** RFC 8259's number: what the API reads as a number rather than a syntax error. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

export interface FormCheck {
  /** The body to send, exactly as checked. */
  readonly body: string
  /** The API's problems by field; `other` for any that names no field of the form. */
  readonly problems: { readonly name: string[]; readonly categoryId: string[]; readonly other: string[] }
}

export function checkCreateForm(name: string, category: string, status: string): FormCheck {
  const categoryText = category.trim()
  const fields = [
    `"name":${JSON.stringify(name)}`,
    ...(categoryText === ''
      ? []
      : [`"categoryId":${JSON_NUMBER.test(categoryText) ? categoryText : JSON.stringify(categoryText)}`]),
    ...(status === '' ? [] : [`"status":${JSON.stringify(status)}`]),
  ]
  const body = `{${fields.join(',')}}`
  const problems = { name: [] as string[], categoryId: [] as string[], other: [] as string[] }
  const read = readJson(body, 'body')
  const checked = read.ok ? checkNewPet(read.value) : read
  if (!checked.ok) {
    for (const problem of checked.problems) {
      const field = /^(name|categoryId)\b/.exec(problem)?.[1] as 'name' | 'categoryId' | undefined
      problems[field ?? 'other'].push(problem)
    }
  }
  return { body, problems }
}
