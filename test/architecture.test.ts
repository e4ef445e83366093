/**
 * The layout keeps its promises: the core imports no platform and neither adapter, the msw
 * adapter no Node, the Node entry and the CLI no msw, the main entry builds nothing on import, and
 * the admin client takes only types from the core.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, vi } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))
const sourcesIn = (folder: string) =>
  readdirSync(join(root, 'src', folder)).map((file) => ({
    file: `src/${folder}/${file}`,
    text: read(`src/${folder}/${file}`),
  }))
const read = (file: string) => readFileSync(join(root, file), 'utf8')
// Either quote: the sources use single ones, esbuild's bundles double ones.
const importsOf = (text: string) =>
  [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s*(['"])([^'"]+)\1/g)].map((m) => m[2] ?? '')

/**
 * What each core folder may import, following a request's way: HTTP on its own (types of what an
 * exchange carries aside), the API over HTTP, the request-time state over both, the admin routes
 * that steer it over all three, the docs over all
 * three, and at the top the dispatcher and its calls, the options and the sandbox that wire them. Every file
 * opens with its folder's rule (or a stricter "nothing").
 */
const CORE_RULES: Record<string, { rule: string; runtime: string[]; types: string[]; packages: string[] }> = {
  'src/core': {
    rule: 'May import: every core folder, zod. No msw, no node:*, no adapter.',
    runtime: [
      'src/core',
      'src/core/http',
      'src/core/api',
      'src/core/state',
      'src/core/admin',
      'src/core/docs',
      'src/core/verify',
    ],
    types: [],
    packages: ['zod'],
  },
  'src/core/http': {
    rule: 'May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.',
    runtime: ['src/core/http', 'src/core/limits.ts'],
    types: [],
    packages: ['zod'],
  },
  'src/core/api': {
    rule: 'May import: core/api, core/http, core/limits.ts, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.',
    runtime: ['src/core/api', 'src/core/http', 'src/core/limits.ts', 'fixtures'],
    types: [],
    packages: ['zod', 'pure-rand'],
  },
  'src/core/state': {
    rule: 'May import: core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.',
    runtime: ['src/core/state', 'src/core/api', 'src/core/http', 'src/core/limits.ts'],
    types: [],
    packages: ['zod'],
  },
  'src/core/admin': {
    rule: 'May import: core/admin, core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.',
    runtime: ['src/core/admin', 'src/core/state', 'src/core/api', 'src/core/http', 'src/core/limits.ts'],
    types: [],
    packages: ['zod'],
  },
  'src/core/verify': {
    rule: 'May import: core/verify, core/admin, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.',
    runtime: ['src/core/verify', 'src/core/admin', 'src/core/api', 'src/core/http', 'src/core/limits.ts'],
    types: [],
    packages: ['zod'],
  },
  'src/core/docs': {
    rule: 'May import: core/docs, core/admin, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.',
    runtime: ['src/core/docs', 'src/core/admin', 'src/core/api', 'src/core/http', 'src/core/limits.ts'],
    types: [],
    packages: ['zod'],
  },
}

