/**
 * `--state-file FILE`: the data kept on disk across restarts. Node's part only: the lock that
 * keeps a second process off the file, reading it, and writing it so that a crash (or `kill -9`)
 * at any moment leaves the previous file whole. What goes in the file and how it is checked is
 * the core's (src/core/admin/persisted.ts); when to save is decided here, at most once per
 * `stateSaveIntervalMs`, from the core's limits.
 *
 * May import: node:*, the core, the other files here. Never msw.
 */
import { closeSync, constants, fstatSync, openSync, readSync, rmSync, type Stats } from 'node:fs'
import { link, lstat, mkdir, open, readdir, realpath, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import { readJson } from '../core/http/json.js'

/** Thrown when the file cannot be used: locked by another process, unreadable, or not JSON. */
export class StateFileError extends Error {
  override readonly name = 'StateFileError'
}

/** What health says of the file. */
export interface StateFileStatus {
  readonly file: string
  /** When the file was last written whole; null before the first save. */
  readonly savedAt: string | null
  /** Why the last save failed, until one succeeds again. */
  readonly error: string | null
}

export interface StateFile {
  /** Saves now when the data moved since the last save (the first save of a new file). */
  saveNow(): Promise<void>
  status(): StateFileStatus
  /** Saves what is pending now, stops saving, and gives the lock back; false when that last save failed. */
  close(): Promise<boolean>
  /**
   * Stops saving at once and gives the lock back, saving nothing (a second Ctrl-C): says whether
   * the file misses changes (a save was pending or under way), and when it was last saved whole.
   */
  abandon(): { readonly file: string; readonly unsaved: boolean; readonly savedAt: string | null }
}

/**
 * The file a path names, links followed: the lock must guard the file itself, and a save must
 * replace the file, not a link to it. An empty name was refused with the other options
 * (core/options.ts stateFileProblem).
 */
export async function resolveStateFile(file: string): Promise<string> {
  const whole = await realpath(file).catch(() => undefined)
  // At once, before the lock: reading a FIFO would wait forever, and a folder cannot be replaced.
  // Asked of the path itself too: /dev/stdin leads to a pipe that has no real path.
  const kind = await stat(whole ?? file).then(notAFile, () => undefined)
  if (kind !== undefined) {
    throw new StateFileError(
      `--state-file ${file} is ${kind}, not a regular file: give the path of a file (made when missing)`,
    )
  }
  if (whole !== undefined) return whole
  // Not there yet: its folder's real path, when the folder exists.
  const folder = await realpath(dirname(file)).catch(() => dirname(resolve(file)))
  return join(folder, basename(file))
}

/** The lock beside the file: it holds the pid of the process that uses the file. */
export function lockPathOf(file: string): string {
  return `${file}.lock`
}

/**
 * Takes the file's lock, or says who holds it. The lock appears whole or not at all: the pid is
 * written to a file of this process's own, then linked into place, and a link fails when the lock
 * exists. A lock whose process is gone (a crash, `kill -9`) is moved aside, which only one of
 * two racing processes can do, and taken again. Answers the lock's own checks and its release.
 *
 * Kept rather than proper-lockfile 4.1.2 (issue 29), measured on Node 20.20.2, a 2-core AMD EPYC
 * VM, ext4: a lock and its release take 0.71 ms here against 0.55 ms (medians of 500,
 * interleaved), once per start. But its lock is a directory whose mtime a timer keeps fresh, and
 * a holder killed with `kill -9` keeps the file from the next start until the mtime is stale:
 * refused at once (ELOCKED), taken after 5.6 s when retried with its shortest staleness (5 s;
 * 10 s by default), where this one, which asks whether the holder's pid still lives, took it in
 * 4.8 ms. It names no holder either (the message here says which process to stop), and with
 * graceful-fs, retry and signal-exit it is 244 KB on disk, in a CLI bundle the architecture test
 * holds to commander, pure-rand and zod. (A one-off script, with proper-lockfile and
 * write-file-atomic installed outside the project, timed dist/src/node/state-file.js.)
 */
export async function lockStateFile(file: string): Promise<StateFileLock> {
  const lock = lockPathOf(file)
  const mine = `${lock}.${process.pid}.${randomBytes(4).toString('hex')}`
  // Only a file is a lock: anything else at its path is the user's, refused and never moved aside.
  const refuseOther = async () => {
    const kind = await lstat(lock).then(notAFile, () => undefined)
    if (kind !== undefined) {
      throw new StateFileError(
        `cannot lock ${file}: ${lock} is ${kind}, not a lock file; move it away, or give another --state-file`,
      )
    }
  }
  await refuseOther()
  await mkdir(dirname(file), { recursive: true }).catch(() => undefined)
  try {
    await writeFile(mine, `${process.pid}\n`)
  } catch (error) {
    throw new StateFileError(`cannot lock ${file} (${lock}): ${describe(error)}`)
  }
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await link(mine, lock)
        await removeLeftovers(file)
        return lockOf(lock)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new StateFileError(`cannot lock ${file} (${lock}): ${describe(error)}`)
        }
      }
      const holder = readLockPid(lock)
      if (holder === process.pid) {
        throw new StateFileError(`${file} is in use by this process already: one sandbox per state file`)
      }
      if (holder !== undefined && isAlive(holder)) {
        throw new StateFileError(
          `${file} is in use by process ${holder} (its lock is ${lock}): stop that sandbox first, or give this one another --state-file; if process ${holder} is no sandbox, delete ${lock}`,
        )
      }
      // Its process is gone: moved aside, by one process only, then taken.
      await refuseOther()
      await rename(lock, `${lock}.stale.${process.pid}.${randomBytes(4).toString('hex')}`).catch(() => undefined)
      await removeStale(lock)
    }
    throw new StateFileError(`cannot lock ${file}: other processes keep taking ${lock}`)
  } finally {
    await rm(mine, { force: true })
  }
}

