// Which of readJson's guarantees each candidate keeps: probe texts through every candidate,
// compared with readJson's answer (value deep-equal incl. InexactNumber, or ok:false with the
// same problems / any problems). Run with and without --harmony-json-parse-with-source.
//   node bench/json-reader/guarantees.mjs
//   node --harmony-json-parse-with-source bench/json-reader/guarantees.mjs
import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import * as c from './candidates.mjs'

const probes = {
  'exact number 9007199254740993': '{"id":9007199254740993}',
  'exact number 1.00000000000000001': '[1.00000000000000001]',
  'exact number 1e400': '[1e400]',
  'duplicate key, equal values': '{"name":"Rex","name":"Rex"}',
  'duplicate key, different values': '{"name":"Rex","name":"Max"}',
  'duplicate key, escaped spelling': '{"ab":1,"a\\u0062":2}',
  'duplicate deep in state': '{"pets":[{},{"id":1,"name":"A","id":2}],"nextId":3}',
  'depth 100 allowed': '['.repeat(100) + ']'.repeat(100),
  'depth 101 refused': '['.repeat(101) + ']'.repeat(101),
  'depth 1,000,000 refused, no stack overflow': '['.repeat(1_000_000) + ']'.repeat(1_000_000),
  'one BOM skipped': '\uFEFF{"a":1}',
  'second BOM refused': '\uFEFF\uFEFF1',
  '__proto__ own key': '{"__proto__":{"x":1}}',
  'syntax error message (line/column)': '{\r\n  "a": x\r\n}',
  'trailing comma refused': '[1,]',
  'leading zero refused': '[01]',
  'lone surrogate escape': '"\\ud800"',
  'control character refused': '"a\nb"',
}

const candidates = { losslessJson: c.losslessJson, jsonParse: c.jsonParse, prescanThenParse: c.prescanThenParse }
if (c.hasSourceAccess) candidates.jsonParseReviver = c.jsonParseReviver

function verdict(mine, ref) {
  if (ref.ok)
    return mine.ok && isDeepStrictEqual(mine.value, ref.value) ? 'same' : mine.ok ? 'DIFFERENT VALUE' : 'REFUSED'
  if (mine.ok) return 'ACCEPTED (reader refuses)'
  return isDeepStrictEqual(mine.problems, ref.problems) ? 'same' : 'refused, other message'
}

const rows = []
for (const [name, text] of Object.entries(probes)) {
  const ref = c.readJson(text, 'body')
  const row = { probe: name, readJson: ref.ok ? 'ok' : 'refused' }
  for (const [cname, read] of Object.entries(candidates)) {
    let mine
    try {
      mine = read(text, 'body')
    } catch (error) {
      mine = { ok: false, problems: [`THREW ${error.constructor.name}`] }
    }
    row[cname] = verdict(mine, ref)
  }
  // Is __proto__ an own key with a plain prototype?
  rows.push(row)
}
console.table(rows)

// Random JSON (fast-check jsonValue) must read the same in every candidate.
for (const [cname, read] of Object.entries(candidates)) {
  let bad = 0
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const text = JSON.stringify(value)
      if (!isDeepStrictEqual(read(text, 'body'), c.readJson(text, 'body'))) bad++
      return true
    }),
    { numRuns: 2000, seed: 1 },
  )
  console.log(`${cname}: ${bad} of 2000 random JSON texts read differently from readJson`)
}
