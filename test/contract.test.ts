import { describe, expect, it } from 'vitest'
import { checkListPetsQuery, checkNewPet, checkPet, checkPetId } from '../src/core/api/contract.js'
import { readFileSync } from 'node:fs'
import { bundledSeed, FixtureError, parseSeed } from '../src/core/api/seed.js'

describe('checkNewPet', () => {
  it('accepts the required fields and an optional status', () => {
    expect(checkNewPet({ name: 'Rex', categoryId: 1 })).toEqual({ ok: true, value: { name: 'Rex', categoryId: 1 } })
    expect(checkNewPet({ name: 'Rex', categoryId: -3, status: 'sold' })).toEqual({
      ok: true,
      value: { name: 'Rex', categoryId: -3, status: 'sold' },
    })
  })

  it('drops unknown fields, including __proto__ keys from JSON', () => {
    const checked = checkNewPet(JSON.parse('{"name":"Rex","categoryId":1,"__proto__":{"polluted":1},"x":2}'))
    expect(checked).toEqual({ ok: true, value: { name: 'Rex', categoryId: 1 } })
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('refuses id, and reports every problem at once', () => {
    expect(checkNewPet({ id: 1, categoryId: 'x', status: 'lost' })).toEqual({
      ok: false,
      problems: [
        'id is assigned by the service and cannot be set',
        'name is required',
        'categoryId must be an integer, got "x"',
        'status must be one of available, pending, sold, got "lost"',
      ],
    })
  })

  it.each([
    [null, 'body must be a JSON object, got null'],
    [[], 'body must be a JSON object, got an array'],
    ['Rex', 'body must be a JSON object, got a string'],
    [true, 'body must be a JSON object, got a boolean'],
    [1.5, 'body must be a JSON object, got a number'],
  ])('refuses the non-object %j', (input, problem) => {
    expect(checkNewPet(input)).toEqual({ ok: false, problems: [problem] })
  })

  it('accepts the extremes of the exactly representable integers and a 255-character name', () => {
    expect(checkNewPet({ name: 'x'.repeat(255), categoryId: Number.MAX_SAFE_INTEGER }).ok).toBe(true)
    expect(checkNewPet({ name: 'x', categoryId: Number.MIN_SAFE_INTEGER }).ok).toBe(true)
  })
})

describe('checkListPetsQuery', () => {
  it('defaults limit to 20 and leaves status out', () => {
    expect(checkListPetsQuery({})).toEqual({ ok: true, value: { limit: 20 } })
  })

  it.each(['1', '100', '007'])('accepts limit=%s', (limit) => {
    expect(checkListPetsQuery({ limit })).toEqual({ ok: true, value: { limit: Number(limit) } })
  })

  it.each(['0', '101', '-1', 'abc', '1.5', '1e1', '', ' 5', '+5', '0x10', '99999999999999999999'])(
    'refuses limit=%j naming limit',
    (limit) => {
      const checked = checkListPetsQuery({ limit })
      expect(checked.ok).toBe(false)
      expect(checked.ok ? '' : checked.problems.join()).toMatch(/^limit must be/)
    },
  )

  it('refuses a status outside the case-sensitive enum', () => {
    expect(checkListPetsQuery({ status: 'SOLD' })).toEqual({
      ok: false,
      problems: ['status must be one of available, pending, sold, got "SOLD"'],
    })
  })
})

describe('checkPetId', () => {
  it.each([
    ['1', 1],
    ['-4', -4],
    ['0', 0],
  ])('reads %s as the integer %i', (raw, id) => {
    expect(checkPetId(raw)).toEqual({ ok: true, value: id })
  })

  it.each(['abc', '1.5', '', '1e3', '9007199254740992'])('refuses %j', (raw) => {
    expect(checkPetId(raw).ok).toBe(false)
  })
})

describe('the bundled seed', () => {
  it('passes every check of parseSeed, and bundledSeed gives exactly what parseSeed would', () => {
    // Read from disk here, not imported: the file as it ships, not the module the code holds.
    const shipped: unknown = JSON.parse(readFileSync(new URL('../fixtures/pets.json', import.meta.url), 'utf8'))
    const checked = parseSeed(shipped, 'fixtures/pets.json')
    expect(checked).toHaveLength(32)
    expect(bundledSeed()).toStrictEqual(checked)
    expect(bundledSeed().map((pet) => Object.keys(pet))).toEqual(checked.map((pet) => Object.keys(pet)))
    expect(Object.isFrozen(bundledSeed()[0])).toBe(true)
  })
})

describe('checkPet and parseSeed', () => {
  it('requires a positive id on stored pets', () => {
    expect(checkPet({ id: 0, name: 'a', categoryId: 1 })).toEqual({
      ok: false,
      problems: ['id must be at least 1, got 0'],
    })
  })

  it('names the source, the entry and the field of a bad fixture', () => {
    expect(() =>
      parseSeed(
        [
          { id: 1, name: 'a', categoryId: 1 },
          { id: 2, name: 'b' },
        ],
        'pets.json',
      ),
    ).toThrow(new FixtureError('Invalid pets.json: entry 1 (id 2): categoryId is required'))
  })

  it('refuses duplicate ids and non-arrays', () => {
    expect(() =>
      parseSeed([
        { id: 1, name: 'a', categoryId: 1 },
        { id: 1, name: 'b', categoryId: 1 },
      ]),
    ).toThrow('Invalid fixtures: entry 1: id 1 is already used by entry 0')
    expect(() => parseSeed({ pets: [] })).toThrow('Invalid fixtures: expected a JSON array of pets, got object')
    // A duplicate of an entry that is bad in other ways is named in the same answer.
    expect(() =>
      parseSeed([
        { id: 1, name: 'a', categoryId: 'x' },
        { id: 1, name: 'b', categoryId: 1 },
      ]),
    ).toThrow(
      'Invalid fixtures: entry 0 (id 1): categoryId must be an integer, got "x"; entry 1: id 1 is already used by entry 0',
    )
  })

  it('returns frozen copies, so later edits to the input cannot change the seed', () => {
    const entry = { id: 1, name: 'a', categoryId: 1 }
    const seed = parseSeed([entry])
    entry.name = 'changed'
    expect(seed[0]?.name).toBe('a')
    expect(Object.isFrozen(seed[0])).toBe(true)
  })
})
