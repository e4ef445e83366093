/**
 * docs/architecture.md's list of the request's stages, made from their declaration
 * (http/stages.ts): each stage's name, the statuses it may answer, what it decides and the file
 * of its rule. `npm run docs:stages` writes it into the document, and a test holds the document
 * to it, so a stage added or changed in its module reaches the docs without a hand edit.
 *
 * May import: core/docs, core/admin, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { ERROR_CODES } from '../http/errors.js'
import { ADMIN_STAGES, API_STAGES, DISPATCH_STAGES } from '../http/stages.js'
import type { Stage } from '../http/stage.js'

/** The lists, each under its heading, in the order a request meets them. */
export const STAGE_LISTS: readonly (readonly [string, readonly Stage[]])[] = [
  ['every request (dispatch.ts)', DISPATCH_STAGES],
  ['the API (api-call.ts)', API_STAGES],
  ['the admin routes and the site (admin-call.ts)', ADMIN_STAGES],
]

const NAME = 12
const STATUSES = 21
const SAYS = 49

/** Every status a stage may answer, ascending, or `-`. */
export function statusesOf(stage: Stage): string {
  const statuses = [...new Set(stage.answers.flatMap((answer) => answer.codes.map((code) => ERROR_CODES[code])))]
  return statuses.length === 0 ? '-' : statuses.sort((a, b) => a - b).join(' ')
}

/** The list's text, as it stands between the fences in docs/architecture.md. */
export function stageList(lists: readonly (readonly [string, readonly Stage[]])[] = STAGE_LISTS): string {
  const lines: string[] = []
  for (const [heading, stages] of lists) {
    lines.push(heading)
    for (const stage of stages) {
      const [first = '', ...rest] = stage.says
      lines.push(`  ${stage.name.padEnd(NAME)}${statusesOf(stage).padEnd(STATUSES)}${first.padEnd(SAYS)}${stage.file}`)
      for (const line of rest) lines.push(`${' '.repeat(2 + NAME + STATUSES)}${line}`)
    }
  }
  return lines.join('\n')
}
