/**
 * The keeper of a persisted sandbox (`createSandbox({ persist })`): the data in the browser's
 * IndexedDB, one database per key, shared by the tabs of the origin. Loaded only by a dynamic
 * import from persisted-sandbox.ts, so a sandbox without `persist` never loads it.
 *
 * - Load: once the seed is built and before any call is answered (Hosting.prepare), from what
 *   stored.ts read when the sandbox was made: one readonly transaction, a consistent view without
 *   the tabs' lock. A state record whose digest is the one its meta names is the text this package
 *   wrote, so its pets are not checked again (they were when they entered the store; for 10,000
 *   pets that check was 45-60 of a reload's 137 ms); any other is checked whole. A changed seed
 *   drops what was stored (one console line); `?petstore-reset` does too, and is then taken off
 *   the address: both write the seed under the lock, after reading again.
 * - Write: a call that may change the data runs under the tabs' lock, after catching up with what
 *   another tab stored, and the data is written before the lock is let go: two tabs creating at
 *   once are served one after the other, each from the other's last pet, so ids never collide.
 *   A change made outside such a call (an in-process scenario, a scenario used up) is written at
 *   the end of the current task, coalesced; `pagehide` and a hidden page flush as a belt.
 * - Read: a call that only reads first checks the stored revision (one small record) and catches
 *   up when another tab wrote since.
 * - Bad storage (no IndexedDB, a corrupt record, a newer format, a full disk): the sandbox keeps
 *   working in memory, and says so in one console line. Never an exception in the page.
 *
 * What is stored, record by record: stored.ts.
 *
 * May import: the core, the other files of src/browser.
 */
import type { Scenario, ScenarioInput } from '../core/admin/contract.js'
import type { Pet } from '../core/api/contract.js'
import type { Kept } from '../core/sandbox-options.js'
import { seedFingerprint, textDigest, type SeedOptions } from './fingerprint.js'
import { readRecords, writeRecords } from './idb.js'
import {
  BadStorage,
  CREATED_LIST,
  createdName,
  createdOf,
  formatOf,
  META,
  metaOf,
  newerFormat,
  readable,
  readStored,
  STATE,
  STORED_FORMAT,
  withCreated,
  type Meta,
  type OpenedStorage,
  type StoredRecords,
} from './stored.js'
import { createTabs, type Tabs } from './tabs.js'

// The first read starts from here: the one chunk a persisted sandbox loads (persisted-sandbox.ts).
export { openStorage } from './stored.js'

/** The address parameter that starts a demo from its seed: `?petstore-reset` (any value). */
export const RESET_PARAMETER = 'petstore-reset'

/** How a persisted sandbox runs its calls. */
export interface Keeper {
  /**
   * A call that may change the data: under the tabs' lock, caught up first, written after.
   * `created` names the pet the call created, if it did: then only that pet is written.
   */
  write<T>(run: () => Promise<T>, created?: (result: T) => Pet | undefined): Promise<T>
  /** A call that only reads: caught up with the other tabs first. */
  read<T>(run: () => Promise<T>): Promise<T>
  /** The data, the checkpoints or the scenarios changed. */
  changed(): void
}

export interface KeeperSetup extends Kept {
  /** The IndexedDB database's name, and the lock's and the channel's. */
  readonly key: string
  readonly seed: SeedOptions
  /** The database, opened and read when the sandbox was made (stored.ts's openStorage). */
  readonly storage: Promise<OpenedStorage>
}

/** Opens the stored data into the sandbox (before its first answer) and keeps it from then on. */
export async function openKeeper(setup: KeeperSetup): Promise<Keeper> {
  const keeper = new StoredKeeper(setup)
  await keeper.open()
  return keeper
}

/**
 * The keeper's state and its steps, each a method of its own. A class, not a closure: one
 * function holding every step ran to 235 lines.
 */
