/**
 * The serve command's work: the flags as startServer's options, the fixtures file read (and
 * watched), the server started, the banner printed, and a clean close on Ctrl-C, SIGTERM or
 * SIGHUP, or when the npx that started it is gone. All real work is in startServer().
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import type { Command } from 'commander'
import type { Pet } from '../core/api/contract.js'
import { flagsProblem } from '../core/options.js'
import { printBanner } from './banner.js'
import { FixturesFileError, readFixturesFile, watchFixturesFile } from './fixtures-file.js'
import type { ServeFlags } from './flags.js'
import { watchParent } from './parent-watch.js'
import type { Abandoned, RunningServer, ServerOptions } from './server-options.js'
import { startServer } from './start-server.js'
import { paintFor, plain, type Paint } from './terminal.js'

/**
 * Starts the server the flags describe, prints the banner, and closes it on a signal. Resolves
 * once the server is listening. `command` is the one that parsed the flags: it says where each
 * value came from, and reports a usage error.
 */
export async function runServe(flags: ServeFlags, command: Command): Promise<RunningServer> {
  const problem = flagsProblem(flags)
  if (problem !== undefined) command.error(`error: ${problem}`)
  const fixtures = flags.fixtures === undefined ? undefined : await loadFixtures(flags.fixtures)
  const paint = paintFor(process.stdout)
  let server: RunningServer
  try {
    server = await startServer(serverOptionsOf(flags, command, fixtures, paint))
  } catch (error) {
    return fail((error as Error).message)
  }
  const stopWatching = watchFixtures(server, flags)
  // Signal handlers first: whoever reads the banner may signal at once (a pipe write is synchronous).
  closeOnSignals(server, stopWatching, server.sandbox.limits.shutdownTimeoutMs)
  await printBanner(server, flags, paint)
  return server
}

function log(line: string): void {
  console.log(line)
}

/** startServer's options, from the flags and where they came from (a flag, a variable, a default). */
function serverOptionsOf(
  flags: ServeFlags,
  command: Command,
  fixtures: readonly Pet[] | undefined,
  paint: Paint,
): ServerOptions {
  // Nothing forwarded (`none`) needs no upstream: it is what the sandbox does without one.
  const forward = flags.forward === 'all' || (flags.forward?.length ?? 0) > 0 ? flags.forward : undefined
  return {
    port: flags.port,
    host: flags.host,
    ...(flags.apiKey && { apiKeys: flags.apiKey }),
    ...(fixtures && { fixtures }),
    ...(flags.generate !== undefined && { generate: flags.generate }),
    ...(flags.isolate === true && { isolate: true }),
    ...(flags.apiKeyPattern && { apiKeyPattern: flags.apiKeyPattern }),
    ...(flags.delay !== undefined && { delay: flags.delay }),
    ...(flags.failureRate !== undefined && { failureRate: flags.failureRate }),
    ...(flags.randomSeed !== undefined && { randomSeed: flags.randomSeed }),
    ...(flags.now !== undefined && { now: flags.now }),
    ...(flags.journalLimit !== undefined && { journalLimit: flags.journalLimit }),
    ...(flags.maxTenants !== undefined && { maxTenants: flags.maxTenants }),
    ...(flags.maxCreatedPets !== undefined && { maxCreatedPets: flags.maxCreatedPets }),
    ...(flags.allowedHost && {
      allowedHosts: flags.allowedHost.includes('all') ? ('all' as const) : flags.allowedHost,
    }),
    ...(flags.corsOrigin && { corsOrigins: flags.corsOrigin }),
    // --shutdown-timeout wins when given; else --limit shutdownTimeoutMs=, else the default.
    shutdownTimeoutMs:
      command.getOptionValueSource('shutdownTimeout') === 'default'
        ? (flags.limit?.shutdownTimeoutMs ?? flags.shutdownTimeout)
        : flags.shutdownTimeout,
    ...(flags.limit && { limits: flags.limit }),
    ...(flags.trustProxy === true && { trustProxy: true }),
    // An empty PETSTORE_STATE_FILE is unset, as for every variable; an empty --state-file is refused.
    ...(flags.stateFile !== undefined &&
      !(flags.stateFile === '' && command.getOptionValueSource('stateFile') === 'env') && {
        stateFile: flags.stateFile,
      }),
    // Checked by the options' schema: a word it does not know is named there.
    ...(flags.stateSave !== undefined &&
      !(flags.stateSave === '' && command.getOptionValueSource('stateSave') === 'env') && {
        stateSave: flags.stateSave as 'always' | 'interval',
      }),
    ...(flags.upstream !== undefined && { upstream: flags.upstream }),
    ...(forward !== undefined && { forward }),
    ...(flags.upstreamKey !== undefined && { upstreamKey: flags.upstreamKey }),
    ...(flags.record === true && { record: true }),
    ...(!flags.quiet && {
      log,
      logPolling: flags.log?.includes('admin') === true,
      logFormat: flags.log?.includes('json') === true ? ('json' as const) : ('text' as const),
      logColors: paint !== plain,
    }),
  }
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

/** With --watch, a change of the fixtures file reseeds the sandbox. Returns what stops watching. */
function watchFixtures(server: RunningServer, flags: ServeFlags): () => void {
  const { fixtures } = flags
  if (flags.watch !== true || fixtures === undefined) return () => undefined
  return watchFixturesFile(
    fixtures,
    async (pets) => {
      await server.sandbox.reseed(pets)
      log(`Reloaded ${fixtures}: ${pets.length} pets; the data is reset to them.`)
    },
    (error) => {
      console.error(`petstore-sandbox: kept the previous seed: ${error.message}`)
    },
  )
}

/** The lines a second signal prints: what was cut, and the state file's fate. */
export function describeAbandon(signal: NodeJS.Signals, abandoned: Abandoned): string {
  const { inFlight, stateFile } = abandoned
  const cut =
    inFlight === 0
      ? `Stopped at once (${signal} again): no request was in flight.`
      : `Stopped at once (${signal} again): ${inFlight} request${inFlight === 1 ? ' was' : 's were'} cut without an answer.`
  if (stateFile === undefined) return cut
  const since = stateFile.savedAt === null ? 'since the start' : `since its last save at ${stateFile.savedAt}`
  const state = stateFile.unsaved
    ? `The state file ${stateFile.file} was NOT saved: the changes ${since} are lost. Its lock is released.`
    : `The state file ${stateFile.file} holds every change (saved ${stateFile.savedAt ?? 'at the start'}). Its lock is released.`
  return `${cut}\n${state}`
}

/** Exit codes for a second signal, as a shell reports a process killed by it: 128 + its number. */
const SIGNAL_EXIT_CODES: Readonly<Record<string, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 }

