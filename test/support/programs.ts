/**
 * The programs from outside npm that some tests drive: Debian's Chromium, HAProxy, Caddy and
 * util-linux's `script`. A program counts as present only when it runs: its version query has to
 * succeed (a path that exists but cannot execute is missing). The global setup
 * (test/support/global-setup.ts) asks once per run and hands the answers to every test file,
 * where `needs(name)` says whether its tests can run; without the program they are skipped, and
 * the run ends with one notice naming each and how to install it. Under CI=true a missing program
 * fails the run with the same notice, so CI proves every test.
 */
import { spawnSync } from 'node:child_process'
import { inject } from 'vitest'

export type ProgramName = 'chromium' | 'haproxy' | 'caddy' | 'script'

/** Where the tests find Chromium: Debian's by default; never a downloaded browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

interface ProgramSpec {
  /** The name a person knows it by. */
  readonly label: string
  /** The command that asks its version: it must exit 0. */
  readonly version: readonly string[]
  /** How to get it. */
  readonly install: string
}

export const PROGRAMS: Readonly<Record<ProgramName, ProgramSpec>> = {
  chromium: {
    label: `Chromium (${CHROMIUM_PATH})`,
    version: [CHROMIUM_PATH, '--version'],
    install: 'apt-get install -y chromium, or CHROMIUM_PATH=/path/to/chromium',
  },
  haproxy: { label: 'HAProxy', version: ['haproxy', '-v'], install: 'apt-get install -y haproxy' },
  caddy: { label: 'Caddy', version: ['caddy', 'version'], install: 'apt-get install -y caddy' },
  script: {
    label: "util-linux's script",
    version: ['script', '--version'],
    install: 'apt-get install -y bsdutils (util-linux)',
  },
}

/** What a version query found: the first line it printed, or why it did not run. */
export type ProgramStatus =
  { readonly ok: true; readonly version: string } | { readonly ok: false; readonly why: string }

declare module 'vitest' {
  export interface ProvidedContext {
    programs: Readonly<Record<ProgramName, ProgramStatus>>
  }
}

/** Runs the program's version query; a program that hangs past 20 s counts as missing. */
export function probe(name: ProgramName): ProgramStatus {
  const [command = '', ...args] = PROGRAMS[name].version
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'pipe'] })
  if (result.error !== undefined) {
    const code = (result.error as NodeJS.ErrnoException).code
    return { ok: false, why: `${command} does not run (${code ?? result.error.message})` }
  }
  if (result.status !== 0) {
    return { ok: false, why: `${[command, ...args].join(' ')} exited with ${result.status ?? result.signal}` }
  }
  const version = `${result.stdout}${result.stderr}`.trim().split('\n')[0] ?? ''
  return { ok: true, version }
}

/**
 * Whether this run has the program, as the global setup found it: a test file calls it once, at
 * its top, and skips what needs the program when the answer is no (`describe.skipIf(!chromium)`).
 */
export function needs(name: ProgramName): boolean {
  return inject('programs')[name].ok
}
