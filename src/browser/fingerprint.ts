/**
 * What the stored data grew from: a fingerprint of the seed's options, so a demo whose seed
 * changed (new fixtures, another `generate` or `randomSeed`) drops the data of the old one instead
 * of showing it. The options are hashed, not the pets: `generate` without `randomSeed` makes
 * other pets on every load, from one and the same seed.
 *
 * May import: the core.
 */
import { bundledSeed } from '../core/api/seed.js'

export interface SeedOptions {
  readonly fixtures?: readonly unknown[] | undefined
  readonly generate?: number | undefined
  readonly randomSeed?: number | undefined
}

export function seedFingerprint(seed: SeedOptions): string {
  // randomSeed shapes the generated pets only: with fixtures it draws delays and failures, not data.
  const text =
    seed.generate === undefined
      ? JSON.stringify({ fixtures: seed.fixtures ?? bundledSeed() })
      : JSON.stringify({ generate: seed.generate, randomSeed: seed.randomSeed ?? null })
  return textDigest(text)
}

/**
 * A digest of a text: its cyrb53 hash and its length. cyrb53: 53 well-mixed bits, plenty to tell
 * two seeds apart or to see that a stored record changed (no adversary here: code of the page's
 * own origin could write anything anyway).
 */
export function textDigest(text: string): string {
  return `${hash(text)}-${text.length}`
}

function hash(text: string): string {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    h1 = Math.imul(h1 ^ code, 2654435761)
    h2 = Math.imul(h2 ^ code, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)
}
