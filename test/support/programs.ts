/**
 * The programs from outside npm that some tests drive: Debian's Chromium, HAProxy, Caddy,
 * util-linux's `script` and `unshare`, and the shells dash and bash. A program counts as present only when it runs: its version query has to
 * succeed (a path that exists but cannot execute is missing). The global setup
 * (test/support/global-setup.ts) asks once per run and hands the answers to every test file,
 * where `needs(name)` says whether its tests can run; without the program they are skipped, and
 * the run ends with one notice naming each and how to install it. Under CI=true a missing program
 * fails the run with the same notice, so CI proves every test.
 */
import { spawnSync } from 'node:child_process'
import { inject } from 'vitest'

export type ProgramName = 'chromium' | 'haproxy' | 'caddy' | 'script' | 'unshare' | 'mounts' | 'dash' | 'bash'

/** The Chromium the tests need: Debian's by default; never a downloaded browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/**
 * Debian's headless shell of the same Chromium (package chromium-headless-shell, the build
 * Playwright itself runs headless): when Chromium runs and this runs too, and CHROMIUM_PATH does
 * not name a browser, the tests drive it instead. It does the same work for less: the whole suite
 * took 245 busy CPU-s and 131.7 s with /usr/bin/chromium, 178 CPU-s and 101.1 s with the headless
 * shell; the dashboard and reference-page files alone 78.0 / 77.7 CPU-s against 49.1 / 46.1,
 * interleaved (Chromium 156, 2-core EPYC, 2026-11-26). Chromium itself stays what a run needs:
 * where it cannot run, the browser tests are skipped (or fail under CI=true), as before.
 */
const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell'

interface ProgramSpec {
  /** The name a person knows it by. */
  readonly label: string
  /** The command that asks its version: it must exit 0. */
  readonly version: readonly [string, ...string[]]
  /** A faster build of the same program, driven instead when its own version query succeeds too. */
  readonly faster?: readonly [string, ...string[]]
  /** How to get it. */
  readonly install: string
}

export const PROGRAMS: Readonly<Record<ProgramName, ProgramSpec>> = {
  chromium: {
    label: `Chromium (${CHROMIUM_PATH})`,
    version: [CHROMIUM_PATH, '--version'],
    ...(process.env.CHROMIUM_PATH === undefined && { faster: [HEADLESS_SHELL, '--version'] as const }),
    install: 'apt-get install -y chromium chromium-headless-shell, or CHROMIUM_PATH=/path/to/chromium',
  },
  haproxy: { label: 'HAProxy', version: ['haproxy', '-v'], install: 'apt-get install -y haproxy' },
  caddy: { label: 'Caddy', version: ['caddy', 'version'], install: 'apt-get install -y caddy' },
  script: {
    label: "util-linux's script",
    version: ['script', '--version'],
    install: 'apt-get install -y bsdutils (util-linux)',
  },
  // Not its version: whether it may make a PID namespace here (root, or CAP_SYS_ADMIN), which is
  // what the container tests rehearse a container's restart with.
  unshare: {
    label: "util-linux's unshare with PID namespaces",
    version: ['unshare', '-p', '-f', '--mount-proc', 'true'],
    install: 'apt-get install -y util-linux, and run the tests as root (unshare -p needs CAP_SYS_ADMIN)',
  },
  // Not a version either: whether a test may give a process a file system of its own and break it
  // (a tmpfs in a mount namespace, remounted read-only from outside with nsenter, a process run as
  // nobody with setpriv): root, util-linux. The state file's disk faults are rehearsed this way.
  mounts: {
    label: "util-linux's unshare -m, nsenter and setpriv, with mounts",
    version: [
      'unshare',
      '-m',
      'sh',
      '-c',
      'd=$(mktemp -d) && mount -t tmpfs -o size=1m tmpfs "$d" && mount -o remount,ro "$d" && umount "$d" && rmdir "$d" && nsenter --version && setpriv --version',
    ],
    install: 'apt-get install -y util-linux, and run the tests as root (mounts need CAP_SYS_ADMIN)',
  },
  // The two kinds of sh npx may run a bin through: dash keeps itself between npx and the bin, bash
  // hands over to it (test/npx.test.ts). dash has no version query: running it is the question.
  dash: { label: 'dash', version: ['dash', '-c', 'true'], install: 'apt-get install -y dash' },
  bash: { label: 'bash', version: ['bash', '--version'], install: 'apt-get install -y bash' },
}

/** What a version query found: the command that ran and the first line it printed, or why it did not run. */
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

/** Whether the program runs, and the command to drive: its faster build when that runs too. */
export function probe(name: ProgramName): ProgramStatus {
  const { version, faster } = PROGRAMS[name]
  const status = ask(version)
  if (!status.ok || faster === undefined) return status
  const quicker = ask(faster)
  return quicker.ok ? quicker : status
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
