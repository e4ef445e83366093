/**
 * `--state-file FILE`: the data kept on disk across restarts. Node's part only: reading it, and
 * writing it so that a crash (or `kill -9`) at any moment leaves the previous file whole (the lock
 * that keeps a second process off the file is state-lock.ts). What goes in the file and how it is checked is
 * the core's (src/core/admin/persisted.ts); when to save is decided here, at most once per
 * `stateSaveIntervalMs`, from the core's limits.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { constants, type Stats } from 'node:fs'
import { lstat, open, readlink, realpath, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { createHash, randomBytes, type Hash } from 'node:crypto'
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
  /** `--state-save`: every change before its answer, or at most once per interval. */
  readonly save: 'always' | 'interval'
  /** `always`: the change log's flushes since the start, and the changes they held. */
  readonly flushes: number
  readonly flushedChanges: number
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
  // Not there yet: the file a dangling link names (made there, so the link keeps naming it), or
  // the path itself; then its folder's real path, when the folder exists.
  const named = (await danglingTarget(file)) ?? resolve(file)
  const folder = await realpath(dirname(named)).catch(() => dirname(named))
  return join(folder, basename(named))
}

/** Links followed by hand, as the kernel's own limit (ELOOP past 40). */
const MAX_LINKS = 40

/**
 * Where a chain of symbolic links ends when its last target does not exist yet (realpath fails on
 * it): that path, absolute. Undefined when `file` is no link.
 */
async function danglingTarget(file: string): Promise<string | undefined> {
  let current = resolve(file)
  for (let hop = 0; hop <= MAX_LINKS; hop++) {
    const found = await lstat(current).catch(() => undefined)
    if (found === undefined) return hop === 0 ? undefined : current
    if (!found.isSymbolicLink()) return undefined
    current = resolve(dirname(current), await readlink(current))
  }
  throw new StateFileError(`--state-file ${file}: more than ${MAX_LINKS} symbolic links in a row`)
}

/** What a path is when it is not a regular file ("a directory", "a FIFO"...); undefined for a file. */
export function notAFile(found: Stats): string | undefined {
  if (found.isFile()) return undefined
  if (found.isDirectory()) return 'a directory'
  if (found.isFIFO()) return 'a FIFO (named pipe)'
  if (found.isSocket()) return 'a socket'
  if (found.isCharacterDevice() || found.isBlockDevice()) return 'a device'
  if (found.isSymbolicLink()) return 'a symbolic link'
  return 'not a regular file'
}

/** A state file's text's identity, as its change log names it. */
export const digestOf = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`

/**
 * The file's JSON value, read by the same reader as request bodies (no duplicate keys, numbers
 * kept exact), and its text's digest; undefined when there is no file yet.
 */
export async function readStateFile(file: string): Promise<{ value: unknown; digest: string } | undefined> {
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
  return { value: read.value, digest: digestOf(text) }
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
export async function writeAtomically(
  file: string,
  chunks: AsyncIterable<string> | Iterable<string>,
  digest?: Hash,
): Promise<void> {
  const temporary = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  const mode = await stat(file).then(
    (found) => found.mode & 0o777,
    () => undefined,
  )
  try {
    const handle = await open(temporary, 'w', mode)
    try {
      for await (const chunk of chunks) {
        digest?.update(chunk)
        await handle.write(chunk)
      }
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
  /** The file's lock (state-lock.ts): checked before each save, given back at the end. */
  readonly lock: { holds(): Promise<boolean>; release(): void }
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
        throw new StateFileError(`another process holds ${file}.lock now: not saving over its file`)
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
    status: () => ({ file, savedAt, error, save: 'interval' as const, flushes: 0, flushedChanges: 0 }),
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

export function describe(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException
  return code === undefined ? message : `${code} (${message.replace(/^[A-Z]+: /, '')})`
}
