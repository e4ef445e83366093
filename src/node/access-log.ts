/**
 * The access log: one line per request once its outcome is known, as text (coloured on a
 * terminal that takes it) or as JSON.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { CoreResponse } from '../core/http/http.js'
import { coloured, hueStyle, plain, statusStyle, upstreamMark, type Paint } from './terminal.js'

export interface AccessLog {
  readonly write: (line: string) => void
  readonly polling: boolean
  readonly json: boolean
  readonly paint: Paint
}

/** The access log startServer's `log`, `logPolling`, `logFormat` and `logColors` ask for, if any. */
export function accessLogOf(options: {
  readonly log: ((line: string) => void) | undefined
  readonly logPolling: boolean
  readonly logFormat: 'text' | 'json'
  readonly logColors: boolean
}): AccessLog | undefined {
  const { log } = options
  return log === undefined
    ? undefined
    : {
        write: log,
        polling: options.logPolling,
        json: options.logFormat === 'json',
        paint: options.logColors ? coloured : plain,
      }
}

/**
 * Logs an answer once its outcome is known: on 'finish' when the whole answer went to the
 * connection, on 'close' before it when the connection went first (a shutdown's bound, a client
 * gone). Returns what to call when the answer was never written (the connection was already
 * gone), or undefined when the answer is not logged (a polling read, unless `logPolling`).
 */
export function logWhenOut(
  log: AccessLog,
  request: IncomingMessage,
  response: ServerResponse,
  started: number,
  answer: CoreResponse,
): (() => void) | undefined {
  if (answer.polling === true && !log.polling) return undefined
  let told = false
  const tell = (sent: boolean) => {
    if (told) return
    told = true
    const cut = { kind: 'cut', reason: 'the connection closed before the answer went out' } as const
    logLine(log, request, started, sent ? { status: answer.status } : cut, answer)
  }
  response.once('finish', () => {
    tell(true)
  })
  response.once('close', () => {
    tell(false)
  })
  return () => {
    tell(false)
  }
}

/**
 * One access log line: the status sent, or what happened instead (cut, aborted) and why, the
 * milliseconds, and in isolated mode whose data it was.
 */
export function logLine(
  log: AccessLog,
  request: IncomingMessage,
  started: number,
  outcome: { status: number } | { kind: 'cut' | 'aborted'; reason: string },
  answer?: CoreResponse,
): void {
  const tenant = answer?.tenant
  // Sent to the upstream: marked, with its contract violations; never the upstream's URL.
  const forwarded = answer?.forwarded
  const ms = Number((performance.now() - started).toFixed(1))
  const method = request.method ?? ''
  const target = request.url ?? ''
  if (log.json) {
    const fields =
      'status' in outcome
        ? { outcome: 'sent', status: outcome.status }
        : { outcome: outcome.kind, status: null, reason: outcome.reason }
    log.write(
      JSON.stringify({
        time: new Date().toISOString(),
        method,
        target,
        ...fields,
        ms,
        ...(tenant && { tenant: tenant.label }),
        ...(forwarded && {
          upstream: true,
          violations: forwarded.violations,
          ...(forwarded.more && { moreViolations: true }),
          ...(forwarded.unrecorded !== undefined && { unrecorded: forwarded.unrecorded }),
        }),
      }),
    )
    return
  }
  const { paint } = log
  const result =
    'status' in outcome
      ? paint(statusStyle(outcome.status), String(outcome.status))
      : paint('red', `${outcome.kind} (${outcome.reason})`)
  const whose = tenant === undefined ? '' : ` ${paint(hueStyle(tenant.hue), `[${tenant.label}]`)}`
  const where = forwarded === undefined ? '' : upstreamMark(forwarded, paint)
  log.write(`${method} ${target} ${result} ${paint('dim', `${ms.toFixed(1)} ms`)}${where}${whose}`)
}
