/**
 * IndexedDB as promises, for the few things a persisted sandbox asks of it: one database per key,
 * one store of records by name, read together and written together. Each read or write is one
 * transaction: IndexedDB runs the readwrite transactions of every tab in the order they were made,
 * and a later one sees what an earlier one committed, so a record read after another tab's write
 * is that write's.
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
export function readRecords(database: IDBDatabase, names: readonly string[]): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const transaction = database.transaction(STORE, 'readonly')
    const store = transaction.objectStore(STORE)
    const requests = names.map((name) => store.get(name))
    transaction.addEventListener('complete', () => {
      resolve(requests.map((request) => request.result as unknown))
    })
    settleOnFailure(transaction, reject)
  })
}

/** Writes these records in one transaction, resolved once it committed (over quota, it rejects). */
export function writeRecords(database: IDBDatabase, records: readonly (readonly [string, unknown])[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const transaction = database.transaction(STORE, 'readwrite')
    const store = transaction.objectStore(STORE)
    for (const [name, value] of records) store.put(value, name)
    transaction.addEventListener('complete', () => {
      resolve()
    })
    settleOnFailure(transaction, reject)
  })
}

function settleOnFailure(transaction: IDBTransaction, reject: (error: unknown) => void): void {
  const fail = () => {
    reject(transaction.error ?? new Error('the IndexedDB transaction was aborted'))
  }
  transaction.addEventListener('error', fail)
  transaction.addEventListener('abort', fail)
}
