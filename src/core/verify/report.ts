/**
 * A verify report in the three forms a user asks for: text for the terminal (verdict first, then
 * the differences by rule), JSON for scripts, JUnit XML for CI dashboards. And its exit code: 0 when no `interface` row differs
 * (with --strict, no row at all), 1 on drift.
 *
 * May import: core/verify, core/admin, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { SILENT_TOPICS, type CaseSource, type SilentTopic } from './cases.js'
import type { Finding } from './judge.js'
import { NOT_SENT, type CaseResult, type Kind, type VerifyReport } from './run.js'

export interface ReportMeta {
  /** The server as the user named it. */
  readonly server: string
  readonly version: string
  readonly strict: boolean
  readonly writes: boolean
  readonly refusedWrites: boolean
  /** Every case in the text report, each difference whole; otherwise at most about 40 lines. */
  readonly verbose?: boolean
}

/** 2 when the server stopped answering; 1 when an `interface` row differs, or with --strict any row; else 0. */
export function exitCodeOf(report: VerifyReport, strict: boolean): 0 | 1 | 2 {
  if (report.stopped !== undefined) return 2
  return report.counts.drift > 0 || (strict && report.counts.note > 0) ? 1 : 0
}

const MARKS: Readonly<Record<Kind, string>> = { same: 'same', drift: 'DRIFT', note: 'note', skipped: 'skip' }

/** About how many lines the text report takes without --verbose: a screen, read cold. */
export const REPORT_LINES = 40

/**
 * The text report, in the order a reader needs it: the verdict, what to do next, what was not
 * sent and why; then one line per difference, grouped by the rule it breaks (the interface
 * document's section, then each item of "Where the interface is silent"), cut to fit about
 * REPORT_LINES lines. With --verbose, every difference, then every case.
 */
export function reportText(
  report: VerifyReport,
  meta: ReportMeta,
  paint: (style: Kind, text: string) => string,
): string {
  const head = [summaryLine(report, meta), ...nextLines(report, meta), ...notSentLines(report), ...storedLines(report)]
  const shared = sharedProblems(report.results)
  // "More problems" counts what the check left unsaid: --verbose and --json keep it; a line here names a problem.
  const sharedShown = [...shared].filter((problem) => !problem.startsWith('more problems: '))
  const sections = differenceSections(report.results, shared)
  const groups = sections.flatMap((section) => section.groups)
  // Fixed lines: the head, a blank line and a heading per section, a line per group, the shared problems.
  const fixed = head.length + sections.length * 2 + groups.length + sharedShown.length
  const cap = meta.verbose === true ? Number.POSITIVE_INFINITY : capFor(groups, REPORT_LINES - fixed)
  const lines = head.map((line, index) => (index === 0 ? paint(verdictStyle(report, meta), line) : line))
  for (const section of sections) {
    lines.push('', paint(section.kind, section.title))
    if (section.kind === 'drift') {
      for (const problem of sharedShown) lines.push(`  in every case with pets: ${cell(problem, LINE)}`)
    }
    for (const group of section.groups) {
      // The rule, how many cases differ on it, and the first of them: every rule shows one case.
      const [first = '', ...rest] = group.lines
      lines.push(`  ${group.rule} (${group.lines.length} case${group.lines.length === 1 ? '' : 's'}): ${first}`)
      const shown = rest.slice(0, cap)
      for (const line of shown) lines.push(`    ${line}`)
      const more = rest.length - shown.length
      if (more > 0 && shown.length > 0) lines.push(`    and ${more} more (--verbose lists them)`)
    }
  }
  if (meta.verbose === true) lines.push('', ...everyCase(report, paint))
  return lines.join('\n')
}

/**
 * How many lines each group may show under its heading (which holds its first case) so that the
 * report fits in `room`: the largest count for which those lines, with an "and N more" line
 * under each group cut short, fit. 0 leaves each group its heading, which counts its cases.
 */
function capFor(groups: readonly { lines: readonly string[] }[], room: number): number {
  const longest = Math.max(0, ...groups.map((group) => group.lines.length - 1))
  const cost = (cap: number) =>
    groups.reduce((sum, { lines }) => {
      const rest = lines.length - 1
      return sum + (rest <= cap ? rest : cap + (cap > 0 ? 1 : 0))
    }, 0)
  let cap = longest
  while (cap > 0 && cost(cap) > room) cap--
  return cap
}

function verdictStyle(report: VerifyReport, meta: ReportMeta): Kind {
  if (report.stopped !== undefined || report.counts.drift > 0 || (meta.strict && report.counts.note > 0)) {
    return 'drift'
  }
  return report.counts.note > 0 ? 'note' : 'same'
}

/**
 * What the reader does next, after the verdict. The first cause found is the one to act on: a
 * server that stopped answering, then drift, then notes. (A key refused on the first read stops
 * the run before any row: run.ts's KeyRefused.)
 */
