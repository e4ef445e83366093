/**
 * The lock beside a `--state-file` (`demo.json.lock`): one sandbox per file, and a restart after a
 * crash takes it over, in a container too.
 *
 * The lock names its holder by more than a pid, because a pid alone means nothing across PID
 * namespaces: in a container the sandbox is PID 1 (or another fixed pid) in every life, so after
 * `kill -9` or the OOM killer the restarted container's process has the pid the lock names, and a
 * live holder in another container sharing the volume has a pid that `kill(pid, 0)` cannot see.
 * It records the pid, the PID namespace (`/proc/self/ns/pid`), the boot id and the process's
 * start time (field 22 of `/proc/PID/stat`), and its holder touches its mtime every quarter of
 * `stateLockStaleMs`. Another process judges it so:
 * - **its own PID namespace and boot**: at once, by the pid and its start time. The holder lives
 *   when that pid runs and started when the lock says; a pid reused by another life (the same pid
 *   after a restart, as PID 1 is) is a holder that is gone. The kernel gives a new namespace the
 *   number of one that is gone, so a container restarted in a namespace of the same number takes
 *   this path too, rightly: that number's first namespace is dead.
 * - **another PID namespace or boot**: by the mtime alone. It waits until the lock is older than
 *   `stateLockStaleMs` (4 s), then takes it; a lock touched meanwhile has a live holder, and the
 *   start is refused, naming it. A container restarted after a crash takes over the lock within
 *   4 s of the crash (a restart that takes longer, at once); two containers sharing the volume
 *   never share the file. A live holder whose event loop stalls past 4 s could be taken over: the
 *   sandbox's long tasks (a state import, a large recording) work in slices of a few ms.
 * - A lock written by 0.12.5 or earlier (a pid alone) is judged by its pid, as it was.
 *
 * Measured (issue 41; Node 20.20.2, 2-core VM, ext4): `lockStateFile` over a lock whose pid is
 * gone took 1.46 ms (median of 20; 1.07-3.24), over one of an earlier life of its own pid 1.45 ms
 * (1.06-4.82), over no lock 0.84 ms. Under `unshare -p -f --mount-proc` with the defaults, five
 * rounds: a fresh start listened after 163-265 ms; a second sandbox in another namespace was
 * refused after 1,159-1,220 ms (it waits for the holder's next touch); a restart 1 s after `kill -9`
 * of the holder, in a new namespace, listened after 4,170-4,268 ms. A shorter `stateLockStaleMs`
 * takes over sooner and trusts the holder's event loop more: the tests set 600 ms.
 *
 * Kept rather than proper-lockfile 4.1.2 (issue 29), measured on Node 20.20.2, a 2-core AMD EPYC
 * VM, ext4: a lock and its release take 0.71 ms here against 0.55 ms (medians of 500,
 * interleaved), once per start. Its lock is a directory whose mtime a timer keeps fresh: a holder
 * killed with `kill -9` keeps the file from the next start until the mtime is stale, refused at
 * once (ELOCKED), taken after 5.6 s when retried with its shortest staleness (5 s; 10 s by
 * default), where this one takes it in milliseconds in the same namespace, and names the holder to
 * stop. It is 244 KB on disk with graceful-fs, retry and signal-exit, in a CLI bundle the
 * architecture test holds to commander, pure-rand and zod.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  readSync,
  rmSync,
  utimesSync,
} from 'node:fs'
import { link, lstat, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, notAFile, StateFileError } from './state-file.js'

/** The lock beside the file: it names the process that uses the file. */
export function lockPathOf(file: string): string {
  return `${file}.lock`
}

/** Who holds a lock: one life of one process, on one boot, in one PID namespace. */
export interface Holder {
  readonly pid: number
  /** `/proc/self/ns/pid`'s link, as `pid:[4026531836]`; undefined in a lock of 0.12.5 or earlier. */
  readonly pidns?: string
  readonly boot?: string
  /** Clock ticks since boot when the process started (`/proc/PID/stat`, field 22). */
  readonly start?: number
}

/** The lock a server holds while it saves. */
export interface StateFileLock {
  /** False only when another process holds the lock now; takes it again when it is gone (its folder was removed and made again). */
  holds(): Promise<boolean>
  release(): void
}

