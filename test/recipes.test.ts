/**
 * The README's recipes are the files CI runs (scripts/consumer/*.sh copies examples/ into
 * projects of their own): every block listed here must appear in the README exactly as its file.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
const RECIPES: readonly (readonly [file: string, language: string])[] = [
  ['examples/vitest/pets.test.ts', 'ts'],
  ['examples/commonjs/check.cjs', 'js'],
  ['examples/jest/package.json', 'json'],
  ['examples/jest/pets.test.js', 'js'],
  ['examples/playwright/playwright.config.ts', 'ts'],
  ['examples/playwright/tests/sandbox.ts', 'ts'],
  ['examples/haproxy/haproxy.cfg', 'haproxy'],
]

describe('README recipes', () => {
  it.each(RECIPES)('shows %s as it is', (file, language) => {
    const content = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')
    expect(readme).toContain(`\`\`\`${language}\n${content}\`\`\`\n`)
  })

  it('names every job of the consumer matrix in the compatibility table', () => {
    const run = readFileSync(new URL('../scripts/consumer/run.sh', import.meta.url), 'utf8')
    const jobs = [...run.matchAll(/^ {2}"([a-z0-9-]+)\|/gm)].map((match) => match[1])
    expect(jobs.length).toBeGreaterThan(10)
    const table = readme.slice(readme.indexOf('## Compatibility'), readme.indexOf('## In a test suite'))
    for (const job of jobs) expect(table).toContain(`\`${job}\``)
  })
})
