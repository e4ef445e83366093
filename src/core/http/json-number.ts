/**
 * Lossless numbers for the JSON reader: a literal whose significant digits a JavaScript number
 * keeps becomes that number; one it would change (9007199254740993, 2^63, 1.00000000000000001,
 * 1e400) stays its literal, an InexactNumber, so validation can refuse it instead of rounding it.
 * JSON.parse rounds all of these; lossless-json and a `context.source` reviver can keep them, at
 * the costs given in json.ts.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { type Cursor, DOT, InvalidJson, LOWER_E, MINUS, NINE, PLUS, unexpected, UPPER_E, ZERO } from './json-syntax.js'

/**
 * A JSON number literal that a JavaScript number cannot hold exactly, such as
 * `1.00000000000000001` or `9007199254740993`. Body parsing keeps these as text, so a
 * value that rounds to an integer is still refused instead of being silently accepted.
 */
export class InexactNumber {
  constructor(readonly literal: string) {}

  // In the request journal, show the number as it was written.
  toJSON(): string {
    return this.literal
  }
}

/** An integer literal of at most 15 characters has at most 15 digits: a number always holds it exactly. */
const ALWAYS_EXACT_LENGTH = 15

/** A number from its first character at cursor.pos, checked against the grammar; leaves pos after it. */
export function readNumber(cursor: Cursor): number | InexactNumber {
  const text = cursor.text
  const start = cursor.pos
  let pos = start
  let code = text.charCodeAt(pos)
  const negative = code === MINUS
  if (negative) code = text.charCodeAt(++pos)
  // The integer part, added up on the way: for short integers that is the value.
  let integer = 0
  if (code === ZERO) {
    code = text.charCodeAt(++pos)
    if (code >= ZERO && code <= NINE) throw new InvalidJson('numbers cannot have leading zeros', pos - 1)
  } else if (code > ZERO && code <= NINE) {
    do {
      integer = integer * 10 + (code - ZERO)
      code = text.charCodeAt(++pos)
    } while (code >= ZERO && code <= NINE)
  } else {
    throw unexpected(text, 'a digit after "-"', pos)
  }
  let whole = true
  if (code === DOT) {
    whole = false
    code = text.charCodeAt(++pos)
    if (!(code >= ZERO && code <= NINE)) throw unexpected(text, 'a digit after "."', pos)
    do code = text.charCodeAt(++pos)
    while (code >= ZERO && code <= NINE)
  }
  if (code === LOWER_E || code === UPPER_E) {
    whole = false
    code = text.charCodeAt(++pos)
    if (code === PLUS || code === MINUS) code = text.charCodeAt(++pos)
    if (!(code >= ZERO && code <= NINE)) throw unexpected(text, 'a digit in the exponent', pos)
    do code = text.charCodeAt(++pos)
    while (code >= ZERO && code <= NINE)
  }
  cursor.pos = pos
  // `0 - integer`, not `-integer`: "-0" is read as 0, as below.
  if (whole && pos - start <= ALWAYS_EXACT_LENGTH) return negative ? 0 - integer : integer
  const literal = text.slice(start, pos)
  const value = Number(literal)
  if (!isExact(literal, value)) return new InexactNumber(literal)
  // A zero is read as 0, never -0: an integer field has no negative zero, and a stored -0 would
  // surprise callers (JSON writes it as 0, Object.is and 1 / x do not).
  return value === 0 ? 0 : value
}

/**
 * Whether a number holds its literal exactly: the significant digits of the literal and of the
 * number written back are the same. Number() already gets the magnitude right, if finite.
 */
function isExact(literal: string, value: number): boolean {
  return Number.isFinite(value) && significantDigits(literal) === significantDigits(String(value))
}

/** The digits before any exponent, without the point and without leading or trailing zeros. */
function significantDigits(number: string): string {
  let end = number.length
  const exponent = number.search(/[eE]/)
  if (exponent !== -1) end = exponent
  let first = 0
  while (first < end && !isSignificant(number.charCodeAt(first))) first++
  while (end > first && !isSignificant(number.charCodeAt(end - 1))) end--
  return number.slice(first, end).replace('.', '')
}

function isSignificant(code: number): boolean {
  return code > ZERO && code <= NINE
}
