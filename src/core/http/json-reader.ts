/**
 * The JSON reader itself: one pass over the text with its own stack (no recursion, so no depth
 * overflows it), that can pause after a number of values and go on where it stopped. It notes
 * duplicated keys with their paths, refuses nesting past MAX_JSON_DEPTH, keeps inexact numbers
 * (json-number.ts), and sets "__proto__" as an own property. Why by hand: json.ts.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { LIMITS } from '../limits.js'
import { readNumber } from './json-number.js'
import { readString, SHARED_SLICE_LENGTH } from './json-string.js'
import {
  BACKSLASH,
  CARRIAGE_RETURN,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  InvalidJson,
  LINE_FEED,
  LOWER_F,
  LOWER_N,
  LOWER_T,
  MINUS,
  NINE,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  SPACE,
  TAB,
  unexpected,
  ZERO,
} from './json-syntax.js'

/** The deepest nesting of arrays and objects a text may have; 100 is far beyond any real document. */
export const MAX_JSON_DEPTH = LIMITS.jsonDepth.value

/** What readDocument gives when it stops after its number of values, to go on later. */
export const PAUSED = Symbol('paused')

/** Texts this long read their keys through a small table (see keys); shorter ones just slice them. */
const KEY_TABLE_FROM_LENGTH = 4096

type JsonObject = Record<string, unknown>
type Container = unknown[] | JsonObject

export interface Duplicate {
  key: string
  path: string
  count: number
}

/** Nesting past MAX_JSON_DEPTH: thrown out of readDocument, worded by json.ts. */
export class TooDeep extends Error {}

/** One reading of one text, from `start` (after a byte-order mark); json.ts words its outcome. */
export class Reader {
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
   * escapes is taken from `keys` when it was seen before, which spares making a string for it.
   */
  private readKeyString(): string {
    const text = this.text
    const start = this.pos + 1
    let end = start
    let code = text.charCodeAt(end)
    while (code !== QUOTE) {
      if (code === BACKSLASH || code < SPACE || Number.isNaN(code)) return readString(this)
      code = text.charCodeAt(++end)
    }
    const length = end - start
    if (length >= SHARED_SLICE_LENGTH) return readString(this)
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
    if (code === QUOTE) return readString(this)
    if ((code >= ZERO && code <= NINE) || code === MINUS) return readNumber(this)
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

  /** The error for an unexpected character (or end) at `pos`, saying what was expected there. */
  private unexpected(expected: string, pos = this.pos): InvalidJson {
    return unexpected(this.text, expected, pos)
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
