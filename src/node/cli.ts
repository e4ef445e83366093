/**
 * The command line: parse options, read the fixtures file, start the server, print
 * the banner, and close cleanly on Ctrl-C or SIGTERM. All real work is in startServer().
 *
 * May import: node:*, commander, and the Node adapter. Never msw.
 */
import { Command, InvalidArgumentError, Option } from 'commander'
import { OPERATIONS, type OperationId } from '../core/admin/contract.js'
import { DEFAULT_API_KEY } from '../core/api/auth.js'
import { ADMIN_PATH } from '../core/http/mounts.js'
import { isLimitName, LIMIT_NAMES, LIMITS, parseLimitValue, type LimitName } from '../core/limits.js'
import { optionProblem, type OptionName } from '../core/options.js'
import type { Pet } from '../core/api/contract.js'
import { FixturesFileError, readFixturesFile, watchFixturesFile } from './fixtures-file.js'
import { DEFAULT_HOST, DEFAULT_PORT, DEFAULT_SHUTDOWN_TIMEOUT_MS, startServer, type RunningServer } from './server.js'
import { packageVersion } from './package-files.js'
import { isLoopbackHost } from '../core/http/local.js'
import { reachableUrls } from './exposure.js'
import { paintFor, plain, type Paint } from './terminal.js'
import { runVerify } from './verify.js'

interface CliOptions {
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
  upstream?: string
  forward?: OperationId[] | 'all'
  upstreamKey?: string
}

/**
 * One option and the environment variable that sets it too. Repeatable options read the variable
 * as a comma-separated list; flags read it as a switch (readFlagsFromEnvironment). `shown` is the
 * default the help gives for an option whose default is decided later (the core's, or a file's).
 */
function option(flags: string, description: string, env: string, shown?: string | number): Option {
  const made = new Option(flags, description).env(env)
  if (shown !== undefined) made.defaultValueDescription = String(shown)
  return made
}

/** Every option's help ends the same way: `(default: 3210, env: PORT)`. */
function describeOption(made: Option): string {
  const shown =
    made.defaultValueDescription ?? (made.defaultValue === undefined ? undefined : String(made.defaultValue))
  const extra = [shown !== undefined && `default: ${shown}`, made.envVar !== undefined && `env: ${made.envVar}`]
  const text = extra.filter(Boolean).join(', ')
  return text === '' ? made.description : `${made.description} (${text})`
}

