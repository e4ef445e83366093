/**
 * Under npx, the sandbox stops when npx is gone. npm 10/11 runs a package's bin as
 * `npm exec` -> `sh -c '<bin>' args` -> node. It forwards SIGINT and SIGTERM to its child, the
 * shell; dash (Debian's and Ubuntu's sh) dies of them without passing them on, and a SIGKILL or
 * SIGHUP to npx reaches neither. Either way the server lived on, its port bound, with nothing left
 * to stop it (measured with npm 11.19 and dash 0.5.12; bash hands the process over to node with
 * exec, and then npx is its parent).
 *
 * So, only when npm says it started the process as `npx` (`npm_lifecycle_event=npx`), a timer
 * looks every `parentWatchMs`: the parent is gone when this process was handed to another (its
 * ppid changed), and, when the parent is the shell npm started, npm is gone when the shell was
 * handed to another. A process started by hand and left running on purpose (`nohup ... &`) is
 * never npx's, and is never stopped this way.
 *
 * May import: node:*.
 */
import { readFileSync } from 'node:fs'

/** The shells npm may run a bin through (`script-shell`): between it and this process. */
const SHELLS = new Set(['sh', 'dash', 'bash', 'zsh', 'ash', 'ksh', 'mksh', 'busybox'])

export interface ParentWatchOptions {
  /** How often to look, in ms; 0 never looks (the `parentWatchMs` limit). */
  readonly everyMs: number
  /** Called once, when npx is gone; the watch has stopped by then. */
  readonly onGone: (who: string) => void
  readonly env?: NodeJS.ProcessEnv
}

/** Watches for the npx that started this process to go; returns what stops watching. */
export function watchParent({ everyMs, onGone, env = process.env }: ParentWatchOptions): () => void {
  if (everyMs === 0 || env.npm_lifecycle_event !== 'npx') return () => undefined
  const parent = process.ppid
  // Between npm and node there may be the shell npm started: then npm is that shell's parent.
  const shell = processInfo(parent)
  const npm = shell !== undefined && SHELLS.has(shell.name) ? shell.parent : undefined
  const timer = setInterval(() => {
    if (process.ppid === parent && alive(parent) && (npm === undefined || processInfo(parent)?.parent === npm)) return
    clearInterval(timer)
    onGone('npx')
  }, everyMs)
  // The watch never keeps the process alive by itself.
  timer.unref()
  return () => {
    clearInterval(timer)
  }
}

/**
 * A process's name and parent, from Linux's /proc (`pid (name) state ppid ...`; the name may
 * hold spaces and parentheses, so the last `)` ends it). Elsewhere, or once it is gone, nothing.
 */
export function processInfo(pid: number): { name: string; parent: number } | undefined {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  const open = stat.indexOf('(')
  const close = stat.lastIndexOf(')')
  const parent = Number(stat.slice(close + 2).split(' ')[1])
  if (open === -1 || close === -1 || !Number.isSafeInteger(parent)) return undefined
  return { name: stat.slice(open + 1, close), parent }
}

/** Whether a process exists; on Windows, where a child is never handed to another, the only sign. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, and belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
