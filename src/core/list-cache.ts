/**
 * listPets answers kept as JSON text for repeated polls, for every tenant together, within one
 * byte budget (the listCacheBytes limit): the least recently used answers go first. A tenant's
 * answers are dropped whenever its pets change. Lengths are counted in UTF-16 code units, which
 * for JSON of mostly ASCII text is its size in bytes.
 *
 * May import: other core files, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
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

export function createListCache(maxBytes: number): ListCache {
  // Map order is insertion order: a hit is moved to the end, so the front is least recently used.
  const entries = new Map<string, { owner: number; text: string }>()
  const byOwner = new Map<number, Set<string>>()
  let bytes = 0
  let owners = 0
  const remove = (id: string) => {
    const entry = entries.get(id)
    if (entry === undefined) return
    entries.delete(id)
    bytes -= entry.text.length
    const ids = byOwner.get(entry.owner)
    ids?.delete(id)
    if (ids?.size === 0) byOwner.delete(entry.owner)
  }
  return {
    get(owner, key) {
      const id = `${owner}:${key}`
      const entry = entries.get(id)
      if (entry === undefined) return undefined
      entries.delete(id)
      entries.set(id, entry)
      return entry.text
    },
    set(owner, key, text) {
      if (text.length > maxBytes) return
      const id = `${owner}:${key}`
      remove(id)
      while (bytes + text.length > maxBytes) {
        const oldest = entries.keys().next()
        if (oldest.done === true) break
        remove(oldest.value)
      }
      entries.set(id, { owner, text })
      bytes += text.length
      let ids = byOwner.get(owner)
      if (ids === undefined) {
        ids = new Set()
        byOwner.set(owner, ids)
      }
      ids.add(id)
    },
    drop(owner) {
      const ids = byOwner.get(owner)
      if (ids === undefined) return
      for (const id of ids) {
        const entry = entries.get(id)
        if (entry !== undefined) bytes -= entry.text.length
        entries.delete(id)
      }
      byOwner.delete(owner)
    },
    bytes: () => bytes,
    newOwner: () => ++owners,
  }
}
