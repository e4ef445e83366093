/**
 * Seeded randomness (pure-rand's xoroshiro128+), so runs with the same --random-seed repeat:
 * the same random delays and the same simulated failures, in the same order.
 *
 * May import: core/api, core/http, core/limits.ts, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import { unsafeUniformIntDistribution, xoroshiro128plus } from 'pure-rand'

/** A source of numbers in [0, 1). Each sandbox owns one; nothing is shared. */
type Random = () => number

export function createRandom(seed: number = Date.now()): Random {
  const generator = xoroshiro128plus(seed)
  return () => unsafeUniformIntDistribution(0, 0x7fffffff, generator) / 0x80000000
}