/** The lock a server holds while it saves. */
export interface StateFileLock {
  /** False only when another process holds the lock now; takes it again when it is gone (its folder was removed and made again). */
  holds(): Promise<boolean>
  release(): void
}

function lockOf(lock: string): StateFileLock {
  return {
    async holds() {
      const holder = readLockPid(lock)
      if (holder !== undefined) return holder === process.pid
      // Gone with its folder: taken again when the folder is back; until then the save itself fails and says why.
      await writeFile(lock, `${process.pid}\n`, { flag: 'wx' }).catch(() => undefined)
      const now = readLockPid(lock)
      return now === undefined || now === process.pid
    },
    release() {
      // Only our own lock: a process that took over a lock it believed stale keeps its own.
      if (readLockPid(lock) === process.pid) rmSync(lock, { force: true })
    },
  }
}

/** Locks moved aside by takeovers. */
async function removeStale(lock: string): Promise<void> {
  const prefix = `${basename(lock)}.stale.`
  const names = await readdir(dirname(lock)).catch(() => [])
  await Promise.all(
    names.filter((name) => name.startsWith(prefix)).map((name) => rm(join(dirname(lock), name), { force: true })),
  )
}

/** Temporary files of saves a crash cut short: with the lock held, no one else is writing them. */
async function removeLeftovers(file: string): Promise<void> {
  const prefix = `.${basename(file)}.`
  const names = await readdir(dirname(file)).catch(() => [])
  await Promise.all(
    names
      .filter((name) => name.startsWith(prefix) && name.endsWith('.tmp'))
      .map((name) => rm(join(dirname(file), name), { force: true })),
  )
}

/**
 * The pid in a lock file; undefined when there is none. Opened without blocking and read only
 * when it is a file: a FIFO put in its place must not hold the process.
 */
function readLockPid(lock: string): number | undefined {
  let descriptor: number | undefined
  try {
    descriptor = openSync(lock, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW)
    if (!fstatSync(descriptor).isFile()) return undefined
    const buffer = Buffer.alloc(32)
    const pid = Number(buffer.toString('utf8', 0, readSync(descriptor, buffer)).trim())
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  } finally {
    if (descriptor !== undefined) closeSync(descriptor)
  }
}

/** What a path is when it is not a regular file ("a directory", "a FIFO"...); undefined for a file. */
function notAFile(found: Stats): string | undefined {
  if (found.isFile()) return undefined
  if (found.isDirectory()) return 'a directory'
  if (found.isFIFO()) return 'a FIFO (named pipe)'
  if (found.isSocket()) return 'a socket'
  if (found.isCharacterDevice() || found.isBlockDevice()) return 'a device'
  if (found.isSymbolicLink()) return 'a symbolic link'
  return 'not a regular file'
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * The file's JSON value, read by the same reader as request bodies (no duplicate keys, numbers
 * kept exact); undefined when there is no file yet.
 */
export async function readStateFile(file: string): Promise<unknown> {
  let text: string
  try {
    // Without blocking, and checked once open: a FIFO swapped in after the start's check would hang here.
    const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK)
    try {
      const kind = notAFile(await handle.stat())
      if (kind !== undefined) throw new StateFileError(`cannot read ${file}: it is ${kind}, not a regular file`)
      text = await handle.readFile('utf8')
    } finally {
      await handle.close()
    }
  } catch (error) {
    if (error instanceof StateFileError) throw error
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new StateFileError(`cannot read ${file}: ${describe(error)}`)
  }
  const read = readJson(text, `state file ${file}`)
  if (!read.ok) throw new StateFileError(read.problems.join('; '))
  return read.value
}

