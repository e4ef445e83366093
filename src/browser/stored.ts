/**
 * What a persisted sandbox keeps in IndexedDB (one database per key, one store of records), and
 * the first read of it, started as soon as the keeper's chunk is loaded (persisted-sandbox.ts):
 * beside msw's worker starting and the seed's building, not after them.
 *
 * The records (format 2):
 * - `meta`: the format, the seed's fingerprint, the revision, the scenarios, and the state
 *   record's digest (persist.ts's Meta);
 * - `state`: the state document's text (core/admin/persisted.ts: the format a --state-file holds);
 * - `created:<id, 16 digits>`: each pet created since `state` was written whole, one record each,
 *   so a create writes its pet and the meta, whatever the data's size.
 * Format 1 (0.14.0) kept the created pets in one record, `created`, a list: still read.
 *
 * May import: the other files of src/browser.
 */
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
