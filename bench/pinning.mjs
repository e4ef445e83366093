// What the benchmark scripts share to keep a load generator and what it measures on cores of their
// own: which cores this process may run on, killing a detached process group, and running a
// script again pinned to one core.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { constants } from 'node:os'

/** The cores this process may run on, as /proc says them (`0-1`, `1`). */
export function allowedCpus() {
  return /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]
}

/** Kills a child spawned with `detached: true` and everything it started. */
export function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal)
  } catch {
    // The group is gone already.
  }
}

/**
 * Runs `script` again on `core` alone, unless this process is that run already (`marker` set in
 * its environment), passing signals on and exiting with that run's code. True when it did.
 */
export function rerunPinned(core, script, args, marker) {
  if (allowedCpus() === String(core) || process.env[marker] !== undefined) return false
  const child = spawn('taskset', ['-c', String(core), process.execPath, script, ...args], {
    stdio: 'inherit',
    env: { ...process.env, [marker]: '1' },
  })
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
  child.once('error', (error) => {
    console.error(`could not run taskset -c ${core}: ${error.message}`)
    process.exit(1)
  })
  child.once('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)))
  return true
}