function nextLines(report: VerifyReport, meta: ReportMeta): string[] {
  const { drift, note } = report.counts
  const more =
    meta.verbose === true ? '--json keeps every finding.' : '--verbose lists every case, --json every finding.'
  if (report.stopped !== undefined) {
    return [`Next: ${report.stopped}; the rows after it were not compared. Run verify again once the server answers.`]
  }
  if (drift > 0) {
    return [
      `Next: the server breaks the rules of the interface document named below, so tests that pass against the sandbox may fail against it there. Fix the server, or take each up with its owners. ${more}`,
    ]
  }
  if (note > 0) {
    return [
      `Next: ${meta.strict ? 'with --strict, notes fail' : 'nothing fails'}. Each note is a point the interface leaves open where the server chose otherwise than the sandbox: a test that relies on the sandbox's choice there may fail against it. ${more}`,
    ]
  }
  return ['Next: nothing. In every case sent, the server keeps the rules the sandbox keeps.']
}

/** The rows a flag would send, and the flag; then any other reason a row was skipped. */
function notSentLines(report: VerifyReport): string[] {
  const reasons = new Map<string, number>()
  for (const result of report.results) {
    if (result.reason !== undefined) reasons.set(result.reason, (reasons.get(result.reason) ?? 0) + 1)
  }
  const parts: string[] = []
  const refused = reasons.get(NOT_SENT.refusedWrite) ?? 0
  const writes = reasons.get(NOT_SENT.write) ?? 0
  if (refused > 0) {
    parts.push(
      `${refused} write${refused === 1 ? '' : 's'} the interface says must be refused (a create without a key, a bad body), which a lenient server may store: --refused-writes sends them`,
    )
  }
  if (writes > 0)
    parts.push(`${writes} write${writes === 1 ? '' : 's'} that create data: --writes sends them, for staging only`)
  for (const [reason, count] of reasons) {
    if (reason !== NOT_SENT.refusedWrite && reason !== NOT_SENT.write) {
      parts.push(`${count} case${count === 1 ? '' : 's'} because ${reason}`)
    }
  }
  return parts.length === 0 ? [] : [`Not sent: ${parts.join('; ')}.`]
}

interface Group {
  readonly rule: string
  readonly lines: string[]
}

interface Section {
  readonly kind: 'drift' | 'note'
  readonly title: string
  readonly groups: readonly Group[]
}

/** The sections of the interface document a difference can break, by their titles, in the document's order. */
const INTERFACE_RULES = ['Authentication', 'GET /pets', 'POST /pets', 'GET /pets/{petId}', 'Errors'] as const

/** The interface's section a row's drift falls under: its 401, else its operation's, else the Error's shape. */
function interfaceRuleOf(result: CaseResult): (typeof INTERFACE_RULES)[number] {
  const row = result.case
  if (row.source === 'interface' && row.status === 401) return 'Authentication'
  if (row.operation === 'listPets') return 'GET /pets'
  if (row.operation === 'createPet') return 'POST /pets'
  if (row.operation === 'getPet') return 'GET /pets/{petId}'
  return 'Errors'
}

/**
 * One line per case and rule it differs on: the case, then its first difference under that rule.
 * A `choice` case whose answer also breaks the document (not JSON, no Error body) has a drift line
 * under the document's section and a note under its item. Problems every case with pets shares
 * are left out here: the drift section says them once.
 */
function differenceSections(results: readonly CaseResult[], shared: ReadonlySet<string>): Section[] {
  const drift = new Map<string, string[]>(INTERFACE_RULES.map((rule) => [rule, []]))
  const notes = new Map<string, string[]>(SILENT_TOPICS.map((topic) => [topic, []]))
  for (const result of results) {
    // "More problems" counts what the check left unsaid: --verbose and --json keep it; a line here names a problem.
    const own = result.findings.filter(
      (finding) => !shared.has(sharedForm(finding)) && !finding.message.startsWith('more problems: '),
    )
    const byRule = new Map<string[], Finding[]>()
    for (const finding of own) {
      const group =
        finding.source === 'interface'
          ? drift.get(interfaceRuleOf(result))
          : notes.get(finding.topic ?? result.case.topic ?? '')
      if (group === undefined) continue
      byRule.set(group, [...(byRule.get(group) ?? []), finding])
    }
    for (const [group, findings] of byRule) group.push(differenceLine(result, findings))
  }
  const groupsOf = (map: Map<string, string[]>) =>
    [...map].filter(([, lines]) => lines.length > 0).map(([rule, lines]) => ({ rule, lines }))
  const sections: Section[] = []
  const driftGroups = groupsOf(drift)
  if (driftGroups.length > 0 || shared.size > 0) {
    sections.push({
      kind: 'drift',
      title: 'Drift: rules of the interface document the server breaks',
      groups: driftGroups,
    })
  }
  const noteGroups = groupsOf(notes)
  if (noteGroups.length > 0) {
    sections.push({
      kind: 'note',
      title: 'Notes: where the interface is silent, the server chose otherwise than the sandbox',
      groups: noteGroups,
    })
  }
  return sections
}

