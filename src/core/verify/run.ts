/**
 * Runs the behaviour table against a live server and the sandbox side by side, row by row, and
 * sorts each row: `same`, `drift` (a rule of the interface document differs), `note` (only a
 * choice of the sandbox's differs), or `skipped` (a write not asked for, a read of a pet the
 * server does not have). A base URL whose first answer is nothing like the API's stops the run
 * before its first row (`NotTheApi`). Transport-free: each side is a `send`.
 *
 * May import: core/verify, core/admin, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { cases as allCases, sendsOf, type Case } from './cases.js'
import { unlistedStatus } from '../api/answer-check.js'
import { isPlainObject } from '../api/contract.js'
import type { PlainAnswer } from '../http/http.js'
import { codeOf, differences, judge, Unreachable, type Context, type Finding, type Pet, type Side } from './judge.js'

export type Kind = 'same' | 'drift' | 'note' | 'skipped'

export interface CaseResult {
  readonly case: Case
  /** The path as sent to the server. */
  readonly path: string
  readonly kind: Kind
  /** What each side answered, in a few words: `400 invalid_parameter`, `200, 20 pets`. */
  readonly sandbox?: string
  readonly server?: string
  readonly findings: readonly Finding[]
  /** Why a row was skipped. */
  readonly reason?: string
}

export interface VerifyReport {
  readonly results: readonly CaseResult[]
  readonly counts: Readonly<Record<Kind, number>>
  /** Why the run stopped before its last row: the server could no longer be reached. */
  readonly stopped?: string
  /**
   * Writes the interface says must be refused that the server answered 2xx (each may have stored
   * a record), by kind (`POST /pets`), and the rows of those kinds not sent after the first.
   */
  readonly stored?: { readonly count: number; readonly kinds: readonly string[]; readonly skipped: number }
}

export interface VerifyRun {
  readonly server: Side
  readonly sandbox: Side
  /** The key sent to the server; the sandbox gets its own. */
  readonly serverKey: string
  readonly sandboxKey: string
  /** Send the rows that create data, and the writes the interface refuses. */
  readonly writes: boolean
  /**
   * Send the writes the interface says must be refused (a create without a key, a bad body): a
   * server that keeps the interface stores nothing from them, a lenient one may.
   */
  readonly refusedWrites: boolean
  readonly cases?: readonly Case[]
  /** Told of each row as it is done, for a progress line. */
  readonly onResult?: (result: CaseResult) => void
}

/** An id no store holds: the largest integer every JSON reader keeps exactly. */
const MISSING_ID = String(Number.MAX_SAFE_INTEGER)

/** Why a row was not sent, for the rows a flag sends: the report names the flag from these. */
export const NOT_SENT = {
  write: 'creates data: --writes sends it',
  refusedWrite: 'a write the interface refuses, which a lenient server may store: --refused-writes sends it',
} as const

/**
 * The base URL's first answer is nothing like the API's: no row is sent. Like Unreachable, the
 * run has nothing to compare, and says so in one line.
 */
export class NotTheApi extends Error {
  override readonly name = 'NotTheApi'
}

/**
 * The base URL's first read was refused 401 or 403 with the key given: every read the rows make
 * needs a key the server takes, so a run would report the refusals as drift. No row is sent.
 */
export class KeyRefused extends Error {
  override readonly name = 'KeyRefused'
}

