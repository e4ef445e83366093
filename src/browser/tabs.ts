/**
 * The tabs of one origin that keep the same sandbox: a Web Lock serialises their writes (and the
 * catching up before each), and a BroadcastChannel tells the others at once that one wrote. The
 * message is only a hint to catch up early: IndexedDB is the source of truth, and every read
 * checks it, so a late or lost message costs nothing but a little time.
 *
 * May import: nothing.
 */

export interface Tabs {
  /** Runs `work` while no other tab of the origin runs work under the same key. */
  exclusive<T>(work: () => Promise<T>): Promise<T>
  /** Tells the other tabs that the stored data moved. */
  tell(): void
  close(): void
}

export function createTabs(key: string, heard: () => void): Tabs {
  const name = `petstore-sandbox:${key}`
  const channel = typeof BroadcastChannel === 'undefined' ? undefined : new BroadcastChannel(name)
  channel?.addEventListener('message', () => {
    heard()
  })
  return {
    exclusive: (work) => navigator.locks.request(name, work),
    tell() {
      channel?.postMessage('changed')
    },
    close() {
      channel?.close()
    },
  }
}
