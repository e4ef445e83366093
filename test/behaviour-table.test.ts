/**
 * The behaviour table's labels against the words that describe them: the items of "Where the
 * interface is silent" in docs/behaviour.md and in the README are the table's items, in order,
 * and every item has a row that checks it. And the contract check that verify and --upstream
 * share, on answers written here by hand.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { bearer, cases, SILENT_TOPICS, topicsOf } from '../src/core/verify/cases.js'
import { contractViolations, errorViolations } from '../src/core/api/answer-check.js'

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8')

/** The bold names of a section's bullets, without backticks and their closing `.` or `:`. */
function items(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n## ${heading}\n`)
  expect(start, heading).toBeGreaterThan(-1)
  const end = markdown.indexOf('\n## ', start + 1)
  const section = markdown.slice(start, end === -1 ? undefined : end)
  return [...section.matchAll(/^- \*\*(.+?)\*\*/gm)].map((match) =>
    (match[1] ?? '').replaceAll('`', '').replace(/[.:]$/, ''),
  )
}

describe('the silent items', () => {
  it("docs/behaviour.md lists the table's items, in order", () => {
    expect(items(read('docs/behaviour.md'), 'Where the interface is silent')).toEqual([...SILENT_TOPICS])
  })

  it("the README lists the table's items, in order", () => {
    expect(items(read('README.md'), 'Where the interface is silent')).toEqual([...SILENT_TOPICS])
  })

  it('every item has a row that checks it, and every choice row names one', () => {
    const covered = new Set(cases.flatMap(topicsOf))
    expect([...SILENT_TOPICS].filter((topic) => !covered.has(topic))).toEqual([])
    for (const row of cases) {
      if (row.source === 'choice') expect(row.topic, row.name).toBeDefined()
      else expect(row.topic, row.name).toBeUndefined()
    }
  })

  it('names every row once', () => {
    const names = cases.map((row) => row.name)
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([])
  })

  it('marks as writes every row that could change data on a server that does not refuse it', () => {
    for (const row of cases) {
      const reads = row.method === 'GET' || row.method === 'HEAD'
      // Without a key the sandbox accepts, or a body the interface refuses, nothing can be changed.
      const refused = row.authorization !== bearer || (row.source === 'interface' && row.status >= 400)
      expect(row.writes === true, row.name).toBe(!reads && !refused)
      if (row.status === 201) expect(row.writes, row.name).toBe(true)
    }
  })

  it('never sends a write to a pet the server has', () => {
    for (const row of cases) if (row.method !== 'GET') expect(row.path, row.name).not.toContain('{petId}')
  })
})

describe('the contract check', () => {
  const json = { 'content-type': 'application/json' }
  const answer = (status: number, body: unknown, headers: Record<string, string> = json) => ({
    status,
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  const problemsOf = (...args: Parameters<typeof contractViolations>) => contractViolations(...args).problems
  const errorProblemsOf = (...args: Parameters<typeof errorViolations>) => errorViolations(...args).problems

  it('passes what the interface allows', () => {
    expect(problemsOf('listPets', answer(200, [{ id: 1, name: 'a', categoryId: 2 }]))).toEqual([])
    expect(
      problemsOf('createPet', answer(201, { id: 9, name: '', categoryId: -1, status: 'sold', extra: true })),
    ).toEqual([])
    expect(
      problemsOf(
        'getPet',
        answer(404, { code: 'x', message: 'y', status: 404 }, { 'content-type': 'application/json; charset=utf-8' }),
      ),
    ).toEqual([])
    // The response to a bad parameter is not shown: 400 or 422 will do on the reads.
    expect(problemsOf('listPets', answer(422, { code: 'x', message: 'y', status: 422 }))).toEqual([])
  })

  it('names each broken promise', () => {
    expect(problemsOf('listPets', answer(200, [{ name: 'x' }, { id: 2, name: 'b', categoryId: 1.5 }]))).toEqual([
      'the body is not a list of Pets: body.0.id is required',
      'the body is not a list of Pets: body.0.categoryId is required',
      'the body is not a list of Pets: body.1.categoryId must be an integer, got 1.5',
    ])
    expect(problemsOf('createPet', answer(422, { code: 'x', message: 'y', status: 400 }))).toEqual([
      'status 422 is not one the interface lists for createPet (201, 400, 401)',
      "the Error's status is 400, not the HTTP status 422",
    ])
    expect(problemsOf('getPet', answer(200, { id: 1, name: 'a', categoryId: 1, status: 'adopted' }))).toEqual([
      'the body is not a Pet: body.status must be one of available, pending, sold, got "adopted"',
    ])
    expect(problemsOf('getPet', answer(500, '<h1>oops</h1>', { 'content-type': 'text/html' }))).toEqual([
      'status 500 is not one the interface lists for getPet (200, 401, 404, or 400 or 422 for a bad parameter)',
      'Content-Type is "text/html", not application/json',
    ])
    expect(problemsOf('listPets', answer(401, '', json))).toEqual(['the body is empty, not JSON'])
    expect(errorProblemsOf(answer(404, { code: 'x', message: 'y' }))).toEqual([
      'the body is not an Error: body.status is required',
    ])
  })
})
