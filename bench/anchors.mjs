// bench/anchors.json, read and checked: for each gated measure of bench/compare.mjs, the commit
// that did it best in a same-sitting run. An anchor moves only when a release beats it in such a
// run, by a commit that says so (and gives the run); bench:compare prints when head beats one.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { MEASURES } from './compare-report.mjs'

/** The anchors by measure: { commit, release, seen }. Throws naming what is wrong. */
export function readAnchors(root) {
  const file = join(root, 'bench', 'anchors.json')
  const { anchors } = JSON.parse(readFileSync(file, 'utf8'))
  for (const [measure, anchor] of Object.entries(anchors)) {
    if (MEASURES[measure] === undefined) throw new Error(`${file}: ${measure} is not a measure of bench:compare`)
    for (const field of ['commit', 'release', 'seen']) {
      if (typeof anchor[field] !== 'string' || anchor[field] === '') {
        throw new Error(`${file}: the anchor of ${measure} needs a ${field}`)
      }
    }
  }
  return anchors
}
