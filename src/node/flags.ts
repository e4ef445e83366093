/**
 * Flag text into option values, for the commands cli.ts declares: numbers, ranges, patterns and
 * lists. Whether a value is good is asked of the options schema (core/options.ts), the one place
 * that says what each option accepts; a problem becomes commander's InvalidArgumentError, which
 * commander prints with the flag's name. Beside them, the two rules commander reads otherwise: a
 * flag's variable is a switch, and extra arguments are refused in the CLI's own words.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { type Command, InvalidArgumentError } from 'commander'
import type { OperationId } from '../core/api/contract.js'
import type { LimitName } from '../core/limits.js'
import { forwardProblem, logChoicesProblem, optionProblem, readLimitSetting, type OptionName } from '../core/options.js'

/** What the serve command's flags become (commander's names: the flag in camel case). */
export interface ServeFlags {
  port: number
  host: string
  apiKey?: string[]
  apiKeyPattern?: RegExp
  fixtures?: string
  watch?: boolean
  generate?: number
  isolate?: boolean
  maxTenants?: number
  maxCreatedPets?: number
  delay?: number | { min: number; max: number }
  failureRate?: number
  randomSeed?: number
  now?: string
  journalLimit?: number
  allowedHost?: string[]
  corsOrigin?: string[]
  shutdownTimeout: number
  limit?: Partial<Record<LimitName, number>>
  trustProxy?: boolean
  quiet?: boolean
  log?: string[]
  stateFile?: string
  stateSave?: string
  upstream?: string
  forward?: OperationId[] | 'all'
  upstreamKey?: string
  record?: boolean
}

/** What an error message calls an option, in the flags' words. */
const WORDS: Readonly<Record<string, string>> = {
  failureRate: 'failure rate',
  now: 'date',
  maxTenants: 'max tenants',
  maxCreatedPets: 'max created pets',
  journalLimit: 'journal limit',
  randomSeed: 'random seed',
  shutdownTimeoutMs: 'shutdown timeout',
}

/**
 * A flag's value turned into its option's type by `parse`, then checked by the options schema
 * (core/options.ts), the one place that says what each option accepts.
 */
export function checked<T>(name: OptionName, parse: (text: string) => T) {
  return (text: string): T => {
    const value = parse(text)
    const problem = optionProblem(name, value, (option) => WORDS[option] ?? option)
    // Text that is no number parses to NaN: commander's own words already quote what was given
    // ("argument 'abc' is invalid."), so the schema's "got NaN" is left out rather than shown.
    refuse(Number.isNaN(value) ? problem?.replace(/, got NaN$/, '') : problem)
    return value
  }
}

/** The schema's problem, as commander reports a flag's bad value. */
function refuse(problem: string | undefined): void {
  if (problem !== undefined) throw new InvalidArgumentError(`${problem}.`)
}

/** A decimal number as written (`-1` and `1.5` too, for the schema to refuse by name); anything else NaN. */
export function decimal(text: string): number {
  return /^[+-]?(?:\d+|\d*\.\d+)$/.test(text) ? Number(text) : Number.NaN
}

/** `200` or `100-500`; anything else NaN, which the delay option refuses. */
export function delay(text: string): number | { min: number; max: number } {
  const match = /^(\d+)(?:-(\d+))?$/.exec(text)
  if (match === null) return Number.NaN
  const min = Number(match[1])
  return match[2] === undefined ? min : { min, max: Number(match[2]) }
}

export function pattern(value: string): RegExp {
  try {
    return new RegExp(value)
  } catch (error) {
    throw new InvalidArgumentError(`not a valid regular expression: ${(error as Error).message}`)
  }
}

/** A repeatable option: each use adds one value; its environment variable, a comma-separated list. */
export function list(value: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  ]
}

