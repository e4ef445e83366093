/**
 * The JSON reader's characters and its syntax errors: the codes it compares with, and how a
 * message names a character and a place. Shared by the reader (json-reader.ts), its numbers
 * (json-number.ts) and the array walk (json-array-items.ts).
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */

export const BYTE_ORDER_MARK = 0xfeff
export const TAB = 9
export const LINE_FEED = 10
export const CARRIAGE_RETURN = 13
export const SPACE = 32
export const QUOTE = 34
export const PLUS = 43
export const COMMA = 44
export const MINUS = 45
export const DOT = 46
export const SLASH = 47
export const ZERO = 48
export const NINE = 57
export const COLON = 58
export const UPPER_E = 69
export const OPEN_BRACKET = 91
export const BACKSLASH = 92
export const CLOSE_BRACKET = 93
export const LOWER_B = 98
export const LOWER_E = 101
export const LOWER_F = 102
export const LOWER_N = 110
export const LOWER_R = 114
export const LOWER_T = 116
export const LOWER_U = 117
export const OPEN_BRACE = 123
export const CLOSE_BRACE = 125

/** Where the reader is: its text, and the index of the next character to read. */
export interface Cursor {
  readonly text: string
  pos: number
}

/** A syntax error: what was expected or found, and where (an index into the text). */
export class InvalidJson extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message)
  }
}

/** The error for an unexpected character (or end) at `pos`, saying what was expected there. */
export function unexpected(text: string, expected: string, pos: number): InvalidJson {
  return new InvalidJson(`unexpected ${describeCharacter(text, pos)}, expected ${expected}`, pos)
}

export function isHexDigit(code: number): boolean {
  return (code >= ZERO && code <= NINE) || ((code | 0x20) >= 97 && (code | 0x20) <= LOWER_F)
}

const INVISIBLE = /[\p{C}\p{Z}]/u

export function isPrintable(code: number): boolean {
  return !INVISIBLE.test(String.fromCharCode(code))
}

/** The character at `pos` for a message: "x", U+00A0 for one you cannot see, or the end. */
export function describeCharacter(text: string, pos: number): string {
  const code = text.codePointAt(pos)
  if (code === undefined) return 'end'
  const character = String.fromCodePoint(code)
  return INVISIBLE.test(character) ? `character ${codePoint(code)}` : `character ${JSON.stringify(character)}`
}

export function codePoint(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
}

/** Line and column of `pos`, both from 1; a line ends at LF, CR LF or a lone CR. */
export function lineAndColumn(text: string, start: number, pos: number): { line: number; column: number } {
  let line = 1
  let column = 1
  for (let index = start; index < pos; index++) {
    const code = text.charCodeAt(index)
    if (code === LINE_FEED || (code === CARRIAGE_RETURN && text.charCodeAt(index + 1) !== LINE_FEED)) {
      line++
      column = 1
    } else if (code !== CARRIAGE_RETURN) {
      // The second half of a surrogate pair is not a column of its own.
      if (!(code >= 0xdc00 && code <= 0xdfff && index > start && isHighSurrogate(text.charCodeAt(index - 1)))) column++
    }
  }
  return { line, column }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}
