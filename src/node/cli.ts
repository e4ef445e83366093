/**
 * The command line, declared as msw's CLI declares its own: each command is a name, its options
 * and an action that hands them to an importable function. `serve` (the default command: it is
 * what `petstore-sandbox [options]` runs) starts the server (serve-command.ts); `verify <api-url>`
 * checks a live server (verify.ts); `capture <api-url>` writes a fixtures file from one
 * (capture-command.ts). Flag text becomes values in flags.ts, checked by the core's options schema.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { Command, InvalidArgumentError, Option } from 'commander'
import { OPERATIONS } from '../core/api/contract.js'
import { DEFAULT_API_KEY } from '../core/api/auth.js'
import { ADMIN_PATH } from '../core/http/mounts.js'
import { LIMITS } from '../core/limits.js'
import {
  checked,
  decimal,
  delay,
  forwardChoices,
  limit,
  list,
  logChoices,
  milliseconds,
  origins,
  pattern,
  readFlagsFromEnvironment,
  refuseExtraArguments,
  type ServeFlags,
} from './flags.js'
import { packageVersion } from './package-files.js'
import { printable } from './terminal.js'
import { runServe } from './serve-command.js'
import { DEFAULT_HOST, DEFAULT_PORT, DEFAULT_SHUTDOWN_TIMEOUT_MS, type RunningServer } from './server-options.js'
import { DEFAULT_TIMEOUT_MS, runVerify, type VerifyOptions } from './verify.js'
import { idRange, runCapture, type CaptureOptions } from './capture-command.js'

/** Runs the CLI with process.argv-style arguments. Resolves once the server is listening. */
export async function run(argv: readonly string[]): Promise<RunningServer> {
  let started: RunningServer | undefined
  const program = new Command('petstore-sandbox')
    // The help and the version are serve's: `petstore-sandbox --help` shows the options it takes.
    .helpOption(false)
    .helpCommand(false)
    .addCommand(
      serveCommand((server) => {
        started = server
      }),
      { isDefault: true },
    )
    .addCommand(verifyCommand())
    .addCommand(captureCommand())
  await program.parseAsync(argv)
  // Only serve resolves: verify, --help and --version exit.
  if (started === undefined) throw new Error('petstore-sandbox: the command ended without starting the server')
  return started
}

/** Commander's messages quote the values given: their control characters are written escaped. */
const ERROR_OUTPUT = {
  outputError: (text: string, write: (text: string) => void) => {
    write(printable(text))
  },
}

/** The package's page, with the README; package.json names no repository or homepage. */
const DOCS_URL = 'https://www.npmjs.com/package/petstore-sandbox'

/**
 * What serve's --help ends with: the other commands, three examples that run as written, and
 * where to look next. The URLs are the default port's; the banner prints the real ones.
 */
export function serveHelpEnd(): string {
  const origin = `http://${DEFAULT_HOST}:${DEFAULT_PORT}`
  return `
Commands:
  verify <api-url>   check a live server against the sandbox's behaviour table (petstore-sandbox verify --help)
  capture <api-url>  write a fixtures file from a live server, by reads only (petstore-sandbox capture --help)

Examples:
  npx petstore-sandbox
      the API at ${origin}/v1, key ${DEFAULT_API_KEY}; Ctrl-C stops it
  npx petstore-sandbox --isolate --port 0
      each API key gets its own data, on a free port (the banner says which)
  npx petstore-sandbox --upstream https://staging.example.com/v1 --forward listPets --record
      listPets from staging, keeping its pets; the sandbox answers the rest

Dashboard:      ${origin}${ADMIN_PATH}/
API reference:  ${origin}/
Docs:           ${DOCS_URL} (and docs/*.md in the package)`
}

