/**
 * IndexedDB as promises, for the few things a persisted sandbox asks of it: one database per key,
 * one store of records by name, read together and written together. Each read or write is one
 * transaction: IndexedDB runs the readwrite transactions of every tab in the order they were made,
 * and a later one sees what an earlier one committed, so a record read after another tab's write
 * is that write's.
 *
 * Opened and read as soon as the keeper's code is loaded (persisted-sandbox.ts), beside msw's
 * worker starting and the seed's building, not after them.
 *
 * May import: nothing.
 */

const STORE = 'records'

/** Opens (or creates) the database; a newer version opened by another tab closes this one. */
export function openDatabase(name: string): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    // open() itself may throw (a browser that forbids storage here): the promise then rejects.
    const request = indexedDB.open(name, 1)
    request.addEventListener('upgradeneeded', () => {
      request.result.createObjectStore(STORE)
    })
    request.addEventListener('success', () => {
      const database = request.result
      database.addEventListener('versionchange', () => {
        database.close()
      })
      resolve(database)
    })
    request.addEventListener('error', () => {
      reject(request.error ?? new Error('IndexedDB refused to open the database'))
    })
  })
}

/** The records of these names, in one transaction: undefined for a missing one. */
export async function readRecords(database: IDBDatabase, names: readonly string[]): Promise<unknown[]> {
  return (await readRecordsAndRange(database, names)).records
}

export interface RecordsRead {
  readonly records: unknown[]
  /** The records whose names start with the prefix asked for, in the order of their names. */
  readonly ranged: unknown[]
}

/**
 * The records of these names and those whose names start with `prefix`, in one transaction: one
 * consistent view, whatever another tab commits meanwhile (a readonly transaction sees every
 * readwrite one made before it, and none made after).
 */
export function readRecordsAndRange(
  database: IDBDatabase,
  names: readonly string[],
  prefix?: string,
): Promise<RecordsRead> {
  return new Promise((resolve, reject) => {
    const transaction = database.transaction(STORE, 'readonly')
    const store = transaction.objectStore(STORE)
    const requests = names.map((name) => store.get(name))
    const range = prefix === undefined ? undefined : store.getAll(namesStarting(prefix))
    transaction.addEventListener('complete', () => {
      resolve({
        records: requests.map((request) => request.result as unknown),
        ranged: range === undefined ? [] : (range.result as unknown[]),
      })
    })
    settleOnFailure(transaction, reject)
  })
}

/**
 * Writes these records in one transaction, resolved once it committed (over quota, it rejects);
 * first deletes the records whose names start with `clear`, when given.
 */
export function writeRecords(
  database: IDBDatabase,
  records: readonly (readonly [string, unknown])[],
  clear?: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const transaction = database.transaction(STORE, 'readwrite')
    const store = transaction.objectStore(STORE)
    if (clear !== undefined) store.delete(namesStarting(clear))
    for (const [name, value] of records) store.put(value, name)
    transaction.addEventListener('complete', () => {
      resolve()
    })
    settleOnFailure(transaction, reject)
  })
}

/** Every string key that starts with the prefix (U+FFFF sorts after every character a name holds). */
function namesStarting(prefix: string): IDBKeyRange {
  return IDBKeyRange.bound(prefix, `${prefix}\uffff`)
}

function settleOnFailure(transaction: IDBTransaction, reject: (error: unknown) => void): void {
  const fail = () => {
    reject(transaction.error ?? new Error('the IndexedDB transaction was aborted'))
  }
  transaction.addEventListener('error', fail)
  transaction.addEventListener('abort', fail)
}