/** `--limit name=value`, repeatable; its environment variable a comma-separated list. Ranges are checked by the core. */
export function limit(
  value: string,
  previous: Partial<Record<LimitName, number>> | undefined,
): Partial<Record<LimitName, number>> {
  const result = { ...previous }
  for (const item of list(value, undefined)) {
    const setting = readLimitSetting(item)
    if ('problem' in setting) throw new InvalidArgumentError(`${setting.problem}.`)
    result[setting.name] = setting.value
  }
  return result
}

/**
 * `--forward listPets,getPet`, `all` or `none` (the default the help shows, so it may be written
 * out: `PETSTORE_FORWARD=none` in an env file), repeatable; its variable a comma-separated list.
 */
export function forwardChoices(value: string, previous: OperationId[] | 'all' | undefined): OperationId[] | 'all' {
  const added = list(value, undefined)
  refuse(forwardProblem(added, previous))
  if (added.includes('none')) return []
  if (previous === 'all' || added.includes('all')) return 'all'
  return [...new Set([...(previous ?? []), ...(added as OperationId[])])]
}

/** `--log admin`, `--log json`, repeatable; its variable a comma-separated list. */
export function logChoices(value: string, previous: string[] | undefined): string[] {
  const added = list(value, undefined)
  refuse(logChoicesProblem(added))
  return [...(previous ?? []), ...added]
}

export function origins(value: string, previous: string[] | undefined): string[] {
  const added = list(value, undefined)
  refuse(optionProblem('corsOrigins', added))
  return [...(previous ?? []), ...added.map((origin) => origin.replace(/\/$/, ''))]
}

/** verify's `--timeout`: whole milliseconds, at most ten minutes. */
export function milliseconds(text: string): number {
  const value = Number(text)
  if (!/^[0-9]+$/.test(text) || value < 1 || value > 600_000) {
    throw new InvalidArgumentError('must be a whole number of milliseconds from 1 to 600000.')
  }
  return value
}

/** What a flag's environment variable may say, in any case. */
const SWITCH_WORDS: ReadonlyMap<string, boolean> = new Map([
  ['1', true],
  ['true', true],
  ['yes', true],
  ['on', true],
  ['0', false],
  ['false', false],
  ['no', false],
  ['off', false],
])

/**
 * A flag's variable read as a switch: on, off, undefined when empty (unset, as for every
 * variable), or null when it says neither. A Map, not an object: `constructor` is no switch.
 */
export function switchOf(text: string): boolean | undefined | null {
  const word = text.trim().toLowerCase()
  return word === '' ? undefined : (SWITCH_WORDS.get(word) ?? null)
}

/**
 * Commander turns a flag on when its variable is set at all, so `PETSTORE_ISOLATE=false` would
 * isolate. Each flag that took its value from the environment is read again here: on, off, unset
 * when empty, or an error naming the variable.
 */
export function readFlagsFromEnvironment(command: Command): void {
  for (const option of command.options) {
    const name = option.attributeName()
    if (option.required || option.optional || option.envVar === undefined) continue
    if (command.getOptionValueSource(name) !== 'env') continue
    const value = switchOf(process.env[option.envVar] ?? '')
    if (value === null) {
      command.error(
        `error: ${option.envVar}=${JSON.stringify(process.env[option.envVar])} is not a switch: use 1/0, true/false, yes/no or on/off, or leave it empty`,
      )
    }
    command.setOptionValueWithSource(name, value, 'env')
  }
}

/**
 * Arguments past a command's own are refused as commander refuses them, without the words it
 * adds for a subcommand ("for 'serve'"): no one types serve, the default command, and the
 * message stays the one the CLI gave before its commands were declared.
 */
export function refuseExtraArguments(command: Command): void {
  const expected = command.registeredArguments.length
  if (command.args.length <= expected) return
  command.error(
    `error: too many arguments. Expected ${expected} argument${expected === 1 ? '' : 's'} but got ${command.args.length}.`,
    { code: 'commander.excessArguments' },
  )
}