export async function verify(run: VerifyRun): Promise<VerifyReport> {
  const sandboxContext = await discover(run.sandbox, run.sandboxKey)
  let serverContext: Context & { answer: PlainAnswer }
  try {
    serverContext = await discover(run.server, run.serverKey)
  } catch (error) {
    if (error instanceof Unreachable) throw error
    throw new Unreachable(`no answer to GET ${run.server.base}/pets?limit=1: ${(error as Error).message}`)
  }
  const first = serverContext.answer.status
  if (first === 401 || first === 403) {
    throw new KeyRefused(`GET ${run.server.base}/pets?limit=1 answered ${first} with the key given`)
  }
  const unlike = unlikeTheApi(serverContext.answer, run.server.base)
  if (unlike !== undefined) throw new NotTheApi(unlike)
  const results: CaseResult[] = []
  let stopped: string | undefined
  // A write the interface refuses that the server took: the server may now hold a record, so no
  // other write of that kind is sent in this run.
  const storedKinds = new Map<string, number>()
  let storedSkipped = 0
  for (const row of run.cases ?? allCases) {
    let result: CaseResult
    const kind = refusedWriteKind(row)
    if (stopped !== undefined) {
      result = skipped(row, row.path, 'the server stopped answering')
    } else if (kind !== undefined && storedKinds.has(kind)) {
      storedSkipped++
      result = skipped(row, row.path, `the server stored a refused ${kind} earlier: no more are sent`)
    } else {
      try {
        result = await verifyRow(run, row, sandboxContext, serverContext)
      } catch (error) {
        if (!(error instanceof Unreachable)) throw error
        stopped = `the server stopped answering at "${row.name}": ${error.message}`
        result = skipped(row, row.path, 'the server stopped answering')
      }
    }
    if (kind !== undefined && result.kind !== 'skipped' && /^2\d\d\b/.test(result.server ?? '')) {
      storedKinds.set(kind, (storedKinds.get(kind) ?? 0) + 1)
    }
    results.push(result)
    run.onResult?.(result)
  }
  const counts = { same: 0, drift: 0, note: 0, skipped: 0 }
  for (const result of results) counts[result.kind]++
  const stored =
    storedKinds.size === 0
      ? undefined
      : {
          count: [...storedKinds.values()].reduce((sum, count) => sum + count, 0),
          kinds: [...storedKinds.keys()],
          skipped: storedSkipped,
        }
  return {
    results,
    counts,
    ...(stopped !== undefined && { stopped }),
    ...(stored !== undefined && { stored }),
  }
}

/** A write the interface says must be refused (not one of --writes' own rows): its method and path. */
function refusedWriteKind(row: Case): string | undefined {
  if (sendsOf(row) !== 'refused-write' || row.status < 400) return undefined
  return `${row.method} ${row.path.split('?')[0] ?? row.path}`
}

/** A pet the side has (the first it lists), for the rows that read one, and that first answer. */
async function discover(side: Side, key: string): Promise<Context & { answer: PlainAnswer }> {
  const answer = await side.send('GET', `${side.base}/pets?limit=1`, { Authorization: `Bearer ${key}` })
  let petId: string | undefined
  try {
    const pets: unknown = JSON.parse(answer.body)
    const id = Array.isArray(pets) ? (pets[0] as Pet | undefined)?.id : undefined
    if (typeof id === 'number') petId = String(id)
  } catch {
    // No list to read a pet from: the rows that need one are skipped.
  }
  return { petId, missingId: MISSING_ID, answer }
}

/**
 * Why the first answer, to listPets with the key, is nothing like the API's; undefined when it
 * could be the API's, however drifted. The interface never answers listPets 404, so a 404 is no
 * listPets at this base URL (a base URL without its version segment, another service), whatever
 * its body. Otherwise the API answers a JSON list, or a JSON Error: a body that is neither (a
 * page of HTML, a proxy's text) is another service, or a server that is down. 401 and 403 are the
 * API refusing the key, body or none: the run goes on, with a hint.
 */
function unlikeTheApi(answer: PlainAnswer, base: string): string | undefined {
  const type = answer.headers['content-type']?.split(';')[0]?.trim()
  const said = `GET ${base}/pets?limit=1 answered ${answer.status}${type === undefined || type === '' ? '' : ` ${type}`}`
  // The commonest slip is the resource's path in the base URL (.../v1/pets): the first read is then
  // .../pets/pets, which the API answers 400 (an id that is not one) or 404.
  const slip = /\/pets\/?$/.test(base) ? ' (the base URL ends in /pets: give it without)' : ''
  if (answer.status === 404) return `${said}: there is no listPets at this base URL${slip}`
  // listPets with limit=1 is a call the interface always takes: a 400 says the URL is not its.
  if (answer.status === 400) return `${said}: the API never refuses this call, so this is not its base URL${slip}`
  let body: unknown
  try {
    body = JSON.parse(answer.body)
  } catch {
    return `${said}, not JSON: neither a list of pets nor an Error`
  }
  if (Array.isArray(body)) return undefined
  if (isPlainObject(body) && (typeof body.code === 'string' || typeof body.message === 'string')) return undefined
  return `${said}: neither a list of pets nor an Error`
}