class StoredKeeper implements Keeper {
  readonly #key: string
  readonly #seed: SeedOptions
  readonly #persistence: KeeperSetup['persistence']
  readonly #scenarios: KeeperSetup['scenarios']
  readonly #storage: Promise<OpenedStorage>
  #database: IDBDatabase | undefined
  #tabs: Tabs | undefined
  #fingerprint = ''
  /** Once storage failed: every call runs in memory, and nothing is read or written again. */
  #memory = false
  /** Whether the data changed since it was last loaded or written. */
  #dirty = false
  #flushing = false
  /** The stored revision this tab last loaded or wrote. */
  #synced = -1
  /** How many pets are stored as created since the state was last written whole. */
  #appended = 0
  /** The digest of the state record as this tab last loaded or wrote it: an append's meta keeps it. */
  #digest = ''

  /** How many changes this tab heard of: a call that made one change, a create, is appended. */
  #heard = 0
  /** The last catch-up found the stored data to be this tab's: under the lock, it still is. */
  #current = false
  #said = false
  /** This tab's storage work, one step at a time: a catch-up never lands in the middle of a write. */
  #queue: Promise<unknown> = Promise.resolve()

  constructor({ key, seed, persistence, scenarios, storage }: KeeperSetup) {
    this.#key = key
    this.#storage = storage
    this.#seed = seed
    this.#persistence = persistence
    this.#scenarios = scenarios
  }

