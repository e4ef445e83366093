/**
 * A state file's change log, `FILE.changes` beside it: the pets created since the file was last
 * written whole, one JSON line each, appended and flushed to the disk before their answers go out
 * (state-commit.ts). Its first line names the file's text it follows (a SHA-256 of it): a log that
 * follows another text, as a crash between a whole save and the next log leaves one, is never
 * applied to this one. A start reads the file, then the log's complete lines; a torn last line, as
 * a crash mid-append leaves it, was never acknowledged and is dropped, with one line saying so.
 * Redis's append-only file is the model: the log is folded into the file on a schedule and at
 * stop, and what a user reads, copies and commits stays the JSON document.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { constants } from 'node:fs'
import { open, rm, stat, type FileHandle } from 'node:fs/promises'
import { describe, StateFileError, writeAtomically } from './state-file.js'

const FORMAT = 'petstore-sandbox changes'
const VERSION = 1

/** The log beside a state file. */
export const changeLogOf = (file: string): string => `${file}.changes`

/** What a start found in the log: the pets it adds to the file, and what it dropped. */
export interface Replayed {
  /** The pets created since the file's last whole save, in order, as JSON values. */
  readonly pets: readonly unknown[]
  /** A torn last line (a crash mid-append): a change never acknowledged, dropped. */
  readonly torn: boolean
  /** The log followed another text of the file: none of its lines apply (how many it held). */
  readonly stale: number | undefined
}

/**
 * The log's pets for a file whose text has this digest; undefined when there is no log. A line
 * that is not a change, before the last, means the log was written by hand or broken otherwise:
 * a StateFileError naming it, and the start refuses, as it does a broken file.
 */
export async function readChangeLog(file: string, digest: string): Promise<Replayed | undefined> {
  const log = changeLogOf(file)
  let text: string
  try {
    const handle = await open(log, constants.O_RDONLY | constants.O_NONBLOCK)
    try {
      text = await handle.readFile('utf8')
    } finally {
      await handle.close()
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new StateFileError(`cannot read ${log}: ${describe(error)}`)
  }
  const lines = text.split('\n')
  // Whole lines end with a newline: what follows the last one is a torn append.
  const tornLine = lines.pop() ?? ''
  const [head, ...records] = lines
  const header = parseLine(head)
  if (!isHeader(header)) {
    // A header cut short is a log that never held a change.
    if (records.length === 0) return { pets: [], torn: false, stale: undefined }
    throw new StateFileError(
      `${log} is not a change log of petstore-sandbox (its first line is ${preview(head)}): move it away to start`,
    )
  }
  if (header.after !== digest) return { pets: [], torn: tornLine !== '', stale: records.length }
  const pets = records.map((line, index) => {
    const record = parseLine(line)
    if (!isRecord(record)) {
      throw new StateFileError(`${log}, line ${index + 2}, is not a change (${preview(line)}): move it away to start`)
    }
    return record.created
  })
  return { pets, torn: tornLine !== '', stale: undefined }
}

/** The log a commit appends to, started anew after each whole save of the file. */
export interface ChangeLog {
  /**
   * Appends these lines (each a created pet's JSON) and flushes them to the disk; then checks
   * that the log is still the file its path names: a log removed or replaced meanwhile (its
   * folder gone, a hand at work) would take the lines where no start reads them. Throws then.
   */
  append(pets: readonly string[]): Promise<void>
  /** Bytes appended since the log started: the fold's measure. */
  readonly bytes: number
  close(): Promise<void>
}

/**
 * A new, empty log following the file's text with this digest: written whole beside it and moved
 * into place (a crash leaves the old log or the new one), then opened to append.
 */
export async function startChangeLog(file: string, digest: string): Promise<ChangeLog> {
  const log = changeLogOf(file)
  await writeAtomically(log, [`${JSON.stringify({ format: FORMAT, version: VERSION, after: digest })}\n`])
  const handle = await open(log, 'a')
  return new AppendingLog(handle, log)
}

/** Removes the log, at a clean stop once the file holds everything. */
export async function removeChangeLog(file: string): Promise<void> {
  await rm(changeLogOf(file), { force: true })
}

/** A class, not closures: one object per log, made once per whole save. */
class AppendingLog implements ChangeLog {
  bytes = 0
  constructor(
    private readonly handle: FileHandle,
    private readonly path: string,
  ) {}

  async append(pets: readonly string[]): Promise<void> {
    const text = pets.map((pet) => `{"created":${pet}}\n`).join('')
    await this.handle.write(text)
    // The data, not the times: what a crash must find.
    await this.handle.datasync()
    this.bytes += Buffer.byteLength(text)
    const [held, named] = await Promise.all([this.handle.stat(), stat(this.path).catch(() => undefined)])
    if (named === undefined || named.ino !== held.ino || named.dev !== held.dev) {
      throw new StateFileError(`${this.path} was removed or replaced while in use`)
    }
  }

  close(): Promise<void> {
    return this.handle.close()
  }
}

function parseLine(line: string | undefined): unknown {
  if (line === undefined) return undefined
  try {
    return JSON.parse(line)
  } catch {
    return undefined
  }
}

function isHeader(value: unknown): value is { after: string } {
  if (typeof value !== 'object' || value === null) return false
  const { format, version, after } = value as Record<string, unknown>
  return format === FORMAT && version === VERSION && typeof after === 'string'
}

function isRecord(value: unknown): value is { created: unknown } {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, 'created')
}

const preview = (line: string | undefined) => JSON.stringify((line ?? '').slice(0, 60))
