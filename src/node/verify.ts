/**
 * `petstore-sandbox verify <api-url>`: the behaviour table against a live server and an
 * in-process sandbox, side by side, then a text report (or JSON) on stdout and JUnit XML if
 * asked. Exit 0 when no rule of the interface differs, 1 on drift, 2 on a usage error, a server
 * that cannot be reached, or a base URL that answers nothing like the API; each with one line,
 * never a stack trace. The rows, the comparison and the report are the core's (src/core/verify);
 * the command and its options are declared in cli.ts; this file checks the URL and the key, runs
 * the table and carries the bytes.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { writeFile } from 'node:fs/promises'
import { DEFAULT_API_KEY } from '../core/api/auth.js'
import type { PlainAnswer } from '../core/http/http.js'
import { Unreachable, type Side } from '../core/verify/judge.js'
import { exitCodeOf, reportJson, reportJunit, reportText, summaryLine, type ReportMeta } from '../core/verify/report.js'
import { KeyRefused, NotTheApi, verify } from '../core/verify/run.js'
import { createSandboxCore } from '../core/sandbox.js'
import { exchange, ExchangeFailure } from './http-client.js'
import { packageVersion } from './package-files.js'
import { paintFor } from './terminal.js'

/** verify's options, as cli.ts declares them. */
export interface VerifyOptions {
  apiKey: string
  writes?: boolean
  refusedWrites?: boolean
  verbose?: boolean
  junit?: string
  json?: boolean
  strict?: boolean
  timeout: number
}

/** The most a live server's answer may hold: a list of 100 pets is about 10 KB. */
const MAX_ANSWER_BYTES = 1024 * 1024
export const DEFAULT_TIMEOUT_MS = 10_000

/** Runs `verify` against the server at `text`, then exits with its code. */
export async function runVerify(text: string, options: VerifyOptions): Promise<never> {
  let url: URL
  try {
    url = apiUrl(text)
    checkKey(options.apiKey)
  } catch (error) {
    return exit(
      2,
      '',
      `petstore-sandbox verify: ${(error as Error).message} (run petstore-sandbox verify --help for usage)`,
    )
  }
  try {
    return await verifyAndReport(url, options)
  } catch (error) {
    // A fault of verify itself: one line, not a stack trace in a CI log.
    return exit(2, '', `petstore-sandbox verify: failed: ${(error as Error).message}`)
  }
}

async function verifyAndReport(url: URL, options: VerifyOptions): Promise<never> {
  const meta: ReportMeta = {
    server: url.href.replace(/\/$/, ''),
    version: packageVersion(),
    strict: options.strict === true,
    writes: options.writes === true,
    refusedWrites: options.refusedWrites === true,
    verbose: options.verbose === true,
  }
  let report
  try {
    report = await verify({
      server: serverSide(url, options.timeout),
      sandbox: sandboxSide(),
      serverKey: options.apiKey,
      sandboxKey: DEFAULT_API_KEY,
      writes: meta.writes,
      refusedWrites: meta.refusedWrites,
    })
  } catch (error) {
    if (error instanceof NotTheApi) {
      return exit(
        2,
        '',
        `petstore-sandbox verify: ${meta.server} answers nothing like the Pet Store API: ${error.message}. No case was sent; give the API's base URL, with its version segment (e.g. https://staging.example.com/v1)`,
      )
    }
    if (error instanceof KeyRefused) {
      return exit(
        2,
        '',
        `petstore-sandbox verify: ${meta.server} refused the key: ${error.message}. No case was sent; give it one of its keys with --api-key or PETSTORE_VERIFY_KEY`,
      )
    }
    if (!(error instanceof Unreachable)) throw error
    return exit(2, '', `petstore-sandbox verify: cannot reach ${meta.server}: ${error.message}`)
  }
  const paint = paintFor(process.stdout)
  const styles = { same: 'green', drift: 'red', note: 'yellow', skipped: 'gray' } as const
  const out =
    options.json === true
      ? reportJson(report, meta)
      : reportText(report, meta, (kind, text) => paint(styles[kind], text))
  const errors: string[] = []
  let code = exitCodeOf(report, meta.strict)
  if (options.junit !== undefined) {
    try {
      await writeFile(options.junit, reportJunit(report, meta))
    } catch (error) {
      errors.push(
        `petstore-sandbox verify: cannot write ${options.junit}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      )
      code = 2
    }
  }
  if (report.stopped !== undefined) errors.push(`petstore-sandbox verify: ${meta.server}: ${report.stopped}`)
  else if (options.json === true) errors.push(summaryLine(report, meta))
  return exit(code, out, errors.join('\n'))
}

/**
 * Writes what is left and exits once both pipes have taken it: process.exit() right after a
 * write to a pipe would cut a long report at the pipe's 64 KiB.
 */
export async function exit(code: number, out = '', err = ''): Promise<never> {
  const write = (stream: NodeJS.WriteStream, text: string) =>
    new Promise<void>((resolve) => {
      if (text === '') resolve()
      else
        stream.write(`${text}\n`, () => {
          resolve()
        })
    })
  await Promise.all([write(process.stdout, out), write(process.stderr, err)])
  process.exit(code)
}

/**
 * The base URL: http or https, no credentials, query or fragment. Never quoted back: it may hold
 * a secret. `keyFrom` names where the key goes instead (verify's and capture's flags).
 */
export function apiUrl(text: string, keyFrom = '--api-key or PETSTORE_VERIFY_KEY'): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new Error("<api-url> is not a URL; give the API's base URL, e.g. http://127.0.0.1:3210/v1")
  }
  if (url.username !== '' || url.password !== '') {
    throw new Error(`<api-url> must not carry credentials (user:password@); give the key with ${keyFrom}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`<api-url> must be an http or https URL, not ${url.protocol.replace(/:$/, '')}`)
  }
  if (url.search !== '' || url.hash !== '') {
    throw new Error(`<api-url> must not have a query or a fragment (a key goes in ${keyFrom})`)
  }
  return url
}

/** A key goes into a header: visible ASCII only, so it cannot break the request (and is never quoted). */
export function checkKey(key: string): void {
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw new Error('the API key must be one or more visible ASCII characters, without spaces')
  }
}

/** The live server, over node:http(s), each target sent exactly as the row has it. */
function serverSide(url: URL, timeoutMs: number): Side {
  const guarded = guardedExchanges()
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

/** Timeouts in a row after which a server counts as gone: waiting out every row would take minutes. */
const TIMEOUTS_IN_A_ROW = 3

/**
 * Exchanges with one server. One that cannot be reached at all, or that answers nothing several
 * times in a row, is Unreachable (the run stops); any other failure is one row's "no answer".
 */
function guardedExchanges(): (sent: Parameters<typeof exchange>[0]) => Promise<PlainAnswer> {
  let timeouts = 0
  return async (sent) => {
    try {
      const answer = await exchange(sent)
      timeouts = 0
      return answer
    } catch (error) {
      if (!(error instanceof ExchangeFailure)) throw error
      if (error.kind === 'timeout') timeouts++
      if (error.kind === 'connect') throw new Unreachable(error.message)
      if (timeouts >= TIMEOUTS_IN_A_ROW) {
        throw new Unreachable(`${error.message}, ${TIMEOUTS_IN_A_ROW} times in a row`)
      }
      throw error
    }
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
