/**
 * Every option is known or refused: an unknown name (a typo, another function's option, one of a
 * later version) is a TypeError naming it, never skipped in silence; and `persist`, a browser's,
 * is refused in Node and on the server with the way to keep data there.
 */
import { describe, expect, it } from 'vitest'
import { createSandbox, createSandboxCore } from '../src/index.js'
import { startServer } from '../src/server.js'

/** Options the types do not know, given as a JavaScript caller (or a cast) would: accepted by any signature. */
const loose = (options: Record<string, unknown>): never => options as never

/** What `run` throws. */
function thrownBy(run: () => unknown): Error {
  try {
    run()
  } catch (error) {
    return error as Error
  }
  throw new Error('nothing was thrown')
}

describe('unknown options', () => {
  it.each([
    ['createSandbox', (options: Record<string, unknown>) => createSandbox(loose(options))],
    ['createSandboxCore', (options: Record<string, unknown>) => createSandboxCore(loose(options))],
  ])('%s refuses them with a TypeError naming each', (_, create) => {
    const thrown = thrownBy(() => create({ apiKey: ['k'], fixture: [] }))
    expect(thrown).toBeInstanceOf(TypeError)
    expect(thrown.message).toMatch(
      /^Failed to create the sandbox: unknown options apiKey, fixture \(createSandbox takes apiKeys, baseUrl, fixtures, .*, persist\)$/,
    )
  })

  it('names one unknown option with the good ones beside it', () => {
    const thrown = thrownBy(() => createSandbox(loose({ delay: 10, seed: 3 })))
    expect(thrown).toBeInstanceOf(TypeError)
    expect(thrown.message).toMatch(/^Failed to create the sandbox: unknown option seed \(createSandbox takes /)
    expect(thrown.message).toContain('randomSeed')
  })

  it('names an unknown option beside a wrong value, in one message', () => {
    expect(() => createSandbox(loose({ generate: -1, colour: 'red' }))).toThrow(
      /^Failed to create the sandbox: (?=.*unknown option colour)(?=.*generate must be an integer from 0 to 2000000, got -1)/,
    )
  })

  it('still takes an option given as undefined, which means the default', () => {
    expect(() => createSandbox(loose({ delay: undefined }))).not.toThrow()
  })

  it('startServer refuses them too, listing its own options, stateFile among them', async () => {
    const refused = startServer(loose({ port: 0, prot: 3000 }))
    await expect(refused).rejects.toThrow(TypeError)
    await expect(refused).rejects.toThrow(
      /^Failed to start the server: unknown option prot \(startServer takes (?=.*\bport\b)(?=.*\bstateFile\b).*\)$/,
    )
  })

  it('startServer still takes stateFile (checked on its own)', async () => {
    await expect(startServer({ port: 0, stateFile: '', isolate: false })).rejects.toThrow(
      '--state-file needs a file name',
    )
  })
})

describe('persist outside a browser', () => {
  it('createSandbox refuses it in Node, naming --state-file and startServer({ stateFile })', () => {
    for (const persist of [true, { key: 'my-demo' }, {}] as const) {
      const thrown = thrownBy(() => createSandbox({ persist }))
      expect(thrown).toBeInstanceOf(TypeError)
      expect(thrown.message).toBe(
        "Failed to create the sandbox: persist keeps the data in a browser's IndexedDB, and there is no browser here: in Node, keep it in a file with --state-file FILE or startServer({ stateFile })",
      )
    }
  })

  it('takes persist: false, which is no persist', async () => {
    const sandbox = createSandbox({ persist: false })
    expect(await sandbox.pets.count()).toBe(32)
  })

  it('createSandboxCore refuses it: a core on its own keeps no data', () => {
    expect(() => createSandboxCore({ persist: true })).toThrow(
      /^Failed to create the sandbox: persist is createSandbox's/,
    )
  })

  it('names a wrong persist value before the environment', () => {
    expect(() => createSandbox(loose({ persist: 'yes' }))).toThrow(
      'Failed to create the sandbox: persist must be true, false or { key: "my-demo" } with a non-empty key',
    )
    expect(() => createSandbox(loose({ persist: { key: '' } }))).toThrow(/persist must be true, false/)
    expect(() => createSandbox(loose({ persist: { name: 'x' } }))).toThrow(/persist must be true, false/)
  })

  it('refuses persist with isolate, as --state-file is refused with --isolate', () => {
    expect(() => createSandbox({ persist: true, isolate: true })).toThrow(
      'Failed to create the sandbox: persist keeps one set of data, and isolate gives each key its own: use one or the other',
    )
  })

  it('startServer refuses it, naming stateFile', async () => {
    await expect(startServer(loose({ port: 0, persist: true }))).rejects.toThrow(
      new TypeError(
        "Failed to start the server: persist is not a startServer option: it keeps a browser's sandbox in IndexedDB; the server keeps its data with stateFile (--state-file FILE)",
      ),
    )
  })
})