/**
 * Writes the pieces to a temporary file in the same folder, flushes it to the disk, then renames
 * it over the file: a reader, or a crash, sees the old file or the new one, never a part. The new
 * file keeps the old one's permissions.
 *
 * Kept rather than write-file-atomic 7.0.1 (issue 29), measured on Node 20.20.2, a 2-core AMD EPYC
 * VM, ext4, with a 5.19 MiB state (85,000 generated pets in the core's 23 chunks), 60 interleaved
 * rounds: 17.2 ms median (p90 24.5 ms) here, against 40.0 ms (p90 51.6 ms) for write-file-atomic,
 * which takes the whole text, so the chunks are joined first (a second copy of the file in
 * memory); given text already joined, 15.6 ms (p90 26.7 ms): the same as this one, within the noise.
 * It syncs the file but not the folder, whose sync makes the rename itself last, and with
 * signal-exit it is 216 KB on disk, for the same bundle.
 */
export async function writeAtomically(file: string, chunks: AsyncIterable<string> | Iterable<string>): Promise<void> {
  const temporary = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  const mode = await stat(file).then(
    (found) => found.mode & 0o777,
    () => undefined,
  )
  try {
    const handle = await open(temporary, 'w', mode)
    try {
      for await (const chunk of chunks) await handle.write(chunk)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temporary, file)
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined)
    throw error
  }
  await syncFolder(dirname(file))
}

/** The rename itself reaches the disk only with the folder: best effort (some systems refuse it). */
async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r')
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  } catch {
    // Not every file system lets a folder be synced.
  }
}

export interface SaverOptions {
  readonly file: string
  readonly lock: StateFileLock
  /** Moves on every change of what the file keeps (the core's Persistence.revision). */
  readonly revision: () => number
  /** The file's text now, in pieces. */
  readonly chunks: () => AsyncIterable<string>
  /** At most one save per this many ms (the `stateSaveIntervalMs` limit). */
  readonly intervalMs: number
  /** The revision the file already holds (loaded at start): no save until it moves. */
  readonly saved?: number
  /** Says a failure once per streak of failures, and the recovery. */
  readonly log: (line: string) => void
}

/** Failed saves wait longer each time, up to this: a disk that stays full is not hammered. */
const MAX_RETRY_MS = 30_000

/**
 * Saves after changes, at most once per interval, and once more at close. It looks at the
 * revision once per interval (a number compared: nothing on the request path). A failed save (a
 * full disk, a folder gone read-only) is logged once, kept in the status and tried again later,
 * waiting longer each time up to 30 s; the API never waits for a save, and never fails because
 * of one. Before each save it checks that the lock is still its own.
 */
export function startSaver(options: SaverOptions): StateFile {
  const { file, intervalMs, log, lock } = options
  let savedAt: string | null = null
  let error: string | null = null
  let saved = options.saved ?? Number.NaN
  let saving: Promise<void> | undefined
  let closed = false
  let failures = 0
  let nextTry = 0

  const save = async (): Promise<void> => {
    if (options.revision() === saved) return
    try {
      if (!(await lock.holds())) {
        throw new StateFileError(`another process holds ${lockPathOf(file)} now: not saving over its file`)
      }
      // Read with the chunks, in one turn: the revision saved is the one the file holds.
      const revision = options.revision()
      await writeAtomically(file, options.chunks())
      saved = revision
      savedAt = new Date().toISOString()
      if (error !== null) log(`saved ${file} again`)
      error = null
      failures = 0
    } catch (failure) {
      failures++
      nextTry = Date.now() + Math.min(MAX_RETRY_MS, intervalMs * 2 ** Math.min(failures, 15))
      if (error === null) {
        log(
          `cannot save ${file}: ${describe(failure)}; the API goes on, and saving is tried again, less and less often`,
        )
      }
      error = describe(failure)
    }
  }
  // One save at a time, whoever asks: two saves at once could finish out of order and leave an
  // older state in the file, or mark a newer change saved.
  const saveInTurn = async (): Promise<void> => {
    while (saving !== undefined) await saving
    saving = save().finally(() => {
      saving = undefined
    })
    await saving
  }
  // A tick that finds a save running, or a retry not yet due, waits for the next.
  const tick = () => {
    if (saving !== undefined || closed || Date.now() < nextTry) return
    void saveInTurn()
  }
  const timer = setInterval(tick, intervalMs)
  // The timer alone does not keep a process alive: close() saves what is pending.
  timer.unref()

  return {
    saveNow: saveInTurn,
    status: () => ({ file, savedAt, error }),
    async close() {
      closed = true
      clearInterval(timer)
      await saveInTurn()
      if (error !== null) log(`cannot save ${file} at shutdown: ${error}`)
      lock.release()
      return error === null
    },
    abandon() {
      closed = true
      clearInterval(timer)
      // A save under way may not finish before the exit: its changes count as unsaved.
      const unsaved = saving !== undefined || options.revision() !== saved
      lock.release()
      return { file, unsaved, savedAt }
    },
  }
}

function describe(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException
  return code === undefined ? message : `${code} (${message.replace(/^[A-Z]+: /, '')})`
}
