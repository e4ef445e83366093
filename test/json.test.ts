/**
 * The one JSON reader: RFC 8259 as JSON.parse reads it, plus lossless numbers, refused duplicate
 * keys, one skipped byte-order mark, a depth limit without recursion, and messages that say what
 * and where.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { InexactNumber, MAX_JSON_DEPTH, readJson } from '../src/core/http/json.js'

/** The value of a text that must be read; fails the test with the problems otherwise. */
const valueOf = (text: string): unknown => {
  const reading = readJson(text, 'body')
  if (!reading.ok) throw new Error(`expected ${JSON.stringify(text)} to be read: ${reading.problems.join('; ')}`)
  return reading.value
}
const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)
const nestedObjects = (depth: number) => '{"a":'.repeat(depth) + 'null' + '}'.repeat(depth)
const TOO_DEEP = 'body is nested too deeply: more than 100 levels of arrays and objects'

describe('readJson: numbers', () => {
  it.each<[string, number]>([
    ['0', 0],
    ['1', 1],
    ['100', 100],
    ['-42', -42],
    ['1.0', 1],
    ['1e2', 100],
    ['1E+2', 100],
    ['1.5e3', 1500],
    ['0.1', 0.1],
    ['-0.5', -0.5],
    ['0.30000000000000004', 0.30000000000000004],
    ['123456789012345', 123456789012345],
    ['1234567890123456', 1234567890123456],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
    ['-9007199254740991', -Number.MAX_SAFE_INTEGER],
    ['9007199254740992', 2 ** 53],
    ['100000000000000000000000', 1e23],
    ['1e-7', 1e-7],
    ['5e-324', Number.MIN_VALUE],
    ['1.7976931348623157e308', Number.MAX_VALUE],
  ])('reads %s, which a JavaScript number holds exactly, as the number %s', (literal, number) => {
    expect(valueOf(literal)).toBe(number)
    expect(valueOf(`{"n":${literal}}`)).toEqual({ n: number })
  })

  it.each(['-0', '-0.0', '0.000', '-0e5', '-0.0e-0'])('reads the zero %s as 0, never -0', (literal) => {
    // JSON.parse gives -0 for most of these; a stored -0 would be a categoryId of "-0" to callers.
    expect(Object.is(valueOf(literal), 0)).toBe(true)
    expect(Object.is(valueOf(`[${literal}]`), 0)).toBe(false)
    expect(valueOf(`[${literal}]`)).toEqual([0])
  })

  it.each([
    '9007199254740993',
    '-9007199254740993',
    '12345678901234567890',
    '123456789012345678',
    '1.00000000000000001',
    '0.1000000000000000055511151231257827',
    '1e400',
    '-1e400',
    '1e-400',
  ])('keeps %s, which a JavaScript number would change, as an InexactNumber with its literal', (literal) => {
    const value = valueOf(literal)
    expect(value).toBeInstanceOf(InexactNumber)
    expect(value).toEqual(new InexactNumber(literal))
    expect(valueOf(`{"pets":[{"id":${literal}}]}`)).toEqual({ pets: [{ id: new InexactNumber(literal) }] })
  })

  it('reads every number JSON.stringify writes as that number', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (number) => {
        const text = JSON.stringify(number)
        expect(valueOf(text)).toBe(JSON.parse(text))
      }),
      { numRuns: 1000 },
    )
  })
})

describe('readJson: duplicate keys', () => {
  it.each<[string, string, string[]]>([
    ['equal values', '{"name":"Rex","name":"Rex"}', ['body has the key "name" twice (at name)']],
    ['different values', '{"name":"Rex","name":"Max"}', ['body has the key "name" twice (at name)']],
    [
      'a nested object in an array',
      '{"pets":[{},{},{},{"name":"Rex","categoryId":1,"name":"Rex"}]}',
      ['body has the key "name" twice (at pets.3.name)'],
    ],
    ['a key three times', '{"a":1,"a":2,"a":3}', ['body has the key "a" 3 times (at a)']],
    [
      'several at once, in the order of the text',
      '{"a":{"x":1,"x":2},"b":[[{"y":1,"y":2}]],"a":{"z":1,"z":2}}',
      [
        'body has the key "x" twice (at a.x)',
        'body has the key "y" twice (at b.0.0.y)',
        'body has the key "a" twice (at a)',
        'body has the key "z" twice (at a.z)',
      ],
    ],
    ['"__proto__"', '{"__proto__":{},"__proto__":{}}', ['body has the key "__proto__" twice (at __proto__)']],
    [
      'a key with a quote',
      '{"say \\"hi\\"":1,"say \\"hi\\"":1}',
      ['body has the key "say \\"hi\\"" twice (at say "hi")'],
    ],
  ])('refuses a duplicated key: %s', (_, text, problems) => {
    expect(readJson(text, 'body')).toEqual({ ok: false, problems })
  })

  it('names the text by its subject', () => {
    expect(readJson('[{"id":1,"id":1}]', 'fixtures file pets.json')).toEqual({
      ok: false,
      problems: ['fixtures file pets.json has the key "id" twice (at 0.id)'],
    })
  })

  it.each(['[{"a":1},{"a":1}]', '{"a":{"a":{"a":1}}}', '{"a":1,"A":1,"a ":1}'])(
    'takes the same key in different objects, or keys that only look alike: %s',
    (text) => {
      expect(valueOf(text)).toEqual(JSON.parse(text))
    },
  )

  it('gives a syntax error alone, not with the duplicates before it', () => {
    expect(readJson('{"a":1,"a":2,}', 'body')).toEqual({
      ok: false,
      problems: [
        'body is not valid JSON: unexpected character "}", expected a key in double quotes at line 1, column 14',
      ],
    })
  })
})

