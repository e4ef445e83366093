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

/**
 * Where the tests look for Chromium, in order: CHROMIUM_PATH when set; else Debian's headless shell
 * (package chromium-headless-shell, the build Playwright itself runs headless), else Debian's full
 * chromium. Never a downloaded browser. The headless shell does the same work for less: the whole
 * suite took 245 busy CPU-s and 131.7 s with /usr/bin/chromium, 178 CPU-s and 101.1 s with the
 * headless shell; the dashboard and reference-page files alone 78.0 / 77.7 CPU-s against 49.1 /
 * 46.1, interleaved (Chromium 156, 2-core EPYC, 2026-11-26).
 */
const CHROMIUM_CANDIDATES: readonly string[] =
  process.env.CHROMIUM_PATH === undefined
    ? ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium']
    : [process.env.CHROMIUM_PATH]

interface ProgramSpec {
  /** The name a person knows it by. */
  readonly label: string
  /** The commands that ask its version, in order of preference: the first that exits 0 is used. */
  readonly versions: readonly (readonly [string, ...string[]])[]
  /** How to get it. */
  readonly install: string
}

export const PROGRAMS: Readonly<Record<ProgramName, ProgramSpec>> = {
  chromium: {
    label: `Chromium (${CHROMIUM_CANDIDATES.join(' or ')})`,
    versions: CHROMIUM_CANDIDATES.map((path) => [path, '--version'] as const),
    install: 'apt-get install -y chromium-headless-shell (or chromium), or CHROMIUM_PATH=/path/to/chromium',
  },
  haproxy: { label: 'HAProxy', versions: [['haproxy', '-v']], install: 'apt-get install -y haproxy' },
  caddy: { label: 'Caddy', versions: [['caddy', 'version']], install: 'apt-get install -y caddy' },
  script: {
    label: "util-linux's script",
    versions: [['script', '--version']],
    install: 'apt-get install -y bsdutils (util-linux)',
  },
}

/** What a version query found: the command that ran and the first line it printed, or why none ran. */
export type ProgramStatus =
  | { readonly ok: true; readonly command: string; readonly version: string }
  | { readonly ok: false; readonly why: string }

declare module 'vitest' {
  export interface ProvidedContext {
    programs: Readonly<Record<ProgramName, ProgramStatus>>
  }
}

/** Runs one version query; a program that hangs past 20 s counts as missing. */
function ask([command, ...args]: readonly [string, ...string[]]): ProgramStatus {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'pipe'] })
  if (result.error !== undefined) {
    const code = (result.error as NodeJS.ErrnoException).code
    return { ok: false, why: `${command} does not run (${code ?? result.error.message})` }
  }
  if (result.status !== 0) {
    return { ok: false, why: `${[command, ...args].join(' ')} exited with ${result.status ?? result.signal}` }
  }
  const version = `${result.stdout}${result.stderr}`.trim().split('\n')[0] ?? ''
  return { ok: true, command, version }
}

/** The first of the program's commands that runs, or why none did (each reason, in order). */
export function probe(name: ProgramName): ProgramStatus {
  const why: string[] = []
  for (const query of PROGRAMS[name].versions) {
    const status = ask(query)
    if (status.ok) return status
    why.push(status.why)
  }
  return { ok: false, why: why.join('; ') }
}

/** The Chromium this run drives, as the global setup found it. */
export function chromiumPath(): string {
  const status = inject('programs').chromium
  if (!status.ok) throw new Error(`Chromium does not run here: ${status.why}`)
  return status.command
}

/**
 * Whether this run has the program, as the global setup found it: a test file calls it once, at
 * its top, and skips what needs the program when the answer is no (`describe.skipIf(!chromium)`).
 */
export function needs(name: ProgramName): boolean {
  return inject('programs')[name].ok
}
