/**
 * What happens in a sandbox, as it happens: each request the API answers, and each change of a
 * tenant's pets (a create, a reset, a state import). The dashboard's event stream listens here;
 * with no listener, nothing is built.
 *
 * May import: other core files, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import type { JournalEntry } from './admin-contract.js'

export type SandboxEvent =
  | { readonly type: 'request'; readonly key: string | undefined; readonly entry: JournalEntry }
  /** `key` undefined: every tenant changed (a reset of all, a new seed). */
  | { readonly type: 'change'; readonly key: string | undefined }

export interface EventBus {
  emit(event: SandboxEvent): void
  subscribe(listener: (event: SandboxEvent) => void): () => void
  /** Whether anyone listens: callers skip building events otherwise. */
  listening(): boolean
}

export function createEventBus(): EventBus {
  const listeners = new Set<(event: SandboxEvent) => void>()
  return {
    emit(event) {
      for (const listener of listeners) listener(event)
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    listening: () => listeners.size > 0,
  }
}
