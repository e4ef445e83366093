/**
 * A verify report in the three forms a user asks for: a table for the terminal, JSON for
 * scripts, JUnit XML for CI dashboards. And its exit code: 0 when no `interface` row differs
 * (with --strict, no row at all), 1 on drift.
 *
 * May import: core/verify, core/admin, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import type { CaseSource, SilentTopic } from './cases.js'
import type { Finding } from './judge.js'
import type { CaseResult, Kind, VerifyReport } from './run.js'

export interface ReportMeta {
  /** The server as the user named it. */
  readonly server: string
  readonly version: string
  readonly strict: boolean
  readonly writes: boolean
}

/** 2 when the server stopped answering; 1 when an `interface` row differs, or with --strict any row; else 0. */
export function exitCodeOf(report: VerifyReport, strict: boolean): 0 | 1 | 2 {
  if (report.stopped !== undefined) return 2
  return report.counts.drift > 0 || (strict && report.counts.note > 0) ? 1 : 0
}

const MARKS: Readonly<Record<Kind, string>> = { same: 'same', drift: 'DRIFT', note: 'note', skipped: 'skip' }

/** One line per row, its findings under it, one line each; then the summary. */
export function reportTable(
  report: VerifyReport,
  meta: ReportMeta,
  paint: (style: Kind, text: string) => string,
): string {
  const sandboxOf = (result: CaseResult) => cell(result.sandbox ?? '-', CELL)
  const serverOf = (result: CaseResult) => cell(result.server ?? '-', CELL)
  const width = (pick: (result: CaseResult) => string, title: string) =>
    Math.max(title.length, ...report.results.map((result) => pick(result).length))
  const sandboxWidth = width(sandboxOf, 'sandbox')
  const serverWidth = width(serverOf, 'server')
  const lines = [
    `${'kind'.padEnd(6)} ${'source'.padEnd(10)} ${'sandbox'.padEnd(sandboxWidth)}  ${'server'.padEnd(serverWidth)}  case`,
  ]
  const shared = sharedProblems(report.results)
  for (const result of report.results) {
    const mark = paint(result.kind, MARKS[result.kind].padEnd(6))
    const name = result.reason === undefined ? result.case.name : `${result.case.name} (${result.reason})`
    lines.push(
      `${mark} ${result.case.source.padEnd(10)} ${sandboxOf(result).padEnd(sandboxWidth)}  ${serverOf(result).padEnd(serverWidth)}  ${name}`,
    )
    // The row's own findings; a problem every row shares is said once, under the summary.
    const own = result.findings.filter((finding) => !shared.has(sharedForm(finding)))
    for (const finding of own) {
      const label = finding.source === 'interface' ? 'drift' : `note (${finding.topic ?? 'choice'})`
      lines.push(
        `         ${paint(finding.source === 'interface' ? 'drift' : 'note', label)}: ${cell(finding.message, LINE)}`,
      )
    }
    if (own.length === 0 && result.findings.length > 0) {
      lines.push(`         ${paint('drift', 'drift')}: only the problems every row shares (below)`)
    }
  }
  lines.push('', summaryLine(report, meta))
  for (const problem of shared) lines.push(`  in every row with pets: ${cell(problem, LINE)}`)
  for (const line of storedLines(report)) lines.push(line)
  return lines.join('\n')
}

/**
 * A finding as rows share it: which pet, and the value it held, taken out. `the body is not a
 * list of Pets: body.3.id must be an integer, got "x"` reads `every pet: id must be an integer`.
 */
function sharedForm(finding: Finding): string {
  if (finding.source !== 'interface') return ''
  if (finding.message.startsWith('more problems: ')) return finding.message
  const match = /^the body is not (?:a list of Pets|a Pet): body(?:\.\d+)?\.(.+?)(?:, got .*)?$/.exec(finding.message)
  return match === null ? '' : `every pet: ${match[1] ?? ''}`
}

/**
 * The problems of the pets in every row whose pets have any, when two rows or more do: against a
 * server whose ids are all strings, "id must be an integer" is said once, not under every row.
 */
export function sharedProblems(results: readonly CaseResult[]): Set<string> {
  const rows = results
    .map((result) => new Set(result.findings.map(sharedForm).filter((form) => form !== '')))
    .filter((forms) => forms.size > 0)
  if (rows.length < 2) return new Set()
  const [first, ...rest] = rows
  return new Set([...(first ?? [])].filter((form) => rest.every((forms) => forms.has(form))))
}

/** What the summary says of writes the interface refuses that the server stored. */
function storedLines(report: VerifyReport): string[] {
  const stored = report.stored
  if (stored === undefined) return []
  const records = `${stored.count} record${stored.count === 1 ? '' : 's'}`
  return [
    `The server answered 2xx to ${stored.count} write${stored.count === 1 ? '' : 's'} the interface says it must refuse (${stored.kinds.join(', ')}): it may have stored ${records}. No more writes of ${stored.kinds.length === 1 ? 'that kind were' : 'those kinds were'} sent (${stored.skipped} row${stored.skipped === 1 ? '' : 's'} skipped).`,
  ]
}

/** The longest a table cell and a finding's line may be: a server's code or header can be any length. */
const CELL = 40
const LINE = 300

/**
 * Text a server sent (an error code, a header) as the terminal may show it: no control
 * characters (an escape sequence could rewrite the screen), and cut at `max`.
 */
function cell(text: string, max: number): string {
  const clean = text.replace(/\p{Cc}/gu, ' ')
  return clean.length > max ? `${clean.slice(0, max - 3)}...` : clean
}