describe('readJson: the byte-order mark', () => {
  it.each(['{"name":"Rex"}', '[1,2]', '"text"', '7', ' \n {"a":true}'])(
    'skips one leading U+FEFF before %s',
    (text) => {
      expect(valueOf(`\uFEFF${text}`)).toEqual(JSON.parse(text))
    },
  )

  it('skips it for every subject alike', () => {
    expect(readJson('\uFEFF{"pets":[],"nextId":1}', 'state')).toEqual({ ok: true, value: { pets: [], nextId: 1 } })
    expect(readJson('\uFEFF[]', 'fixtures file pets.json')).toEqual({ ok: true, value: [] })
  })

  it.each<[string, string]>([
    ['\uFEFF\uFEFF1', 'body is not valid JSON: unexpected character U+FEFF, expected a value at line 1, column 1'],
    [' \uFEFF1', 'body is not valid JSON: unexpected character U+FEFF, expected a value at line 1, column 2'],
    ['[1,\uFEFF2]', 'body is not valid JSON: unexpected character U+FEFF, expected a value at line 1, column 4'],
  ])('refuses a second one, or one anywhere else: %j', (text, problem) => {
    expect(readJson(text, 'body')).toEqual({ ok: false, problems: [problem] })
  })

  it('does not count it as a column', () => {
    expect(readJson('\uFEFF[1,]', 'body')).toEqual({
      ok: false,
      problems: ['body is not valid JSON: unexpected character "]", expected a value at line 1, column 4'],
    })
  })
})

describe('readJson: depth', () => {
  it('allows 100 levels', () => {
    expect(MAX_JSON_DEPTH).toBe(100)
  })

  it.each<[string, string]>([
    ['arrays', nestedArrays(100)],
    ['objects', nestedObjects(100)],
    ['arrays and objects', '[{"a":'.repeat(50) + '1' + '}]'.repeat(50)],
  ])('reads 100 levels of %s', (_, text) => {
    expect(valueOf(text)).toEqual(JSON.parse(text))
  })

  it.each<[string, string]>([
    ['101 levels of arrays', nestedArrays(101)],
    ['101 levels of objects', nestedObjects(101)],
    ['101 levels ending in an empty object', '['.repeat(100) + '{}' + ']'.repeat(100)],
    ['5,000 levels of arrays', nestedArrays(5000)],
    ['5,000 levels of objects', nestedObjects(5000)],
    ['1,000,000 levels of arrays', nestedArrays(1_000_000)],
    ['1,000,000 unclosed arrays', '['.repeat(1_000_000)],
    ['1,000,000 levels of objects and arrays, not valid further on', '{"a":['.repeat(500_000) + 'x'],
  ])('refuses %s with one problem, without overflowing the stack', (_, text) => {
    expect(readJson(text, 'body')).toEqual({ ok: false, problems: [TOO_DEEP] })
  })

  it('names the text by its subject', () => {
    expect(readJson(nestedArrays(101), 'state')).toEqual({
      ok: false,
      problems: ['state is nested too deeply: more than 100 levels of arrays and objects'],
    })
  })
})

