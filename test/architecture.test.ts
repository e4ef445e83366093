/**
 * The layout keeps its promises: the core imports no platform and neither adapter, the msw
 * adapter no Node, the Node entry and the CLI no msw, the main entry builds nothing on import, and
 * the admin client takes only types from the core.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, vi } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))
const sourcesIn = (folder: string) =>
  readdirSync(join(root, 'src', folder)).map((file) => ({
    file: `src/${folder}/${file}`,
    text: read(`src/${folder}/${file}`),
  }))
const read = (file: string) => readFileSync(join(root, file), 'utf8')
const importsOf = (text: string) =>
  [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'([^']+)'/g)].map((m) => m[1] ?? '')

describe('the layout', () => {
  it.each(['core', 'msw', 'node', 'dashboard'])('opens every file in src/%s with what it may import', (folder) => {
    for (const { file, text } of sourcesIn(folder)) expect(text, file).toMatch(/May import: /)
  })

  it('keeps the core free of msw, node:, express and both adapters', () => {
    for (const { file, text } of sourcesIn('core')) {
      for (const specifier of importsOf(text)) {
        expect(specifier, file).not.toMatch(/^(?:msw|express|node:)|\/(?:msw|node)\//)
        if (!specifier.startsWith('.')) expect(['zod', 'pure-rand', '@faker-js/faker'], file).toContain(specifier)
      }
    }
  })

  it('keeps the msw adapter free of Node, and the Node adapter free of msw', () => {
    for (const { file, text } of sourcesIn('msw')) {
      for (const specifier of importsOf(text)) expect(specifier, file).not.toMatch(/^node:|\/node\//)
    }
    for (const { file, text } of sourcesIn('node')) {
      for (const specifier of importsOf(text)) expect(specifier, file).not.toMatch(/^msw|\/msw\//)
    }
  })

  it('lets the admin client take types from the core and nothing at runtime', () => {
    const text = read('src/client.ts')
    expect(text).toMatch(/May import: /)
    // `import { type X }` is not enough: verbatimModuleSyntax keeps it as `import {} from`, which loads the file.
    const statements = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s+([^'"]*?)\s*from\s+'([^']+)'/g)]
    expect(statements.length).toBeGreaterThan(0)
    expect(statements.map((match) => match[2])).toEqual(importsOf(text))
    for (const [statement, clause = '', specifier = ''] of statements) {
      expect(clause, statement).toMatch(/^type\s/)
      expect(specifier, statement).toMatch(/^\.\/core\//)
    }
    // A dynamic import is told from the client's `state.import(...)` method by its quoted specifier.
    expect(text, 'a side-effect or dynamic import').not.toMatch(/(?:^|\n)\s*import\s*['"]|\bimport\s*\(\s*['"`]/)
  })
})

describe('what each entry loads', () => {
  /** Every package a built entry reaches through its imports, following relative files. */
  const packagesReached = (entry: string): Set<string> => {
    const seen = new Set<string>()
    const packages = new Set<string>()
    const visit = (file: string) => {
      if (seen.has(file)) return
      seen.add(file)
      for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
        if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier))
        else
          packages.add(
            specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] ?? ''),
          )
      }
    }
    visit(join(root, entry))
    return packages
  }

  it('the server entry runs without msw', () => {
    expect(existsSync(join(root, 'dist/src/server.js')), 'npm run build first').toBe(true)
    const reached = packagesReached('dist/src/server.js')
    expect([...reached].filter((name) => !name.startsWith('node:')).sort()).toEqual(['pure-rand', 'zod'])
  })

  it('the bundled CLI holds no msw and no express', () => {
    // Written by scripts/bundle-cli.mjs from esbuild's metafile: every file that went in.
    const inputs = JSON.parse(read('dist/cli.meta.json')) as string[]
    const packages = new Set(inputs.flatMap((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1] ?? []))
    expect([...packages].sort()).toEqual(['commander', 'pure-rand', 'zod'])
    expect(inputs).toContain('src/core/handle.ts')
  })

  it('the main entry needs msw and the core packages, nothing of the server', () => {
    const reached = [...packagesReached('dist/src/index.js')].sort()
    expect(reached).toEqual(['msw', 'pure-rand', 'zod'])
  })

  it('the main entry builds no sandbox on import; the default one is made on first use', async () => {
    vi.resetModules()
    const seed = await import('../src/core/seed.js')
    const bundledSeed = vi.spyOn(seed, 'bundledSeed')
    const { defaultSandbox, handlers } = await import('../src/index.js')
    expect(handlers).toHaveLength(1)
    expect(bundledSeed).not.toHaveBeenCalled()
    expect(await defaultSandbox.pets.count()).toBe(32)
    expect(bundledSeed).toHaveBeenCalledTimes(1)
    await defaultSandbox.reset()
    expect(bundledSeed).toHaveBeenCalledTimes(1)
  })
})
