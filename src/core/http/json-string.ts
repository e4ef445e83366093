/**
 * Strings for the JSON reader: checked against the grammar by hand (so a message can say which
 * character and where), decoded by JSON.parse when they hold an escape, and copied out of the
 * text when long enough to keep it alive.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import {
  BACKSLASH,
  type Cursor,
  codePoint,
  describeCharacter,
  InvalidJson,
  isHexDigit,
  isPrintable,
  LOWER_B,
  LOWER_F,
  LOWER_N,
  LOWER_R,
  LOWER_T,
  LOWER_U,
  QUOTE,
  SLASH,
  SPACE,
} from './json-syntax.js'

/**
 * A slice of 13 or more characters shares V8's memory with the whole text, so one long name kept
 * in the store would keep a 64 MiB import alive. Such strings are copied (see detach).
 */
export const SHARED_SLICE_LENGTH = 13

/** A string from its opening quote at cursor.pos; leaves pos after the closing quote. */
export function readString(cursor: Cursor): string {
  const text = cursor.text
  const opening = cursor.pos
  let pos = opening + 1
  let escaped = false
  for (;;) {
    const code = text.charCodeAt(pos)
    if (code === QUOTE) break
    if (code === BACKSLASH) {
      escaped = true
      pos = skipEscape(text, pos, opening)
    } else if (code < SPACE) {
      throw new InvalidJson(`unescaped control character ${codePoint(code)} in a string`, pos)
    } else if (Number.isNaN(code)) {
      throw new InvalidJson('unterminated string', opening)
    } else {
      pos++
    }
  }
  cursor.pos = pos + 1
  // The escapes are checked: JSON.parse decodes them exactly as the grammar says.
  if (escaped) return JSON.parse(text.slice(opening, pos + 1)) as string
  return pos - opening > SHARED_SLICE_LENGTH ? detach(text, opening + 1, pos) : text.slice(opening + 1, pos)
}

/** Checks the escape whose backslash is at `pos`, and gives the index after it. */
function skipEscape(text: string, pos: number, opening: number): number {
  const code = text.charCodeAt(pos + 1)
  switch (code) {
    case QUOTE:
    case BACKSLASH:
    case SLASH:
    case LOWER_B:
    case LOWER_F:
    case LOWER_N:
    case LOWER_R:
    case LOWER_T:
      return pos + 2
    case LOWER_U:
      for (let index = pos + 2; index < pos + 6; index++) {
        const digit = text.charCodeAt(index)
        if (Number.isNaN(digit)) throw new InvalidJson('unterminated string', opening)
        if (!isHexDigit(digit)) {
          throw new InvalidJson('invalid escape: expected four hexadecimal digits after "\\u"', pos)
        }
      }
      return pos + 6
    default:
      if (Number.isNaN(code)) throw new InvalidJson('unterminated string', opening)
      throw new InvalidJson(
        isPrintable(code)
          ? `invalid escape "\\${String.fromCharCode(code)}"`
          : `invalid escape: "\\" followed by ${describeCharacter(text, pos + 1)}`,
        pos,
      )
  }
}

/** The characters from `start` to `end` as a string of their own (see SHARED_SLICE_LENGTH). */
function detach(text: string, start: number, end: number): string {
  // Slicing a concatenation first flattens it into a new string: the slice then shares that one.
  return (' ' + text.slice(start, end)).slice(1)
}
