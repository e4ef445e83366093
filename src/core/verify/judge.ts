/**
 * What `verify` finds on one row: the rules one answer must keep on its own (`judge`: the
 * document's shapes, the list's limit, filter and order, a created pet read back), and how the
 * live server's answer differs from the sandbox's (`differences`: status, error code, the headers
 * the document or the sandbox defines). Each finding carries its source, so the runner can tell
 * drift from a note. Data is never compared: a live server has pets of its own.
 *
 * May import: core/verify, core/admin, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { HEADER_RULES, type Case, type CaseSource, type SilentTopic } from './cases.js'
import { contractViolations, errorViolations } from '../api/answer-check.js'
import { isPlainObject } from '../api/contract.js'
import type { PlainAnswer } from '../http/http.js'

/**
 * A side's `send` throws this when the server cannot be reached (nothing listens, no such name, or
 * no answer several times in a row): before the first row there is nothing to compare; later,
 * the server went away.
 */
export class Unreachable extends Error {
  override readonly name = 'Unreachable'
}

export interface Finding {
  readonly source: CaseSource
  readonly topic?: SilentTopic
  readonly message: string
}

/** One side of the comparison: where its base URL's path is, and how to send it a request. */
export interface Side {
  /** The base URL's path, without a trailing slash: `/v1`, or `` for a server at its root. */
  readonly base: string
  /** Sends a request to the target (the base path and a row's path) and reads the answer. */
  send(method: string, target: string, headers: Readonly<Record<string, string>>, body?: string): Promise<PlainAnswer>
}

/** What fills a row's path on one side: a pet it has, and one it has not. */
export interface Context {
  readonly petId: string | undefined
  readonly missingId: string
}

export interface Pet {
  readonly id: number
  readonly name?: unknown
  readonly categoryId?: unknown
  readonly status?: unknown
}

const ORDER: SilentTopic = 'Order and pagination'

/** A finding under the row's own rule: the document's, or the sandbox's choice under its item. */
function ofRow(row: Case, message: string): Finding {
  return row.source === 'interface'
    ? { source: 'interface', message }
    : { source: 'choice', ...(row.topic !== undefined && { topic: row.topic }), message }
}

/** The rules one answer keeps on its own. Both sides are judged; the runner reports what only the server breaks. */
export async function judge(
  row: Case,
  answer: PlainAnswer,
  side: Side,
  headers: Readonly<Record<string, string>>,
): Promise<Finding[]> {
  if (row.method === 'HEAD') return answer.body === '' ? [] : [ofRow(row, 'HEAD answered with a body')]
  const violations = row.operation === undefined ? errorViolations(answer) : contractViolations(row.operation, answer)
  const contract: Finding[] = violations.problems.map((message) => ({ source: 'interface', message }))
  if (violations.more) {
    contract.push({ source: 'interface', message: `more problems: the check stops at ${violations.problems.length}` })
  }
  if (answer.status < 200 || answer.status >= 300 || row.expect === undefined) return contract
  const body = parseJson(answer.body)
  // The row's own rule leads, and is judged even when the pets break the document (37 pets where
  // at most 20 is said whatever their fields): a list needs only to be a list of objects.
  if (row.expect === 'list') {
    const pets = Array.isArray(body) && body.every(isPlainObject) ? (body as unknown as Pet[]) : undefined
    return [...(pets === undefined ? [] : await judgeList(row, pets, side, headers)), ...contract]
  }
  if (contract.length > 0) return contract
  const findings: Finding[] = []
  if (row.expect === 'pet') {
    const asked = Number(/\/pets\/([^/?]+)/.exec(row.path)?.[1] ?? Number.NaN)
    const { id } = body as Pet
    if (Number.isFinite(asked) && id !== asked) findings.push(ofRow(row, `asked for pet ${asked}, got pet ${id}`))
  }
  if (row.expect === 'created') findings.push(...(await judgeCreated(row, answer, body as Pet, side, headers)))
  return findings
}