/** Runs the CLI with process.argv-style arguments. Resolves once the server is listening. */
export async function run(argv: readonly string[]): Promise<RunningServer> {
  // A subcommand of its own options; everything else starts the server.
  if (argv[2] === 'verify') return runVerify(argv.slice(3))
  const program = new Command()
    .name('petstore-sandbox')
    .description('A stateful, in-memory Pet Store API sandbox.')
    .version(packageVersion(), '-v, --version')
    .addOption(
      option('-p, --port <number>', 'port to listen on, 0 for a free one', 'PORT')
        .default(DEFAULT_PORT)
        .argParser(checked('port', decimal)),
    )
    .addOption(
      option(
        '--host <address>',
        'interface to bind; 0.0.0.0 or another non-loopback address opens the sandbox to that network',
        'PETSTORE_HOST',
      ).default(DEFAULT_HOST),
    )
    .addOption(
      option(
        '-k, --api-key <key>',
        'accepted API key, repeatable; from other machines the admin routes want one too',
        'PETSTORE_API_KEYS',
        DEFAULT_API_KEY,
      ).argParser(list),
    )
    .addOption(option('-f, --fixtures <file>', 'JSON file with the seed pets', 'PETSTORE_FIXTURES', 'the bundled seed'))
    .addOption(option('-w, --watch', 'reload the fixtures file when it changes', 'PETSTORE_WATCH'))
    .addOption(
      option('-g, --generate <count>', 'seed this many generated pets instead', 'PETSTORE_GENERATE').argParser(
        checked('generate', decimal),
      ),
    )
    .addOption(
      option(
        '--isolate',
        'give each API key its own copy of the data; any well-formed key is accepted',
        'PETSTORE_ISOLATE',
      ),
    )
    .addOption(
      option(
        '--api-key-pattern <regex>',
        'with --isolate, accept only keys matching this pattern',
        'PETSTORE_API_KEY_PATTERN',
      ).argParser(checked('apiKeyPattern', pattern)),
    )
    .addOption(
      option(
        '--max-tenants <count>',
        'with --isolate, keys whose data is kept; the least recently used goes past it',
        'PETSTORE_MAX_TENANTS',
        LIMITS.tenants.value,
      ).argParser(checked('maxTenants', decimal)),
    )
    .addOption(
      option(
        '--max-created-pets <count>',
        'pets one key may create between two resets; then 507',
        'PETSTORE_MAX_CREATED_PETS',
        LIMITS.createdPetsPerTenant.value,
      ).argParser(checked('maxCreatedPets', decimal)),
    )
    .addOption(
      option(
        '--delay <ms|min-max>',
        'delay every API response by ms, or a random ms in min-max',
        'PETSTORE_DELAY',
      ).argParser(checked('delay', delay)),
    )
    .addOption(
      option(
        '--failure-rate <0..1>',
        'answer this share of calls with a random 500 or 503',
        'PETSTORE_FAILURE_RATE',
      ).argParser(checked('failureRate', decimal)),
    )
    .addOption(
      option(
        '--random-seed <number>',
        'seed for --delay ranges, --failure-rate and --generate',
        'PETSTORE_RANDOM_SEED',
      ).argParser(checked('randomSeed', decimal)),
    )
    .addOption(
      option(
        '--now <date>',
        "the sandbox's clock starts here (ISO 8601), e.g. after getPet's sunset",
        'PETSTORE_NOW',
      ).argParser(checked('now', String)),
    )
    .addOption(
      option(
        '--journal-limit <count>',
        'requests kept in the journal',
        'PETSTORE_JOURNAL_LIMIT',
        LIMITS.journalEntries.value,
      ).argParser(checked('journalLimit', decimal)),
    )
    .addOption(
      option(
        '--allowed-host <name>',
        'answer this Host name too, besides local names and IP addresses; repeatable; .example.com allows subdomains; all turns the check off',
        'PETSTORE_ALLOWED_HOSTS',
      ).argParser(list),
    )
    .addOption(
      option(
        '--cors-origin <origin>',
        'let pages from this origin call the API, besides local ones; repeatable; * for any',
        'PETSTORE_CORS_ORIGINS',
      ).argParser(origins),
    )
    .addOption(
      option(
        '--shutdown-timeout <ms>',
        'on Ctrl-C or SIGTERM, how long requests in flight may finish',
        'PETSTORE_SHUTDOWN_TIMEOUT',
      )
        .default(DEFAULT_SHUTDOWN_TIMEOUT_MS)
        .argParser(checked('shutdownTimeoutMs', decimal)),
    )
    .addOption(
      option(
        '--limit <name=value>',
        `set a budget of the limits table, repeatable: ${SETTABLE_LIMITS.join(', ')}; values may end in KiB, MiB, GiB, ms or s`,
        'PETSTORE_LIMITS',
      ).argParser(limit),
    )
    .addOption(
      option(
        '--trust-proxy',
        'behind a proxy that terminates TLS: believe its Forwarded / X-Forwarded-Proto / X-Forwarded-Host headers',
        'PETSTORE_TRUST_PROXY',
      ),
    )
    .addOption(
      option(
        '--log <what>',
        "what the access log adds, repeatable: admin (the admin routes' and pages' reads a dashboard polls), json (one JSON object per line)",
        'PETSTORE_LOG',
      ).argParser(logChoices),
    )
    .addOption(
      option(
        '--upstream <api-url>',
        'stand in for this API (e.g. https://staging.example.com/v1): the operations given with --forward go there, the sandbox answers the rest, and each forwarded answer is checked against the interface',
        'PETSTORE_UPSTREAM',
      ),
    )
    .addOption(
      option(
        '--forward <operations>',
        `with --upstream, the operations sent there: ${OPERATIONS.join(', ')} (comma-separated, repeatable), all, or none; PUT /__sandbox/forwarding switches them at run time`,
        'PETSTORE_FORWARD',
        'none',
      ).argParser(forwardChoices),
    )
    .addOption(
      option(
        '--upstream-key <key>',
        "with --upstream, sent there as Authorization: Bearer <key> in place of the client's credential (the client then needs a sandbox key)",
        'PETSTORE_UPSTREAM_KEY',
      ),
    )
    .addOption(
      option(
        '--state-file <file>',
        'keep the data and its checkpoints in this file across restarts: loaded at start (made from the seed when missing), saved after changes at most once a second, and at exit; not with --isolate',
        'PETSTORE_STATE_FILE',
      ),
    )
    .addOption(option('-q, --quiet', 'do not log each request', 'PETSTORE_QUIET'))
    .configureHelp({ optionDescription: describeOption })
    .addHelpText(
      'after',
      "\nCommands:\n  verify <api-url>  check a live server against the sandbox's behaviour table (petstore-sandbox verify --help)",
    )
    .showHelpAfterError('(run petstore-sandbox --help for usage)')
    .parse(argv)
  readFlagsFromEnvironment(program)

  const options = program.opts<CliOptions>()
  if (options.watch === true && options.fixtures === undefined) program.error('error: --watch needs --fixtures <file>')
  // Nothing forwarded (`none`) needs no upstream: it is what the sandbox does without one.
  const forward = options.forward === 'all' || (options.forward?.length ?? 0) > 0 ? options.forward : undefined
  if (options.upstream === undefined) {
    if (forward !== undefined) program.error('error: --forward needs --upstream <api-url>')
    if (options.upstreamKey !== undefined) program.error('error: --upstream-key needs --upstream <api-url>')
  }
  const fixtures = options.fixtures === undefined ? undefined : await loadFixtures(options.fixtures)
  const log = (line: string) => {
    console.log(line)
  }
  const paint = paintFor(process.stdout)

  let server: RunningServer
  try {
    server = await startServer({
      port: options.port,
      host: options.host,
      ...(options.apiKey && { apiKeys: options.apiKey }),
      ...(fixtures && { fixtures }),
      ...(options.generate !== undefined && { generate: options.generate }),
      ...(options.isolate === true && { isolate: true }),
      ...(options.apiKeyPattern && { apiKeyPattern: options.apiKeyPattern }),
      ...(options.delay !== undefined && { delay: options.delay }),
      ...(options.failureRate !== undefined && { failureRate: options.failureRate }),
      ...(options.randomSeed !== undefined && { randomSeed: options.randomSeed }),
      ...(options.now !== undefined && { now: options.now }),
      ...(options.journalLimit !== undefined && { journalLimit: options.journalLimit }),
      ...(options.maxTenants !== undefined && { maxTenants: options.maxTenants }),
      ...(options.maxCreatedPets !== undefined && { maxCreatedPets: options.maxCreatedPets }),
      ...(options.allowedHost && {
        allowedHosts: options.allowedHost.includes('all') ? ('all' as const) : options.allowedHost,
      }),
      ...(options.corsOrigin && { corsOrigins: options.corsOrigin }),
      // --shutdown-timeout wins when given; else --limit shutdownTimeoutMs=, else the default.
      shutdownTimeoutMs:
        program.getOptionValueSource('shutdownTimeout') === 'default'
          ? (options.limit?.shutdownTimeoutMs ?? options.shutdownTimeout)
          : options.shutdownTimeout,
      ...(options.limit && { limits: options.limit }),
      ...(options.trustProxy === true && { trustProxy: true }),
      // An empty PETSTORE_STATE_FILE is unset, as for every variable; an empty --state-file is refused.
      ...(options.stateFile !== undefined &&
        !(options.stateFile === '' && program.getOptionValueSource('stateFile') === 'env') && {
          stateFile: options.stateFile,
        }),
      ...(options.upstream !== undefined && { upstream: options.upstream }),
      ...(forward !== undefined && { forward }),
      ...(options.upstreamKey !== undefined && { upstreamKey: options.upstreamKey }),
      ...(!options.quiet && {
        log,
        logPolling: options.log?.includes('admin') === true,
        logFormat: options.log?.includes('json') === true ? ('json' as const) : ('text' as const),
        logColors: paint !== plain,
      }),
    })
  } catch (error) {
    return fail((error as Error).message)
  }

  const stopWatching =
    options.watch === true && options.fixtures !== undefined
      ? watchFixturesFile(
          options.fixtures,
          async (pets) => {
            await server.sandbox.reseed(pets)
            log(`Reloaded ${options.fixtures ?? ''}: ${pets.length} pets; the data is reset to them.`)
          },
          (error) => {
            console.error(`petstore-sandbox: kept the previous seed: ${error.message}`)
          },
        )
      : () => undefined
  // Signal handlers first: whoever reads the banner may signal at once (a pipe write is synchronous).
  closeOnSignals(server, stopWatching, server.sandbox.limits.shutdownTimeoutMs)
  await printBanner(server, options, paint)
  return server
}

