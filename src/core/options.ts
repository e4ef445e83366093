/**
 * THE options schema: what `createSandbox`, `createSandboxCore`, `startServer` and the CLI accept,
 * checked here once. The CLI only turns flags into values (text into numbers, ranges, patterns)
 * and asks this file whether each value is good, so a flag and its option can never disagree.
 * Every problem is named at once, in one TypeError. The rules no schema field holds are here
 * too, each answering a problem in words or undefined: the state file's, the flags that need
 * another, and the lists `--limit`, `--forward` and `--log` take.
 *
 * The rules that have a home of their own are asked there: the limits table checks `limits`
 * (limits.ts), the seed checks `fixtures` (api/seed.ts), the base URL checks itself (base-url.ts).
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import * as z from 'zod'
import { TOKEN_PATTERN } from './api/auth.js'
import { MAX_DELAY_MS } from './state/shapes.js'
import { isIsoDate } from './state/clock.js'
import { OPERATIONS } from './api/contract.js'
import { isLimitName, LIMIT_NAMES, LIMITS, parseLimitValue, type LimitName } from './limits.js'

/** What a message calls an option: its name in code, or (the CLI) its flag in words. */
type Label = (name: string) => string

/** A whole number in a range. */
const integer = (label: string, min: number, max: number) =>
  z.custom<number>((value) => Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max, {
    error: (issue) => `${label} must be an integer from ${min} to ${max}, got ${String(issue.input)}`,
  })

/** A whole number within a row of the limits table. */
const budget = (label: string, name: LimitName) => integer(label, LIMITS[name].min, LIMITS[name].max)

const isDelay = (value: unknown): boolean => {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 && value <= MAX_DELAY_MS
  if (typeof value !== 'object' || value === null) return false
  const { min, max } = value as { min?: unknown; max?: unknown }
  return isDelay(min) && isDelay(max) && (min as number) <= (max as number)
}

/** A Date that is one, or ISO 8601 whose day exists (state/clock.ts: the one rule for dates). */
const isNow = (value: unknown): boolean =>
  value instanceof Date ? !Number.isNaN(value.getTime()) : typeof value === 'string' && isIsoDate(value, false)

/** `*`, or an origin as a browser sends it in Origin (a trailing slash is forgiven). */
const isCorsOrigin = (value: string): boolean =>
  value === '*' || (URL.canParse(value) && new URL(value).origin === value.replace(/\/$/, ''))

/**
 * What is wrong with an upstream URL, or undefined. The URL may hold credentials, so no message
 * quotes it: at most its scheme.
 */
function upstreamProblem(value: unknown, label: string): string | undefined {
  const example = "give the API's base URL, e.g. https://staging.example.com/v1"
  if (typeof value !== 'string' || !URL.canParse(value)) return `${label} is not an absolute URL: ${example}`
  const url = new URL(value)
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `${label} must be an http:// or https:// URL, got ${url.protocol}//...: ${example}`
  }
  if (value.includes('#')) return `${label} must not have a #fragment, which is never sent: ${example}`
  return undefined
}

