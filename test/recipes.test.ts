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

  it('names every job of the consumer matrix in the compatibility table', () => {
    const run = read('scripts/consumer/run.sh')
    const jobs = [...run.matchAll(/^ {2}"([a-z0-9-]+)\|/gm)].map((match) => match[1])
    expect(jobs.length).toBeGreaterThan(10)
    const table = read('docs/compatibility.md')
    for (const job of jobs) expect(table).toContain(`\`${job}\``)
  })
})