describe('readJson: syntax', () => {
  it.each(['', ' ', '\n\t\r ', '\uFEFF', '\uFEFF \n'])('says an empty text is empty: %j', (text) => {
    expect(readJson(text, 'body')).toEqual({ ok: false, problems: ['body is empty'] })
    expect(readJson(text, 'fixtures file pets.json')).toEqual({
      ok: false,
      problems: ['fixtures file pets.json is empty'],
    })
  })

  it.each<[string, string]>([
    // Values
    ['+1', 'unexpected character "+", expected a value at line 1, column 1'],
    ['.5', 'unexpected character ".", expected a value at line 1, column 1'],
    ['NaN', 'unexpected character "N", expected a value at line 1, column 1'],
    ['Infinity', 'unexpected character "I", expected a value at line 1, column 1'],
    ['undefined', 'unexpected character "u", expected a value at line 1, column 1'],
    ['True', 'unexpected character "T", expected a value at line 1, column 1'],
    ["'text'", `unexpected character "'", expected a value at line 1, column 1`],
    ['// comment\n1', 'unexpected character "/", expected a value at line 1, column 1'],
    ['/* comment */ 1', 'unexpected character "/", expected a value at line 1, column 1'],
    ['[1, // comment\n2]', 'unexpected character "/", expected a value at line 1, column 5'],
    ['\u00a01', 'unexpected character U+00A0, expected a value at line 1, column 1'],
    ['tru', 'unexpected end, expected "true" at line 1, column 4'],
    ['nul', 'unexpected end, expected "null" at line 1, column 4'],
    ['falsy', 'unexpected character "y", expected "false" at line 1, column 5'],
    // Numbers
    ['01', 'numbers cannot have leading zeros at line 1, column 1'],
    ['[-01]', 'numbers cannot have leading zeros at line 1, column 3'],
    ['00', 'numbers cannot have leading zeros at line 1, column 1'],
    ['-', 'unexpected end, expected a digit after "-" at line 1, column 2'],
    ['-a', 'unexpected character "a", expected a digit after "-" at line 1, column 2'],
    ['-Infinity', 'unexpected character "I", expected a digit after "-" at line 1, column 2'],
    ['- 1', 'unexpected character U+0020, expected a digit after "-" at line 1, column 2'],
    ['1.', 'unexpected end, expected a digit after "." at line 1, column 3'],
    ['1.e5', 'unexpected character "e", expected a digit after "." at line 1, column 3'],
    ['1e', 'unexpected end, expected a digit in the exponent at line 1, column 3'],
    ['1e+', 'unexpected end, expected a digit in the exponent at line 1, column 4'],
    ['1e-x', 'unexpected character "x", expected a digit in the exponent at line 1, column 4'],
    ['0x10', 'unexpected text after the JSON value at line 1, column 2'],
    // Arrays and objects
    ['[', 'unexpected end, expected a value at line 1, column 2'],
    ['[1', 'unexpected end, expected "," or "]" at line 1, column 3'],
    ['[1,]', 'unexpected character "]", expected a value at line 1, column 4'],
    ['[,1]', 'unexpected character ",", expected a value at line 1, column 2'],
    ['[1 2]', 'unexpected character "2", expected "," or "]" at line 1, column 4'],
    ['[1}', 'unexpected character "}", expected "," or "]" at line 1, column 3'],
    ['{', 'unexpected end, expected a key in double quotes or "}" at line 1, column 2'],
    ['{"a"', 'unexpected end, expected ":" at line 1, column 5'],
    ['{"a":', 'unexpected end, expected a value at line 1, column 6'],
    ['{"a":1', 'unexpected end, expected "," or "}" at line 1, column 7'],
    ['{"a":1,}', 'unexpected character "}", expected a key in double quotes at line 1, column 8'],
    ['{"a" 1}', 'unexpected character "1", expected ":" at line 1, column 6'],
    ['{"a"=1}', 'unexpected character "=", expected ":" at line 1, column 5'],
    ['{"a":1 "b":2}', 'unexpected character "\\"", expected "," or "}" at line 1, column 8'],
    ['{"a":1]', 'unexpected character "]", expected "," or "}" at line 1, column 7'],
    ["{'a':1}", `unexpected character "'", expected a key in double quotes or "}" at line 1, column 2`],
    ['{a:1}', 'unexpected character "a", expected a key in double quotes or "}" at line 1, column 2'],
    ['{1:2}', 'unexpected character "1", expected a key in double quotes or "}" at line 1, column 2'],
    ['}', 'unexpected character "}", expected a value at line 1, column 1'],
    // Strings
    ['"abc', 'unterminated string at line 1, column 1'],
    ['["a", "b]', 'unterminated string at line 1, column 7'],
    ['"a\\"', 'unterminated string at line 1, column 1'],
    ['"a\\', 'unterminated string at line 1, column 1'],
    ['"\\u12', 'unterminated string at line 1, column 1'],
    ['"a\\x"', 'invalid escape "\\x" at line 1, column 3'],
    ['"a\\\'"', 'invalid escape "\\\'" at line 1, column 3'],
    ['"\\U0041"', 'invalid escape "\\U" at line 1, column 2'],
    ['"a\\\nb"', 'invalid escape: "\\" followed by character U+000A at line 1, column 3'],
    ['"a\\u12G4"', 'invalid escape: expected four hexadecimal digits after "\\u" at line 1, column 3'],
    ['"\\u{41}"', 'invalid escape: expected four hexadecimal digits after "\\u" at line 1, column 2'],
    ['"a\nb"', 'unescaped control character U+000A in a string at line 1, column 3'],
    ['"a\tb"', 'unescaped control character U+0009 in a string at line 1, column 3'],
    ['"a\u0000b"', 'unescaped control character U+0000 in a string at line 1, column 3'],
    ['"a\u001fb"', 'unescaped control character U+001F in a string at line 1, column 3'],
    // After the value
    ['1 2', 'unexpected text after the JSON value at line 1, column 3'],
    ['{}{}', 'unexpected text after the JSON value at line 1, column 3'],
    ['"a" x', 'unexpected text after the JSON value at line 1, column 5'],
    ['[]]', 'unexpected text after the JSON value at line 1, column 3'],
    ['truex', 'unexpected text after the JSON value at line 1, column 5'],
    // Lines and columns
    ['[\n  1,\n  2,\n]', 'unexpected character "]", expected a value at line 4, column 1'],
    ['{\r\n  "a": x\r\n}', 'unexpected character "x", expected a value at line 2, column 8'],
    ['[1,\r2,\r\r x]', 'unexpected character "x", expected a value at line 4, column 2'],
    ['["😀😀", x]', 'unexpected character "x", expected a value at line 1, column 8'],
    ['[1, 😀]', 'unexpected character "😀", expected a value at line 1, column 5'],
  ])('refuses %j as JSON.parse does: %s', (text, problem) => {
    expect(() => JSON.parse(text) as unknown).toThrow(SyntaxError)
    expect(readJson(text, 'body')).toEqual({ ok: false, problems: [`body is not valid JSON: ${problem}`] })
  })

  it('names the text by its subject', () => {
    expect(readJson('{"pets":[]', 'fixtures file pets.json')).toEqual({
      ok: false,
      problems: ['fixtures file pets.json is not valid JSON: unexpected end, expected "," or "}" at line 1, column 11'],
    })
  })

  it.each([
    '{"name":"Rex","categoryId":1}',
    ' \t\r\n[ 1 , "a" , { } , [ ] , true , false , null ] \n',
    '"\\"\\\\\\/\\b\\f\\n\\r\\t"',
    '"\\u00e9\\u00E9\\uD83D\\uDE00"',
    '"\\ud800 and \\udc00 alone"',
    '"\u2028\u2029\u007f\ud800"',
    '"😀 ünïcödé"',
    '"a string long enough to be copied rather than sliced"',
    '{"a long key that is not cached":"and a long value with an \\n escape"}',
    '{"":""}',
  ])('reads %j as JSON.parse does', (text) => {
    expect(valueOf(text)).toEqual(JSON.parse(text))
  })

  it('reads 1,000 random JSON values as JSON.parse does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, indented) => {
        // JSON.stringify writes every number so that it reads back the same: none is inexact.
        const text = indented ? JSON.stringify(value, null, 2) : JSON.stringify(value)
        expect(readJson(text, 'body')).toEqual({ ok: true, value: JSON.parse(text) as unknown })
      }),
      { numRuns: 1000 },
    )
  })

  it('reads a state document of 100,000 pets as JSON.parse does', () => {
    const statuses = ['available', 'pending', 'sold']
    const pets = Array.from({ length: 100_000 }, (_, index) => ({
      id: index + 1,
      name: index % 2 === 0 ? `Rex ${index}` : `Captain "Feathers" the ${index}th`,
      categoryId: (index % 7) + 1,
      status: statuses[index % 3],
    }))
    const text = JSON.stringify({ pets, nextId: 100_001 })
    expect(readJson(text, 'state')).toEqual({ ok: true, value: { pets, nextId: 100_001 } })
  })
})

describe('readJson: keys that name prototypes', () => {
  const text = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"prototype":1}'

  it('keeps __proto__, constructor and prototype as own keys of a plain object', () => {
    const value = valueOf(text) as Record<string, unknown>
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.keys(value)).toEqual(['__proto__', 'constructor', 'prototype'])
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')).toEqual({
      value: { polluted: true },
      enumerable: true,
      writable: true,
      configurable: true,
    })
    expect(value.constructor).toEqual({ prototype: { polluted: true } })
    expect(value.prototype).toBe(1)
    expect(JSON.stringify(value)).toBe(text)
  })

  it('touches no prototype', () => {
    const value = valueOf(`[${text}, {"__proto__":null}]`) as Record<string, unknown>[]
    expect(value.map((object) => Object.getPrototypeOf(object) as unknown)).toEqual([
      Object.prototype,
      Object.prototype,
    ])
    expect(value[1]).toHaveProperty('__proto__', null)
    expect(Object.prototype).not.toHaveProperty('polluted')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})
