// The JSON readers compared by bench.mjs. Each takes (text, subject) and gives what
// readJson gives ({ ok, value } or { ok: false, problems }), as far as the candidate can.
import { parse as parseLossless } from 'lossless-json'
import { InexactNumber, MAX_JSON_DEPTH, readJson, readJsonInSlices } from '../../dist/src/core/http/json.js'

export { readJson, readJsonInSlices, InexactNumber }

const BOM = 0xfeff
const stripBom = (text) => (text.charCodeAt(0) === BOM ? text.slice(1) : text)

// The current reader's exactness test, copied (it is not exported from json.ts).
const ALWAYS_EXACT_LENGTH = 15
function isExact(literal, value) {
  return Number.isFinite(value) && significantDigits(literal) === significantDigits(String(value))
}
function significantDigits(number) {
  let end = number.length
  const exponent = number.search(/[eE]/)
  if (exponent !== -1) end = exponent
  let first = 0
  const sig = (c) => c > 48 && c <= 57
  while (first < end && !sig(number.charCodeAt(first))) first++
  while (end > first && !sig(number.charCodeAt(end - 1))) end--
  return number.slice(first, end).replace('.', '')
}
/** Whether a literal (already a valid JSON number) surely is exact without Number(): short integers. */
function shortInteger(literal) {
  if (literal.length > ALWAYS_EXACT_LENGTH) return false
  for (let i = 0; i < literal.length; i++) {
    const c = literal.charCodeAt(i)
    if (c === 46 || c === 101 || c === 69) return false
  }
  return true
}
function exactNumber(literal) {
  const value = Number(literal)
  if (shortInteger(literal)) return value
  return isExact(literal, value) ? value : new InexactNumber(literal)
}

// (a) lossless-json 4.3.3 with its two hooks: parseNumber (number or InexactNumber) and
// onDuplicateKey (collects; lossless-json calls it only when the two values differ, and gives
// key and position, no path). No depth limit: a RangeError past ~1,000-5,000 levels.
export function losslessJson(text, subject) {
  const duplicates = []
  try {
    const value = parseLossless(stripBom(text), null, {
      parseNumber: exactNumber,
      onDuplicateKey: ({ key, position }) => {
        duplicates.push(`${subject} has the key ${JSON.stringify(key)} twice (at position ${position})`)
        return undefined
      },
    })
    return duplicates.length === 0 ? { ok: true, value } : { ok: false, problems: duplicates }
  } catch (error) {
    if (error instanceof RangeError) return { ok: false, problems: [`${subject} is nested too deeply`] }
    return { ok: false, problems: [`${subject} is not valid JSON: ${error.message}`] }
  }
}

// (b0) JSON.parse alone: the floor. Loses exact numbers, duplicate keys and the depth limit.
export function jsonParse(text, subject) {
  try {
    return { ok: true, value: JSON.parse(stripBom(text)) }
  } catch (error) {
    return { ok: false, problems: [`${subject} is not valid JSON: ${error.message}`] }
  }
}

// (b1) JSON.parse with a reviver reading context.source (needs --harmony-json-parse-with-source
// on Node 20 / V8 11.3; default from V8 11.4 = Node 21+). Exact numbers only; duplicates and depth
// are lost (JSON.parse keeps the last duplicate before the reviver sees anything).
function sourceReviver(key, value, context) {
  if (typeof value !== 'number') return value
  const literal = context.source
  if (shortInteger(literal)) return value
  return isExact(literal, value) ? value : new InexactNumber(literal)
}
export const hasSourceAccess = (() => {
  let seen = false
  JSON.parse('1', (k, v, c) => ((seen = c !== undefined && c.source === '1'), v))
  return seen
})()
export function jsonParseReviver(text, subject) {
  if (!hasSourceAccess) throw new Error('no context.source: run node with --harmony-json-parse-with-source')
  try {
    return { ok: true, value: JSON.parse(stripBom(text), sourceReviver) }
  } catch (error) {
    return { ok: false, problems: [`${subject} is not valid JSON: ${error.message}`] }
  }
}

