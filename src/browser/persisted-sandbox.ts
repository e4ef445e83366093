/**
 * createSandbox with `persist`: a core whose host loads the stored data before the first answer
 * (Hosting.prepare) and hears of every change (Hosting.changed), and whose calls run through the
 * keeper (persist.ts): those that may change the data under the tabs' lock, reads after catching
 * up with the other tabs. When the sandbox is made, the keeper is loaded by a dynamic import, and
 * the database opened and read (stored.ts) as soon as it is, beside msw's worker starting; a
 * sandbox without `persist` never loads the keeper at all.
 *
 * May import: the core, the other files of src/browser (persist.ts only lazily, or its types).
 */
import type { NewPet, Pet, StoreState, ListPetsQuery } from '../core/api/contract.js'
import type { PetStore } from '../core/api/store.js'
import type { CoreRequest, CoreResponse } from '../core/http/http.js'
import { checkSandboxOptions } from '../core/options.js'
import { createSandboxCore, type SandboxCore } from '../core/sandbox.js'
import type { Hosting, SandboxOptions } from '../core/sandbox-options.js'
import type { Keeper } from './persist.js'

/** The key the data is kept under when `persist: true`: the IndexedDB database's name. */
export const DEFAULT_PERSIST_KEY = 'petstore-sandbox'

/** Methods that only read: every other may change the data. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** A keeper that keeps nothing: what a sandbox runs with when the keeper could not be loaded. */
const PASS_THROUGH: Keeper = { write: (run) => run(), read: (run) => run(), changed() {} }

export function createPersistedCore(options: SandboxOptions, persist: true | { key?: string }): SandboxCore {
  // The environment, after the options: a wrong option is named first, as everywhere.
  checkSandboxOptions(options)
  if (typeof document === 'undefined') {
    throw new TypeError(
      "Failed to create the sandbox: persist keeps the data in a browser's IndexedDB, and there is no browser here: in Node, keep it in a file with --state-file FILE or startServer({ stateFile })",
    )
  }
  const key = (persist === true ? undefined : persist.key) ?? DEFAULT_PERSIST_KEY
  const loading = import('./persist.js')
  // Opened and read as soon as the keeper's code is here: not after the seed is built.
  const storage = loading.then(({ openStorage }) => openStorage(key))
  // Its failure is the keeper's to say, when it opens: until then it is handled here.
  storage.catch(() => undefined)
  let keeper: Keeper | undefined
  let opened: (keeper: Keeper) => void = () => undefined
  const kept = new Promise<Keeper>((resolve) => {
    opened = resolve
  })
  const hosting: Hosting = {
    surface: 'in-process',
    prepare: async (parts) => {
      try {
        const { openKeeper } = await loading
        const { fixtures, generate, randomSeed } = options
        keeper = await openKeeper({ key, seed: { fixtures, generate, randomSeed }, storage, ...parts })
      } catch (error) {
        // The keeper's own failures are its to say; this is the module that would not load.
        console.warn(`petstore-sandbox: the data is kept in memory only: its storage did not start (${String(error)})`)
        keeper = PASS_THROUGH
      }
      opened(keeper)
    },
    changed: () => {
      keeper?.changed()
    },
  }
  const core = createSandboxCore(options, hosting)
  // A seed that never loads (faker missing) never reaches prepare: its calls fail as they would without persist.
  core.health().catch(() => {
    opened(PASS_THROUGH)
  })
  const write = <T>(run: () => Promise<T>, created?: (result: T) => Pet | undefined): Promise<T> =>
    kept.then((ready) => ready.write(run, created))
  const read = <T>(run: () => Promise<T>): Promise<T> => kept.then((ready) => ready.read(run))
  const store = (pets: PetStore): PetStore => ({
    list: (query?: Partial<ListPetsQuery>) => read(() => pets.list(query)),
    get: (id: number) => read(() => pets.get(id)),
    create: (newPet: NewPet): Promise<Pet> =>
      write(
        () => pets.create(newPet),
        (pet) => pet,
      ),
    count: () => read(() => pets.count()),
    reset: () => write(() => pets.reset()),
    snapshot: (): Promise<StoreState> => read(() => pets.snapshot()),
    restore: (state: StoreState) => write(() => pets.restore(state)),
  })
  return Object.freeze({
    ...core,
    pets: store(core.pets),
    tenant: (tenant: string) => store(core.tenant(tenant)),
    handle: (request: CoreRequest) =>
      READS.has(request.method)
        ? read(() => core.handle(request))
        : write(
            () => core.handle(request),
            (response) => createdPet(request, response),
          ),
    reset: (tenant?: string) => write(() => core.reset(tenant)),
    snapshot: (tenant?: string) => read(() => core.snapshot(tenant)),
    restore: (state: unknown, tenant?: string) => write(() => core.restore(state, tenant)),
    reseed: (fixtures: unknown, source?: string) => write(() => core.reseed(fixtures, source)),
    health: () => read(() => core.health()),
    checkpoint: (name: string, checkpointOptions?: Parameters<SandboxCore['checkpoint']>[1]) =>
      write(() => core.checkpoint(name, checkpointOptions)),
    rewind: (name: string, tenant?: string) => write(() => core.rewind(name, tenant)),
    checkpoints: (tenant?: string) => read(() => core.checkpoints(tenant)),
    deleteCheckpoint: (name: string, tenant?: string) => write(() => core.deleteCheckpoint(name, tenant)),
    exportState: (tenant?: string) => read(() => core.exportState(tenant)),
    importState: (state: string | object, tenant?: string) => write(() => core.importState(state, tenant)),
  })
}

/**
 * The pet a call created, from its answer: only createPet answers a POST with 201 and a pet (the
 * admin routes' 201s, a scenario or a checkpoint, are other shapes).
 */
function createdPet(request: CoreRequest, response: CoreResponse): Pet | undefined {
  if (request.method !== 'POST' || response.status !== 201 || typeof response.body !== 'string') return undefined
  let body: unknown
  try {
    body = JSON.parse(response.body)
  } catch {
    return undefined
  }
  if (typeof body !== 'object' || body === null) return undefined
  const { id, name, categoryId } = body as Partial<Record<keyof Pet, unknown>>
  return typeof id === 'number' && typeof name === 'string' && typeof categoryId === 'number'
    ? (body as Pet)
    : undefined
}
