/**
 * `--state-file` at start: the lock taken, the file loaded into the sandbox (or written from the
 * seed when missing), and the saver started; every failure a ServerStartError that says why.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { StateError } from '../core/api/store.js'
import type { SandboxCore } from '../core/sandbox.js'
import { ServerStartError } from './server-options.js'
import { readStateFile, resolveStateFile, startSaver, StateFileError, type StateFile } from './state-file.js'
import { lockStateFile, type StateFileLock } from './state-lock.js'

/** Opens the state file into the sandbox and saves it from then on; a new file is written at once. */
export async function keepStateFile(given: string, sandbox: SandboxCore): Promise<StateFile> {
  const opened = await openStateFile(given, sandbox)
  const saver = startSaver({
    file: opened.file,
    lock: opened.lock,
    revision: () => sandbox.persistence.revision(),
    chunks: () => sandbox.persistence.chunks(),
    intervalMs: sandbox.limits.stateSaveIntervalMs,
    ...(opened.loaded && { saved: sandbox.persistence.revision() }),
    log: (line) => {
      console.warn(`petstore-sandbox: ${line}`)
    },
  })
  // A new file is written at once, from the seed; a loaded one is left as it is until a change.
  await saver.saveNow()
  return saver
}

/**
 * Takes the state file's lock and loads the file into the sandbox, when it exists. A file that
 * is not valid refuses the start, naming every problem: the seed is never used in its place.
 */
async function openStateFile(
  given: string,
  sandbox: SandboxCore,
): Promise<{ file: string; lock: StateFileLock; loaded: boolean }> {
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
    if (content !== undefined) await sandbox.persistence.load(content)
    return { file, lock, loaded: content !== undefined }
  } catch (error) {
    lock.release()
    if (error instanceof StateFileError) throw new ServerStartError(`${error.message}; the sandbox did not start`)
    if (error instanceof StateError) {
      throw new ServerStartError(`${given} is not a valid state file: ${error.message}; the sandbox did not start`)
    }
    throw error
  }
}