export interface LockOptions {
  /** How long a lock from another PID namespace may go untouched before it is taken over (`stateLockStaleMs`). */
  readonly staleMs: number
}

/** This process, as its lock names it. */
export function thisProcess(): Holder {
  return {
    pid: process.pid,
    ...optional('pidns', () => readlinkSync('/proc/self/ns/pid')),
    ...optional('boot', () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()),
    ...optional('start', () => startTimeOf(process.pid)),
  }
}

/** A field read from /proc, or nothing where there is no /proc (another OS): the pid alone then. */
function optional<K extends string, V>(name: K, read: () => V | undefined): Partial<Record<K, V>> {
  try {
    const value = read()
    return value === undefined ? {} : ({ [name]: value } as Record<K, V>)
  } catch {
    return {}
  }
}

/** A process's start time in clock ticks since boot; undefined when it does not run (here). */
function startTimeOf(pid: number): number | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  // The name (field 2) is in parentheses and may hold spaces: count fields after its last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  const start = Number(fields[19])
  return Number.isSafeInteger(start) ? start : undefined
}

/**
 * Takes the file's lock, or says who holds it. The lock appears whole or not at all: it is
 * written to a file of this process's own, then linked into place, and a link fails when the lock
 * exists. A lock whose holder is gone is moved aside, which only one of two racing processes can
 * do, and taken again. Answers the lock's own checks and its release.
 */
export async function lockStateFile(file: string, options: LockOptions): Promise<StateFileLock> {
  const lock = lockPathOf(file)
  const me = thisProcess()
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
    await writeFile(mine, `${JSON.stringify(me)}\n`)
  } catch (error) {
    throw new StateFileError(`cannot lock ${file} (${lock}): ${describe(error)}`)
  }
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await link(mine, lock)
        await removeLeftovers(file)
        return lockOf(lock, me, options.staleMs)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new StateFileError(`cannot lock ${file} (${lock}): ${describe(error)}`)
        }
      }
      await judgeHolder(file, lock, me, options.staleMs)
      // Its holder is gone: moved aside, by one process only, then taken.
      await refuseOther()
      await rename(lock, `${lock}.stale.${process.pid}.${randomBytes(4).toString('hex')}`).catch(() => undefined)
      await removeStale(lock)
    }
    throw new StateFileError(`cannot lock ${file}: other processes keep taking ${lock}`)
  } finally {
    await rm(mine, { force: true })
  }
}

/** Returns when the lock's holder is gone; throws, naming it, when it lives. */
async function judgeHolder(file: string, lock: string, me: Holder, staleMs: number): Promise<void> {
  const holder = readLock(lock)
  // Unreadable (removed meanwhile, or being written by hand): try the link again.
  if (holder === undefined) return
  const where = `(its lock is ${lock})`
  if (holder.pidns === undefined || (holder.pidns === me.pidns && holder.boot === me.boot)) {
    if (holder.pid === me.pid) {
      // Our pid: this very process, or an earlier life of the pid (a container's PID 1 after a
      // crash). A lock without a start time is an earlier life's too, where this process records one.
      const earlier = holder.start === undefined ? me.start !== undefined : holder.start !== me.start
      if (!earlier) throw new StateFileError(`${file} is in use by this process already: one sandbox per state file`)
      return
    }
    if (isAlive(holder.pid) && (holder.start === undefined || holder.start === startTimeOf(holder.pid))) {
      throw new StateFileError(
        `${file} is in use by process ${holder.pid} ${where}: stop that sandbox first, or give this one another --state-file; if process ${holder.pid} is no sandbox, delete ${lock}`,
      )
    }
    return
  }
  // Another PID namespace (another container sharing the folder) or another boot: only the
  // holder's touches tell that it lives.
  await untouchedFor(lock, staleMs, () => {
    throw new StateFileError(
      `${file} is in use by process ${holder.pid} of another PID namespace (another container sharing this folder?) ${where}, which keeps it fresh: stop that sandbox first, or give this one another --state-file`,
    )
  })
}

/**
 * Waits until the lock has gone untouched for `staleMs`, calling `touched` (which throws) as soon
 * as its mtime moves on: its holder lives. Resolves at once for a lock already that old.
 */
