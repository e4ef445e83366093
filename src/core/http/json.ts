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
 * Kept by hand after measuring (Node 20.20.2, 2-core EPYC; a one-off script, bench/json-reader,
 * removed after 0.9.1: see docs/performance.md and commit 300ef92): an 85-byte
 * createPet body reads in 0.60 µs, where lossless-json with the same hooks takes 1.0 µs, a
 * pre-scan plus JSON.parse that keeps every guarantee 0.60 µs, and JSON.parse alone 0.32 µs with
 * none of them; the 8 MiB state import (136,678 pets) reads in 126 ms in 13 slices, none over
 * 31 ms, where JSON.parse holds the event loop 46-58 ms in one block, a pre-scan plus JSON.parse
 * 98 ms, lossless-json 190 ms, and a `context.source` reviver (behind a flag on Node 20) 460 ms.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { LIMITS } from '../limits.js'

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

/** The deepest nesting of arrays and objects a text may have; 100 is far beyond any real document. */
export const MAX_JSON_DEPTH = LIMITS.jsonDepth.value

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

const PAUSED = Symbol('paused')

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

const BYTE_ORDER_MARK = 0xfeff
const TAB = 9
const LINE_FEED = 10
const CARRIAGE_RETURN = 13
const SPACE = 32
const QUOTE = 34
const PLUS = 43
const COMMA = 44
const MINUS = 45
const DOT = 46
const SLASH = 47
const ZERO = 48
const NINE = 57
const COLON = 58
const UPPER_E = 69
const OPEN_BRACKET = 91
const BACKSLASH = 92
const CLOSE_BRACKET = 93
const LOWER_B = 98
const LOWER_E = 101
const LOWER_F = 102
const LOWER_N = 110
const LOWER_R = 114
const LOWER_T = 116
const LOWER_U = 117
const OPEN_BRACE = 123
const CLOSE_BRACE = 125

/**
 * A slice of 13 or more characters shares V8's memory with the whole text, so one long name kept
 * in the store would keep a 64 MiB import alive. Such strings are copied (see detach).
 */
const SHARED_SLICE_LENGTH = 13

/** An integer literal of at most 15 characters has at most 15 digits: a number always holds it exactly. */
const ALWAYS_EXACT_LENGTH = 15

/** Texts this long read their keys through a small table (see keys); shorter ones just slice them. */
const KEY_TABLE_FROM_LENGTH = 4096

type JsonObject = Record<string, unknown>
type Container = unknown[] | JsonObject

interface Duplicate {
  key: string
  path: string
  count: number
}

/** A syntax error: what was expected or found, and where (an index into the text). */
class InvalidJson extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message)
  }
}

class TooDeep extends Error {}

class Reader {
  /** Index of the next character to read. */
  pos: number
  readonly duplicates: Duplicate[] = []
  /** Per object, its duplicated keys: made only when a text has one. */
  private duplicatesByObject: Map<JsonObject, Map<string, Duplicate>> | undefined
  /** The containers that hold the one being read, outermost first, and for each object the key being read. */
  private readonly parents: Container[] = []
  private readonly parentKeys: string[] = []
  /**
   * Keys read lately, by a hash of their length and ends: a state document repeats the same few
   * keys 100,000 times, and reusing one string beats slicing a new one. Only keys shorter than
   * SHARED_SLICE_LENGTH go in, as those are copies: the table never keeps a text alive. One per
   * reading, so nothing is shared between requests or sandboxes.
   */
  private readonly keys: (string | undefined)[] | undefined

  /** Where the reading is when paused between slices: the container being read and its key. */
  private container: Container | undefined
  private key = ''
  started = false

  constructor(
    readonly text: string,
    readonly start: number,
  ) {
    this.pos = start
    this.keys = text.length >= KEY_TABLE_FROM_LENGTH ? new Array<string | undefined>(256).fill(undefined) : undefined
  }

  /** Skips whitespace, and gives the code of the character there: NaN at the end of the text. */
  next(): number {
    const text = this.text
    let pos = this.pos
    let code = text.charCodeAt(pos)
    while (code === SPACE || code === LINE_FEED || code === CARRIAGE_RETURN || code === TAB)
      code = text.charCodeAt(++pos)
    this.pos = pos
    return code
  }