/**
 * Stops the server gracefully on SIGINT, SIGTERM or SIGHUP, and when the npx that started it is
 * gone (parent-watch.ts); a second signal stops it at once.
 */
function closeOnSignals(server: RunningServer, stopWatching: () => void, shutdownTimeoutMs: number): void {
  let closing = false
  const begin = (reason: string, signalled: boolean) => {
    closing = true
    stopWatching()
    stopWatchingParent()
    const inFlight = server.inFlight()
    console.log(
      inFlight === 0
        ? `Stopping (${reason}).`
        : `Stopping (${reason}): letting ${inFlight} request${inFlight === 1 ? '' : 's'} in flight finish, for up to ${shutdownTimeoutMs} ms.${signalled ? ' Press Ctrl-C again to stop at once.' : ''}`,
    )
    void server.close().then(async () => {
      // A state file whose last save failed: the data since the last good save is lost, and the exit says so.
      const lost = (await server.sandbox.health()).stateFile?.error ?? null
      console.log(`Stopped (${reason}).`)
      process.exit(lost === null ? 0 : 1)
    })
  }
  const stop = (signal: NodeJS.Signals) => {
    // A second signal means "now": no more waiting for requests in flight. What that cuts, and
    // whether the state file misses changes, is said before the exit; its lock is given back.
    if (closing) {
      console.error(describeAbandon(signal, server.abandon()))
      process.exit(SIGNAL_EXIT_CODES[signal] ?? 1)
    }
    begin(signal, true)
  }
  const stopWatchingParent = watchParent({
    everyMs: server.sandbox.limits.parentWatchMs,
    onGone: (who) => {
      // Whoever read the output may be gone with npx: a write to a closed pipe must not end the
      // process before the state file's last save.
      for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined)
      begin(`${who} is gone`, false)
    },
  })
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  // A closed terminal: stopped as gracefully, so a state file gets its last save.
  process.on('SIGHUP', stop)
}