/** `petstore-sandbox [options]`: the sandbox as an HTTP server, until Ctrl-C or SIGTERM. */
function serveCommand(started: (server: RunningServer) => void): Command {
  const command = new Command('serve')
    .description('A stateful, in-memory Pet Store API sandbox.')
    .version(packageVersion(), '-v, --version')
  for (const made of [...listening(), ...seeding(), ...simulating(), ...bounding(), ...forwarding(), ...keeping()]) {
    command.addOption(made)
  }
  return (
    command
      // Its usage is the program's: no one types `serve`.
      .configureHelp({
        optionDescription: describeOption,
        commandUsage: (shown) => `petstore-sandbox ${shown.usage()}`,
      })
      .addHelpText('after', serveHelpEnd())
      .showHelpAfterError('(run petstore-sandbox --help for usage)')
      .configureOutput(ERROR_OUTPUT)
      .allowExcessArguments()
      .hook('preAction', refuseExtraArguments)
      .hook('preAction', readFlagsFromEnvironment)
      .action(async (flags: ServeFlags, self: Command) => {
        started(await runServe(flags, self))
      })
  )
}

/** `petstore-sandbox verify <api-url>`: exits 0, 1 on drift, 2 on a usage error, a server out of reach, not the API, or a key refused. */
function verifyCommand(): Command {
  return liveServerCommand(
    'verify',
    "Check a live Pet Store API against the sandbox's behaviour table: every case runs against <api-url> and an in-process sandbox, and each difference is named. " +
      'The report opens with the verdict and what to do next, then one line per difference, grouped by rule (about 40 lines; --verbose shows every case). ' +
      'By default it sends reads only: nothing a lenient server could store. --refused-writes adds the writes the interface says must be refused (no key, a bad body); --writes adds those, creates, bodies only the sandbox refuses, and other methods.',
    'PETSTORE_VERIFY_KEY',
    '\nExit codes: 0 no case of the interface differs (with --strict, no case at all); 1 drift; 2 a usage error, a server that cannot be reached, a base URL that answers nothing like the API (its first GET /pets is a 404 or a 400, or neither a JSON list nor a JSON Error), or a key it refuses (401 or 403).',
  )
    .addOption(
      new Option(
        '--refused-writes',
        'also send the writes the interface says must be refused (a create without a key, a bad body): a server that keeps the interface stores nothing from them, a lenient one may',
      ),
    )
    .addOption(
      new Option(
        '--writes',
        'also create pets (POST /pets) and read them back (id, Location, list order), with the refused writes: for staging only, never production',
      ),
    )
    .addOption(new Option('--verbose', 'show every case and every difference, not only the first lines of each rule'))
    .addOption(new Option('--json', 'write the report as JSON on stdout instead of the text'))
    .addOption(new Option('--junit <file>', 'also write the report as JUnit XML to this file, for CI dashboards'))
    .addOption(new Option('--strict', "exit 1 when any case differs, the sandbox's own choices included"))
    .action((apiUrl: string, options: VerifyOptions) => runVerify(apiUrl, options))
}

/**
 * What verify and capture share: `<api-url>`, the key with its variable, `--timeout`, extra
 * arguments refused, and a usage error that exits 2 (1 is theirs: drift, or pets left out).
 */
function liveServerCommand(name: string, description: string, keyEnv: string, exitCodes: string): Command {
  return (
    new Command(name)
      .description(description)
      .argument('<api-url>', "the API's base URL, with its version segment, e.g. https://staging.example.com/v1")
      .addOption(
        new Option('-k, --api-key <key>', 'the API key to send to the server (never printed)')
          .env(keyEnv)
          .default(DEFAULT_API_KEY),
      )
      .addOption(
        new Option('--timeout <ms>', 'how long each request to the server may take')
          .default(DEFAULT_TIMEOUT_MS)
          .argParser(milliseconds),
      )
      .addHelpText('after', exitCodes)
      .configureOutput(ERROR_OUTPUT)
      .allowExcessArguments()
      .hook('preAction', refuseExtraArguments)
      // Commander has printed its message, or the help: a usage error exits 2.
      .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
  )
}

