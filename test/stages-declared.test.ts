/**
 * The stages are declared once (src/core/http/stages.ts): docs/architecture.md's list of them
 * keeps their names, their order and the statuses each may answer.
 */
import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ERROR_CODES } from '../src/core/http/errors.js'
import { ADMIN_STAGES, API_STAGES, DISPATCH_STAGES, type Stage } from '../src/core/http/stages.js'

const doc = readFileSync(new URL('../docs/architecture.md', import.meta.url), 'utf8')

/** The doc's stage lines, per list (by its heading): each stage's name and the statuses it shows. */
function listed(text: string): Map<string, { name: string; statuses: string }[]> {
  const lists = new Map<string, { name: string; statuses: string }[]>()
  const block = /\n```\n(every request \(dispatch\.ts\)\n[\s\S]*?)\n```/.exec(text)?.[1] ?? ''
  let current: { name: string; statuses: string }[] = []
  for (const line of block.split('\n')) {
    if (!line.startsWith(' ')) {
      current = []
      lists.set(line.replace(/ \(.*$/, ''), current)
      continue
    }
    const stage = /^ {2}([a-z-]+) +(-|\d{3}(?: \d{3})*)(?: {2,}|$)/.exec(line)
    if (stage !== null) current.push({ name: stage[1] ?? '', statuses: stage[2] ?? '' })
  }
  return lists
}

/** A declared stage as the doc shows it: its name, and every status it may answer, ascending. */
const shown = (stage: Stage) => {
  const statuses = [...new Set(stage.answers.flatMap((answer) => answer.codes.map((code) => ERROR_CODES[code])))].sort(
    (a, b) => a - b,
  )
  return { name: stage.name, statuses: statuses.length === 0 ? '-' : statuses.join(' ') }
}

describe("docs/architecture.md's stages", () => {
  const lists = listed(doc)

  it.each([
    ['every request', DISPATCH_STAGES],
    ['the API', API_STAGES],
    ['the admin routes and the site', ADMIN_STAGES],
  ])('lists %s in the declared order, each with the statuses it may answer', (heading, stages) => {
    expect(lists.get(heading)).toEqual(stages.map(shown))
  })

  it('finds a status the declaration does not give (the check itself can fail)', () => {
    const moved = doc.replace('\n  tenant      503 ', '\n  tenant      413 503 ')
    expect(moved).not.toBe(doc)
    expect(listed(moved).get('the API')).not.toEqual(API_STAGES.map(shown))
  })
})

describe('the stage lists in the code that runs them', () => {
  /** Whether every name appears in the text, as a word, in this order. */
  const inOrder = (text: string, names: readonly string[]) => {
    let from = 0
    for (const name of names) {
      const found = new RegExp(`(?<![\\w-])${name}(?![\\w-])`, 'g')
      found.lastIndex = from
      if (found.exec(text) === null) return false
      from = found.lastIndex
    }
    return true
  }
  const opening = (file: string) =>
    /^\/\*\*[\s\S]*?\*\//.exec(readFileSync(new URL(`../src/core/${file}`, import.meta.url), 'utf8'))?.[0] ?? ''

  it.each([
    ['dispatch.ts', DISPATCH_STAGES.filter((stage) => stage.name !== 'parse')],
    ['api-call.ts', API_STAGES],
    ['admin-call.ts', ADMIN_STAGES],
  ])("names the stages in %s's opening comment in their declared order", (file, stages) => {
    expect(
      inOrder(
        opening(file),
        stages.map((stage) => stage.name),
      ),
    ).toBe(true)
  })

  it('finds a name out of order (the check itself can fail)', () => {
    expect(inOrder('route, key', ['key', 'route'])).toBe(false)
    expect(inOrder('body-head, tenant', ['body', 'tenant'])).toBe(false)
  })
})

describe("the stages' files", () => {
  const missing = (stages: readonly Stage[]) =>
    stages
      .filter((stage) => !existsSync(new URL(`../src/core/${stage.file}`, import.meta.url)))
      .map((stage) => `${stage.name}: ${stage.file}`)

  it('names, for every stage, a file of src/core that exists', () => {
    expect(missing([...DISPATCH_STAGES, ...API_STAGES, ...ADMIN_STAGES])).toEqual([])
  })

  it('finds a file that is not there (the check itself can fail)', () => {
    const [first] = API_STAGES
    expect(first).toBeDefined()
    if (first === undefined) return
    expect(missing([{ ...first, file: 'admin/holds.ts' }])).toEqual([`${first.name}: admin/holds.ts`])
  })
})
