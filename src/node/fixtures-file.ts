/**
 * Node only: reading a fixtures file, and reloading it when it changes (--watch).
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { unwatchFile, watchFile } from 'node:fs'
import { readFile } from 'node:fs/promises'
import type { Pet } from '../core/api/contract.js'
import { readJson } from '../core/http/json.js'
import { parseSeed, parseStateSeed, type StateSeed } from '../core/api/seed.js'

/** Thrown for a fixtures file that cannot be read or is not valid; the message names file, entry and field. */
export class FixturesFileError extends Error {
  override readonly name = 'FixturesFileError'
}

/**
 * The seed a fixtures file holds. A saved state (the dashboard's download, a --state-file) is
 * taken too: its pets are the seed, and `note` is told in one line what a seed leaves out of it
 * and which flag keeps it whole.
 */
export async function readFixturesFile(
  file: string,
  note: (line: string) => void = (line) => {
    console.warn(`petstore-sandbox: ${line}`)
  },
): Promise<readonly Pet[]> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new FixturesFileError(`cannot read fixtures file ${file}: ${(error as Error).message}`)
  }
  // The same reader as request bodies: lossless numbers, no duplicate keys, one byte-order mark skipped.
  const read = readJson(text, `fixtures file ${file}`)
  if (!read.ok) throw new FixturesFileError(read.problems.join('; '))
  try {
    const state = parseStateSeed(read.value, `fixtures file ${file}`)
    if (state === undefined) return parseSeed(read.value, `fixtures file ${file}`)
    note(stateSeedLine(file, state))
    return state.pets
  } catch (error) {
    throw new FixturesFileError((error as Error).message)
  }
}

/** The one line --fixtures says of a saved state: what it starts from, what it leaves, and the flag that keeps it. */
export function stateSeedLine(file: string, state: StateSeed): string {
  return `${file} is a saved state, not a list of pets: its ${state.pets.length} pets are the seed (a reset comes back to them); its nextId and its checkpoints (${state.checkpoints}) are not loaded: --state-file ${file} starts from the whole state`
}

/**
 * Calls `onChange` with the new pets whenever the file changes, or `onError` when the new
 * content is invalid (the caller keeps the old seed). Polls, because editors that save by
 * replacing the file end an fs.watch watcher. Returns a function that stops watching.
 */
export function watchFixturesFile(
  file: string,
  onChange: (pets: readonly Pet[]) => Promise<void>,
  onError: (error: Error) => void,
  intervalMs = 250,
): () => void {
  const listener = (current: { mtimeMs: number }, previous: { mtimeMs: number }) => {
    if (current.mtimeMs === previous.mtimeMs) return
    readFixturesFile(file).then(onChange, onError).catch(onError)
  }
  watchFile(file, { interval: intervalMs, persistent: false }, listener)
  return () => {
    unwatchFile(file, listener)
  }
}
