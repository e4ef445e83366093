/**
 * The stages are declared once (src/core/http/stages.ts): docs/architecture.md's list of them
 * keeps their names, their order and the statuses each may answer.
 */
import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { stageList, STAGE_LISTS, statusesOf } from '../src/core/docs/stage-list.js'
import { HEAD_STAGE } from '../src/core/http/head.js'
import { ADMIN_STAGES, API_STAGES, DISPATCH_STAGES, type Stage } from '../src/core/http/stages.js'

const doc = readFileSync(new URL('../docs/architecture.md', import.meta.url), 'utf8')

/** The list between the fences of docs/architecture.md. */
const written = (text: string) => /\n```\n(every request \(dispatch\.ts\)\n[\s\S]*?)\n```/.exec(text)?.[1]

describe("docs/architecture.md's stages", () => {
  it('is the list the declaration makes (npm run docs:stages writes it): names, order, statuses, what each decides, files', () => {
    expect(written(doc), 'run `npm run docs:stages`').toBe(stageList())
  })

  it('shows every status each declared stage may answer, and every stage of the three lists', () => {
    const text = stageList()
    for (const [, stages] of STAGE_LISTS) {
      for (const stage of stages) expect(text).toContain(`  ${stage.name.padEnd(12)}${statusesOf(stage)}`)
    }
    expect(
      statusesOf({ ...HEAD_STAGE, answers: [{ codes: ['forbidden', 'bad_request'] }, { codes: ['forbidden'] }] }),
    ).toBe('400 403')
    expect(statusesOf({ ...HEAD_STAGE, answers: [] })).toBe('-')
    const long = STAGE_LISTS.flatMap(([, stages]) =>
      stages.flatMap((stage) => stage.says.filter((line) => line.length > 48)),
    )
    expect(long).toEqual([])
    expect(STAGE_LISTS.flatMap(([, stages]) => stages)).toHaveLength(
      DISPATCH_STAGES.length + API_STAGES.length + ADMIN_STAGES.length,
    )
  })

  it('finds a status the declaration does not give (the check itself can fail)', () => {
    const tenant = API_STAGES.find((stage) => stage.name === 'tenant')
    expect(tenant).toBeDefined()
    if (tenant === undefined) return
    const moved = API_STAGES.map((stage) =>
      stage === tenant ? { ...tenant, answers: [...tenant.answers, { codes: ['payload_too_large' as const] }] } : stage,
    )
    expect(stageList([['the API (api-call.ts)', moved]])).toContain('  tenant      413 503 ')
    expect(written(doc)).not.toBe(
      stageList([...STAGE_LISTS.slice(0, 1), ['the API (api-call.ts)', moved], ...STAGE_LISTS.slice(2)]),
    )
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
