/**
 * `petstore-sandbox verify <api-url>`: the behaviour table against a live server and an
 * in-process sandbox, side by side, then a table (or JSON) on stdout and JUnit XML if asked.
 * Exit 0 when no rule of the interface differs, 1 on drift, 2 on a usage error or a server that
 * cannot be reached; each with one line, never a stack trace. The rows, the comparison and the
 * report are the core's (src/core/verify); this file parses the command and carries the bytes.
 *
 * May import: node:*, commander, and the Node adapter. Never msw.
 */
import { writeFile } from 'node:fs/promises'
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander'
import { DEFAULT_API_KEY } from '../core/api/auth.js'
import type { PlainAnswer } from '../core/verify/conformance.js'
import type { Side } from '../core/verify/judge.js'
import {
  exitCodeOf,
  reportJson,
  reportJunit,
  reportTable,
  summaryLine,
  type ReportMeta,
} from '../core/verify/report.js'
import { Unreachable, verify } from '../core/verify/run.js'
import { createSandboxCore } from '../core/sandbox.js'
import { exchange, ExchangeFailure } from './http-client.js'
import { packageVersion } from './package-files.js'
import { paintFor } from './terminal.js'

interface VerifyOptions {
  apiKey: string
  writes?: boolean
  junit?: string
  json?: boolean
  strict?: boolean
  timeout: number
}

/** The most a live server's answer may hold: a list of 100 pets is about 10 KB. */
const MAX_ANSWER_BYTES = 1024 * 1024
const DEFAULT_TIMEOUT_MS = 10_000