const sandboxFields = (label: Label) => ({
  apiKeys: z
    .array(
      z.string().regex(TOKEN_PATTERN, {
        error: (issue) =>
          `API key ${JSON.stringify(issue.input)} is not a valid bearer token. Use letters, digits and - . _ ~ + / only`,
      }),
    )
    .min(1, { error: 'apiKeys is empty. Pass at least one key, or leave it out to use the default' }),
  baseUrl: z.string({ error: 'baseUrl must be a URL or a path, e.g. /v1' }),
  fixtures: z.array(z.unknown(), { error: 'fixtures must be an array of pets' }),
  generate: integer(label('generate'), 0, 2_000_000),
  maxBodyBytes: z.custom<number>(
    (value) => Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= LIMITS.bodyBytes.max,
    {
      error: (issue) =>
        `maxBodyBytes must be a positive integer up to ${LIMITS.bodyBytes.max}, got ${String(issue.input)}`,
    },
  ),
  limits: z.record(z.string(), z.number({ error: 'limits must map limit names to numbers' })),
  journalLimit: budget(label('journalLimit'), 'journalEntries'),
  delay: z.custom<number | { min: number; max: number }>(isDelay, {
    error: `${label('delay')} must be milliseconds (e.g. 200) or a range (e.g. 100-500), at most ${MAX_DELAY_MS}`,
  }),
  failureRate: z.custom<number>((value) => typeof value === 'number' && value >= 0 && value <= 1, {
    error: (issue) => `${label('failureRate')} must be a number from 0 to 1, got ${String(issue.input)}`,
  }),
  randomSeed: integer(label('randomSeed'), 0, 2 ** 31 - 1),
  isolate: z.boolean({ error: 'isolate must be true or false' }),
  apiKeyPattern: z.instanceof(RegExp, { error: 'apiKeyPattern must be a RegExp' }),
  maxTenants: budget(label('maxTenants'), 'tenants'),
  maxCreatedPets: budget(label('maxCreatedPets'), 'createdPetsPerTenant'),
  now: z.custom<Date | string>(isNow, {
    error: (issue) =>
      `${label('now')} must be ISO 8601, e.g. 2031-01-01T00:00:00Z, got ${JSON.stringify(String(issue.input))}`,
  }),
  version: z.string(),
  persist: z.custom<boolean | { key?: string }>(isPersist, {
    error: 'persist must be true, false or { key: "my-demo" } with a non-empty key',
  }),
})

/** `true`, `false`, or `{ key }` with a non-empty key (or none: the default key). */
function isPersist(value: unknown): boolean {
  if (typeof value === 'boolean') return true
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const { key, ...rest } = value as { key?: unknown }
  return Object.keys(rest).length === 0 && (key === undefined || (typeof key === 'string' && key !== ''))
}

const serverFields = (label: Label) => ({
  ...sandboxFields(label),
  // The server serves the API under /v1 and reports the package's version.
  baseUrl: z.undefined({ error: 'baseUrl is not a startServer option: the server serves the API under /v1' }),
  version: z.undefined({ error: "version is not a startServer option: the server reports the package's" }),
  persist: z.undefined({
    error:
      "persist is not a startServer option: it keeps a browser's sandbox in IndexedDB; the server keeps its data with stateFile (--state-file FILE)",
  }),
  // Checked on its own, before the server makes anything (stateFileProblem): named here so it is known.
  stateFile: z.unknown(),
  stateSave: z.enum(['always', 'interval'], {
    error:
      'stateSave must be "always" (every change on disk before its answer) or "interval" (at most once per stateSaveIntervalMs)',
  }),
  port: integer(label('port'), 0, 65535),
  host: z.string().min(1, { error: 'host must be an interface address, e.g. 127.0.0.1' }),
  allowedHosts: z.union([z.literal('all'), z.array(z.string())], {
    error: 'allowedHosts must be a list of host names, or "all"',
  }),
  corsOrigins: z.array(
    z.string().refine(isCorsOrigin, {
      error: (issue) =>
        `${String(issue.input)} is not an origin: use scheme://host[:port], e.g. https://app.example.com, or *`,
    }),
  ),
  shutdownTimeoutMs: budget(label('shutdownTimeoutMs'), 'shutdownTimeoutMs'),
  trustProxy: z.boolean({ error: 'trustProxy must be true or false' }),
  log: z.custom<(line: string) => void>((value) => typeof value === 'function', { error: 'log must be a function' }),
  logPolling: z.boolean({ error: 'logPolling must be true or false' }),
  logFormat: z.enum(['text', 'json'], { error: 'logFormat must be "text" or "json"' }),
  logColors: z.boolean({ error: 'logColors must be true or false' }),
  upstream: z.custom<string>((value) => upstreamProblem(value, label('upstream')) === undefined, {
    error: (issue) => upstreamProblem(issue.input, label('upstream')) ?? '',
  }),
  forward: z.union([z.literal('all'), z.array(z.enum(OPERATIONS))], {
    error: `${label('forward')} must be "all" or a list of operations: ${OPERATIONS.join(', ')}`,
  }),
  record: z.boolean({ error: `${label('record')} must be true or false` }),
  // A secret: never quoted back.
  upstreamKey: z.string().regex(TOKEN_PATTERN, {
    error: `${label('upstreamKey')} is not a valid bearer token. Use letters, digits and - . _ ~ + / only`,
  }),
})

