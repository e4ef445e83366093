/**
 * What happens in a sandbox, as it happens: each request the API answers, and each change of a
 * tenant's pets (a create, a reset, a state import). The dashboard's event stream listens here;
 * with no listener, nothing is built. Each event is turned into text once, however many readers
 * there are (`text`), and each reader's backlog is kept here so health can report it.
 *
 * May import: core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import type { JournalEntry } from './shapes.js'

export type SandboxEvent =
  | { readonly type: 'request'; readonly key: string | undefined; readonly entry: JournalEntry }
  /** `key` undefined: every tenant changed (a reset of all, a new seed). */
  | { readonly type: 'change'; readonly key: string | undefined }
  /** A checkpoint saved or deleted (a rewind is a change). */
  | { readonly type: 'checkpoints'; readonly key: string | undefined }
  /** A hold was added or released, caught a call or lost one: the dashboard's list of held requests. */
  | { readonly type: 'holds'; readonly key: string | undefined }
  /** What is forwarded to the upstream, or whether its pets are recorded, was switched: server-wide. */
  | { readonly type: 'forwarding'; readonly key: undefined }

interface Subscription {
  /** Unsubscribes; calling it again does nothing. */
  stop(): void
  /** The reader's bytes not yet taken, as its adapter last said. */
  backlog: number
}

export interface EventBus {
  emit(event: SandboxEvent): void
  subscribe(listener: (event: SandboxEvent) => void): Subscription
  /** Whether anyone listens: callers skip building events otherwise. */
  listening(): boolean
  /** How many listen. */
  count(): number
  /** The largest backlog of any reader now, in bytes. */
  largestBacklog(): number
  /** The event as text, made by `format` once per event however many listeners ask. */
  text(event: SandboxEvent, format: (event: SandboxEvent) => string): string
}

export function createEventBus(): EventBus {
  const listeners = new Map<(event: SandboxEvent) => void, Subscription>()
  let lastEvent: SandboxEvent | undefined
  let lastText = ''
  return {
    emit(event) {
      // A listener may stop itself (a reader that fell behind): deleting while iterating a Map is safe.
      for (const listener of listeners.keys()) listener(event)
      lastEvent = undefined
      lastText = ''
    },
    subscribe(listener) {
      const subscription: Subscription = {
        stop: () => {
          listeners.delete(listener)
        },
        backlog: 0,
      }
      listeners.set(listener, subscription)
      return subscription
    },
    listening: () => listeners.size > 0,
    count: () => listeners.size,
    largestBacklog() {
      let largest = 0
      for (const { backlog } of listeners.values()) largest = Math.max(largest, backlog)
      return largest
    },
    text(event, format) {
      if (event !== lastEvent) {
        lastText = format(event)
        lastEvent = event
      }
      return lastText
    },
  }
}
