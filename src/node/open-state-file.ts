/**
 * `--state-file` at start: the lock taken, the file loaded into the sandbox with what its change
 * log adds (or written from the seed when missing), and its saver started: the committer
 * (state-commit.ts, `--state-save always`) or the interval saver (state-file.ts); every failure a
 * ServerStartError that says why.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { StateError } from '../core/api/store.js'
import type { SandboxCore } from '../core/sandbox.js'
import { changeLogOf, readChangeLog, removeChangeLog, type Replayed } from './change-log.js'
import { ServerStartError } from './server-options.js'
import { startCommitter, type Committer } from './state-commit.js'
import { readStateFile, resolveStateFile, startSaver, StateFileError, type StateFile } from './state-file.js'
import { lockStateFile, type StateFileLock } from './state-lock.js'

/** A saver, and with `always` the core's two hooks. */
export type KeptFile = StateFile & Partial<Pick<Committer, 'commit' | 'inserted'>>

const warn = (line: string) => {
  console.warn(`petstore-sandbox: ${line}`)
}

/** Opens the state file into the sandbox and saves it from then on; a new file is written at once. */
export async function keepStateFile(
  given: string,
  sandbox: SandboxCore,
  save: 'always' | 'interval',
): Promise<KeptFile> {
  const opened = await openStateFile(given, sandbox)
  const { persistence, limits } = sandbox
  try {
    if (save === 'always') {
      return await startCommitter({
        file: opened.file,
        lock: opened.lock,
        persistence,
        intervalMs: limits.stateSaveIntervalMs,
        loaded: opened.whole === undefined ? undefined : { ...opened.whole, revision: persistence.revision() },
        log: warn,
      })
    }
    // The interval saver keeps no log: one left by `always` is in the data now, and written below.
    if (opened.replayed) await removeChangeLog(opened.file).catch(() => undefined)
    const saver = startSaver({
      file: opened.file,
      lock: opened.lock,
      revision: () => persistence.revision(),
      chunks: () => persistence.chunks(),
      intervalMs: limits.stateSaveIntervalMs,
      ...(opened.whole !== undefined && { saved: persistence.revision() }),
      log: warn,
    })
    // A new file is written at once, from the seed; a loaded one is left as it is until a change.
    await saver.saveNow()
    return saver
  } catch (error) {
    opened.lock.release()
    if (error instanceof StateFileError) throw new ServerStartError(`${error.message}; the sandbox did not start`)
    throw new ServerStartError(`cannot write ${opened.file}: ${String(error)}; the sandbox did not start`)
  }
}

interface Opened {
  readonly file: string
  readonly lock: StateFileLock
  /** The file holds all the data loaded (no log added to it): its text's digest. */
  readonly whole: { readonly digest: string } | undefined
  /** A change log was read (its changes are in the data now, or it was set aside). */
  readonly replayed: boolean
}

/**
 * Takes the state file's lock and loads the file into the sandbox, when it exists, with the pets
 * its change log adds. A file or a log that is not valid refuses the start, naming every problem:
 * the seed is never used in its place.
 */
async function openStateFile(given: string, sandbox: SandboxCore): Promise<Opened> {
  let file: string
  let lock: StateFileLock
  try {
    file = await resolveStateFile(given)
    lock = await lockStateFile(file, { staleMs: sandbox.limits.stateLockStaleMs })
  } catch (error) {
    if (error instanceof StateFileError) throw new ServerStartError(error.message)
    throw error
  }
  try {
    const content = await readStateFile(file)
    if (content === undefined) {
      // No file: a log beside it follows a file that is gone, and adds to nothing.
      const log = await readChangeLog(file, '')
      if (log !== undefined) warn(`${changeLogOf(file)} follows no file: set aside (${given} is made from the seed)`)
      return { file, lock, whole: undefined, replayed: log !== undefined }
    }
    const log = await readChangeLog(file, content.digest)
    await sandbox.persistence.load(log === undefined ? content.value : withLog(content.value, log))
    if (log !== undefined) sayReplayed(file, log)
    const added = log !== undefined && log.pets.length > 0
    return { file, lock, whole: added ? undefined : { digest: content.digest }, replayed: log !== undefined }
  } catch (error) {
    lock.release()
    if (error instanceof StateFileError) throw new ServerStartError(`${error.message}; the sandbox did not start`)
    if (error instanceof StateError) {
      throw new ServerStartError(`${given} is not a valid state file: ${error.message}; the sandbox did not start`)
    }
    throw error
  }
}

/**
 * The file's document with the log's pets after its own, and the id sequence past them. A pet the
 * file holds already (its id) is not added twice. Anything but a document (the older `{pets,
 * nextId}` download holds the same two fields) is left to the load's checks, which name it.
 */
function withLog(value: unknown, log: Replayed): unknown {
  if (log.pets.length === 0 || typeof value !== 'object' || value === null || Array.isArray(value)) return value
  const document = value as { pets?: unknown; nextId?: unknown }
  if (!Array.isArray(document.pets)) return value
  const own: readonly unknown[] = document.pets
  const ids = new Set(own.map((pet) => (pet as { id?: unknown } | null)?.id))
  const added = log.pets.filter((pet) => !ids.has((pet as { id?: unknown } | null)?.id))
  const lastId = added.reduce<number>((highest, pet) => {
    const id = (pet as { id?: unknown } | null)?.id
    return typeof id === 'number' && id > highest ? id : highest
  }, 0)
  const nextId = typeof document.nextId === 'number' ? Math.max(document.nextId, lastId + 1) : document.nextId
  return { ...document, pets: [...own, ...added], nextId }
}

/** One line for what a log left by a crash held: what it added, what it dropped. */
function sayReplayed(file: string, log: Replayed): void {
  const log_ = changeLogOf(file)
  // A log with no change in it (a crash between two writes) is nothing to tell.
  if (log.pets.length === 0 && !log.torn && (log.stale ?? 0) === 0) return
  if (log.stale !== undefined) {
    warn(
      `${log_} follows another text of ${file} than the one there now (a whole save after it, or the file replaced): its ${log.stale} change${log.stale === 1 ? '' : 's'} not applied, and the log set aside`,
    )
    return
  }
  const kept = `${log.pets.length} change${log.pets.length === 1 ? '' : 's'} since the last whole save kept`
  warn(
    log.torn
      ? `${log_} ended in a torn change, as a crash leaves one: 1 change that was never acknowledged dropped, ${kept}`
      : `${log_}: ${kept}`,
  )
}
