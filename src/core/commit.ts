/**
 * The commit stages (a server with --state-file, saving each change before its answer): an answer
 * that reports a change goes out only once the change is on disk. A call of a row that writes
 * (createPet, and the admin routes that change the data or the checkpoints), answered under 300,
 * waits until the host has every change made so far on disk (Hosting.commit): its own, and any
 * that came before it. Writes that arrive together wait for one flush (the host's group commit).
 * When the host cannot write, the answer is 507: the change was made and is kept in memory, but it
 * is not on disk, so the answer must not say it was kept. Reads never wait: they report nothing.
 *
 * May import: every core folder, zod. No msw, no node:*, no adapter.
 */
import type { Changes, PetStore } from './api/store.js'
import { ApiError } from './http/errors.js'

/** Resolves once every change made so far is on disk; rejects with the 507 when it cannot be. */
export type Commit = () => Promise<void>

export function createCommit(changes: Pick<Changes, 'count'>, commit: (revision: number) => Promise<void>): Commit {
  const refused = (failure: unknown) => {
    throw new ApiError(
      'insufficient_storage',
      `The change was made, but the state file could not be written (${failure instanceof Error ? failure.message : String(failure)}): it is kept in memory and saved again once the disk allows; a crash before then would lose it`,
    )
  }
  return () => commit(changes.count).catch(refused)
}

/** A store whose writes resolve once they are on disk. */
function committedStore(store: PetStore, commit: Commit): PetStore {
  return {
    ...store,
    async create(newPet) {
      const pet = await store.create(newPet)
      await commit()
      return pet
    },
    async reset() {
      await store.reset()
      await commit()
    },
    async restore(state) {
      await store.restore(state)
      await commit()
    },
  }
}

/** What withCommits wraps: a sandbox's stores, and its methods that write. */
interface Committable {
  readonly pets: PetStore
  tenant(key: string): PetStore
}

/**
 * The sandbox's methods as a host that commits gives them: a method that changes the data or the
 * checkpoints (`writes`, named by the sandbox, whose methods they are) resolves once the change is
 * on disk, as the routes answer; it rejects with the 507's ApiError when the change could not be
 * written (it is kept in memory). Generic, so that this file needs no import of the sandbox's.
 */
export function withCommits<S extends Committable>(sandbox: S, commit: Commit, writes: readonly (keyof S)[]): S {
  const wrapped: Partial<Record<keyof S, unknown>> = {}
  for (const name of writes) {
    const method = sandbox[name] as (...args: unknown[]) => Promise<unknown>
    const committed = async (...args: unknown[]) => {
      const result = await method.apply(sandbox, args)
      await commit()
      return result
    }
    wrapped[name] = committed
  }
  return {
    ...sandbox,
    pets: committedStore(sandbox.pets, commit),
    tenant: (key: string) => committedStore(sandbox.tenant(key), commit),
    ...wrapped,
  }
}