/** A list: at most `limit` pets (20 by default), all of the filtered status, each id once, by id, and a prefix of the longer list. */
async function judgeList(
  row: Case,
  pets: readonly Pet[],
  side: Side,
  headers: Readonly<Record<string, string>>,
): Promise<Finding[]> {
  const findings: Finding[] = []
  const query = new URLSearchParams(row.path.split('?')[1] ?? '')
  const limit = limitOf(row.path)
  if (pets.length > limit) findings.push(ofRow(row, `${pets.length} pets where at most ${limit}`))
  const status = query.get('status')
  const others = pets.filter((pet) => status !== null && pet.status !== status)
  if (others.length > 0) {
    findings.push(
      ofRow(row, `${others.length} pet${others.length === 1 ? '' : 's'} not ${status} (first: pet ${others[0]?.id})`),
    )
  }
  const ids = pets.map((pet) => pet.id)
  if (new Set(ids).size !== ids.length) findings.push(ofRow(row, 'a pet is listed twice'))
  // Ids that are no integers are the document's problem, named apart: the order reads the rest.
  const numbered = ids.filter((id) => Number.isSafeInteger(id))
  const unordered = numbered.findIndex((id, index) => index > 0 && id <= (numbered[index - 1] ?? 0))
  if (unordered > 0) {
    findings.push({
      source: 'choice',
      topic: ORDER,
      message: `not ordered by id: pet ${numbered[unordered]} comes after pet ${numbered[unordered - 1]}`,
    })
  }
  if (row.sameListAs !== undefined) {
    const other = await follow(row, side, `${side.base}${row.sameListAs}`, headers, findings)
    const otherPets = other?.status === 200 ? parseList(other.body) : undefined
    if (otherPets !== undefined) {
      const otherIds = otherPets.map((pet) => pet.id)
      if (!samePages(ids, limit, otherIds, limitOf(row.sameListAs))) {
        findings.push(
          ofRow(row, `not the same list as GET ${row.sameListAs}: here ${listed(ids)}, there ${listed(otherIds)}`),
        )
      }
    }
  }
  return findings
}

/** A created pet: the fields sent, a Location to it, readable through getPet, and in the list. */
async function judgeCreated(
  row: Case,
  answer: PlainAnswer,
  pet: Pet,
  side: Side,
  headers: Readonly<Record<string, string>>,
): Promise<Finding[]> {
  const findings: Finding[] = []
  const sent = (parseJson(row.body ?? '{}') ?? {}) as Record<string, unknown>
  for (const field of ['name', 'categoryId', 'status'] as const) {
    if (sent[field] === undefined) continue
    if (pet[field] !== sent[field]) {
      findings.push(ofRow(row, `${field} is ${JSON.stringify(pet[field])}, sent ${JSON.stringify(sent[field])}`))
    }
  }
  if (sent.status === undefined && pet.status !== undefined) {
    findings.push({
      source: 'choice',
      topic: 'Default status',
      message: `a pet sent without a status has status ${JSON.stringify(pet.status)}`,
    })
  }
  const own = `${side.base}/pets/${pet.id}`
  const location = answer.headers.location
  if (location === undefined || pathOf(location, `${side.base}/pets`) !== own) {
    findings.push({
      source: 'choice',
      topic: 'Location of a created pet',
      message: location === undefined ? 'no Location header' : `Location ${location} is not ${own}`,
    })
  }
  const again = await follow(row, side, own, headers, findings)
  const read: unknown = again?.status === 200 ? parseJson(again.body) : undefined
  if (again !== undefined && (typeof read !== 'object' || read === null || !sameFields(read as Pet, pet))) {
    findings.push(ofRow(row, `GET ${row.path}/${pet.id} answered ${again.status} without the pet created`))
  }
  const filter = typeof sent.status === 'string' ? `&status=${sent.status}` : ''
  const listed = await follow(row, side, `${side.base}/pets?limit=100${filter}`, headers, findings)
  const list = listed?.status === 200 ? parseList(listed.body) : undefined
  if (list !== undefined) {
    const ids = list.map((each) => each.id)
    if (ids.length < 100 && !ids.includes(pet.id)) {
      findings.push(ofRow(row, `GET /pets?limit=100${filter} does not list pet ${pet.id}`))
    } else if (ids.length < 100 && ids.at(-1) !== pet.id) {
      findings.push({ source: 'choice', topic: ORDER, message: `the new pet ${pet.id} is not last in GET /pets` })
    }
  }
  return findings
}

/** A path's `limit`: the query's when it is one from 1 to 100, else the default, 20. */
function limitOf(path: string): number {
  const text = new URLSearchParams(path.split('?')[1] ?? '').get('limit') ?? ''
  return /^[0-9]+$/.test(text) && Number(text) >= 1 && Number(text) <= 100 ? Number(text) : 20
}

/**
 * A rule's own request (a second page, a read-back). A server that answers nothing is a finding of
 * the row; one that cannot be reached any more ends the run.
 */
async function follow(
  row: Case,
  side: Side,
  target: string,
  headers: Readonly<Record<string, string>>,
  findings: Finding[],
): Promise<PlainAnswer | undefined> {
  try {
    return await side.send('GET', target, headers)
  } catch (error) {
    if (error instanceof Unreachable) throw error
    findings.push(ofRow(row, `no answer to GET ${target}: ${(error as Error).message}`))
    return undefined
  }
}

/** JSON text's value, or undefined when it is not JSON: a server's body is never trusted to parse. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/** A URI reference's path, resolved against a path; undefined when it is no URI reference. */
function pathOf(reference: string, against: string): string | undefined {
  try {
    return new URL(reference, `http://server${against}`).pathname
  } catch {
    return undefined
  }
}

