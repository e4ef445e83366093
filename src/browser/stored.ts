/**
 * What a persisted sandbox keeps in IndexedDB (one database per key, one store of records), and
 * the first read of it, started as soon as the keeper's chunk is loaded (persisted-sandbox.ts):
 * beside msw's worker starting and the seed's building, not after them.
 *
 * The records (format 2):
 * - `meta`: the format, the seed's fingerprint, the revision, the scenarios, and the state
 *   record's digest (Meta, below);
 * - `state`: the state document's text (core/admin/persisted.ts: the format a --state-file holds);
 * - `created:<id, 16 digits>`: each pet created since `state` was written whole, one record each,
 *   so a create writes its pet and the meta, whatever the data's size.
 * Format 1 (0.14.0) kept the created pets in one record, `created`, a list: still read.
 *
 * May import: the core, the other files of src/browser.
 */
import type { ScenarioInput } from '../core/admin/contract.js'
import { checkPet, type Pet } from '../core/api/contract.js'
import { openDatabase, readRecordsAndRange } from './idb.js'

/** The layout written: a newer one (a later version of the package) is never read or overwritten. */
export const STORED_FORMAT = 2

export const META = 'meta'
export const STATE = 'state'
/** Format 1's list of created pets: read, and deleted by the next whole write. */
export const CREATED_LIST = 'created'
export const CREATED_PREFIX = 'created:'

/** The record of one created pet: ids padded to the 16 digits of the largest safe one sort as numbers. */
export function createdName(id: number): string {
  return `${CREATED_PREFIX}${String(id).padStart(16, '0')}`
}

/** Stored data this package cannot use: its message says what is wrong with it. */
export class BadStorage extends Error {
  override readonly name = 'BadStorage'
}

/** What is stored under a key, read in one transaction: each record unchecked. */
export interface StoredRecords {
  readonly meta: unknown
  readonly state: unknown
  /** Format 1's list of created pets. */
  readonly createdList: unknown
  /** Format 2's created pets, in id order. */
  readonly created: readonly unknown[]
}

export interface OpenedStorage {
  readonly database: IDBDatabase
  readonly records: StoredRecords
}

/** Opens the key's database and reads what it holds; rejects when the browser gives no storage. */
export async function openStorage(key: string): Promise<OpenedStorage> {
  if (typeof indexedDB === 'undefined' || typeof navigator === 'undefined' || !('locks' in navigator)) {
    throw new BadStorage('this browser gives the page no IndexedDB or no Web Locks')
  }
  const database = await openDatabase(key)
  return { database, records: await readStored(database) }
}

export async function readStored(database: IDBDatabase): Promise<StoredRecords> {
  const { records, ranged } = await readRecordsAndRange(database, [META, STATE, CREATED_LIST], CREATED_PREFIX)
  const [meta, state, createdList] = records
  return { meta, state, createdList, created: ranged }
}

/** The meta record. */
export interface Meta {
  readonly format: number
  readonly fingerprint: string
  /** Moves on every write, in whichever tab: a tab whose last load or write is another catches up. */
  readonly revision: number
  readonly scenarios: readonly ScenarioInput[]
  readonly savedAt: string
  /** The state record's digest (textDigest) when it was written; format 1 had none. */
  readonly digest?: string
}

/**
 * The pets stored as created since the state was written whole, each checked: they are not
 * under the state's digest (at most persist.ts's APPENDED_PETS of them, so the check is short).
 */
export function createdOf(created: unknown): readonly Pet[] {
  if (created === undefined) return []
  if (!Array.isArray(created)) throw new BadStorage('its record of created pets is not a list')
  return (created as unknown[]).map((record) => {
    const checked = checkPet(record)
    if (!checked.ok) throw new BadStorage(`a stored created pet is wrong: ${checked.problems.join('; ')}`)
    return checked.value
  })
}

/** The state document with the pets created since it was written: ids above its own, in order. */
export function withCreated(document: unknown, created: readonly Pet[]): unknown {
  if (typeof document !== 'object' || document === null || !Array.isArray((document as { pets?: unknown }).pets)) {
    return document
  }
  const state = document as { pets: unknown[]; nextId?: unknown }
  const last = created.at(-1)?.id
  const nextId =
    typeof last === 'number' && typeof state.nextId === 'number' ? Math.max(state.nextId, last + 1) : state.nextId
  return { ...state, pets: [...state.pets, ...created], nextId }
}

export function newerFormat(format: number): string {
  return `the data stored in this browser is of a newer petstore-sandbox (format ${format}; this one reads ${STORED_FORMAT}), and is left as it is`
}

/** The format a meta record says it is of: 0 for one that says nothing. */
export function formatOf(stamp: unknown): number {
  return typeof stamp === 'object' && stamp !== null && typeof (stamp as Meta).format === 'number'
    ? (stamp as Meta).format
    : 0
}

export function readable(stamp: unknown): Meta | undefined {
  try {
    return metaOf(stamp)
  } catch {
    return undefined
  }
}

/** The meta record, checked: a record of another shape is corrupt storage. */
export function metaOf(stamp: unknown): Meta {
  if (typeof stamp !== 'object' || stamp === null || Array.isArray(stamp)) {
    throw new BadStorage('its meta record is not an object')
  }
  const meta = stamp as Partial<Record<keyof Meta, unknown>>
  if (typeof meta.format === 'number' && meta.format > STORED_FORMAT) return meta as Meta
  if (
    (meta.format !== 1 && meta.format !== STORED_FORMAT) ||
    typeof meta.fingerprint !== 'string' ||
    !Number.isSafeInteger(meta.revision) ||
    !Array.isArray(meta.scenarios) ||
    !meta.scenarios.every((scenario) => typeof scenario === 'object' && scenario !== null) ||
    (meta.digest !== undefined && typeof meta.digest !== 'string')
  ) {
    throw new BadStorage('its meta record is not the one this package writes')
  }
  return meta as Meta
}
