/**
 * What a test file leaves behind, cleared after its tests: the scratch folders it made, and the
 * CLI processes it started (killed if still running, then waited for), so that one that fails an
 * assertion before stopping its own leaves none behind.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import type { Cli } from './spawn-cli.js'

export interface Scratch {
  /** A new empty folder under the OS's temporary folder, named from `prefix`. */
  readonly folder: () => string
  /** Every process to stop after the file's tests: push each CLI started. */
  readonly processes: Cli[]
}

export function scratch(prefix: string): Scratch {
  const folders: string[] = []
  const processes: Cli[] = []
  afterAll(async () => {
    for (const cli of processes) {
      if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL')
    }
    await Promise.all(processes.map((cli) => cli.exited))
    for (const folder of folders) rmSync(folder, { recursive: true, force: true })
  })
  const folder = () => {
    const made = mkdtempSync(join(tmpdir(), prefix))
    folders.push(made)
    return made
  }
  return { folder, processes }
}
