/**
 * The docs' recipes are the files CI runs (scripts/consumer/*.sh copies examples/ into projects
 * of their own): every block listed here must appear in its docs page exactly as its file.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const read = (file: string) => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')
const RECIPES: readonly (readonly [file: string, page: string, language: string])[] = [
  ['examples/vitest/pets.test.ts', 'docs/in-process.md', 'ts'],
  ['examples/vitest/per-test.test.ts', 'docs/in-process.md', 'ts'],
  ['examples/vitest/loading-state.test.ts', 'docs/in-process.md', 'ts'],
  ['examples/commonjs/check.cjs', 'docs/recipes.md', 'js'],
  ['examples/jest/package.json', 'docs/recipes.md', 'json'],
  ['examples/jest/pets.test.js', 'docs/recipes.md', 'js'],
  ['examples/playwright/playwright.config.ts', 'docs/recipes.md', 'ts'],
  ['examples/playwright/tests/loading.spec.ts', 'docs/recipes.md', 'ts'],
  ['examples/haproxy/haproxy.cfg', 'docs/scaling-out.md', 'haproxy'],
]

describe('the recipes in the docs', () => {
  it.each(RECIPES)('shows %s as it is, in %s', (file, page, language) => {
    expect(read(page)).toContain(`\`\`\`${language}\n${read(file)}\`\`\`\n`)
  })

  // A 0.x caret range admits one minor only (^0.11.0 is >=0.11.0 <0.12.0): a recipe copied into a
  // project must still install the version it documents.
  it.each(['browser', 'jest', 'jest-commonjs', 'playwright', 'vitest'])(
    "examples/%s/package.json's range admits this version",
    (example) => {
      const { version } = JSON.parse(read('package.json')) as { version: string }
      const manifest = JSON.parse(read(`examples/${example}/package.json`)) as {
        dependencies?: Record<string, string>
        devDependencies?: Record<string, string>
      }
      const range = manifest.dependencies?.['petstore-sandbox'] ?? manifest.devDependencies?.['petstore-sandbox']
      // As numbers, major * 1e6 + minor * 1e3 + patch, so one comparison orders two versions.
      const rank = (text: string) => text.split('.').reduce((sum, part) => sum * 1000 + Number(part), 0)
      const floor = /^\^(\d+\.\d+\.\d+)$/.exec(range ?? '')?.[1]
      expect(floor, `a caret range, got ${range}`).toBeDefined()
      const [major, minor] = version.split('.')
      const [floorMajor, floorMinor] = (floor ?? '').split('.')
      // ^0.b.c keeps the minor, ^a.b.c (a > 0) the major.
      const sameLine = major === '0' ? floorMajor === '0' && floorMinor === minor : floorMajor === major
      expect(sameLine && rank(version) >= rank(floor ?? ''), `${range} admits ${version}`).toBe(true)
    },
  )

  it('names every job of the consumer matrix in the compatibility table', () => {
    const run = read('scripts/consumer/run.sh')
    // A job of two rows joined by + runs both on one install: each row is a cell of the table.
    const jobs = [...run.matchAll(/^ {2}"([a-z0-9+-]+)\|/gm)].flatMap((match) => (match[1] ?? '').split('+'))
    expect(jobs.length).toBeGreaterThan(10)
    // The table's lines alone: the prose around it names some jobs too.
    const table = read('docs/compatibility.md')
      .split('\n')
      .filter((line) => line.startsWith('|'))
      .join('\n')
    for (const job of jobs) expect(table).toContain(`\`${job}\``)
  })
})