/** `petstore-sandbox capture <api-url>`: exits 0, 1 when pets were left out, 2 on a usage error or a server out of reach. */
function captureCommand(): Command {
  return liveServerCommand(
    'capture',
    "Write a fixtures file from a live Pet Store API, by reads only: listPets (limit 100) with no status and with each, and getPet for the ids of --ids. Every pet is checked against the interface and the sandbox's own rules; one that fails is left out and named. The file is sorted by id and is valid for --fixtures as it stands.",
    'PETSTORE_CAPTURE_KEY',
    '\nThe interface has no paging: without --ids a list shows at most 100 pets per status, about 400 in all; capture says when a list came back full.\nExit codes: 0 every pet written; 1 pets left out (named on stderr); 2 a usage error or a server that cannot be reached.',
  )
    .addOption(new Option('-o, --output <file>', 'the file to write (default: stdout)'))
    .addOption(
      new Option('--ids <from-to>', 'also read these ids one by one with getPet, e.g. 1-500').argParser((value) => {
        try {
          return idRange(value)
        } catch (error) {
          throw new InvalidArgumentError((error as Error).message)
        }
      }),
    )
    .action((apiUrl: string, options: CaptureOptions) => runCapture(apiUrl, options))
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

// serve's options in the order --help lists them, in groups of one concern each.

/** Where the server listens, and the keys it takes. */
function listening(): Option[] {
  return [
    option('-p, --port <number>', 'port to listen on, 0 for a free one', 'PORT')
      .default(DEFAULT_PORT)
      .argParser(checked('port', decimal)),
    option(
      '--host <address>',
      'interface to bind; 0.0.0.0 or another non-loopback address opens the sandbox to that network',
      'PETSTORE_HOST',
    ).default(DEFAULT_HOST),
    option(
      '-k, --api-key <key>',
      'accepted API key, repeatable; from other machines the admin routes want one too',
      'PETSTORE_API_KEYS',
      DEFAULT_API_KEY,
    ).argParser(list),
  ]
}

/** The data the sandbox starts with, and whose it is. */
function seeding(): Option[] {
  return [
    option('-f, --fixtures <file>', 'JSON file with the seed pets', 'PETSTORE_FIXTURES', 'the bundled seed'),
    option('-w, --watch', 'reload the fixtures file when it changes', 'PETSTORE_WATCH'),
    option('-g, --generate <count>', 'seed this many generated pets instead', 'PETSTORE_GENERATE').argParser(
      checked('generate', decimal),
    ),
    option(
      '--isolate',
      'each API key gets its own copy of the data; any well-formed key is accepted',
      'PETSTORE_ISOLATE',
    ),
    option(
      '--api-key-pattern <regex>',
      'with --isolate, accept only keys matching this pattern',
      'PETSTORE_API_KEY_PATTERN',
    ).argParser(checked('apiKeyPattern', pattern)),
    option(
      '--max-tenants <count>',
      'with --isolate, keys whose data is kept; the least recently used goes past it',
      'PETSTORE_MAX_TENANTS',
      LIMITS.tenants.value,
    ).argParser(checked('maxTenants', decimal)),
    option(
      '--max-created-pets <count>',
      'pets one key may create between two resets; then 507',
      'PETSTORE_MAX_CREATED_PETS',
      LIMITS.createdPetsPerTenant.value,
    ).argParser(checked('maxCreatedPets', decimal)),
  ]
}

/** The conditions the API simulates: delays, failures, a clock. */
function simulating(): Option[] {
  return [
    option(
      '--delay <ms|min-max>',
      'delay every API response by ms, or a random ms in min-max',
      'PETSTORE_DELAY',
    ).argParser(checked('delay', delay)),
    option(
      '--failure-rate <0..1>',
      'answer this share of calls with a random 500 or 503',
      'PETSTORE_FAILURE_RATE',
    ).argParser(checked('failureRate', decimal)),
    option(
      '--random-seed <number>',
      'seed for --delay ranges, --failure-rate and --generate',
      'PETSTORE_RANDOM_SEED',
    ).argParser(checked('randomSeed', decimal)),
    option(
      '--now <date>',
      "the sandbox's clock starts here (ISO 8601), e.g. after getPet's sunset",
      'PETSTORE_NOW',
    ).argParser(checked('now', String)),
  ]
}

/** Who may call, how much is kept, how long things may take, and what the log says. */
function bounding(): Option[] {
  return [
    option(
      '--journal-limit <count>',
      'requests kept in the journal',
      'PETSTORE_JOURNAL_LIMIT',
      LIMITS.journalEntries.value,
    ).argParser(checked('journalLimit', decimal)),
    option(
      '--allowed-host <name>',
      'also answer this Host (local names and IPs always); repeatable; .example.com for subdomains, all for any',
      'PETSTORE_ALLOWED_HOSTS',
    ).argParser(list),
    option(
      '--cors-origin <origin>',
      'let pages from this origin call the API, besides local ones; repeatable; * for any',
      'PETSTORE_CORS_ORIGINS',
    ).argParser(origins),
    option(
      '--shutdown-timeout <ms>',
      'on Ctrl-C or SIGTERM, how long requests in flight may finish',
      'PETSTORE_SHUTDOWN_TIMEOUT',
    )
      .default(DEFAULT_SHUTDOWN_TIMEOUT_MS)
      .argParser(checked('shutdownTimeoutMs', decimal)),
    option(
      '--limit <name=value>',
      // The names are in the message for a wrong one, and in docs/security-and-limits.md: listed here, they were 14 lines.
      'set a budget of the limits table, repeatable, e.g. bodyBytes=1MiB or requestTimeoutMs=60s; a wrong name lists them all',
      'PETSTORE_LIMITS',
    ).argParser(limit),
    option(
      '--trust-proxy',
      'behind a TLS-terminating proxy: believe its Forwarded / X-Forwarded-* headers',
      'PETSTORE_TRUST_PROXY',
    ),
    option(
      '--log <what>',
      "add to the access log, repeatable: admin (a dashboard's polling reads), json (one object per line)",
      'PETSTORE_LOG',
    ).argParser(logChoices),
  ]
}

/** Standing in for a real API: where it is, what goes there, with which key. */
function forwarding(): Option[] {
  return [
    option(
      '--upstream <api-url>',
      "stand in for this API: --forward's operations go there, each answer checked against the interface",
      'PETSTORE_UPSTREAM',
    ),
    option(
      '--forward <operations>',
      `with --upstream, the operations sent there: ${OPERATIONS.join(', ')}, all or none; repeatable`,
      'PETSTORE_FORWARD',
      'none',
    ).argParser(forwardChoices),
    option(
      '--record',
      'with --upstream, keep the valid pets forwarded answers carry, to answer from once forwarding is off',
      'PETSTORE_RECORD',
    ),
    option(
      '--upstream-key <key>',
      "with --upstream, the bearer key sent there instead of the client's (which then needs a sandbox key)",
      'PETSTORE_UPSTREAM_KEY',
    ),
  ]
}

/** What outlives the process, and what it prints. */
function keeping(): Option[] {
  return [
    option(
      '--state-file <file>',
      'keep the data and checkpoints in this file across restarts: every change on disk before its answer; not with --isolate',
      'PETSTORE_STATE_FILE',
    ),
    option(
      '--state-save <when>',
      'with --state-file: always (every change on disk before its answer) or interval (at most once a second, faster; a crash loses the changes since)',
      'PETSTORE_STATE_SAVE',
      'always',
    ),
    option('-q, --quiet', 'do not log each request', 'PETSTORE_QUIET'),
  ]
}
