/**
 * A JSON array read an item at a time from its UTF-8 bytes (an upstream's list, checked as it is
 * relayed): only the array's own commas and brackets are found here, each item is JSON.parse's.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import {
  BACKSLASH,
  CARRIAGE_RETURN,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COMMA,
  LINE_FEED,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  SPACE,
  TAB,
} from './json-syntax.js'

/** Items read between two pauses of eachArrayItemSteps' caller: a few milliseconds of work. */
const ITEMS_PER_SLICE = 2_000

/** How eachArrayItemSteps ended: every item read, stopped by the visitor, no array at all, or not JSON. */
export type ArrayReading = 'done' | 'stopped' | 'not-array' | 'invalid'

/**
 * Reads a JSON array from its UTF-8 bytes an item at a time, each item's text decoded and given
 * to JSON.parse on its own, until `visit` answers false: a long list is never held whole as text
 * or as values, and a check that stops early parses no more. Only the array's own commas and
 * brackets are found by hand (strings skipped; no byte of a multi-byte UTF-8 character is ASCII);
 * each item is JSON.parse's to judge, so what parses is what JSON.parse takes. It yields after
 * every few thousand items, so a caller can give the event loop a turn between them (a relayed
 * list of a million pets).
 *
 * Kept by hand after measuring (bench/relay-memory.mjs, issue 27, one sitting): relaying 700 KB
 * lists of 12,000 bad pets to 32 clients, the sandbox relayed 89 lists a second with one
 * JSON.parse of the whole list per answer and 129 reading it an item at a time from its text;
 * from its bytes, with the text never made, 258-277, growing 154-156 MB where a bare node:http
 * relay that checks nothing grows 139-147 MB under the same load.
 */
export function* eachArrayItemSteps(
  bytes: Uint8Array,
  visit: (item: unknown, index: number) => boolean,
): Generator<void, ArrayReading> {
  let pos = skipSpace(bytes, 0)
  if (bytes[pos] !== OPEN_BRACKET) return 'not-array'
  pos = skipSpace(bytes, pos + 1)
  if (bytes[pos] === CLOSE_BRACKET) return skipSpace(bytes, pos + 1) === bytes.length ? 'done' : 'invalid'
  const decoder = new TextDecoder('utf-8', { fatal: true })
  for (let index = 0; ; index++) {
    if (index > 0 && index % ITEMS_PER_SLICE === 0) yield
    const end = itemEnd(bytes, pos)
    if (end === -1) return 'invalid'
    let item: unknown
    try {
      item = JSON.parse(decoder.decode(bytes.subarray(pos, end)))
    } catch {
      return 'invalid'
    }
    if (!visit(item, index)) return 'stopped'
    if (bytes[end] === CLOSE_BRACKET) return skipSpace(bytes, end + 1) === bytes.length ? 'done' : 'invalid'
    pos = end + 1
  }
}

/** Where the array item starting at `start` ends: the index of the comma or bracket after it; -1 at the end. */
function itemEnd(bytes: Uint8Array, start: number): number {
  let depth = 0
  let inString = false
  for (let index = start; index < bytes.length; index++) {
    const code = bytes[index]
    if (inString) {
      if (code === BACKSLASH) index++
      else if (code === QUOTE) inString = false
    } else if (code === QUOTE) {
      inString = true
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      depth++
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      if (depth === 0) return index
      depth--
    } else if (code === COMMA && depth === 0) {
      return index
    }
  }
  return -1
}

function skipSpace(bytes: Uint8Array, from: number): number {
  let pos = from
  for (;;) {
    const code = bytes[pos]
    if (code !== SPACE && code !== TAB && code !== LINE_FEED && code !== CARRIAGE_RETURN) return pos
    pos++
  }
}