/** Options that only make sense together. */
function together(options: Readonly<Record<string, unknown>>, context: z.RefinementCtx): void {
  if (options.apiKeyPattern !== undefined && options.isolate !== true) {
    context.addIssue({
      code: 'custom',
      path: ['apiKeyPattern'],
      message:
        'apiKeyPattern needs isolate: a pattern admits keys that each get their own data (--api-key-pattern needs --isolate)',
    })
  }
  for (const [name, flag] of [
    ['forward', '--forward'],
    ['upstreamKey', '--upstream-key'],
    ['record', '--record'],
  ] as const) {
    if (options[name] !== undefined && options[name] !== false && options.upstream === undefined) {
      context.addIssue({
        code: 'custom',
        path: [name],
        message: `${name} needs upstream: there is nothing to forward to (${flag} needs --upstream <api-url>)`,
      })
    }
  }
  if (options.persist !== undefined && options.persist !== false && options.isolate === true) {
    context.addIssue({
      code: 'custom',
      path: ['persist'],
      message: 'persist keeps one set of data, and isolate gives each key its own: use one or the other',
    })
  }
  if (options.generate !== undefined && options.fixtures !== undefined) {
    context.addIssue({
      code: 'custom',
      path: ['generate'],
      message: 'use fixtures or generate, not both (--fixtures or --generate)',
    })
  }
}

const byName: Label = (name) => name

/**
 * A schema built the first time it is asked for, then kept as it is: building the options'
 * schemas took a few of the milliseconds a test file waits for its first answer, and a sandbox
 * made with no options needs none of them.
 */
function built<T>(make: () => T): () => T {
  let made: T | undefined
  return () => (made ??= make())
}

// Strict: an option with a name no schema knows (a typo, an option of another function or of a
// later version) is refused by name, never skipped in silence.
const sandboxOptionsSchema = built(() => z.strictObject(sandboxFields(byName)).partial().superRefine(together))
const serverOptionsSchema = built(() => z.strictObject(serverFields(byName)).partial().superRefine(together))

export type OptionName = keyof ReturnType<typeof serverFields>

/** The options a function takes, as a refusal of unknown ones lists them: those a user sets. */
const known = (fields: object): string =>
  Object.entries(fields)
    .filter(([, field]) => !(field instanceof z.ZodUndefined))
    .map(([name]) => name)
    .join(', ')

/** Thrown for options the sandbox cannot start with; the message names every problem. */
function check(
  schema: () => z.ZodType,
  options: unknown,
  what: string,
  taker: { readonly name: string; readonly takes: () => string },
): void {
  // undefined means "the default" everywhere: `{ port: undefined }` is `{}`.
  const given = Object.fromEntries(Object.entries(options ?? {}).filter(([, value]) => value !== undefined))
  // No option given: every default holds, with nothing to check.
  if (Object.keys(given).length === 0) return
  const result = schema().safeParse(given)
  if (result.success) return
  const problems = result.error.issues.map((issue) =>
    issue.code === 'unrecognized_keys'
      ? `unknown option${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')} (${taker.name} takes ${taker.takes()})`
      : issue.message,
  )
  throw new TypeError(`Failed to ${what}: ${problems.join('; ')}`)
}

/** Checks createSandbox's and createSandboxCore's options. */
export function checkSandboxOptions(options: unknown): void {
  check(sandboxOptionsSchema, options, 'create the sandbox', {
    name: 'createSandbox',
    takes: () => known(sandboxFields(byName)),
  })
}

/** Checks startServer's options: the sandbox's and the server's own. */
export function checkServerOptions(options: unknown): void {
  check(serverOptionsSchema, options, 'start the server', {
    name: 'startServer',
    takes: () => known(serverFields(byName)),
  })
}

/**
 * The problem with one option's value, or undefined when it is good: what a CLI flag asks, with
 * its own words for the option (`failure rate` for `failureRate`).
 */
export function optionProblem(name: OptionName, value: unknown, label: Label = byName): string | undefined {
  const result = serverFields(label)[name].safeParse(value)
  return result.success ? undefined : result.error.issues.map((issue) => issue.message).join('; ')
}

