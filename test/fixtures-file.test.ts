/** A fixtures file is read by the same JSON reader as request bodies, and every problem is reported at once. */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createSandboxCore } from '../src/index.js'
import { readFixturesFile } from '../src/node/fixtures-file.js'

const folder = mkdtempSync(join(tmpdir(), 'petstore-fixtures-'))
const file = (name: string, text: string) => {
  const path = join(folder, name)
  writeFileSync(path, text)
  return path
}

describe('a fixtures file', () => {
  it('is read with a byte-order mark, as a request body is', async () => {
    const path = file('bom.json', '\uFEFF[{"id":1,"name":"Rex","categoryId":1}]')
    expect(await readFixturesFile(path)).toEqual([{ id: 1, name: 'Rex', categoryId: 1 }])
    const core = createSandboxCore()
    const response = await core.handle({
      method: 'POST',
      target: '/v1/pets',
      headers: { authorization: 'Bearer petstore-sandbox-key', 'content-type': 'application/json' },
      body: new TextEncoder().encode('\uFEFF{"name":"Rex","categoryId":1}'),
    })
    expect(response.status).toBe(201)
  })

  it('refuses a duplicated key, even with an equal value', async () => {
    const path = file('dup.json', '[{"id":1,"id":1,"name":"Rex","categoryId":1}]')
    await expect(readFixturesFile(path)).rejects.toThrow(`fixtures file ${path} has the key "id" twice (at 0.id)`)
  })

  it('refuses a number a JavaScript number would round, quoting it as written', async () => {
    const path = file('round.json', '[{"id":9007199254740993,"name":"Rex","categoryId":1}]')
    await expect(readFixturesFile(path)).rejects.toThrow('got 9007199254740993')
  })

  it('reports every bad entry at once', async () => {
    const path = file(
      'many.json',
      '[{"id":1,"name":"","categoryId":1},{"id":2,"name":"Ok","categoryId":1},{"id":3,"name":"X","categoryId":"x"},{"id":2,"name":"Again","categoryId":1}]',
    )
    const error = await readFixturesFile(path).catch((caught: unknown) => caught as Error)
    expect(error).toBeInstanceOf(Error)
    const { message } = error as Error
    expect(message).toContain('entry 0 (id 1): name must not be empty')
    expect(message).toContain('entry 2 (id 3): categoryId must be an integer, got "x"')
    expect(message).toContain('entry 3: id 2 is already used by entry 1')
  })

  it('takes a saved state (the document or the older {pets, nextId}): its pets, and one line naming --state-file', async () => {
    const pets = [
      { id: 1, name: 'Rex', categoryId: 1 },
      { id: 4, name: 'Max', categoryId: 2, status: 'sold' },
    ]
    const checkpoint = { name: 'a', savedAt: '2026-11-25T09:12:44.000Z', nextId: 2, pets: pets.slice(0, 1) }
    const document = file(
      'document.json',
      JSON.stringify({ version: 1, savedAt: '2026-11-25T09:30:01.000Z', nextId: 9, pets, checkpoints: [checkpoint] }),
    )
    const said: string[] = []
    expect(await readFixturesFile(document, (line) => said.push(line))).toEqual(pets)
    expect(said).toEqual([
      `${document} is a saved state, not a list of pets: its 2 pets are the seed (a reset comes back to them); its nextId and its checkpoints (1) are not loaded: --state-file ${document} starts from the whole state`,
    ])
    const older = file('older.json', JSON.stringify({ pets, nextId: 9 }))
    said.length = 0
    expect(await readFixturesFile(older, (line) => said.push(line))).toEqual(pets)
    expect(said).toEqual([expect.stringContaining('its nextId and its checkpoints (0) are not loaded') as unknown])
  })

  it('says "nested too deeply", not "not valid JSON", for deep valid JSON', async () => {
    const path = file('deep.json', `${'['.repeat(5000)}${']'.repeat(5000)}`)
    await expect(readFixturesFile(path)).rejects.toThrow('is nested too deeply: more than 100 levels')
  })
})
