/**
 * The project's one JSON reader: API request bodies, admin bodies, state imports and fixtures
 * files all go through readJson, so they all agree on what JSON is. The syntax is RFC 8259's,
 * refused wherever JSON.parse refuses it, with four differences on purpose:
 *
 * - Numbers are lossless. A literal whose significant digits a JavaScript number keeps becomes
 *   that number; one it would change (9007199254740993, 1.00000000000000001, 1e400) becomes an
 *   InexactNumber holding the literal, so validation can refuse it instead of rounding it.
 * - Duplicate keys are refused, even with equal values, and every one is named with its path.
 * - One leading byte-order mark (U+FEFF) is skipped, the same for every caller: editors on
 *   Windows write one into files, and a body someone saved from one may carry it too.
 * - Nesting deeper than MAX_JSON_DEPTH arrays and objects is refused. The reader never
 *   recurses, so no text, however deep, can overflow the stack.
 *
 * A "__proto__" key becomes an own property of a plain object; no prototype is ever touched.
 * Line and column numbers in messages start at 1, count characters (a surrogate pair is one)
 * and do not count the byte-order mark.
 *
 * Why by hand, reason by reason, against maintained libraries (bench/json-reader.mjs: 2-core AMD
 * EPYC, Node 20.20.2, 2026-11-27, two runs of 11 and 9 interleaved rounds, medians, ratios to this
 * reader; load average 8.3-13.8 on a shared machine, so absolute times are 3-8x a quiet
 * sitting's and the ratios within a round are the steadier figures):
 *
 * - Not speed on small bodies. A 74-byte createPet: this reader 4.9-5.7 µs, JSON.parse
 *   0.57-0.72x, lossless-json 4.3.3 with the same hooks 2.1-2.3x (a quiet sitting, 2026-11-24:
 *   0.60, 0.32 and 1.0 µs). Any of them is under 1% of a createPet.
 * - Duplicate keys with equal values: only this reader refuses {"name":"Rex","name":"Rex"}.
 *   lossless-json's onDuplicateKey fires only when the values differ; JSON.parse,
 *   secure-json-parse 4.1.1 and destr 2.0.5 keep the last value.
 * - Depth: every library takes 101 levels. 10,000 levels cost them 6.3-15 ms (JSON.parse accepts
 *   them, lossless-json and a reviver overflow the stack); this reader refuses them in 29-33 µs.
 * - Exact numbers (2^53 + 1, 2^63, 1.00000000000000001, 1e400): JSON.parse, secure-json-parse and
 *   destr round them (2^63 to 9223372036854776000, 1e400 to Infinity). lossless-json with a
 *   parseNumber hook keeps them, 1.6-2.4x on 1,000 integers near 2^63; so does a `context.source`
 *   reviver, 2.5-4.4x, on Node 21+ only (a flag on Node 20; the package runs on 20.19).
 * - Slices: the 8 MiB state import (136,678 pets) holds the event loop at most 43-83 ms here (13
 *   slices, 426-668 ms in all). In one block: JSON.parse 261-342 ms (3.7-6.1x this reader's
 *   longest), lossless-json 858-1,882 ms (22-27x), the reviver 2.0-3.0 s (45-52x).
 *   @discoveryjs/json-ext 1.1.0's parseChunked, the one library that pauses: 54-76 ms in 33
 *   slices (1.2-1.6x), 1.25-1.5x the total, with none of the guarantees above. Quiet sitting: 126
 *   ms in 13 slices, none over 31 ms; JSON.parse one block of 46-58 ms.
 * - Messages: "unexpected character "]", expected a value at line 2, column 12", where JSON.parse
 *   quotes a piece of the text or gives an offset, and lossless-json an offset ("at position 26").
 * - Not "__proto__": JSON.parse and lossless-json make it an own property as this reader does;
 *   secure-json-parse and destr refuse it, and any "constructor":{"prototype":...} too.
 * - Size in a browser bundle, minified: this reader 6.6 KB (beside limits.ts, which the core
 *   carries anyway), lossless-json 6.1 KB, parseChunked 4.5 KB, secure-json-parse 2.6 KB.
 *
 * So no library keeps the reasons that hold, and lossless-json plus a pre-scan for depth and
 * duplicates would be two passes, 6.1 KB more in a browser, and still one block 22-27x this
 * reader's longest.
 *
 * The reader by file: json-reader.ts (the walk, keys, duplicates, depth), json-string.ts,
 * json-number.ts, json-syntax.ts (characters and messages). Beside them, json-preview.ts (values in
 * messages) and json-array-items.ts (a relayed list read an item at a time from its bytes).
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { PAUSED, Reader, TooDeep, MAX_JSON_DEPTH, type Duplicate } from './json-reader.js'
import { BYTE_ORDER_MARK, InvalidJson, lineAndColumn } from './json-syntax.js'

export { InexactNumber } from './json-number.js'
export { MAX_JSON_DEPTH } from './json-reader.js'
export { preview } from './json-preview.js'
export { eachArrayItemSteps, type ArrayReading } from './json-array-items.js'

type JsonReading = { ok: true; value: unknown } | { ok: false; problems: string[] }

/**
 * Parses JSON text. `subject` names the text in messages ("body", "fixtures file pets.json").
 * A syntax error, the empty text and nesting too deep are one problem each; otherwise every
 * duplicated key is a problem, in the order of the text.
 */
export function readJson(text: string, subject: string): JsonReading {
  const reader = new Reader(text, text.charCodeAt(0) === BYTE_ORDER_MARK ? 1 : 0)
  // Without a bound on turns the reading never pauses.
  return conclude(reader, subject, () => reader.readDocument(Infinity)) as JsonReading
}

/** Values read between two pauses of readJsonInSlices: a few milliseconds of work. */
const VALUES_PER_SLICE = 50_000

/**
 * readJson for large texts (a state import): the same reading, paused every few milliseconds
 * with `pause()`, so a 16 MiB text never holds the event loop for long. Gives the same answer.
 */
export async function readJsonInSlices(
  text: string,
  subject: string,
  pause: () => Promise<void>,
): Promise<JsonReading> {
  const reader = new Reader(text, text.charCodeAt(0) === BYTE_ORDER_MARK ? 1 : 0)
  for (;;) {
    const reading = conclude(reader, subject, () => reader.readDocument(VALUES_PER_SLICE))
    if (reading !== PAUSED) return reading
    await pause()
  }
}

function conclude(reader: Reader, subject: string, read: () => unknown): JsonReading | typeof PAUSED {
  if (!reader.started && Number.isNaN(reader.next())) return { ok: false, problems: [`${subject} is empty`] }
  reader.started = true
  try {
    const value = read()
    if (value === PAUSED) return PAUSED
    if (reader.duplicates.length === 0) return { ok: true, value }
    return { ok: false, problems: reader.duplicates.map((duplicate) => describeDuplicate(subject, duplicate)) }
  } catch (error) {
    if (error instanceof TooDeep) {
      return {
        ok: false,
        problems: [`${subject} is nested too deeply: more than ${MAX_JSON_DEPTH} levels of arrays and objects`],
      }
    }
    if (error instanceof InvalidJson) {
      const { line, column } = lineAndColumn(reader.text, reader.start, error.position)
      return {
        ok: false,
        problems: [`${subject} is not valid JSON: ${error.message} at line ${line}, column ${column}`],
      }
    }
    throw error
  }
}

function describeDuplicate(subject: string, { key, path, count }: Duplicate): string {
  const times = count === 2 ? 'twice' : `${count} times`
  return `${subject} has the key ${JSON.stringify(key)} ${times} (at ${path})`
}