async function loadFixtures(file: string): Promise<readonly Pet[]> {
  try {
    return await readFixturesFile(file)
  } catch (error) {
    if (error instanceof FixturesFileError) return fail(error.message)
    throw error
  }
}

// Problems with the environment rather than the command line: one line, no usage text.
function fail(message: string): never {
  console.error(`petstore-sandbox: ${message}`)
  process.exit(1)
}

async function printBanner(server: RunningServer, options: CliOptions, paint: Paint): Promise<void> {
  const { sandbox } = server
  const count = await sandbox.pets.count()
  const key = sandbox.apiKeys[0] ?? DEFAULT_API_KEY
  const keys = options.isolate
    ? `${sandbox.apiKeys.join(', ')}, or ${options.apiKeyPattern ? `any key matching ${String(options.apiKeyPattern)}` : 'any key'} (each key has its own data)`
    : sandbox.apiKeys.join(', ')
  const conditions = [
    options.delay !== undefined &&
      `delay ${typeof options.delay === 'number' ? options.delay : `${options.delay.min}-${options.delay.max}`} ms`,
    options.failureRate !== undefined && `failure rate ${options.failureRate}`,
    options.now !== undefined && `clock starts at ${options.now}`,
  ].filter(Boolean)
  const { line, link } = bannerWriting(paint)
  // The upstream by its label only: its path, query and credentials may hold secrets.
  const { upstream } = await sandbox.health()
  const forwarding =
    upstream === null
      ? []
      : [
          line(
            'Upstream:',
            `${link(upstream.label)}, forwarding ${upstream.forward.length === 0 ? `nothing yet (PUT ${ADMIN_PATH}/forwarding)` : upstream.forward.join(', ')}`,
          ),
        ]
  console.log(
    [
      `Pet Store sandbox listening on ${link(server.apiUrl)} with ${count} pet${count === 1 ? '' : 's'}`,
      ...exposure(server, options, paint),
      line(`API key${sandbox.apiKeys.length > 1 || options.isolate ? 's' : ''}:`, keys),
      ...(conditions.length > 0 ? [line('Simulating:', conditions.join(', '))] : []),
      ...forwarding,
      ...(options.watch === true ? [line('Watching:', `${options.fixtures ?? ''} (a change reloads the seed)`)] : []),
      ...(options.stateFile !== undefined && options.stateFile !== ''
        ? [
            line(
              'State file:',
              `${options.stateFile} (saved after changes, at most every ${sandbox.limits.stateSaveIntervalMs} ms, and at exit)`,
            ),
          ]
        : []),
      line('Try:', `curl -H 'Authorization: Bearer ${key}' '${server.apiUrl}/pets?limit=3'`),
      line('Docs:', link(`${server.url}/`)),
      line('Dashboard:', link(`${server.url}${ADMIN_PATH}/`)),
      line('Reset:', `curl -X POST ${server.url}${ADMIN_PATH}/reset`),
      'Press Ctrl-C to stop.',
    ].join('\n'),
  )
}

