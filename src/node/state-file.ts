/**
 * `--state-file FILE`: the data kept on disk across restarts. Node's part only: the lock that
 * keeps a second process off the file, reading it, and writing it so that a crash (or `kill -9`)
 * at any moment leaves the previous file whole. What goes in the file and how it is checked is
 * the core's (src/core/admin/persisted.ts); when to save is decided here, at most once per
 * `stateSaveIntervalMs`, from the core's limits.
 *
 * May import: node:*, the core, the other files here. Never msw.
 */
import { readFileSync, rmSync } from 'node:fs'
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
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
  /** Saves what is pending now, stops saving, and gives the lock back. */
  close(): Promise<void>
}

/** The lock beside the file: it holds the pid of the process that uses the file. */
export function lockPathOf(file: string): string {
  return `${file}.lock`
}

/**
 * Takes the file's lock, or says who holds it. A lock whose process is gone (a crash, `kill -9`)
 * is taken over. Answers the function that gives it back.
 */
export async function lockStateFile(file: string): Promise<() => void> {
  const lock = lockPathOf(file)
  await mkdir(dirname(file), { recursive: true }).catch(() => undefined)
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lock, 'wx')
      await handle.writeFile(`${process.pid}\n`)
      await handle.close()
      await removeLeftovers(file)
      return () => {
        // Only our own lock: a process that took over a lock it believed stale keeps its own.
        if (readLockPid(lock) === process.pid) rmSync(lock, { force: true })
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new StateFileError(`cannot lock ${file} (${lock}): ${describe(error)}`)
      }
    }
    const holder = readLockPid(lock)
    if (holder !== undefined && holder !== process.pid && isAlive(holder)) {
      throw new StateFileError(
        `${file} is in use by process ${holder} (its lock is ${lock}): stop that sandbox first, or give this one another --state-file`,
      )
    }
    // Its process is gone: the lock is stale.
    await rm(lock, { force: true })
  }
  throw new StateFileError(`cannot lock ${file}: another process keeps taking ${lock}`)
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

function readLockPid(lock: string): number | undefined {
  try {
    const pid = Number(readFileSync(lock, 'utf8').trim())
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
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
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new StateFileError(`cannot read ${file}: ${describe(error)}`)
  }
  const read = readJson(text, `state file ${file}`)
  if (!read.ok) throw new StateFileError(read.problems.join('; '))
  return read.value
}

/**
 * Writes the whole text to a temporary file in the same folder, flushes it to the disk, then
 * renames it over the file: a reader, or a crash, sees the old file or the new one, never a part.
 */
export async function writeAtomically(file: string, text: string): Promise<void> {
  const temporary = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    const handle = await open(temporary, 'w')
    try {
      await handle.writeFile(text)
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
  /** Moves on every change of what the file keeps (the core's Persistence.revision). */
  readonly revision: () => number
  /** The file's text now. */
  readonly text: () => Promise<string>
  /** At most one save per this many ms (the `stateSaveIntervalMs` limit). */
  readonly intervalMs: number
  /** Says a failure once per streak of failures, and the recovery. */
  readonly log: (line: string) => void
}

/**
 * Saves after changes, at most once per interval, and once more at close. It looks at the
 * revision once per interval (a number compared: nothing on the request path). A failed save (a
 * full disk, a folder gone read-only) is logged once, kept in the status and tried again at the
 * next interval; the API never waits for a save, and never fails because of one.
 */
export function startSaver(options: SaverOptions): StateFile {
  const { file, intervalMs, log } = options
  let savedAt: string | null = null
  let error: string | null = null
  let saved = Number.NaN
  let saving: Promise<void> | undefined
  let closed = false

  const save = async (): Promise<void> => {
    const revision = options.revision()
    if (revision === saved) return
    try {
      await writeAtomically(file, await options.text())
      saved = revision
      savedAt = new Date().toISOString()
      if (error !== null) log(`saved ${file} again`)
      error = null
    } catch (failure) {
      if (error === null) {
        log(
          `cannot save ${file}: ${describe(failure)}; the API goes on, and saving is tried again every ${intervalMs} ms`,
        )
      }
      error = describe(failure)
    }
  }
  // One save at a time: a tick that finds one running waits for the next.
  const tick = () => {
    if (saving !== undefined || closed) return
    saving = save().finally(() => {
      saving = undefined
    })
  }
  const timer = setInterval(tick, intervalMs)
  // The timer alone does not keep a process alive: close() saves what is pending.
  timer.unref()

  return {
    saveNow: async () => {
      await saving
      await save()
    },
    status: () => ({ file, savedAt, error }),
    async close() {
      closed = true
      clearInterval(timer)
      await saving
      await save()
      if (error !== null) log(`cannot save ${file} at shutdown: ${error}`)
    },
  }
}

function describe(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException
  return code === undefined ? message : `${code} (${message.replace(/^[A-Z]+: /, '')})`
}
