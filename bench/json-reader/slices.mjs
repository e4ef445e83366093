// Per-slice times of readJsonInSlices on the 8 MiB import (one cold run), with --trace-gc
// lines interleaved, to see what makes the longest slice long.
//   taskset -c 1 node --trace-gc bench/json-reader/slices.mjs
import * as c from './candidates.mjs'
const { body } = c.stateBody()
let t = performance.now()
const slices = []
const pause = () => {
  const now = performance.now()
  slices.push(now - t)
  console.log(`slice ${slices.length}: ${(now - t).toFixed(1)} ms`)
  return new Promise((resolve) => setTimeout(() => ((t = performance.now()), resolve()), 0))
}
const r = await c.readJsonInSlices(body, 'body', pause)
console.log(`last slice: ${(performance.now() - t).toFixed(1)} ms, ok ${r.ok}`)