/** The banner's labels and their texts line up: "Simulating: " is the longest. */
const LABEL_WIDTH = 'Simulating: '.length

/** A banner line (its label bold, padded) and a link, in the terminal's colours or plain. */
function bannerWriting(paint: Paint) {
  return {
    line: (label: string, text: string) => `${paint('bold', label.padEnd(LABEL_WIDTH))}${text}`,
    link: (url: string) => paint('cyan', url),
  }
}

/**
 * Listening beyond loopback, or answering any Host name, is a choice to make knowingly: the
 * banner says where the sandbox is reachable, what is open, and how to narrow it.
 */
function exposure(server: RunningServer, options: CliOptions, paint: Paint): string[] {
  const { line, link } = bannerWriting(paint)
  const warning = (text: string) => paint('yellow', line('Warning:', text))
  const lines: string[] = []
  if (!isLoopbackHost(options.host)) {
    const urls = reachableUrls(options.host, Number(new URL(server.url).port))
    lines.push(
      line('Network:', urls.length === 0 ? 'no network interface is up yet' : urls.map(link).join(', ')),
      warning(
        `--host ${options.host} opens the API and the admin routes to that network; from other machines the admin routes want an API key.`,
      ),
      line(
        'Restrict:',
        `--allowed-host <the name clients use> and --api-key <a key of your own>${server.sandbox.apiKeys.includes(DEFAULT_API_KEY) ? ` (${DEFAULT_API_KEY} is public)` : ''}.`,
      ),
    )
  }
  if (options.allowedHost?.includes('all') === true) {
    lines.push(
      warning('--allowed-host all answers any Host name: a web page can reach the sandbox through DNS rebinding.'),
    )
  }
  return lines
}