  /**
   * The whole text as one value, or PAUSED after `maxValues` turns, to go on where it stopped
   * when called again. A loop with its own stack rather than recursion: each turn reads one
   * scalar or opens one container, then closes every container the value completes.
   */
  readDocument(maxValues: number): unknown {
    const parents = this.parents
    const parentKeys = this.parentKeys
    let container = this.container
    let key = this.key
    let turns = maxValues
    for (;;) {
      if (--turns < 0) {
        this.container = container
        this.key = key
        return PAUSED
      }
      let code = this.next()
      let value: unknown
      if (code === OPEN_BRACE || code === OPEN_BRACKET) {
        if (container !== undefined) {
          // The container being read is level parents.length + 1; this one would be the next.
          if (parents.length + 1 === MAX_JSON_DEPTH) throw new TooDeep()
          parents.push(container)
          parentKeys.push(key)
        }
        this.pos++
        const after = this.next()
        if (code === OPEN_BRACKET) {
          container = []
          if (after !== CLOSE_BRACKET) continue
        } else {
          container = {}
          if (after !== CLOSE_BRACE) {
            key = this.readKey(container, after, 'a key in double quotes or "}"')
            continue
          }
        }
        // An empty container: a value at once.
        this.pos++
        value = container
        container = parents.pop()
        key = parentKeys.pop() ?? ''
      } else {
        value = this.readScalar(code)
      }
      // Put the value in its container; close every container that ends with it.
      for (;;) {
        if (container === undefined) {
          if (!Number.isNaN(this.next())) throw new InvalidJson('unexpected text after the JSON value', this.pos)
          return value
        }
        code = this.next()
        if (Array.isArray(container)) {
          container.push(value)
          if (code === COMMA) {
            this.pos++
            break
          }
          if (code !== CLOSE_BRACKET) throw this.unexpected('"," or "]"')
        } else {
          store(container, key, value)
          if (code === COMMA) {
            this.pos++
            key = this.readKey(container, this.next(), 'a key in double quotes')
            break
          }
          if (code !== CLOSE_BRACE) throw this.unexpected('"," or "}"')
        }
        this.pos++
        value = container
        container = parents.pop()
        key = parentKeys.pop() ?? ''
      }
    }
  }

  /** A key, the whitespace and the colon after it. `code` is the character at this.pos. */
  private readKey(object: JsonObject, code: number, expected: string): string {
    if (code !== QUOTE) throw this.unexpected(expected)
    const key = this.readKeyString()
    if (this.next() !== COLON) throw this.unexpected('":"')
    this.pos++
    if (Object.hasOwn(object, key)) this.noteDuplicate(object, key)
    return key
  }

  /**
   * A key: a string, but the same few keys come back again and again, so a short key without
   * escapes is taken from KEYS when it was seen before, which spares making a string for it.
   */
  private readKeyString(): string {
    const text = this.text
    const start = this.pos + 1
    let end = start
    let code = text.charCodeAt(end)
    while (code !== QUOTE) {
      if (code === BACKSLASH || code < SPACE || Number.isNaN(code)) return this.readString()
      code = text.charCodeAt(++end)
    }
    const length = end - start
    if (length >= SHARED_SLICE_LENGTH) return this.readString()
    this.pos = end + 1
    const keys = this.keys
    if (keys === undefined) return text.slice(start, end)
    const slot = (length * 7 + text.charCodeAt(start) + text.charCodeAt(end - 1) * 3) & (keys.length - 1)
    const known = keys[slot]
    if (known !== undefined && known.length === length && text.startsWith(known, start)) return known
    const key = text.slice(start, end)
    keys[slot] = key
    return key
  }

  private noteDuplicate(object: JsonObject, key: string): void {
    this.duplicatesByObject ??= new Map()
    let keys = this.duplicatesByObject.get(object)
    if (keys === undefined) {
      keys = new Map()
      this.duplicatesByObject.set(object, keys)
    }
    const known = keys.get(key)
    if (known !== undefined) {
      known.count++
      return
    }
    const path = this.parents.map((parent, index) =>
      Array.isArray(parent) ? String(parent.length) : (this.parentKeys[index] ?? ''),
    )
    path.push(key)
    const duplicate = { key, path: path.join('.'), count: 2 }
    keys.set(key, duplicate)
    this.duplicates.push(duplicate)
  }

