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
 * A list is kept from its second ask on (`askedBefore`), not its first: answers asked once, as
 * when many keys each walk many shapes, would pass through the cache and out again. An answer kept
 * that long outlives the young generation's scavenges, so V8 moves each one to the old
 * generation, where it dies; the old generation then grows to its limit between mark-compacts,
 * and the process's peak RSS with it (issue 49; bench/tenants-memory.mjs measures it). What
 * remembers the first asks is one fixed table of hashes, made once: it holds no string and grows
 * with nothing a client sends.
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
  /**
   * True when this owner's list `key` was asked recently before (it is worth keeping); else
   * notes the ask and answers false. A rare collision of two lists' hashes answers true early,
   * which only keeps a list a little sooner.
   */
  askedBefore(owner: number, key: string): boolean
}

/**
 * How many recent first asks the cache remembers: 16,384 hashes (64 KiB). A list polled once a
 * second among 3,000 other lists a second is still remembered at its next poll 5 times in 6.
 */
const ASKS_REMEMBERED = 16_384

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
  // A slot per hash's low bits, holding the hash with its lowest bit set: 0 is an empty slot, never a mark.
  const asked = new Uint32Array(maxBytes > 0 ? ASKS_REMEMBERED : 0)
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
    askedBefore(owner, key) {
      if (asked.length === 0) return false
      const hash = hashOf(owner, key)
      const slot = hash & (asked.length - 1)
      const mark = (hash | 1) >>> 0
      if (asked[slot] === mark) return true
      asked[slot] = mark
      return false
    },
  }
}

/** FNV-1a over the owner's number and the key's UTF-16 code units: cheap, and no allocation. */
function hashOf(owner: number, key: string): number {
  let hash = Math.imul(0x811c9dc5 ^ owner, 0x01000193)
  for (let index = 0; index < key.length; index++) {
    hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193)
  }
  return hash
}
