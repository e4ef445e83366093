/**
 * Once per `npm test` (vitest's global setup), before any test file:
 * - dist/ is built when it is older than the sources (scripts/build-if-stale.mjs): the tests that
 *   run the CLI run the build, as `npx petstore-sandbox` does;
 * - each program from outside npm (test/support/programs.ts) is asked its version, one after
 *   another (about 0.4 s in all), and the answers go to every test file (`needs(name)`).
 * A missing program skips the tests that need it, and the run ends with one notice naming them
 * and how to install it. Under CI=true the run fails at once with the same notice: CI proves
 * every test.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { TestProject } from 'vitest/node'
import { buildIfStale } from '../../scripts/build-if-stale.mjs'
import { probe, PROGRAMS, type ProgramName, type ProgramStatus } from './programs.js'

const TEST_FOLDER = fileURLToPath(new URL('..', import.meta.url))

/** The test files that need each program: those that call needs('name'). */
function filesNeeding(name: ProgramName): string[] {
  return readdirSync(TEST_FOLDER)
    .filter((file) => file.endsWith('.test.ts'))
    .filter((file) => readFileSync(`${TEST_FOLDER}${file}`, 'utf8').includes(`needs('${name}')`))
    .map((file) => file.replace(/\.test\.ts$/, ''))
}

/** The notice for the programs that are missing: what was skipped, why, and how to install each. */
export function noticeOf(programs: Readonly<Record<ProgramName, ProgramStatus>>, ci: boolean): string | undefined {
  const missing = (Object.keys(PROGRAMS) as ProgramName[]).filter((name) => !programs[name].ok)
  if (missing.length === 0) return undefined
  const lines = missing.map((name) => {
    const status = programs[name]
    const why = status.ok ? '' : status.why
    return `  - ${PROGRAMS[name].label}: ${why}. Needed by: ${filesNeeding(name).join(', ')}. Install: ${PROGRAMS[name].install}`
  })
  const head = ci
    ? 'CI=true, and programs the tests need do not run here: every test must run in CI.'
    : 'Skipped: tests that need a program that does not run here (CI=true would fail instead).'
  return [head, ...lines].join('\n')
}

export default function setup(project: TestProject): () => void {
  buildIfStale()
  const names = Object.keys(PROGRAMS) as ProgramName[]
  const programs = Object.fromEntries(names.map((name) => [name, probe(name)])) as Record<ProgramName, ProgramStatus>
  project.provide('programs', programs)
  const ci = process.env.CI === 'true' || process.env.CI === '1'
  const notice = noticeOf(programs, ci)
  if (notice !== undefined && ci) throw new Error(notice)
  return () => {
    if (notice !== undefined) console.log(`\n${notice}\n`)
  }
}