  /** A string, number, true, false or null; `code` is the character at this.pos. */
  private readScalar(code: number): unknown {
    if (code === QUOTE) return this.readString()
    if ((code >= ZERO && code <= NINE) || code === MINUS) return this.readNumber()
    if (code === LOWER_T) return this.readWord('true', true)
    if (code === LOWER_F) return this.readWord('false', false)
    if (code === LOWER_N) return this.readWord('null', null)
    throw this.unexpected('a value')
  }

  private readWord<T>(word: string, value: T): T {
    const text = this.text
    const pos = this.pos
    for (let index = 1; index < word.length; index++) {
      if (text.charCodeAt(pos + index) !== word.charCodeAt(index)) {
        throw this.unexpected(`"${word}"`, pos + index)
      }
    }
    this.pos = pos + word.length
    return value
  }

  /** A string from its opening quote at this.pos; leaves this.pos after the closing quote. */
  private readString(): string {
    const text = this.text
    const opening = this.pos
    let pos = opening + 1
    let escaped = false
    for (;;) {
      const code = text.charCodeAt(pos)
      if (code === QUOTE) break
      if (code === BACKSLASH) {
        escaped = true
        pos = this.skipEscape(pos, opening)
      } else if (code < SPACE) {
        throw new InvalidJson(`unescaped control character ${codePoint(code)} in a string`, pos)
      } else if (Number.isNaN(code)) {
        throw new InvalidJson('unterminated string', opening)
      } else {
        pos++
      }
    }
    this.pos = pos + 1
    // The escapes are checked: JSON.parse decodes them exactly as the grammar says.
    if (escaped) return JSON.parse(text.slice(opening, pos + 1)) as string
    return pos - opening > SHARED_SLICE_LENGTH ? detach(text, opening + 1, pos) : text.slice(opening + 1, pos)
  }

  /** Checks the escape whose backslash is at `pos`, and gives the index after it. */
  private skipEscape(pos: number, opening: number): number {
    const text = this.text
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

  /** A number from its first character at this.pos, checked against the grammar. */
  private readNumber(): number | InexactNumber {
    const text = this.text
    const start = this.pos
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
      throw this.unexpected('a digit after "-"', pos)
    }
    let whole = true
    if (code === DOT) {
      whole = false
      code = text.charCodeAt(++pos)
      if (!(code >= ZERO && code <= NINE)) throw this.unexpected('a digit after "."', pos)
      do code = text.charCodeAt(++pos)
      while (code >= ZERO && code <= NINE)
    }
    if (code === LOWER_E || code === UPPER_E) {
      whole = false
      code = text.charCodeAt(++pos)
      if (code === PLUS || code === MINUS) code = text.charCodeAt(++pos)
      if (!(code >= ZERO && code <= NINE)) throw this.unexpected('a digit in the exponent', pos)
      do code = text.charCodeAt(++pos)
      while (code >= ZERO && code <= NINE)
    }
    this.pos = pos
    // `0 - integer`, not `-integer`: "-0" is read as 0, as below.
    if (whole && pos - start <= ALWAYS_EXACT_LENGTH) return negative ? 0 - integer : integer
    const literal = text.slice(start, pos)
    const value = Number(literal)
    if (!isExact(literal, value)) return new InexactNumber(literal)
    // A zero is read as 0, never -0: an integer field has no negative zero, and a stored -0 would
    // surprise callers (JSON writes it as 0, Object.is and 1 / x do not).
    return value === 0 ? 0 : value
  }

  /** The error for an unexpected character (or end) at `pos`, saying what was expected there. */
  private unexpected(expected: string, pos = this.pos): InvalidJson {
    return new InvalidJson(`unexpected ${describeCharacter(this.text, pos)}, expected ${expected}`, pos)
  }
}

/** Sets a key as an own property; `__proto__` is defined, as assigning it would set the prototype. */
function store(object: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
  } else {
    object[key] = value
  }
}

