/**
 * startServer(): the sandbox as a node:http server, wired in order, each part in a file of its own:
 *
 *   options     checked by the core's one options schema, then their defaults   server-options.ts
 *   sandbox     the core, with what the server shares with its health
 *   state file  locked and loaded, or written from the seed (`stateFile`)     open-state-file.ts
 *   adapter     what every request's handling shares: the access log, the requests in flight,
 *               what each connection owes     access-log.ts, shutdown.ts, connections.ts
 *   server      node:http, its timeouts and cap, its events handed over         http-server.ts
 *   listen      or the state file given back and a ServerStartError
 *   running     its URLs, its sandbox, close() (a bounded shutdown)             shutdown.ts
 *
 * A request's own way (head, body, the core, write, log, close) is listener.ts's. No msw, no
 * Fetch objects and no framework on the way: the adapter reads, writes and logs, and never
 * decides. It owns only what Node forces on it: sockets and their errors, backpressure, timeouts
 * and the connection cap, with every number from the core's limits table.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { once } from 'node:events'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createNotices, type Notices } from '../core/admin/notices.js'
import { DEFAULT_BASE_PATH } from '../core/http/base-url.js'
import type { Pet } from '../core/api/contract.js'
import { LIMITS } from '../core/limits.js'
import { checkServerOptions, stateFileProblem } from '../core/options.js'
import { createSandboxCore, type SandboxCore } from '../core/sandbox.js'
import { accessLogOf } from './access-log.js'
import { createAssets } from './assets.js'
import { createSocketTracker } from './connections.js'
import { createNodeServer } from './http-server.js'
import type { Adapter } from './listener.js'
import { keepStateFile, type KeptFile } from './open-state-file.js'
import { packageVersion } from './package-files.js'
import {
  ServerStartError,
  withDefaults,
  type RunningServer,
  type ServerOptions,
  type Settings,
} from './server-options.js'
import { createFlight, shutDown } from './shutdown.js'
import type { StateFile } from './state-file.js'
import { createUpstream } from './upstream-transport.js'

/**
 * Starts the sandbox as an HTTP server.
 *
 * @example
 * const server = await startServer({ port: 0 })
 * await fetch(`${server.apiUrl}/pets`, { headers: { Authorization: 'Bearer petstore-sandbox-key' } })
 * await server.close()
 */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  checkServerOptions(options)
  const refused = stateFileProblem(options)
  if (refused !== undefined) throw new ServerStartError(refused)
  const settings = withDefaults(options)
  const hosted = createHostedSandbox(settings)
  const { kept } = hosted
  if (settings.stateFile !== undefined) {
    kept.saver = await keepStateFile(settings.stateFile, hosted.sandbox, settings.stateSave)
  }
  const adapter = createAdapter(hosted, settings)
  const server = createNodeServer(adapter, hosted.connections)
  await listen(server, settings, kept.saver)
  return running(server, adapter, kept.saver, settings.shutdownTimeoutMs)
}

/** The sandbox as the server hosts it: with what the adapter and the sandbox's health share. */
interface HostedSandbox {
  readonly sandbox: SandboxCore
  readonly notices: Notices
  /** Connections open now: health shows them beside the connections limit. */
  readonly connections: { open: number }
  /** The state file's saver, once the file is open; health asks for its status before that too. */
  readonly kept: { saver?: KeptFile }
}

function createHostedSandbox(settings: Settings): HostedSandbox {
  const { sandbox: sandboxOptions, stateFile, stateSave, shutdownTimeoutMs } = settings
  const forwardTo = createUpstream(settings.upstream)
  // One summariser for the core's notices (evictions, overflows) and the adapter's own (clients
  // gone, connections refused), so each kind shares one window. Its window is checked by the core.
  const notices = createNotices((line) => {
    console.warn(`petstore-sandbox: ${line}`)
  }, sandboxOptions.limits?.noticeWindowMs ?? LIMITS.noticeWindowMs.value)
  const connections = { open: 0 }
  const kept: HostedSandbox['kept'] = {}
  const sandbox = createSandboxCore(
    { ...sandboxOptions, limits: { ...sandboxOptions.limits, shutdownTimeoutMs }, version: packageVersion() },
    {
      surface: 'server',
      assets: createAssets(),
      allowedHosts: settings.allowedHosts,
      corsOrigins: settings.corsOrigins,
      trustProxy: settings.trustProxy,
      usage: () => ({ connections: connections.open }),
      notices,
      accessLog: settings.log !== undefined,
      ...(forwardTo !== undefined && { upstream: forwardTo }),
      ...(stateFile !== undefined && {
        stateFile: () =>
          kept.saver?.status() ?? {
            file: stateFile,
            savedAt: null,
            error: null,
            save: stateSave,
            flushes: 0,
            flushedChanges: 0,
          },
      }),
      // Every change on disk before its answer: the core asks (its commit stages), the file's committer answers.
      ...(stateFile !== undefined &&
        stateSave === 'always' && {
          inserted: (pet: Pet, revision: number) => {
            kept.saver?.inserted?.(pet, revision)
          },
          commit: (revision: number) => kept.saver?.commit?.(revision) ?? Promise.resolve(),
        }),
    },
  )
  return { sandbox, notices, connections, kept }
}

function createAdapter(hosted: HostedSandbox, settings: Settings): Adapter {
  return {
    sandbox: hosted.sandbox,
    limits: hosted.sandbox.limits,
    notices: hosted.notices,
    log: accessLogOf(settings),
    flight: createFlight(),
    sockets: createSocketTracker(),
    timedOut: new WeakSet(),
  }
}

/** Listens, or gives the state file back and says why it cannot. */
async function listen(server: Server, settings: Settings, saver: StateFile | undefined): Promise<void> {
  const { port, host } = settings
  try {
    server.listen(port, host)
    await once(server, 'listening')
  } catch (error) {
    await saver?.close()
    throw new ServerStartError(describeListenError(error, host, port), { cause: error })
  }
}

/** The running server as startServer answers it: its URLs, its sandbox, and close(). */
function running(
  server: Server,
  adapter: Adapter,
  saver: StateFile | undefined,
  shutdownTimeoutMs: number,
): RunningServer {
  const address = server.address() as AddressInfo
  // A wildcard address is no place a browser can open: this machine reaches it on loopback.
  const near = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address
  const url = `http://${near.includes(':') ? `[${near}]` : near}:${address.port}`
  let closed: Promise<void> | undefined
  return {
    url,
    apiUrl: `${url}${DEFAULT_BASE_PATH}`,
    sandbox: adapter.sandbox,
    inFlight: () => adapter.flight.count(),
    close: () =>
      (closed ??= shutDown(server, adapter, shutdownTimeoutMs).then(async () => {
        // The last changes, then the lock (close gives it back): another process may take the file from here.
        await saver?.close()
      })),
    abandon: () => ({
      inFlight: adapter.flight.count(),
      ...(saver !== undefined && { stateFile: saver.abandon() }),
    }),
  }
}

function describeListenError(error: unknown, host: string, port: number): string {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'EADDRINUSE')
    return `Port ${port} on ${host} is already in use. Choose another port, or 0 for a free one.`
  if (code === 'EADDRNOTAVAIL') return `Cannot bind to ${host}: no such address on this machine.`
  if (code === 'EACCES') return `Not allowed to listen on port ${port}. Use a port above 1023.`
  return `Failed to listen on ${host}:${port}: ${(error as Error).message}`
}
