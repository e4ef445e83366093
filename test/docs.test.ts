/**
 * The docs say what the code does: every flag the CLI's --help prints has its row in docs/cli.md,
 * every route under /__sandbox in the route table has its row in docs/admin-api.md (and no row
 * names a route that is gone), the README stays a five-minute read that starts with the two
 * commands, and every relative link in README.md and docs/*.md reaches a file, and a heading when
 * it names one.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { adminRoutes } from '../src/core/admin/operations.js'
import { siteRoutes } from '../src/core/docs/site.js'
import { ADMIN_PATH } from '../src/core/http/mounts.js'
import { METHODS } from '../src/core/http/routes.js'
import { run } from '../src/node/cli.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const read = (file: string) => readFileSync(join(root, file), 'utf8')
const PAGES = [
  'README.md',
  ...readdirSync(join(root, 'docs')).flatMap((file) => (file.endsWith('.md') ? [`docs/${file}`] : [])),
]

/** The first cell of every row of a page's tables. */
const firstCells = (text: string) =>
  [...withoutCode(text).matchAll(/^\| *([^|]*?) *\|/gm)].map((match) => match[1] ?? '')

/** The text with fenced code blocks blanked out (line count kept), so examples are not read as prose. */
function withoutCode(text: string): string {
  let fenced = false
  return text
    .split('\n')
    .map((line) => {
      if (line.startsWith('```')) {
        fenced = !fenced
        return ''
      }
      return fenced ? '' : line
    })
    .join('\n')
}

/** The CLI's --help, read in-process from the source, as the CLI tests run it. */
async function helpText(): Promise<string> {
  let printed = ''
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    printed += String(chunk)
    return true
  })
  // commander exits after printing help; stop it there instead.
  vi.spyOn(process, 'exit').mockImplementation((code) => {
    throw new Error(`exit ${String(code)}`)
  })
  await expect(run(['node', 'petstore-sandbox', '--help'])).rejects.toThrow('exit 0')
  vi.restoreAllMocks()
  return printed
}

describe('docs/cli.md', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('has a row for every option --help prints, with its environment variable, and none for an option that is gone', async () => {
    const help = await helpText()
    // One entry per option: its line and the description lines wrapped under it.
    const printed = help
      .split(/\n(?= {2}-)/)
      .slice(1)
      .map((entry) => entry.replace(/\s+/g, ' ').trim())
      .map((entry) => ({
        flag: /--[a-z][a-z-]*/.exec(entry)?.[0] ?? '',
        env: /\(?env: (\w+)\)/.exec(entry)?.[1],
      }))
    expect(printed.map(({ flag }) => flag)).toEqual(
      expect.arrayContaining(['--port', '--isolate', '--limit', '--help']),
    )

    const rows = withoutCode(read('docs/cli.md'))
      .split('\n')
      .filter((line) => /^\| `-/.test(line))
      // `<ms\|min-max>`: an escaped pipe ends no cell.
      .map((line) => line.split(/(?<!\\)\|/).map((cell) => cell.trim()))
      .map(([, option = '', env = '']) => ({
        flag: /--[a-z][a-z-]*/.exec(option)?.[0] ?? '',
        env: /^`(\w+)`$/.exec(env)?.[1],
      }))
    expect(rows.map(({ flag }) => flag).sort()).toEqual(printed.map(({ flag }) => flag).sort())
    for (const { flag, env } of printed) expect(rows.find((row) => row.flag === flag)?.env, flag).toBe(env)
  })
})

describe('docs/admin-api.md', () => {
  it('has a row for every route under /__sandbox with its methods, and none for a route that is gone', () => {
    const routes = [...adminRoutes, ...siteRoutes()]
      .filter((route) => route.area === 'admin')
      .flatMap((route) => Object.keys(route.methods).map((method) => `${method} ${ADMIN_PATH}${route.path}`))
    expect(routes).toContain('POST /__sandbox/reset')

    // A row names its methods, then the path: `GET`, `PUT /__sandbox/state`, or `GET /__sandbox/pets?offset=`.
    const documented = firstCells(read('docs/admin-api.md')).flatMap((cell) => {
      const path = /(\/__sandbox[^\s?`]*)/.exec(cell)?.[1]
      if (path === undefined) return []
      const methods = [...cell.matchAll(/\b[A-Z]+\b/g)].map(([method]) => method)
      return methods
        .filter((method) => (METHODS as readonly string[]).includes(method))
        .map((method) => `${method} ${path}`)
    })
    expect(documented.sort()).toEqual(routes.sort())
  })
})

describe('README.md', () => {
  const readme = read('README.md')

  it('is at most 250 lines', () => {
    expect(readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(250)
  })

  it('says how to run it and how to test it within its first 20 lines', () => {
    const opening = readme.split('\n').slice(0, 20).join('\n')
    expect(opening).toContain('npm install && npx petstore-sandbox')
    expect(opening).toContain('npm test')
  })

  it('links every page of docs/', () => {
    for (const page of PAGES.filter((file) => file.startsWith('docs/'))) expect(readme).toContain(`](${page})`)
  })
})

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>()
  for (const [, heading = ''] of withoutCode(text).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    let anchor = base
    for (let repeat = 1; anchors.has(anchor); repeat++) anchor = `${base}-${repeat}`
    anchors.add(anchor)
  }
  return anchors
}

/** The targets of a page's links and images, code left out: `Link: </v1/pets>` and the like are no links. */
function linksOf(page: string): string[] {
  const prose = withoutCode(read(page)).replace(/`[^`\n]*`/g, '')
  return [...prose.matchAll(/\]\(([^)\s]+)(?: +"[^"]*")?\)/g)].map((match) => match[1] ?? '')
}

describe('the links of README.md and docs/', () => {
  it('are read from the pages', () => {
    expect(linksOf('README.md').filter((target) => target.startsWith('docs/')).length).toBeGreaterThan(5)
  })

  it.each(PAGES)('%s links only to files and headings that exist', (page) => {
    const broken: string[] = []
    for (const target of linksOf(page)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
      const [path = '', anchor] = target.split('#', 2)
      const file = path === '' ? join(root, page) : join(root, dirname(page), decodeURIComponent(path))
      if (!existsSync(file)) {
        broken.push(`${target}: no file ${relative(root, file)}`)
        continue
      }
      if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor)) {
        broken.push(`${target}: no heading #${anchor} in ${relative(root, file)}`)
      }
    }
    expect(broken).toEqual([])
  })
})

describe('docs/performance.md', () => {
  it('speaks of this release in its headline, the version package.json gives (npm run bench writes it)', () => {
    const { version } = JSON.parse(read('package.json')) as { version: string }
    const page = read('docs/performance.md')
    const from = page.indexOf('## This release\n')
    expect(from).toBeGreaterThan(-1)
    const section = page.slice(from, page.indexOf('\n## ', from + 1))
    expect(/\d+\.\d+\.\d+/.exec(section)?.[0]).toBe(version)
    expect(read('bench/results.md')).toContain(`petstore-sandbox ${version}.`)
  })
})