/** The characters from `start` to `end` as a string of their own (see SHARED_SLICE_LENGTH). */
function detach(text: string, start: number, end: number): string {
  // Slicing a concatenation first flattens it into a new string: the slice then shares that one.
  return (' ' + text.slice(start, end)).slice(1)
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

function isHexDigit(code: number): boolean {
  return (code >= ZERO && code <= NINE) || ((code | 0x20) >= 97 && (code | 0x20) <= LOWER_F)
}

const INVISIBLE = /[\p{C}\p{Z}]/u

function isPrintable(code: number): boolean {
  return !INVISIBLE.test(String.fromCharCode(code))
}

/** The character at `pos` for a message: "x", U+00A0 for one you cannot see, or the end. */
function describeCharacter(text: string, pos: number): string {
  const code = text.codePointAt(pos)
  if (code === undefined) return 'end'
  const character = String.fromCodePoint(code)
  return INVISIBLE.test(character) ? `character ${codePoint(code)}` : `character ${JSON.stringify(character)}`
}

function codePoint(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
}

/** Line and column of `pos`, both from 1; a line ends at LF, CR LF or a lone CR. */
function lineAndColumn(text: string, start: number, pos: number): { line: number; column: number } {
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

function describeDuplicate(subject: string, { key, path, count }: Duplicate): string {
  const times = count === 2 ? 'twice' : `${count} times`
  return `${subject} has the key ${JSON.stringify(key)} ${times} (at ${path})`
}

/**
 * A value as JSON for a message, cut at `max` characters with `...`: bounded work and no deep
 * recursion whatever the value is (JSON.stringify overflows the stack near 5,000 levels, and
 * would spell out a megabyte list in full). Each level adds a character, so the walk stops
 * within `max` levels. An InexactNumber shows its literal.
 */
export function preview(value: unknown, max = 40): string {
  let out = ''
  const full = () => out.length > max
  const visit = (node: unknown): void => {
    if (full()) return
    if (node instanceof InexactNumber) {
      out += node.literal
    } else if (Array.isArray(node)) {
      out += '['
      for (let index = 0; index < node.length && !full(); index++) {
        if (index > 0) out += ','
        visit(node[index])
      }
      out += ']'
    } else if (typeof node === 'object' && node !== null) {
      out += '{'
      let first = true
      for (const key in node) {
        if (full()) break
        if (!Object.hasOwn(node, key)) continue
        out += `${first ? '' : ','}${JSON.stringify(key.length > max ? key.slice(0, max) : key)}:`
        first = false
        visit((node as Record<string, unknown>)[key])
      }
      out += '}'
    } else if (typeof node === 'string') {
      out += JSON.stringify(node.length > max ? node.slice(0, max + 1) : node)
    } else {
      // JSON.stringify gives undefined for undefined (and functions): JSON has null for them.
      const text = JSON.stringify(node) as string | undefined
      out += text ?? 'null'
    }
  }
  visit(value)
  return out.length > max ? `${out.slice(0, max - 3)}...` : out
}

/** How eachArrayItem ended: every item read, stopped by the visitor, no array at all, or not JSON. */
export type ArrayReading = 'done' | 'stopped' | 'not-array' | 'invalid'

/**
 * Reads a JSON array from its UTF-8 bytes an item at a time, each item's text decoded and given
 * to JSON.parse on its own, until `visit` answers false: a long list is never held whole as text
 * or as values, and a check that stops early parses no more. Only the array's own commas and
 * brackets are found by hand (strings skipped; no byte of a multi-byte UTF-8 character is ASCII);
 * each item is JSON.parse's to judge, so what parses is what JSON.parse takes.
 *
 * Kept by hand after measuring (bench/relay-memory.mjs, issue 27, one sitting): relaying 700 KB
 * lists of 12,000 bad pets to 32 clients, the sandbox relayed 89 lists a second with one
 * JSON.parse of the whole list per answer and 129 reading it an item at a time from its text;
 * from its bytes, with the text never made, 258-277, growing 154-156 MB where a bare node:http
 * relay that checks nothing grows 139-147 MB under the same load.
 */
export function eachArrayItem(bytes: Uint8Array, visit: (item: unknown, index: number) => boolean): ArrayReading {
  const steps = eachArrayItemSteps(bytes, visit)
  for (;;) {
    const step = steps.next()
    if (step.done === true) return step.value
  }
}

/** Items read between two pauses of eachArrayItemSteps' caller: a few milliseconds of work. */
const ITEMS_PER_SLICE = 2_000

/**
 * eachArrayItem as steps: it yields after every few thousand items, so a caller can give the event
 * loop a turn between them (a relayed list of a million pets). Same visits, same answer.
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
