/**
 * listPets answers kept as JSON text for repeated polls, for every tenant together, within one
 * byte budget (the listCacheBytes limit). A tenant's answers are dropped whenever its pets
 * change. Lengths are counted in UTF-16 code units, which for JSON of mostly ASCII text is its
 * size in bytes.
 *
 * Eviction is the clock approximation of least recently used: a hit only marks its entry, and
 * eviction walks from the oldest, giving each marked entry a second chance at the back. A hit,
 * which every repeated poll is, then costs one map lookup and no reordering.
 *
 * May import: core/api, core/http, core/limits.ts, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */

export interface ListCache {
  get(owner: number, key: string): string | undefined
  set(owner: number, key: string, text: string): void
  /** Drops every answer of one owner (its pets changed). */
  drop(owner: number): void
  /** The bytes kept now. */
  bytes(): number
  /** A number no other owner of this cache has. */
  newOwner(): number
}

interface Entry {
  readonly owner: number
  readonly key: string
  readonly text: string
  used: boolean
}

export function createListCache(maxBytes: number): ListCache {
  const byOwner = new Map<number, Map<string, Entry>>()
  // Set order is insertion order: the front is the oldest.
  const order = new Set<Entry>()
  let bytes = 0
  let owners = 0
  const remove = (entry: Entry) => {
    order.delete(entry)
    bytes -= entry.text.length
    const entries = byOwner.get(entry.owner)
    entries?.delete(entry.key)
    if (entries?.size === 0) byOwner.delete(entry.owner)
  }
  const evictOne = (): boolean => {
    for (const entry of order) {
      order.delete(entry)
      if (entry.used) {
        entry.used = false
        order.add(entry)
        continue
      }
      order.add(entry)
      remove(entry)
      return true
    }
    return false
  }
  return {
    get(owner, key) {
      const entry = byOwner.get(owner)?.get(key)
      if (entry === undefined) return undefined
      entry.used = true
      return entry.text
    },
    set(owner, key, text) {
      if (text.length > maxBytes) return
      const known = byOwner.get(owner)?.get(key)
      if (known !== undefined) remove(known)
      while (bytes + text.length > maxBytes && evictOne()) {
        // Making room, oldest unmarked first.
      }
      const entry: Entry = { owner, key, text, used: false }
      let entries = byOwner.get(owner)
      if (entries === undefined) {
        entries = new Map()
        byOwner.set(owner, entries)
      }
      entries.set(key, entry)
      order.add(entry)
      bytes += text.length
    },
    drop(owner) {
      const entries = byOwner.get(owner)
      if (entries === undefined) return
      for (const entry of entries.values()) {
        order.delete(entry)
        bytes -= entry.text.length
      }
      byOwner.delete(owner)
    },
    bytes: () => bytes,
    newOwner: () => ++owners,
  }
}
