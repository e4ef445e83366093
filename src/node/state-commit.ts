/**
 * `--state-file` saving every change before its answer (`--state-save always`, the default): the
 * core asks for a commit before it answers a write (core/commit.ts), and this resolves it once the
 * change is on disk. A run of creates, and nothing else, is appended to the change log
 * (change-log.ts) and flushed; any other change (a reset, an import, a checkpoint) writes the file
 * whole and starts a new log. Writes that arrive while a flush runs share the next one (group
 * commit): one flush per batch, not per request. Once a save interval the log, when it holds any,
 * is folded into the file, so the file a user reads is never more than that behind; at stop the
 * file is written whole and the log removed.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { createHash } from 'node:crypto'
import type { Pet } from '../core/api/contract.js'
import type { Persistence } from '../core/persistence.js'
import { removeChangeLog, startChangeLog, type ChangeLog } from './change-log.js'
import { describe, StateFileError, writeAtomically, type StateFile } from './state-file.js'

/** A log this much larger than the file's last whole text is folded at once, not at the next tick. */
const FOLD_AT_BYTES = 1 << 20

/** Failed saves wait longer each time, up to this: a disk that stays full is not hammered. */
const MAX_RETRY_MS = 30_000

export interface CommitterOptions {
  readonly file: string
  /** The file's lock (state-lock.ts): checked before each whole save, given back at the end. */
  readonly lock: { holds(): Promise<boolean>; release(): void }
  readonly persistence: Pick<Persistence, 'revision' | 'chunks'>
  /** Folds the log into the file at most once per this many ms (the `stateSaveIntervalMs` limit). */
  readonly intervalMs: number
  /**
   * The file as loaded, holding all the data (no log added to it): its text's digest and the
   * revision it holds. Undefined for a new file, or one a log added to: it is written whole first.
   */
  readonly loaded: { readonly digest: string; readonly revision: number } | undefined
  /** Says a failure once per streak of failures, and the recovery. */
  readonly log: (line: string) => void
}

/** A state file that commits: the saver's methods, and the core's two hooks (Hosting). */
export interface Committer extends StateFile {
  commit(revision: number): Promise<void>
  inserted(pet: Pet, revision: number): void
}

interface Waiter {
  readonly revision: number
  readonly resolve: () => void
  readonly reject: (error: Error) => void
}

interface Insert {
  readonly revision: number
  readonly pet: Pet
}

const DONE = Promise.resolve()

/** Writes the file whole (a new one, or one with a log to fold), starts its log, and commits from then on. */
export async function startCommitter(options: CommitterOptions): Promise<Committer> {
  const committer = new GroupCommitter(options)
  await committer.start()
  return committer
}

/** A class, not closures: one object holds the commit's state (see body-reader.ts on closures kept long). */
class GroupCommitter implements Committer {
  private committed: number
  private digest: string | undefined
  private changeLog: ChangeLog | undefined
  private pending: Insert[] = []
  private waiters: Waiter[] = []
  private flushing: Promise<void> | undefined
  private foldWanted = false
  private wholeBytes = 0
  private savedAt: string | null = null
  private error: string | null = null
  private failures = 0
  private nextTry = 0
  private closed = false
  private flushes = 0
  private flushedChanges = 0
  private readonly timer: NodeJS.Timeout

  constructor(private readonly options: CommitterOptions) {
    this.committed = options.loaded?.revision ?? Number.NaN
    this.digest = options.loaded?.digest
    const tick = () => {
      this.tick()
    }
    this.timer = setInterval(tick, options.intervalMs)
    // The timer alone does not keep a process alive: close() saves what is pending.
    this.timer.unref()
  }

  /** A file loaded as it is gets a log after its text; a new one (or a replayed log) is written whole first. */
  async start(): Promise<void> {
    const { loaded, persistence } = this.options
    if (loaded !== undefined && persistence.revision() === loaded.revision) {
      this.changeLog = await startChangeLog(this.options.file, loaded.digest)
      return
    }
    await this.fold()
  }

  inserted(pet: Pet, revision: number): void {
    // Kept only while something may still ask for it: a fold drops what it holds.
    this.pending.push({ revision, pet })
  }

  commit(revision: number): Promise<void> {
    if (revision <= this.committed) return DONE
    if (this.closed) return Promise.reject(new StateFileError(`${this.options.file} is closed: the server is stopping`))
    // A disk that just failed is not tried again for every answer: they fail at once until the retry is due.
    if (this.error !== null && Date.now() < this.nextTry) return Promise.reject(new StateFileError(this.error))
    return new Promise((resolve, reject) => {
      this.waiters.push({ revision, resolve, reject })
      this.kick()
    })
  }

  private kick(): void {
    if (this.flushing !== undefined) return
    const flushed = this.flushLoop().finally(() => {
      this.flushing = undefined
    })
    this.flushing = flushed
  }