/** Exit codes for a second signal, as a shell reports a process killed by it: 128 + its number. */
const SIGNAL_EXIT_CODES: Readonly<Record<string, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 }

function closeOnSignals(server: RunningServer, stopWatching: () => void, shutdownTimeoutMs: number): void {
  let closing = false
  const stop = (signal: NodeJS.Signals) => {
    // A second signal means "now": no more waiting for requests in flight.
    if (closing) process.exit(SIGNAL_EXIT_CODES[signal] ?? 1)
    closing = true
    stopWatching()
    const inFlight = server.inFlight()
    console.log(
      inFlight === 0
        ? `Stopping (${signal}).`
        : `Stopping (${signal}): letting ${inFlight} request${inFlight === 1 ? '' : 's'} in flight finish, for up to ${shutdownTimeoutMs} ms. Press Ctrl-C again to stop at once.`,
    )
    void server.close().then(async () => {
      // A state file whose last save failed: the data since the last good save is lost, and the exit says so.
      const lost = (await server.sandbox.health()).stateFile?.error ?? null
      console.log(`Stopped (${signal}).`)
      process.exit(lost === null ? 0 : 1)
    })
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  // A closed terminal: stopped as gracefully, so a state file gets its last save.
  process.on('SIGHUP', stop)
}

/** The budgets --limit can set: the table's rows whose range is more than one value. */
const SETTABLE_LIMITS = LIMIT_NAMES.filter((name) => LIMITS[name].min !== LIMITS[name].max)

/** What a flag's environment variable may say, in any case; an empty value means unset. */
const SWITCH_WORDS: Readonly<Record<string, boolean>> = {
  '1': true,
  true: true,
  yes: true,
  on: true,
  '0': false,
  false: false,
  no: false,
  off: false,
}

/**
 * Commander turns a flag on when its variable is set at all, so `PETSTORE_ISOLATE=false` would
 * isolate. Each flag that took its value from the environment is read again here: on, off, unset
 * when empty, or an error naming the variable.
 */
function readFlagsFromEnvironment(program: Command): void {
  for (const option of program.options) {
    const name = option.attributeName()
    if (option.required || option.optional || option.envVar === undefined) continue
    if (program.getOptionValueSource(name) !== 'env') continue
    const text = (process.env[option.envVar] ?? '').trim().toLowerCase()
    const value = text === '' ? undefined : SWITCH_WORDS[text]
    if (text !== '' && value === undefined) {
      program.error(
        `error: ${option.envVar}=${JSON.stringify(process.env[option.envVar])} is not a switch: use 1/0, true/false, yes/no or on/off, or leave it empty`,
      )
    }
    program.setOptionValueWithSource(name, value, 'env')
  }
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
function checked<T>(name: OptionName, parse: (text: string) => T) {
  return (text: string): T => {
    const value = parse(text)
    const problem = optionProblem(name, value, (option) => WORDS[option] ?? option)
    if (problem !== undefined) throw new InvalidArgumentError(`${problem}.`)
    return value
  }
}

/** A decimal number as written (`-1` and `1.5` too, for the schema to refuse by name); anything else NaN. */
function decimal(text: string): number {
  return /^[+-]?(?:\d+|\d*\.\d+)$/.test(text) ? Number(text) : Number.NaN
}

/** `200` or `100-500`; anything else NaN, which the delay option refuses. */
function delay(text: string): number | { min: number; max: number } {
  const match = /^(\d+)(?:-(\d+))?$/.exec(text)
  if (match === null) return Number.NaN
  const min = Number(match[1])
  return match[2] === undefined ? min : { min, max: Number(match[2]) }
}

function pattern(value: string): RegExp {
  try {
    return new RegExp(value)
  } catch (error) {
    throw new InvalidArgumentError(`not a valid regular expression: ${(error as Error).message}`)
  }
}

/** A repeatable option: each use adds one value; its environment variable, a comma-separated list. */
function list(value: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  ]
}

/** `--limit name=value`, repeatable; its environment variable a comma-separated list. Ranges are checked by the core. */
function limit(
  value: string,
  previous: Partial<Record<LimitName, number>> | undefined,
): Partial<Record<LimitName, number>> {
  const result = { ...previous }
  for (const item of list(value, undefined)) {
    const [name = '', text = ''] = item.split('=', 2).map((part) => part.trim())
    if (!isLimitName(name)) {
      throw new InvalidArgumentError(
        `${name} is not a limit; the limits you can set are ${SETTABLE_LIMITS.join(', ')}.`,
      )
    }
    const number = parseLimitValue(name, text)
    if (number === undefined) {
      throw new InvalidArgumentError(
        `${name} must be name=value with a whole number${LIMITS[name].unit === 'bytes' ? ' (or with KiB, MiB, GiB)' : LIMITS[name].unit === 'ms' ? ' (or with ms, s)' : ''}, got ${JSON.stringify(item)}.`,
      )
    }
    result[name] = number
  }
  return result
}

/**
 * `--forward listPets,getPet`, `all` or `none` (the default the help shows, so it may be written
 * out: `PETSTORE_FORWARD=none` in an env file), repeatable; its variable a comma-separated list.
 * `none` beside an operation is refused: one of the two is a mistake.
 */
function forwardChoices(value: string, previous: OperationId[] | 'all' | undefined): OperationId[] | 'all' {
  const added = list(value, undefined)
  const unknown = added.filter(
    (name) => name !== 'all' && name !== 'none' && !(OPERATIONS as readonly string[]).includes(name),
  )
  if (unknown.length > 0) {
    throw new InvalidArgumentError(
      `${unknown.join(', ')} ${unknown.length === 1 ? 'is not an operation' : 'are not operations'}: use ${OPERATIONS.join(', ')}, all or none.`,
    )
  }
  const some = added.some((name) => name !== 'none')
  const none = added.includes('none')
  // Operations, then `none`; or `none` (an empty list), then operations: which one was meant?
  const given = previous === 'all' || (previous?.length ?? 0) > 0
  if ((none && (some || given)) || (some && previous?.length === 0)) {
    throw new InvalidArgumentError('none forwards nothing: give it alone, or name the operations without it.')
  }
  if (none) return []
  if (previous === 'all' || added.includes('all')) return 'all'
  return [...new Set([...(previous ?? []), ...(added as OperationId[])])]
}

/** `--log admin`, `--log json`, repeatable; its variable a comma-separated list. */
function logChoices(value: string, previous: string[] | undefined): string[] {
  const added = list(value, undefined)
  for (const choice of added) {
    if (choice !== 'admin' && choice !== 'json') {
      throw new InvalidArgumentError(`${choice} is not a log choice: use admin or json.`)
    }
  }
  return [...(previous ?? []), ...added]
}

function origins(value: string, previous: string[] | undefined): string[] {
  const added = list(value, undefined)
  const problem = optionProblem('corsOrigins', added)
  if (problem !== undefined) throw new InvalidArgumentError(`${problem}.`)
  return [...(previous ?? []), ...added.map((origin) => origin.replace(/\/$/, ''))]
}