/**
 * The state file's rules, asked by startServer before it makes anything. Their messages stand
 * alone, without "Failed to start the server": the CLI prints them as they are.
 */
export function stateFileProblem(options: {
  readonly stateFile?: unknown
  readonly stateSave?: unknown
  readonly isolate?: unknown
}): string | undefined {
  if (options.stateFile === undefined) {
    return options.stateSave === undefined
      ? undefined
      : '--state-save says when --state-file is written: give a --state-file too'
  }
  if (options.isolate === true) {
    return '--state-file keeps one set of data, and --isolate gives each key its own: use one or the other'
  }
  if (typeof options.stateFile !== 'string' || options.stateFile.trim() === '') return '--state-file needs a file name'
  return undefined
}

/** The CLI's flags as this file's checks read them. */
export interface Flags {
  readonly watch?: boolean | undefined
  readonly fixtures?: string | undefined
  readonly upstream?: string | undefined
  readonly forward?: readonly string[] | 'all' | undefined
  readonly upstreamKey?: string | undefined
  readonly record?: boolean | undefined
}

/** A CLI flag given without the flag it needs, in the flags' words; checked before anything is read. */
export function flagsProblem(flags: Flags): string | undefined {
  if (flags.watch === true && flags.fixtures === undefined) return '--watch needs --fixtures <file>'
  if (flags.upstream !== undefined) return undefined
  // `--forward none` forwards nothing, which needs no upstream: it is what the sandbox does without one.
  if (flags.forward === 'all' || (flags.forward?.length ?? 0) > 0) return '--forward needs --upstream <api-url>'
  if (flags.upstreamKey !== undefined) return '--upstream-key needs --upstream <api-url>'
  if (flags.record === true) return '--record needs --upstream <api-url>'
  return undefined
}

/** The budgets `--limit` can set: the table's rows whose range is more than one value. */
export const SETTABLE_LIMITS: readonly LimitName[] = LIMIT_NAMES.filter((name) => LIMITS[name].min !== LIMITS[name].max)

/**
 * One `--limit name=value`: the budget and its value (its unit read by limits.ts), or the
 * problem. Its range is checked with the other limits, when the sandbox is made.
 */
export function readLimitSetting(item: string): { name: LimitName; value: number } | { problem: string } {
  const [name = '', text = ''] = item.split('=', 2).map((part) => part.trim())
  if (!isLimitName(name)) {
    return { problem: `${name} is not a limit; the limits you can set are ${SETTABLE_LIMITS.join(', ')}` }
  }
  const value = parseLimitValue(name, text)
  if (value !== undefined) return { name, value }
  const { unit } = LIMITS[name]
  const units = unit === 'bytes' ? ' (or with KiB, MiB, GiB)' : unit === 'ms' ? ' (or with ms, s)' : ''
  return { problem: `${name} must be name=value with a whole number${units}, got ${JSON.stringify(item)}` }
}

/**
 * What is wrong with the operations one `--forward` adds to those given before it: a name that
 * is no operation, or `none` beside an operation, where one of the two is a mistake.
 */
export function forwardProblem(
  added: readonly string[],
  previous: readonly string[] | 'all' | undefined,
): string | undefined {
  const unknown = added.filter(
    (name) => name !== 'all' && name !== 'none' && !(OPERATIONS as readonly string[]).includes(name),
  )
  if (unknown.length > 0) {
    return `${unknown.join(', ')} ${unknown.length === 1 ? 'is not an operation' : 'are not operations'}: use ${OPERATIONS.join(', ')}, all or none`
  }
  const some = added.some((name) => name !== 'none')
  const none = added.includes('none')
  // Operations, then `none`; or `none` (an empty list), then operations: which one was meant?
  const given = previous === 'all' || (previous?.length ?? 0) > 0
  if ((none && (some || given)) || (some && previous?.length === 0)) {
    return 'none forwards nothing: give it alone, or name the operations without it'
  }
  return undefined
}

/** What is wrong with the choices one `--log` gives: the first that is neither admin nor json. */
export function logChoicesProblem(choices: readonly string[]): string | undefined {
  const wrong = choices.find((choice) => choice !== 'admin' && choice !== 'json')
  return wrong === undefined ? undefined : `${wrong} is not a log choice: use admin or json`
}