  async open(): Promise<void> {
    const reset = resetAsked()
    // In the queue like every other step: a change the load makes is never flushed in its middle.
    await this.#serial(() => this.#guarded(() => this.#openStored(reset)))
    if (reset) dropResetParameter()
    const flush = () => {
      this.#flush()
    }
    addEventListener('pagehide', flush)
    addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'hidden') flush()
    })
  }

  write<T>(run: () => Promise<T>, created?: (result: T) => Pet | undefined): Promise<T> {
    const held = this.#tabs
    if (this.#memory || held === undefined) return run()
    return this.#serial(() =>
      held.exclusive(async () => {
        await this.#guarded(() => this.#catchUp())
        const before = this.#heard
        const result = await run().catch(async (error: unknown) => {
          await this.#guarded(() => this.#save())
          throw error
        })
        const pet = this.#heard === before + 1 ? created?.(result) : undefined
        await this.#guarded(() => (pet === undefined ? this.#save() : this.#append(pet)))
        return result
      }),
    )
  }

  async read<T>(run: () => Promise<T>): Promise<T> {
    if (!this.#memory) await this.#serial(() => this.#guarded(() => this.#catchUp()))
    return run()
  }

  changed(): void {
    this.#heard++
    this.#dirty = true
    // At the end of the current task: a burst of changes is one write.
    queueMicrotask(() => {
      this.#flush()
    })
  }

  /**
   * The first load: what was read when the sandbox was made, without the lock (one transaction is
   * a consistent view). Only a reset, or a seed other than the stored data's, writes: under the
   * lock, after reading again, as another tab of this build may have written the new seed already.
   */
  async #openStored(reset: boolean): Promise<void> {
    const { database, records } = await this.#storage
    this.#fingerprint = seedFingerprint(this.#seed)
    this.#database = database
    this.#tabs = createTabs(this.#key, () => {
      void this.#serial(() => this.#guarded(() => this.#catchUp()))
    })
    if (!reset && (await this.#loaded(records, false))) return
    await this.#tabs.exclusive(async () => {
      if (!reset && (await this.#loaded(await readStored(database), true))) return
      // The seed, written over what was stored (spoilt storage too, on a reset): the other tabs catch up to it.
      this.#dirty = true
      await this.#save()
    })
  }

  /**
   * Loads what is stored when it grew from this seed, or nothing is stored: false when the seed
   * must be written over it (once said, `tell`).
   */
  async #loaded(records: StoredRecords, tell: boolean): Promise<boolean> {
    // Nothing stored yet: the seed is what the next load would make anyway.
    if (records.meta === undefined) return true
    const format = formatOf(records.meta)
    if (format > STORED_FORMAT) throw new BadStorage(newerFormat(format))
    const meta = metaOf(records.meta)
    if (meta.fingerprint === this.#fingerprint) {
      await this.#load(meta, records)
      return true
    }
    if (tell) {
      this.#say(
        `the seed changed since the data stored in this browser (key ${JSON.stringify(this.#key)}) was saved: dropped it, starting from the new seed`,
      )
    }
    return false
  }

  #say(line: string): void {
    if (this.#said) return
    this.#said = true
    console.warn(`petstore-sandbox: ${line}`)
  }

  #fallBack(why: string): void {
    if (this.#memory) return
    this.#memory = true
    this.#tabs?.close()
    this.#say(
      `${why}. The data is kept in memory only, and a reload starts from the seed (open the page with ?${RESET_PARAMETER} to clear the storage of key ${JSON.stringify(this.#key)})`,
    )
  }

  #serial<T>(step: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(step, step)
    this.#queue = next.catch(() => undefined)
    return next
  }

  /** Runs storage work; a failure turns the sandbox to memory, never into an exception in the page. */
  async #guarded(work: () => Promise<void>): Promise<void> {
    try {
      await work()
    } catch (error) {
      this.#fallBack(storageProblem(error))
    }
  }

  async #load(meta: Meta, records: StoredRecords): Promise<void> {
    const text = records.state
    if (typeof text !== 'string') throw new BadStorage('its state record is missing or not text')
    let document: unknown
    try {
      document = JSON.parse(text)
    } catch {
      throw new BadStorage('its state record is not JSON')
    }
    const digest = textDigest(text)
    const since = createdOf(meta.format === 1 ? records.createdList : records.created)
    if (since.length > 0) document = withCreated(document, since)
    try {
      // The text this package wrote, unchanged since: its pets were checked when they entered the store.
      await (meta.digest === digest ? this.#persistence.loadWritten(document) : this.#persistence.load(document))
    } catch (error) {
      throw new BadStorage(`its state record is not a state: ${error instanceof Error ? error.message : String(error)}`)
    }
    this.#scenarios.clear()
    try {
      for (const input of meta.scenarios) this.#scenarios.add(input)
    } catch (error) {
      throw new BadStorage(`a stored scenario is wrong: ${error instanceof Error ? error.message : String(error)}`)
    }
    this.#synced = meta.revision
    this.#digest = digest
    // Format 1's list is not where format 2 appends: the next write is a whole one, which drops it.
    this.#appended = meta.format === 1 ? APPENDED_PETS : since.length
    this.#dirty = false
  }

  /** Loads what another tab stored since this one last loaded or wrote. */
  async #catchUp(): Promise<void> {
    this.#current = false
    const database = this.#database
    if (this.#memory || database === undefined) return
    const [stamp] = await readRecords(database, [META])
    if (stamp === undefined) return
    const meta = metaOf(stamp)
    if (meta.format > STORED_FORMAT) throw new BadStorage(newerFormat(meta.format))
    if (meta.revision === this.#synced) {
      this.#current = true
      return
    }
    // Written by a tab of another build, from another seed: not this one's to load. This tab's
    // next write is then a whole one, over it (its revision is not this tab's).
    if (meta.fingerprint !== this.#fingerprint) return
    const latest = await readStored(database)
    await this.#load(metaOf(latest.meta), latest)
    this.#current = true
  }

  /** Writes the data as it is now; the caller holds the tabs' lock. */
  async #save(): Promise<void> {
    const database = this.#database
    if (this.#memory || database === undefined || !this.#dirty) return
    this.#dirty = false
    let text = ''
    for await (const piece of this.#persistence.chunks()) text += piece
    const [stamp] = await readRecords(database, [META])
    const format = formatOf(stamp)
    if (format > STORED_FORMAT) throw new BadStorage(newerFormat(format))
    // A record spoilt since the load is written over: its revision is lost, so this one's counts on.
    const stored = stamp === undefined ? undefined : readable(stamp)
    const revision = Math.max(this.#synced, stored?.revision ?? -1) + 1
    const digest = textDigest(text)
    // Clearing the names starting `created` drops the created pets of both formats.
    await writeRecords(
      database,
      [
        [STATE, text],
        [META, this.#metaAt(revision, digest)],
      ],
      CREATED_LIST,
    )
    this.#synced = revision
    this.#digest = digest
    this.#appended = 0
    this.#tabs?.tell()
  }

  #metaAt(revision: number, digest: string): Meta {
    return {
      format: STORED_FORMAT,
      fingerprint: this.#fingerprint,
      revision,
      scenarios: this.#scenarios.list().map(inputOf),
      savedAt: new Date().toISOString(),
      digest,
    }
  }

  /**
   * Writes one created pet and nothing else changed: a record of its own beside the state written
   * whole before, so a create costs the same with 10 pets stored as with 10,000. The caller holds
   * the tabs' lock and caught up just before (`current`), so what is stored is this tab's data but
   * the pet; otherwise (nothing stored yet, another build's data) it is a whole save.
   */
  async #append(pet: Pet): Promise<void> {
    const database = this.#database
    if (this.#memory || database === undefined || !this.#dirty) return
    if (!this.#current || this.#appended >= APPENDED_PETS) {
      await this.#save()
      return
    }
    this.#dirty = false
    const revision = this.#synced + 1
    await writeRecords(database, [
      [createdName(pet.id), pet],
      [META, this.#metaAt(revision, this.#digest)],
    ])
    this.#synced = revision
    this.#appended++
    this.#tabs?.tell()
  }

  #flush(): void {
    const held = this.#tabs
    if (this.#memory || !this.#dirty || this.#flushing || held === undefined) return
    this.#flushing = true
    void this.#serial(async () => {
      this.#flushing = false
      if (!this.#memory && this.#dirty) await this.#guarded(() => held.exclusive(() => this.#save()))
    })
  }
}

/**
 * Pets appended, one record each, before the state is written whole again: a load reads and
 * checks each beside the state (they are not under its digest), so they are kept few.
 */
const APPENDED_PETS = 256

/** What went wrong with the storage, in a few words for the console line. */
function storageProblem(error: unknown): string {
  if (error instanceof BadStorage) {
    return error.message.startsWith('the data') || error.message.startsWith('this browser')
      ? error.message
      : `the data stored in this browser cannot be used: ${error.message}`
  }
  const name = error instanceof Error || error instanceof DOMException ? error.name : ''
  if (name === 'QuotaExceededError') return "the browser's storage for this origin is full (QuotaExceededError)"
  const message = error instanceof Error || error instanceof DOMException ? error.message : String(error)
  return `the browser's IndexedDB failed: ${name === '' ? message : `${name}: ${message}`}`
}

/** A scenario as it was added, with what is left of its count. */
function inputOf(scenario: Scenario): ScenarioInput {
  return {
    operation: scenario.operation,
    ...(scenario.status !== undefined && { status: scenario.status }),
    ...(scenario.delayMs !== undefined && { delayMs: scenario.delayMs }),
    ...(scenario.retryAfterSeconds !== undefined && { retryAfterSeconds: scenario.retryAfterSeconds }),
    ...(scenario.remaining !== undefined && { times: scenario.remaining }),
  }
}

function resetAsked(): boolean {
  return typeof location !== 'undefined' && new URL(location.href).searchParams.has(RESET_PARAMETER)
}

/** Takes the parameter off the address, so a plain reload keeps what is made from now on. */
function dropResetParameter(): void {
  const url = new URL(location.href)
  url.searchParams.delete(RESET_PARAMETER)
  history.replaceState(history.state, '', url)
}