/** Every import of a file: its specifier and whether it is type-only (erased on build). */
const importStatements = (text: string) =>
  [...text.matchAll(/(?:^|\n)\s*(import|export)\s+(type\s)?[^'"]*?from\s+'([^']+)'/g)].map((m) => ({
    typeOnly: m[2] !== undefined,
    specifier: m[3] ?? '',
  }))

/** Every .ts file under src, by its path from the root. */
const allSources = (folder = 'src'): string[] =>
  readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? allSources(`${folder}/${entry.name}`)
      : entry.name.endsWith('.ts')
        ? [`${folder}/${entry.name}`]
        : [],
  )

/** Where a relative specifier of `file` leads, from the root, without its extension's .js. */
const resolvedFrom = (file: string, specifier: string) =>
  relative(root, resolve(root, dirname(file), specifier)).replace(/\.js$/, '.ts')

const within = (path: string, place: string) =>
  place.endsWith('.ts')
    ? path === place
    : dirname(path) === place || (place === 'fixtures' && path.startsWith('fixtures/'))

/** Every cycle of a graph of imports, each as `a -> b -> a`. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const cycles: string[] = []
  const state = new Map<string, 'open' | 'done'>()
  const path: string[] = []
  const visit = (node: string) => {
    state.set(node, 'open')
    path.push(node)
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next].join(' -> '))
      else if (!state.has(next)) visit(next)
    }
    path.pop()
    state.set(node, 'done')
  }
  for (const node of graph.keys()) if (!state.has(node)) visit(node)
  return cycles
}

describe('file names', () => {
  const files = (folder: string): string[] =>
    readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? files(`${folder}/${entry.name}`)
        : entry.name.endsWith('.ts')
          ? [`${folder}/${entry.name}`]
          : [],
    )

  it("gives each file of src a name of its own, but the surfaces' parts src/core/README.md lists and says why", () => {
    const byName = new Map<string, string[]>()
    for (const file of files('src')) {
      const name = file.slice(file.lastIndexOf('/') + 1)
      byName.set(name, [...(byName.get(name) ?? []), file])
    }
    const repeated = [...byName].filter(([, where]) => where.length > 1)
    const listed = [...read('src/core/README.md').matchAll(/^\| `([^`]+\.ts)` +\|/gm)].map((match) => match[1])
    expect(listed.length).toBeGreaterThan(0)
    expect(Object.fromEntries(repeated)).toEqual(
      Object.fromEntries(listed.map((name) => [name, [`src/core/admin/${name}`, `src/core/api/${name}`]])),
    )
  })
})

describe('the layout', () => {
  it.each(['core', 'msw', 'node', 'dashboard'])('opens every file in src/%s with what it may import', (folder) => {
    for (const file of allSources(`src/${folder}`)) expect(read(file), file).toMatch(/May import: /)
  })

  it.each(Object.keys(CORE_RULES))("holds every file in %s to its folder's rule", (folder) => {
    const { rule, runtime, types, packages } = CORE_RULES[folder] ?? { rule: '', runtime: [], types: [], packages: [] }
    const files = allSources(folder).filter((file) => dirname(file) === folder)
    expect(files.length).toBeGreaterThan(0)
    for (const file of files) {
      const text = read(file)
      const header = /May import: [^\n]*/.exec(text)?.[0]
      const imports = importStatements(text)
      if (header === 'May import: nothing.') {
        expect(imports, file).toEqual([])
        continue
      }
      expect(header, file).toBe(rule)
      for (const { specifier, typeOnly } of imports) {
        if (!specifier.startsWith('.')) {
          expect(packages, `${file} imports ${specifier}`).toContain(specifier)
          continue
        }
        const target = resolvedFrom(file, specifier)
        const allowed = [...runtime, ...(typeOnly ? types : [])]
        expect(
          allowed.some((place) => within(target, place)),
          `${file} imports ${target}${typeOnly ? ' (types)' : ''}`,
        ).toBe(true)
      }
    }
  })

  it('has no import cycle in src, type-only imports included', () => {
    const graph = new Map(
      allSources().map((file) => [
        file,
        importStatements(read(file))
          .filter(({ specifier }) => specifier.startsWith('.'))
          .map(({ specifier }) => resolvedFrom(file, specifier)),
      ]),
    )
    expect(cyclesOf(graph)).toEqual([])
  })

  it('finds a cycle when there is one (the check itself can fail)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ])
    expect(cyclesOf(graph)).toEqual(['a -> b -> c -> a'])
    expect(importStatements("import type { A } from './a.js'\nimport { b } from '../b.js'")).toEqual([
      { typeOnly: true, specifier: './a.js' },
      { typeOnly: false, specifier: '../b.js' },
    ])
  })

  it('keeps the core free of msw, node:, express and both adapters', () => {
    for (const file of allSources('src/core')) {
      for (const { specifier } of importStatements(read(file))) {
        expect(specifier, file).not.toMatch(/^(?:msw|express|node:)|\/(?:msw|node|dashboard)\//)
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

  it("holds every file in src/node to its folder's rule (or a stricter node:* only)", () => {
    const rule = 'May import: node:*, commander, the core, the other files here. Never msw or express.'
    const files = allSources('src/node')
    expect(files.length).toBeGreaterThan(10)
    for (const file of files) {
      const text = read(file)
      const header = /May import: [^\n]*/.exec(text)?.[0]
      const nodeOnly = header === 'May import: node:*.'
      if (!nodeOnly) expect(header, file).toBe(rule)
      for (const { specifier } of importStatements(text)) {
        if (!specifier.startsWith('.')) {
          expect(
            specifier.startsWith('node:') || (!nodeOnly && specifier === 'commander'),
            `${file} imports ${specifier}`,
          ).toBe(true)
          continue
        }
        const target = resolvedFrom(file, specifier)
        expect(!nodeOnly && /^src\/(?:core|node)\//.test(target), `${file} imports ${target}`).toBe(true)
      }
    }
  })

  // The Node adapter's way is a list in the opening comment of the file that runs it, each step
  // naming its file: the files named are files it imports, and the docs name every file there is.
  it.each(['src/node/start-server.ts', 'src/node/listener.ts'])(
    '%s names in its list only the files it imports',
    (file) => {
      const text = read(file)
      const list = /^\/\*\*[\s\S]*?\*\//.exec(text)?.[0] ?? ''
      const named = new Set([...list.matchAll(/\b([a-z-]+\.ts)\b/g)].map((m) => `src/node/${m[1] ?? ''}`))
      expect(named.size).toBeGreaterThan(3)
      const imported = new Set(
        importStatements(text)
          .filter(({ specifier }) => specifier.startsWith('./'))
          .map(({ specifier }) => resolvedFrom(file, specifier)),
      )
      for (const name of named) expect(imported, `${file} names ${name}`).toContain(name)
    },
  )

  it('names every file of src/node in docs/architecture.md', () => {
    const docs = read('docs/architecture.md')
    const files = readdirSync(join(root, 'src/node'))
    expect(files.length).toBeGreaterThan(10)
    for (const name of files) expect(docs, name).toContain(`\`${name}\``)
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

/** A core file that says it imports nothing, and does not: a browser bundle may take it as it is. */
const importsNothing = (file: string) =>
  file.startsWith('src/core/') && /May import: nothing\./.test(read(file)) && importStatements(read(file)).length === 0

describe('the dashboard', () => {
  it('takes from the core what a browser runs (the core holds no platform), and nothing of an adapter', () => {
    const fromCore = new Set<string>()
    for (const file of allSources('src/dashboard')) {
      for (const { specifier } of importStatements(read(file))) {
        if (!specifier.startsWith('.')) {
          expect(['zod'], `${file} imports the package ${specifier}`).toContain(specifier)
          continue
        }
        const target = resolvedFrom(file, specifier)
        expect(target, `${file} imports ${target}`).toMatch(/^src\/(?:dashboard|core)\//)
        if (target.startsWith('src/core/')) fromCore.add(target)
      }
    }
    // The one bucketing of statuses, and the scenarios' words, are the core's.
    expect([...fromCore]).toEqual(
      expect.arrayContaining(['src/core/state/counters.ts', 'src/core/state/scenario-words.ts']),
    )
  })
})

describe('the panel entry', () => {
  const panelFiles = ['src/panel.ts', ...allSources('src/browser/panel')]

  it('takes types from the core facade, at run time only core files that import nothing, and the rest from src/browser/panel', () => {
    expect(panelFiles.length).toBeGreaterThan(1)
    for (const file of panelFiles) {
      const text = read(file)
      expect(text, file).toMatch(/May import: /)
      expect(text, `${file}: a side-effect or dynamic import`).not.toMatch(
        /(?:^|\n)\s*import\s*['"]|\bimport\s*\(\s*['"`]/,
      )
      for (const { specifier, typeOnly } of importStatements(text)) {
        expect(specifier, `${file} imports the package ${specifier}`).toMatch(/^\./)
        const target = resolvedFrom(file, specifier)
        const allowed =
          target.startsWith('src/browser/panel/') ||
          (typeOnly && target === 'src/core/sandbox.ts') ||
          importsNothing(target)
        expect(allowed, `${file} imports ${target}${typeOnly ? ' (types)' : ''}`).toBe(true)
      }
    }
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

  /**
   * A file of the build in dist/: these tests check what the build made (npm test and vitest's
   * global setup run `npm run build:js` when dist/ is stale), so they read whatever the last build
   * left. Without one they fail saying so.
   */
  const BUILD_FIRST = 'run `npm run build:js` (or `npm run build`) first, and again after changing src/'
  const built = (path: string): string => {
    expect(existsSync(join(root, path)), `${path} is missing: ${BUILD_FIRST}`).toBe(true)
    return path
  }

  // zod is inside the ESM bundles (scripts/bundle-esm.mjs), so no entry imports it at run time.
  it('the server entry runs without msw', () => {
    const reached = packagesReached(built('dist/src/server.js'))
    expect([...reached].filter((name) => !name.startsWith('node:')).sort()).toEqual(['pure-rand'])
  })

  it('the bundled CLI holds no msw and no express', () => {
    // Written by scripts/bundle-cli.mjs from esbuild's metafile: every file that went in.
    const inputs = JSON.parse(read(built('dist/cli.meta.json'))) as string[]
    const packages = new Set(inputs.flatMap((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1] ?? []))
    expect([...packages].sort()).toEqual(['commander', 'pure-rand', 'zod'])
    expect(inputs, `dist/cli.meta.json is from the last build: ${BUILD_FIRST}`).toContain('src/core/dispatch.ts')
  })

  it('the main entry needs msw and the core packages, nothing of the server', () => {
    const reached = [...packagesReached(built('dist/src/index.js'))].sort()
    expect(reached).toEqual(['msw', 'pure-rand'])
  })

  /** Every file of dist/ a built entry reaches, through static and dynamic imports alike. */
  const filesReached = (entry: string): string[] => {
    const seen = new Set<string>()
    const visit = (file: string) => {
      if (seen.has(file)) return
      seen.add(file)
      const text = readFileSync(file, 'utf8')
      const dynamic = [...text.matchAll(/\bimport\(\s*(['"])([^'"]+)\1\s*\)/g)].map((m) => m[2] ?? '')
      for (const specifier of [...importsOf(text), ...dynamic]) {
        if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier))
      }
    }
    visit(join(root, entry))
    return [...seen]
  }
  /** Strings only the panel's code holds: its host element's name and its hint. */
  const PANEL_MARKS = ['petstore-sandbox-panel', 'opens and closes this panel']
  /** Strings of the core: the dispatcher's last resort, and every simulated failure's message. */
  const CORE_MARKS = ['unexpected failure on', 'Simulated by the sandbox']
  const holdsAny = (files: readonly string[], marks: readonly string[]) =>
    files
      .filter((file) => marks.some((mark) => readFileSync(file, 'utf8').includes(mark)))
      .map((file) => relative(root, file))

  it('the panel entry loads no package and nothing of the core', () => {
    const panel = built('dist/src/panel.js')
    expect([...packagesReached(panel)]).toEqual([])
    // esbuild's own helpers (a chunk every entry imports) may come along; the core may not.
    expect(holdsAny(filesReached(panel), CORE_MARKS)).toEqual([])
    expect(holdsAny(filesReached('dist/src/index.js'), CORE_MARKS).length).toBeGreaterThan(0)
    const text = read(panel)
    for (const mark of PANEL_MARKS) expect(text, `${panel} is from the last build: ${BUILD_FIRST}`).toContain(mark)
  })

  it.each(['dist/src/index.js', 'dist/src/server.js'])('%s never loads the panel', (entry) => {
    const files = filesReached(built(entry))
    expect(files.length).toBeGreaterThan(1)
    expect(holdsAny(files, PANEL_MARKS)).toEqual([])
  })

  it('the main entry builds no sandbox on import; the default one is made on first use', async () => {
    vi.resetModules()
    const seed = await import('../src/core/api/seed.js')
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