/** Runs `verify` with the arguments after the command's name, then exits with its code. */
export async function runVerify(args: readonly string[]): Promise<never> {
  const program = new Command('verify')
    .name('petstore-sandbox verify')
    .description(
      "Check a live Pet Store API against the sandbox's behaviour table: every case runs against <api-url> and an in-process sandbox, and each difference is named. " +
        'By default it sends reads, and writes the interface says must be refused (no key, a bad body): a server that keeps the interface creates nothing from them. --writes adds creates.',
    )
    .argument('<api-url>', "the API's base URL, with its version segment, e.g. https://staging.example.com/v1")
    .addOption(
      new Option('-k, --api-key <key>', 'the API key to send to the server (never printed)')
        .env('PETSTORE_VERIFY_KEY')
        .default(DEFAULT_API_KEY),
    )
    .addOption(
      new Option(
        '--writes',
        'also create pets (POST /pets) and read them back (id, Location, list order): for staging only, never production',
      ),
    )
    .addOption(new Option('--json', 'write the report as JSON on stdout instead of the table'))
    .addOption(new Option('--junit <file>', 'also write the report as JUnit XML to this file, for CI dashboards'))
    .addOption(new Option('--strict', "exit 1 when any case differs, the sandbox's own choices included"))
    .addOption(
      new Option('--timeout <ms>', 'how long each request to the server may take')
        .default(DEFAULT_TIMEOUT_MS)
        .argParser(milliseconds),
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 no case of the interface differs (with --strict, no case at all); 1 drift; 2 a usage error or a server that cannot be reached.',
    )
    .exitOverride()
  let url: URL
  let options: VerifyOptions
  try {
    program.parse(args, { from: 'user' })
    options = program.opts<VerifyOptions>()
    url = apiUrl(program.args[0] ?? '')
  } catch (error) {
    // Commander has printed its message (or the help, for --help: exit 0).
    if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : 2)
    return usage((error as Error).message)
  }

  const meta: ReportMeta = {
    server: url.href.replace(/\/$/, ''),
    version: packageVersion(),
    strict: options.strict === true,
    writes: options.writes === true,
  }
  let report
  try {
    report = await verify({
      server: serverSide(url, options.timeout),
      sandbox: sandboxSide(),
      serverKey: options.apiKey,
      sandboxKey: DEFAULT_API_KEY,
      writes: meta.writes,
    })
  } catch (error) {
    if (error instanceof Unreachable) {
      console.error(`petstore-sandbox verify: cannot reach ${meta.server}: ${error.message}`)
      process.exit(2)
    }
    throw error
  }
  const paint = paintFor(process.stdout)
  const styles = { same: 'green', drift: 'red', note: 'yellow', skipped: 'gray' } as const
  console.log(
    options.json === true
      ? reportJson(report, meta)
      : reportTable(report, meta, (kind, text) => paint(styles[kind], text)),
  )
  if (options.junit !== undefined) {
    try {
      await writeFile(options.junit, reportJunit(report, meta))
    } catch (error) {
      console.error(
        `petstore-sandbox verify: cannot write ${options.junit}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      )
      process.exit(2)
    }
  }
  if (report.stopped !== undefined) {
    console.error(`petstore-sandbox verify: ${meta.server}: ${report.stopped}`)
    process.exit(2)
  }
  if (options.json === true) console.error(summaryLine(report, meta))
  process.exit(exitCodeOf(report, meta.strict))
}

function usage(message: string): never {
  console.error(`petstore-sandbox verify: ${message} (run petstore-sandbox verify --help for usage)`)
  process.exit(2)
}

/** The base URL: http or https, no query or fragment. Its path is the base every case's path goes under. */
function apiUrl(text: string): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new Error(`${JSON.stringify(text)} is not a URL; give the API's base URL, e.g. http://127.0.0.1:3210/v1`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${text} is not an http or https URL`)
  }
  if (url.search !== '' || url.hash !== '') throw new Error(`${text} must not have a query or a fragment`)
  if (url.username !== '' || url.password !== '') {
    // Said without the URL: it holds a credential.
    throw new Error(
      'the URL must not carry credentials (user:password@); give the key with --api-key or PETSTORE_VERIFY_KEY',
    )
  }
  return url
}

function milliseconds(text: string): number {
  const value = Number(text)
  if (!/^[0-9]+$/.test(text) || value < 1 || value > 600_000) {
    throw new InvalidArgumentError('must be a whole number of milliseconds from 1 to 600000.')
  }
  return value
}

/** The live server, over node:http(s), each target sent exactly as the row has it. */
function serverSide(url: URL, timeoutMs: number): Side {
  return {
    base: url.pathname.replace(/\/$/, ''),
    send: (method, target, headers, body) =>
      guarded({
        method,
        origin: url.origin,
        target,
        headers: {
          Accept: 'application/json',
          'User-Agent': `petstore-sandbox-verify/${packageVersion()}`,
          ...headers,
        },
        body: body ?? null,
        timeoutMs,
        maxBytes: MAX_ANSWER_BYTES,
      }),
  }
}

/** One exchange; a server that cannot be reached at all is Unreachable, any other failure a row's "no answer". */
async function guarded(sent: Parameters<typeof exchange>[0]): Promise<PlainAnswer> {
  try {
    return await exchange(sent)
  } catch (error) {
    if (error instanceof ExchangeFailure && error.kind === 'connect') throw new Unreachable(error.message)
    throw error
  }
}

/** The sandbox as the CLI serves it (its server rules, any Host), in this process, from the bundled seed. */
function sandboxSide(): Side {
  const core = createSandboxCore({ version: packageVersion() }, { surface: 'server', allowedHosts: 'all' })
  const encoder = new TextEncoder()
  const decoder = new TextDecoder()
  return {
    base: '/v1',
    async send(method, target, headers, body): Promise<PlainAnswer> {
      const bytes = body === undefined ? null : encoder.encode(body)
      const lower: Record<string, string> = { host: 'localhost', accept: 'application/json' }
      for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value
      if (bytes !== null) lower['content-length'] = String(bytes.byteLength)
      const response = await core.handle({
        method,
        target,
        headers: lower,
        body: bytes,
        httpVersion: '1.1',
        remoteAddress: '127.0.0.1',
      })
      const answerHeaders: Record<string, string> = {}
      for (const [name, value] of Object.entries(response.headers)) answerHeaders[name.toLowerCase()] = value
      const text =
        typeof response.body === 'string'
          ? response.body
          : response.body instanceof Uint8Array
            ? decoder.decode(response.body)
            : ''
      return { status: response.status, headers: answerHeaders, body: method === 'HEAD' ? '' : text }
    },
  }
}