async function verifyRow(
  run: VerifyRun,
  row: Case,
  sandboxContext: Context,
  serverContext: Context,
): Promise<CaseResult> {
  const path = fill(row.path, serverContext)
  const sends = sendsOf(row)
  if (sends === 'write' && !run.writes) return skipped(row, path ?? row.path, NOT_SENT.write)
  if (sends === 'refused-write' && !run.writes && !run.refusedWrites) {
    return skipped(row, path ?? row.path, NOT_SENT.refusedWrite)
  }
  if (path === undefined) return skipped(row, row.path, 'GET /pets?limit=1 listed no pet with an integer id to read')
  if (
    row.authorization !== undefined &&
    row.authorization(run.serverKey) === `Bearer ${run.serverKey}` &&
    row.status === 401
  ) {
    return skipped(row, path, 'the key has no letters whose case could change')
  }
  const sandboxPath = fill(row.path, sandboxContext) ?? row.path
  const ask = async (side: Side, key: string, at: string): Promise<[PlainAnswer, Record<string, string>]> => {
    const headers = requestHeaders(row, key)
    let answer = await side.send(row.method, `${side.base}${at}`, headers, row.body)
    for (let again = 1; again < (row.repeat ?? 1) && answer.status === row.status; again++) {
      answer = await side.send(row.method, `${side.base}${at}`, headers, row.body)
    }
    return [answer, headers]
  }
  const [sandboxAnswer, sandboxHeaders] = await ask(run.sandbox, run.sandboxKey, sandboxPath)
  let serverAnswer: PlainAnswer
  let serverHeaders: Record<string, string>
  try {
    ;[serverAnswer, serverHeaders] = await ask(run.server, run.serverKey, path)
  } catch (error) {
    if (error instanceof Unreachable) throw error
    return {
      case: row,
      path,
      kind: row.source === 'interface' ? 'drift' : 'note',
      sandbox: summary(sandboxAnswer, row),
      server: 'no answer',
      findings: [
        {
          source: row.source,
          ...(row.topic && { topic: row.topic }),
          message: `no answer: ${(error as Error).message}`,
        },
      ],
    }
  }
  const sandboxFindings = await judge({ ...row, path: sandboxPath }, sandboxAnswer, run.sandbox, sandboxHeaders)
  const serverFindings = await judge({ ...row, path }, serverAnswer, run.server, serverHeaders)
  const known = new Set(sandboxFindings.map((finding) => finding.message))
  // A status other than the sandbox's is named once, as a difference, not again as unlisted.
  if (row.operation !== undefined && serverAnswer.status !== sandboxAnswer.status) {
    known.add(unlistedStatus(row.operation, serverAnswer.status))
  }
  const findings = [
    ...differences(row, sandboxAnswer, serverAnswer, [run.sandbox.base, run.server.base]),
    ...serverFindings.filter((finding) => !known.has(finding.message)),
  ]
  return {
    case: row,
    path,
    kind: findings.some((finding) => finding.source === 'interface') ? 'drift' : findings.length > 0 ? 'note' : 'same',
    sandbox: summary(sandboxAnswer, row),
    server: summary(serverAnswer, row),
    findings,
  }
}

function skipped(row: Case, path: string, reason: string): CaseResult {
  return { case: row, path, kind: 'skipped', findings: [], reason }
}

/** The row's path with its pets filled in; undefined when it needs a pet the side does not have. */
function fill(path: string, context: Context): string | undefined {
  if (path.includes('{petId}') && context.petId === undefined) return undefined
  return path.replace('{petId}', context.petId ?? '').replace('{missingId}', context.missingId)
}

/** The row's headers, with the Authorization its credential makes of the key. */
export function requestHeaders(row: Case, key: string): Record<string, string> {
  return { ...row.headers, ...(row.authorization !== undefined && { Authorization: row.authorization(key) }) }
}

/** An answer in a few words, as the table shows it. */
function summary(answer: PlainAnswer, row: Case): string {
  const code = codeOf(answer)
  if (code !== undefined) return `${answer.status} ${code}`
  if (answer.status >= 200 && answer.status < 300 && row.method !== 'HEAD') {
    try {
      const body: unknown = JSON.parse(answer.body)
      if (Array.isArray(body)) return `${answer.status}, ${body.length} pet${body.length === 1 ? '' : 's'}`
      const id = (body as Pet | null)?.id
      if (typeof id === 'number') return `${answer.status}, pet ${id}`
    } catch {
      return `${answer.status}, not JSON`
    }
  }
  return String(answer.status)
}
