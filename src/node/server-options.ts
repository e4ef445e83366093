/**
 * What startServer() takes and gives: its options and their defaults, the running server, and
 * the error it throws when it cannot start.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { LIMITS } from '../core/limits.js'
import type { SandboxCore, SandboxOptions } from '../core/sandbox.js'
import type { UpstreamOptions } from './upstream-transport.js'

export const DEFAULT_HOST = '127.0.0.1'
export const DEFAULT_PORT = 3210

export interface ServerOptions extends Omit<SandboxOptions, 'baseUrl' | 'version'>, UpstreamOptions {
  /** Port to listen on; 0 picks a free one. Default: 0. */
  port?: number
  /** Interface to bind. Default: 127.0.0.1, reachable from this machine only. */
  host?: string
  /**
   * Host names answered besides local names (`localhost`, `*.localhost`) and IP addresses, against
   * DNS rebinding: `mybox.lan`, or `.example.com` for it and its subdomains; `all` turns the check off.
   */
  allowedHosts?: readonly string[] | 'all'
  /** Origins whose pages may call the API besides local ones (`*`: any). The admin routes stay local. */
  corsOrigins?: readonly string[]
  /** How long close() lets requests in flight finish before cutting them, in ms. Default: 5000. Same as `limits.shutdownTimeoutMs`. */
  shutdownTimeoutMs?: number
  /**
   * Behind a proxy that terminates TLS: believe its `Forwarded` or `X-Forwarded-Proto`/`-Host`
   * headers for the server's own origin (the admin routes' Origin rule) and check the forwarded
   * host against the Host rule. Off by default: without a proxy, any client could send them.
   */
  trustProxy?: boolean
  /**
   * Receives one access log line per request once its outcome is known: the status sent, or
   * `cut` / `aborted` with the reason when no answer went out, and the milliseconds. Default: none.
   */
  log?: (line: string) => void
  /** Log the admin routes' and the site's successful reads too (a dashboard polls them). Default: false. */
  logPolling?: boolean
  /** `text` (`GET /v1/pets 200 1.4 ms`) or `json` (one object per line, for tools). Default: `text`. */
  logFormat?: 'text' | 'json'
  /** Terminal colours in `text` lines: the status by class, the tenant by its hue. The CLI sets it on a TTY. Default: false. */
  logColors?: boolean
  /**
   * Keep the data and its checkpoints in this file across restarts: loaded at start (created from
   * the seed when missing; a bad file refuses to start), every change on disk before its answer
   * (`stateSave`), and written whole at close. A second server on the same file refuses to start.
   * Not with `isolate`.
   */
  stateFile?: string
  /**
   * When the state file is written. `always`: every change is on disk before its answer goes out,
   * created pets appended to a change log beside it (`FILE.changes`, flushed once for the writes
   * that arrive together) and folded into the file once per `stateSaveIntervalMs`. `interval`: the
   * file is written at most once per `stateSaveIntervalMs` after changes, and at close; faster, but
   * a crash loses the changes since the last save, answered or not. Default: `always`.
   */
  stateSave?: 'always' | 'interval'
}

export interface RunningServer {
  /**
   * The server's origin as this machine reaches it, e.g. `http://127.0.0.1:3210`; listening on
   * 0.0.0.0 or `::`, the loopback address (`http://127.0.0.1:3210`, `http://[::1]:3210`).
   */
  readonly url: string
  /** Where the API lives, e.g. `http://127.0.0.1:3210/v1`. */
  readonly apiUrl: string
  /** The sandbox behind the server: its data and controls. */
  readonly sandbox: SandboxCore
  /** How many requests are being answered now. */
  inFlight(): number
  /**
   * Stops accepting connections, lets the requests in flight (delayed ones included) finish
   * within `shutdownTimeoutMs`, then cuts what is left and ends pending delays. Calling it
   * again returns the same promise.
   */
  close(): Promise<void>
  /**
   * For an exit right now (a second Ctrl-C): what would be cut, the requests in flight, and the
   * state file's lock given back without a save, with whether the file misses changes. The
   * process is expected to exit next; the server is not closed.
   */
  abandon(): Abandoned
}

/** What `abandon()` leaves behind. */
export interface Abandoned {
  readonly inFlight: number
  /** With --state-file: whether it misses changes, and when it was last saved whole. */
  readonly stateFile?: { readonly file: string; readonly unsaved: boolean; readonly savedAt: string | null }
}

/** Thrown when the server cannot start: the port is taken, say, or the state file cannot be used. */
export class ServerStartError extends Error {
  override readonly name = 'ServerStartError'
}

export const DEFAULT_SHUTDOWN_TIMEOUT_MS = LIMITS.shutdownTimeoutMs.value

/** startServer's own options with their defaults, and the sandbox's, passed on as they are. */
export function withDefaults(options: ServerOptions) {
  const {
    port = 0,
    host = DEFAULT_HOST,
    log,
    logPolling = false,
    logFormat = 'text',
    logColors = false,
    allowedHosts = [],
    corsOrigins = [],
    trustProxy = false,
    shutdownTimeoutMs = options.limits?.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS,
    upstream,
    forward,
    upstreamKey,
    record,
    stateFile,
    stateSave = 'always',
    ...sandbox
  } = options
  return {
    port,
    host,
    log,
    logPolling,
    logFormat,
    logColors,
    allowedHosts,
    corsOrigins,
    trustProxy,
    shutdownTimeoutMs,
    upstream: { upstream, forward, upstreamKey, record },
    stateFile,
    stateSave,
    sandbox,
  }
}

export type Settings = ReturnType<typeof withDefaults>