async function untouchedFor(lock: string, staleMs: number, touched: () => never): Promise<void> {
  const first = await stat(lock).catch(() => undefined)
  if (first === undefined) return
  const step = Math.max(5, Math.floor(staleMs / 8))
  for (;;) {
    const now = await stat(lock).catch(() => undefined)
    if (now === undefined) return
    if (now.mtimeMs !== first.mtimeMs) touched()
    if (Date.now() - now.mtimeMs >= staleMs) return
    await sleep(step)
  }
}

/**
 * The held lock: its mtime touched every quarter of `staleMs` while held (a process in another
 * PID namespace judges it by that), the timer unref'd so it keeps no process alive.
 */
function lockOf(lock: string, me: Holder, staleMs: number): StateFileLock {
  const isMine = (holder: Holder | undefined) =>
    holder !== undefined && holder.pid === me.pid && holder.pidns === me.pidns && holder.start === me.start
  const touch = setInterval(
    () => {
      if (!isMine(readLock(lock))) return
      const now = new Date()
      try {
        utimesSync(lock, now, now)
      } catch {
        // Gone with its folder: holds() takes it again, or the save says why.
      }
    },
    Math.max(1, Math.floor(staleMs / 4)),
  )
  touch.unref()
  return {
    async holds() {
      const holder = readLock(lock)
      if (holder !== undefined) return isMine(holder)
      // Gone with its folder: taken again when the folder is back; until then the save itself fails and says why.
      await writeFile(lock, `${JSON.stringify(me)}\n`, { flag: 'wx' }).catch(() => undefined)
      const now = readLock(lock)
      return now === undefined || isMine(now)
    },
    release() {
      clearInterval(touch)
      // Only our own lock: a process that took over a lock it believed stale keeps its own.
      if (!isMine(readLock(lock))) return
      try {
        rmSync(lock, { force: true })
      } catch (error) {
        // A folder gone read-only, or taken from us: the stop goes on. The lock names this
        // process, which a next start finds gone and takes over.
        console.warn(
          `petstore-sandbox: cannot remove ${lock}: ${describe(error)}; a next start takes it over once this process is gone`,
        )
      }
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
 * The holder a lock file names; undefined when there is none or it names none. Opened without
 * blocking and read only when it is a file: a FIFO put in its place must not hold the process.
 */
export function readLock(lock: string): Holder | undefined {
  let descriptor: number | undefined
  try {
    descriptor = openSync(lock, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW)
    if (!fstatSync(descriptor).isFile()) return undefined
    const buffer = Buffer.alloc(512)
    return holderOf(buffer.toString('utf8', 0, readSync(descriptor, buffer)).trim())
  } catch {
    return undefined
  } finally {
    if (descriptor !== undefined) closeSync(descriptor)
  }
}

/** A lock's text: a JSON holder, or a bare pid (0.12.5 and earlier). */
function holderOf(text: string): Holder | undefined {
  const validPid = (pid: unknown): pid is number => Number.isSafeInteger(pid) && (pid as number) > 0
  if (/^\d+$/.test(text)) {
    const pid = Number(text)
    return validPid(pid) ? { pid } : undefined
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  const { pid, pidns, boot, start } = value as Record<string, unknown>
  if (!validPid(pid)) return undefined
  return {
    pid,
    ...(typeof pidns === 'string' && { pidns }),
    ...(typeof boot === 'string' && { boot }),
    ...(Number.isSafeInteger(start) && { start: start as number }),
  }
}

/**
 * Whether a process runs: it answers signal 0, and /proc does not show it dead. A killed process
 * whose parent has not reaped it yet (a zombie, state Z, or X while it goes) still answers signal
 * 0, but holds nothing: a restart right after a `kill -9` must not wait for its parent.
 */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    // EPERM: it exists, under another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  const state = stateOf(pid)
  return state !== 'Z' && state !== 'X'
}

/** A process's state letter (`/proc/PID/stat`, field 3); undefined where there is no /proc. */
function stateOf(pid: number): string | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The name (field 2) is in parentheses and may hold spaces: the state follows its last ')'.
    return text.slice(text.lastIndexOf(')') + 2, text.lastIndexOf(')') + 3)
  } catch {
    return undefined
  }
}