/** The one-line summary: counts, and what the exit code means. */
export function summaryLine(report: VerifyReport, meta: ReportMeta): string {
  const { same, drift, note, skipped } = report.counts
  const total = report.results.length
  const verdict =
    drift > 0
      ? `drift: ${drift} case${drift === 1 ? '' : 's'} of the interface differ${drift === 1 ? 's' : ''}`
      : meta.strict && note > 0
        ? `--strict: ${note} choice${note === 1 ? '' : 's'} of the sandbox differ${note === 1 ? 's' : ''}`
        : 'no drift from the interface'
  const reasons = new Map<string, number>()
  for (const result of report.results) {
    if (result.reason !== undefined) reasons.set(result.reason, (reasons.get(result.reason) ?? 0) + 1)
  }
  const skippedNote =
    reasons.size === 0 ? '' : ` (${[...reasons].map(([reason, count]) => `${count}: ${reason}`).join('; ')})`
  return `${meta.server}: ${total} cases, ${same} same, ${drift} drift, ${note} note${note === 1 ? '' : 's'}, ${skipped} skipped${skippedNote}. ${verdict[0]?.toUpperCase() ?? ''}${verdict.slice(1)}.`
}

/** What `verify --json` writes: the run, its counts, and every row with its findings. */
export interface JsonReport {
  readonly tool: 'petstore-sandbox verify'
  readonly version: string
  readonly server: string
  readonly strict: boolean
  readonly writes: boolean
  readonly exitCode: 0 | 1 | 2
  /** Why the run stopped early, when it did. */
  readonly stopped?: string
  /** What the first request suggests is wrong with the command (the key, the base URL). */
  readonly hints: readonly string[]
  readonly counts: Readonly<Record<Kind, number>>
  /** The problems of the pets every row with pets shares, said once (`every pet: id must be an integer`). */
  readonly shared: readonly string[]
  /** Writes the interface says must be refused that the server answered 2xx: records it may have stored. */
  readonly stored?: VerifyReport['stored']
  readonly cases: readonly {
    readonly name: string
    readonly source: CaseSource
    readonly topic?: SilentTopic
    readonly method: string
    /** Under the base URL, as sent. */
    readonly path: string
    readonly kind: Kind
    readonly sandbox?: string
    readonly server?: string
    readonly findings: readonly Finding[]
    readonly reason?: string
  }[]
}

/** The report as JSON, for scripts: every row with its findings. */
export function reportJson(report: VerifyReport, meta: ReportMeta): string {
  const json: JsonReport = {
    tool: 'petstore-sandbox verify',
    version: meta.version,
    server: meta.server,
    strict: meta.strict,
    writes: meta.writes,
    exitCode: exitCodeOf(report, meta.strict),
    ...(report.stopped !== undefined && { stopped: report.stopped }),
    hints: report.hints,
    counts: report.counts,
    shared: [...sharedProblems(report.results)],
    ...(report.stored !== undefined && { stored: report.stored }),
    cases: report.results.map((result) => ({
      name: result.case.name,
      source: result.case.source,
      ...(result.case.topic !== undefined && { topic: result.case.topic }),
      method: result.case.method,
      path: result.path,
      kind: result.kind,
      ...(result.sandbox !== undefined && { sandbox: result.sandbox }),
      ...(result.server !== undefined && { server: result.server }),
      findings: result.findings,
      ...(result.reason !== undefined && { reason: result.reason }),
    })),
  }
  return JSON.stringify(json, null, 2)
}

/** JUnit XML: a suite per source; drift fails, a note fails only with --strict, skipped rows are skipped. */
export function reportJunit(report: VerifyReport, meta: ReportMeta): string {
  const suites = (['interface', 'choice'] as const).map((source) => {
    const results = report.results.filter((result) => result.case.source === source)
    const failed = (result: CaseResult) => result.kind === 'drift' || (meta.strict && result.kind === 'note')
    const cases = results.map((result) => {
      const name = `${result.case.method} ${result.path}: ${result.case.name}`
      const open = `    <testcase classname="verify.${source}" name="${xml(name)}">`
      const text = result.findings
        .map(
          (finding) =>
            `${finding.source === 'interface' ? 'drift' : `note (${finding.topic ?? 'choice'})`}: ${finding.message}`,
        )
        .join('\n')
      const detail = `sandbox: ${result.sandbox ?? '-'}; server: ${result.server ?? '-'}`
      if (result.kind === 'skipped') return `${open}<skipped message="${xml(result.reason ?? '')}"/></testcase>`
      if (failed(result)) {
        return `${open}<failure message="${xml(result.findings[0]?.message ?? '')}">${xml(`${detail}\n${text}`)}</failure></testcase>`
      }
      if (result.kind === 'note') return `${open}<system-out>${xml(`${detail}\n${text}`)}</system-out></testcase>`
      return `${open}</testcase>`
    })
    const failures = results.filter(failed).length
    const skipped = results.filter((result) => result.kind === 'skipped').length
    return [
      `  <testsuite name="${source}" tests="${results.length}" failures="${failures}" errors="0" skipped="${skipped}">`,
      ...cases,
      '  </testsuite>',
    ].join('\n')
  })
  const failures = report.counts.drift + (meta.strict ? report.counts.note : 0)
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(`petstore-sandbox verify ${meta.server}`)}" tests="${report.results.length}" failures="${failures}" errors="0" skipped="${report.counts.skipped}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n')
}

function xml(text: string): string {
  return (
    text
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      // Control characters XML 1.0 cannot hold at all (tab, line feed and carriage return it can).
      .replace(/\p{Cc}/gu, (character) => ('\t\n\r'.includes(character) ? character : ''))
  )
}