  /** Flushes until no one waits: each round takes every change made so far, one append or one whole save. */
  private async flushLoop(): Promise<void> {
    while (this.waiters.length > 0 || this.foldWanted) {
      const target = this.options.persistence.revision()
      try {
        if (this.foldWanted || !this.appendable(target)) await this.fold()
        else await this.append(target)
        this.recovered()
      } catch (failure) {
        this.failed(failure)
        const error = new StateFileError(describe(failure))
        for (const waiter of this.waiters.splice(0)) waiter.reject(error)
        return
      }
      this.settle()
    }
  }

  /** Only creates since the last commit, and a log not yet due for a fold: an append will do. */
  private appendable(target: number): boolean {
    if (this.changeLog === undefined || Number.isNaN(this.committed)) return false
    if (this.changeLog.bytes > Math.max(FOLD_AT_BYTES, this.wholeBytes)) return false
    const creates = this.pending.filter((insert) => insert.revision > this.committed && insert.revision <= target)
    return creates.length === target - this.committed
  }

  private async append(target: number): Promise<void> {
    const creates = this.pending.filter((insert) => insert.revision > this.committed && insert.revision <= target)
    await this.changeLog?.append(creates.map((insert) => JSON.stringify(insert.pet)))
    this.flushes++
    this.flushedChanges += creates.length
    this.committed = target
    this.pending = this.pending.filter((insert) => insert.revision > target)
  }

  /** The file written whole, then a new log after it; every change the text holds is committed. */
  private async fold(): Promise<void> {
    const { file, lock, persistence } = this.options
    this.foldWanted = false
    if (!(await lock.holds())) {
      throw new StateFileError(`another process holds ${file}.lock now: not saving over its file`)
    }
    const hash = createHash('sha256')
    let taken = this.committed
    let bytes = 0
    const counted = async function* (chunks: AsyncIterable<string>) {
      for await (const chunk of chunks) {
        bytes += chunk.length
        yield chunk
      }
    }
    const takenAt = (revision: number) => {
      taken = revision
    }
    await writeAtomically(file, counted(persistence.chunks(takenAt)), hash)
    this.digest = `sha256:${hash.digest('hex')}`
    this.wholeBytes = bytes
    this.savedAt = new Date().toISOString()
    const previous = this.changeLog
    this.changeLog = undefined
    await previous?.close().catch(() => undefined)
    this.changeLog = await startChangeLog(file, this.digest)
    this.committed = taken
    this.pending = this.pending.filter((insert) => insert.revision > taken)
  }

  /** Resolves the waiters whose changes are on disk now. */
  private settle(): void {
    const still: Waiter[] = []
    for (const waiter of this.waiters) {
      if (waiter.revision <= this.committed) waiter.resolve()
      else still.push(waiter)
    }
    this.waiters = still
  }

  private recovered(): void {
    if (this.error !== null) this.options.log(`saved ${this.options.file} again`)
    this.error = null
    this.failures = 0
  }

  private failed(failure: unknown): void {
    this.failures++
    this.nextTry = Date.now() + Math.min(MAX_RETRY_MS, this.options.intervalMs * 2 ** Math.min(this.failures, 15))
    if (this.error === null) {
      this.options.log(
        `cannot save ${this.options.file}: ${describe(failure)}; the changes stay in memory, the writes that wait for them are answered 507, and saving is tried again, less and less often`,
      )
    }
    this.error = describe(failure)
    // The log may be behind what is committed now, or end in a partial line: the next success
    // writes the file whole and starts a new one.
    this.foldWanted = false
    void this.changeLog?.close().catch(() => undefined)
    this.changeLog = undefined
  }

  /** Once an interval: the log folded into the file, and any change no answer waited for committed. */
  private tick(): void {
    if (this.flushing !== undefined || this.closed || Date.now() < this.nextTry) return
    const moved = this.options.persistence.revision() !== this.committed
    if (!moved && (this.changeLog?.bytes ?? 1) === 0) return
    this.foldWanted = true
    this.kick()
  }

  async saveNow(): Promise<void> {
    if (this.flushing !== undefined) await this.flushing
    this.foldWanted = true
    this.kick()
    await this.flushing
  }

  status() {
    const { file } = this.options
    const { savedAt, error, flushes, flushedChanges } = this
    return { file, savedAt, error, save: 'always' as const, flushes, flushedChanges }
  }

  /** The file written whole and the log removed; false when that could not be done (the log is kept). */
  async close(): Promise<boolean> {
    this.closed = true
    clearInterval(this.timer)
    while (this.flushing !== undefined) await this.flushing
    let ok = true
    try {
      const moved = this.options.persistence.revision() !== this.committed
      if (moved || this.changeLog === undefined || this.changeLog.bytes > 0) await this.fold()
      await this.changeLog?.close()
      this.changeLog = undefined
      await removeChangeLog(this.options.file)
    } catch (failure) {
      ok = false
      this.error = describe(failure)
      this.options.log(`cannot save ${this.options.file} at shutdown: ${this.error}`)
    }
    this.options.lock.release()
    return ok
  }

  abandon() {
    this.closed = true
    clearInterval(this.timer)
    // Every answered change is on disk, in the file or its log: what is unsaved was never answered.
    const unsaved = this.flushing !== undefined || this.options.persistence.revision() !== this.committed
    this.options.lock.release()
    return { file: this.options.file, unsaved, savedAt: this.savedAt }
  }
}