/** A case and its first difference under one rule: `GET /pets?limit=101 is refused: status 200, where ...`. */
function differenceLine(result: CaseResult, findings: readonly Finding[]): string {
  const [first] = findings
  const more = findings.length > 1 ? ` (+${findings.length - 1} more)` : ''
  return `${result.case.name}: ${cell(first?.message ?? '', LINE)}${more}`
}

/** --verbose: every case, what each side answered, and every difference under it, each labelled by its own rule. */
function everyCase(report: VerifyReport, paint: (style: Kind, text: string) => string): string[] {
  const sandboxOf = (result: CaseResult) => cell(result.sandbox ?? '-', CELL)
  const serverOf = (result: CaseResult) => cell(result.server ?? '-', CELL)
  const width = (pick: (result: CaseResult) => string, title: string) =>
    Math.max(title.length, ...report.results.map((result) => pick(result).length))
  const sandboxWidth = width(sandboxOf, 'sandbox')
  const serverWidth = width(serverOf, 'server')
  const lines = [
    'Every case:',
    `${'kind'.padEnd(6)} ${'source'.padEnd(10)} ${'sandbox'.padEnd(sandboxWidth)}  ${'server'.padEnd(serverWidth)}  case`,
  ]
  for (const result of report.results) {
    const mark = paint(result.kind, MARKS[result.kind].padEnd(6))
    const name =
      result.reason !== undefined
        ? `${result.case.name} (${result.reason})`
        : result.kind === 'same' && result.sandbox !== result.server
          ? `${result.case.name} (the rule held; the data differ: each side has pets of its own)`
          : result.case.name
    lines.push(
      `${mark} ${result.case.source.padEnd(10)} ${sandboxOf(result).padEnd(sandboxWidth)}  ${serverOf(result).padEnd(serverWidth)}  ${name}`,
    )
    for (const finding of result.findings) {
      const drift = finding.source === 'interface'
      const label = drift ? 'drift (the interface)' : `note (${finding.topic ?? 'choice'})`
      lines.push(`         ${paint(drift ? 'drift' : 'note', label)}: ${cell(finding.message, LINE)}`)
    }
  }
  return lines
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
    `Stored: the server answered 2xx to ${stored.count} write${stored.count === 1 ? '' : 's'} the interface says it must refuse (${stored.kinds.join(', ')}): it may have stored ${records}. No more writes of ${stored.kinds.length === 1 ? 'that kind were' : 'those kinds were'} sent (${stored.skipped} row${stored.skipped === 1 ? '' : 's'} skipped).`,
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

/**
 * The verdict, first line of the text report (and stderr's one line with --json): what it means,
 * where, the counts, and the exit code. `Drift: 3 cases break a rule of the interface at
 * https://staging.example.com/v1 (102 cases: 71 same, 3 drift, 0 notes, 28 skipped; exit 1).`
 */
export function summaryLine(report: VerifyReport, meta: ReportMeta): string {
  const { same, drift, note, skipped } = report.counts
  const cases = (count: number) => `${count} case${count === 1 ? '' : 's'}`
  const verdict =
    report.stopped !== undefined
      ? 'Stopped: the server stopped answering, and the cases after that were not compared,'
      : drift > 0
        ? `Drift: ${cases(drift)} break${drift === 1 ? 's' : ''} a rule of the interface`
        : meta.strict && note > 0
          ? `Drift (--strict): ${cases(note)} differ${note === 1 ? 's' : ''} where the sandbox chose,`
          : 'No drift: no case breaks a rule of the interface'
  return `${verdict} at ${meta.server} (${cases(report.results.length)}: ${same} same, ${drift} drift, ${note} note${note === 1 ? '' : 's'}, ${skipped} skipped; exit ${exitCodeOf(report, meta.strict)}).`
}

/** What `verify --json` writes: the run, its counts, and every row with its findings. */
export interface JsonReport {
  readonly tool: 'petstore-sandbox verify'
  readonly version: string
  readonly server: string
  readonly strict: boolean
  readonly writes: boolean
  /** The writes the interface says must be refused were sent (--refused-writes, or --writes). */
  readonly refusedWrites: boolean
  readonly exitCode: 0 | 1 | 2
  /** Why the run stopped early, when it did. */
  readonly stopped?: string
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
    refusedWrites: meta.refusedWrites || meta.writes,
    exitCode: exitCodeOf(report, meta.strict),
    ...(report.stopped !== undefined && { stopped: report.stopped }),
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