/** A JSON array, or undefined when the body is none. */
function parseList(body: string): Pet[] | undefined {
  try {
    const value: unknown = JSON.parse(body)
    return Array.isArray(value) ? (value as Pet[]) : undefined
  } catch {
    return undefined
  }
}

/**
 * Whether two pages of one list, under limits `a` and `b`, keep the page-size rule: the shorter is
 * the start of the longer, and a page shorter than its limit is the whole list, so the other page
 * is that list cut at its own limit.
 */
function samePages(a: readonly number[], limitA: number, b: readonly number[], limitB: number): boolean {
  const whole = a.length < limitA ? a : b.length < limitB ? b : undefined
  if (whole !== undefined) {
    return a.join() === whole.slice(0, limitA).join() && b.join() === whole.slice(0, limitB).join()
  }
  const shorter = Math.min(a.length, b.length)
  return a.slice(0, shorter).join() === b.slice(0, shorter).join()
}

function sameFields(a: Pet, b: Pet): boolean {
  return a.id === b.id && a.name === b.name && a.categoryId === b.categoryId && a.status === b.status
}

/** A list of pets by id, as a reader takes it in: an empty list reads as empty. */
function listed(ids: readonly number[]): string {
  if (ids.length === 0) return 'an empty list'
  return `ids ${ids.length > 6 ? `${ids.slice(0, 6).join(', ')}, ...` : ids.join(', ')}`
}

/** How the server's answer differs from the sandbox's: status, error code, and the headers with a rule. */
export function differences(row: Case, sandbox: PlainAnswer, server: PlainAnswer, bases: [string, string]): Finding[] {
  if (server.status !== sandbox.status) {
    const refusedBoth = Math.floor(server.status / 100) === 4 && Math.floor(sandbox.status / 100) === 4
    const message = `status ${server.status}, where the sandbox answers ${sandbox.status}`
    return [
      refusedBoth && row.refusalTopic !== undefined
        ? { source: 'choice', topic: row.refusalTopic, message }
        : ofRow(row, message),
    ]
  }
  const findings: Finding[] = []
  const [sandboxCode, serverCode] = [codeOf(sandbox), codeOf(server)]
  if (sandboxCode !== undefined && serverCode !== undefined && sandboxCode !== serverCode) {
    findings.push({
      source: 'choice',
      topic: 'Error code values',
      message: `code ${JSON.stringify(serverCode)}, where the sandbox answers ${JSON.stringify(sandboxCode)}`,
    })
  }
  for (const [name, rule] of Object.entries(HEADER_RULES)) {
    // Content-Type is judged on each answer, Location against each server's own base.
    if (name === 'content-type' || name === 'location') continue
    const expected = sandbox.headers[name]
    if (expected === undefined) continue
    const got = server.headers[name]
    const shown = display(name)
    if (got === undefined) {
      findings.push(
        finding(rule.presence ?? rule.source, rule.topic, `no ${shown} header; the sandbox sends ${expected}`),
      )
    } else if (normalise(name, got, bases[1]) !== normalise(name, expected, bases[0])) {
      findings.push(finding(rule.source, rule.topic, `${shown} is ${got}; the sandbox sends ${expected}`))
    }
  }
  return findings
}

function finding(source: CaseSource, topic: SilentTopic | undefined, message: string): Finding {
  return source === 'interface' || topic === undefined ? { source, message } : { source, topic, message }
}

/** A header's value as compared: Allow as a set of methods, a Link's target under its server's base. */
function normalise(name: string, value: string, base: string): string {
  if (name === 'allow') {
    return value
      .split(',')
      .map((method) => method.trim().toUpperCase())
      .sort()
      .join(', ')
  }
  if (name === 'link') {
    return value.replace(/<([^>]*)>/g, (whole, target: string) => {
      const path = pathOf(target, `${base}/`)
      if (path === undefined) return whole
      return `<{base}${path.startsWith(base) ? path.slice(base.length) : path}>`
    })
  }
  return value.trim()
}

const DISPLAY: Readonly<Record<string, string>> = { 'www-authenticate': 'WWW-Authenticate' }

function display(name: string): string {
  return (
    DISPLAY[name] ??
    name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => `${dash}${letter.toUpperCase()}`)
  )
}

/** The Error code of an error answer, when it has one. */
export function codeOf(answer: PlainAnswer): string | undefined {
  if (answer.status < 400) return undefined
  try {
    const body: unknown = JSON.parse(answer.body)
    const code = (body as { code?: unknown } | null)?.code
    return typeof code === 'string' ? code : undefined
  } catch {
    return undefined
  }
}
