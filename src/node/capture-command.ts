/**
 * `petstore-sandbox capture <api-url> -k KEY -o pets.json`: a fixtures file from a live API, by
 * reads only (the steps, the checks and the file's contents are the core's: src/core/api/capture.ts).
 * Exit codes follow verify's: 0, 1 when pets were left out, 2 on a usage error or a server that
 * cannot be reached. Progress goes to a terminal only; the URL is never quoted back whole (it may
 * hold a secret), only its origin and path.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { writeFile } from 'node:fs/promises'
import { captureSteps, createCapture, MAX_CAPTURE_IDS } from '../core/api/capture.js'
import { exchange, ExchangeFailure } from './http-client.js'
import { packageVersion } from './package-files.js'
import { apiUrl, checkKey, exit } from './verify.js'

/** capture's options, as cli.ts declares them. */
export interface CaptureOptions {
  apiKey: string
  output?: string
  ids?: { from: number; to: number }
  timeout: number
}

const MAX_ANSWER_BYTES = 1024 * 1024
const NAME = 'petstore-sandbox capture'

/** `--ids 1-500`: a range of ids, each one a getPet. */
export function idRange(text: string): { from: number; to: number } {
  const match = /^(\d{1,15})-(\d{1,15})$/.exec(text.trim())
  const from = Number(match?.[1])
  const to = Number(match?.[2])
  if (match === null || from < 1 || to < from || to - from + 1 > MAX_CAPTURE_IDS) {
    throw new Error(
      `--ids must be a range FROM-TO of ids from 1, at most ${MAX_CAPTURE_IDS} of them, e.g. 1-500; got ${JSON.stringify(text)}`,
    )
  }
  return { from, to }
}

/** Runs `capture` against the API at `text`, writes the file, then exits with its code. */
export async function runCapture(text: string, options: CaptureOptions): Promise<never> {
  let url: URL
  try {
    url = apiUrl(text, '--api-key or PETSTORE_CAPTURE_KEY')
    checkKey(options.apiKey)
  } catch (error) {
    return exit(2, '', `${NAME}: ${(error as Error).message} (run petstore-sandbox capture --help for usage)`)
  }
  // What may be shown of the URL: it has no credentials and no query (apiUrl refused them).
  const shown = `${url.origin}${url.pathname.replace(/\/$/, '')}`
  const base = url.pathname.replace(/\/$/, '')
  const steps = captureSteps(options.ids)
  const capture = createCapture()
  const progress = process.stderr.isTTY
  for (const [index, step] of steps.entries()) {
    if (progress) process.stderr.write(`\r${NAME}: ${index + 1}/${steps.length} ${step.label}\x1b[K`)
    try {
      const answer = await exchange({
        method: 'GET',
        origin: url.origin,
        target: `${base}${step.target}`,
        headers: {
          Accept: 'application/json',
          Authorization: `Bearer ${options.apiKey}`,
          'User-Agent': `petstore-sandbox-capture/${packageVersion()}`,
        },
        body: null,
        timeoutMs: options.timeout,
        maxBytes: MAX_ANSWER_BYTES,
      })
      // A key refused on the first read would be refused on every one: stop, as a usage error.
      if (index === 0 && answer.status === 401) {
        if (progress) process.stderr.write('\r\x1b[K')
        return await exit(
          2,
          '',
          `${NAME}: ${shown} refused the key (401): give the API's key with --api-key or PETSTORE_CAPTURE_KEY`,
        )
      }
      capture.take(step, answer)
    } catch (error) {
      if (!(error instanceof ExchangeFailure)) throw error
      // One read that got no answer (a timeout, a cut connection) is named and the rest go on;
      // a server that cannot be reached at all ends the run.
      if (error.kind !== 'connect') {
        capture.failed(step, error.message)
        continue
      }
      if (progress) process.stderr.write('\r\x1b[K')
      return exit(2, '', `${NAME}: cannot reach ${shown}: ${error.message} (at ${step.label})`)
    }
  }
  if (progress) process.stderr.write('\r\x1b[K')
  const { pets, leftOut, notes } = capture.result()
  const file = `${JSON.stringify(pets, null, 2)}\n`
  const lines = [...leftOut.map((line) => `${NAME}: ${line}`), ...notes.map((line) => `${NAME}: note: ${line}`)]
  if (options.output === undefined) {
    lines.push(summary(pets.length, leftOut.length, 'stdout', shown))
    return exit(leftOut.length > 0 ? 1 : 0, file.trimEnd(), lines.join('\n'))
  }
  try {
    await writeFile(options.output, file)
  } catch (error) {
    return exit(
      2,
      '',
      `${NAME}: cannot write ${options.output}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    )
  }
  lines.push(summary(pets.length, leftOut.length, options.output, shown))
  return exit(leftOut.length > 0 ? 1 : 0, '', lines.join('\n'))
}

function summary(pets: number, leftOut: number, where: string, shown: string): string {
  const wrote = `${NAME}: wrote ${pets} pet${pets === 1 ? '' : 's'} from ${shown} to ${where}`
  return leftOut === 0 ? wrote : `${wrote}; ${leftOut} left out (above)`
}