// (b2) A light pre-scan, then JSON.parse. The scan finds what JSON.parse cannot say: a duplicated
// key, nesting past MAX_JSON_DEPTH, a number literal a double would change, a key with an escape
// (compared only after decoding: left to the full reader). On any of those, and when JSON.parse
// throws, the current reader reads the text (for its answer and its messages). So: the same
// answers as readJson, JSON.parse speed when nothing is wrong.
const FALLBACK = false
const CLEAN = true
const LINEAR_KEYS = 12

export function prescan(text, start) {
  const n = text.length
  const frames = [] // per open container: index into keyStarts of its first key, -1 for an array
  const sets = [] // per open container (by depth), a Set once an object has many keys
  const keyStarts = []
  const keyEnds = []
  let keyCount = 0
  let pos = start
  while (pos < n) {
    const c = text.charCodeAt(pos)
    if (c === 34) {
      const open = pos + 1
      let p = open
      let escaped = false
      for (;;) {
        const d = text.charCodeAt(p)
        if (d === 34) break
        if (d === 92) {
          escaped = true
          p += 2
        } else if (p >= n) return FALLBACK
        else p++
      }
      pos = p + 1
      const depth = frames.length
      if (depth === 0 || frames[depth - 1] < 0) continue
      let q = pos
      let e = text.charCodeAt(q)
      while (e === 32 || e === 10 || e === 13 || e === 9) e = text.charCodeAt(++q)
      if (e !== 58) continue // a value, not a key
      if (escaped) return FALLBACK
      const base = frames[depth - 1]
      const length = p - open
      const set = sets[depth - 1]
      if (set !== undefined) {
        const key = text.slice(open, p)
        if (set.has(key)) return FALLBACK
        set.add(key)
      } else {
        for (let k = base; k < keyCount; k++) {
          const ks = keyStarts[k]
          if (keyEnds[k] - ks !== length) continue
          let i = 0
          while (i < length && text.charCodeAt(ks + i) === text.charCodeAt(open + i)) i++
          if (i === length) return FALLBACK
        }
        if (keyCount - base >= LINEAR_KEYS) {
          const grown = new Set()
          for (let k = base; k < keyCount; k++) grown.add(text.slice(keyStarts[k], keyEnds[k]))
          grown.add(text.slice(open, p))
          sets[depth - 1] = grown
        } else {
          keyStarts[keyCount] = open
          keyEnds[keyCount] = p
          keyCount++
        }
      }
      pos = q + 1
    } else if (c === 123 || c === 91) {
      if (frames.length === MAX_JSON_DEPTH) return FALLBACK
      frames.push(c === 123 ? keyCount : -1)
      pos++
    } else if (c === 125 || c === 93) {
      const base = frames.pop()
      sets[frames.length] = undefined
      if (base !== undefined && base >= 0) keyCount = base
      pos++
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      const first = pos
      let d = c
      let plain = true
      if (d === 45) d = text.charCodeAt(++pos)
      while ((d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45) {
        if (d === 46 || d === 101 || d === 69 || d === 43 || d === 45) plain = false
        d = text.charCodeAt(++pos)
      }
      if (plain && pos - first <= ALWAYS_EXACT_LENGTH) continue
      const literal = text.slice(first, pos)
      if (!isExact(literal, Number(literal))) return FALLBACK
    } else pos++
  }
  return CLEAN
}

export function prescanThenParse(text, subject) {
  const start = text.charCodeAt(0) === BOM ? 1 : 0
  if (prescan(text, start) === CLEAN) {
    try {
      return { ok: true, value: JSON.parse(start === 1 ? text.slice(1) : text) }
    } catch {
      // the reader words the syntax error
    }
  }
  return readJson(text, subject)
}

export { stateBody } from '../state-body.mjs'
