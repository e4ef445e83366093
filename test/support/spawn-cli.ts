import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'

/**
 * The command as users run it: bin/petstore-sandbox.js over the build in dist/ (one bundle and its
 * V8 code cache). The global setup builds dist/ first whenever the sources are newer
 * (scripts/build-if-stale.mjs), so a child runs the code as it is now. Spawning the built CLI to
 * its listening line took 0.21-0.26 s where the same from the sources under tsx took 0.79-0.97 s
 * (five each, one sitting), and the CLI tests start it about a hundred times.
 */
export const BIN = fileURLToPath(new URL('../../bin/petstore-sandbox.js', import.meta.url))

export interface Cli {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  /** Resolves with the exit code once the process has exited and all it wrote has been read. */
  exited: Promise<number | null>
}

/** Starts the command in a child process, from the build. */
export function spawnCli(args: string[], env: Record<string, string> = {}): Cli {
  return spawnNode([BIN, ...args], env)
}

/** Runs `node ...args` with pipes, keeping what it writes. */
export function spawnNode(args: string[], env: Record<string, string> = {}, cwd?: string): Cli {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: 'pipe',
    ...(cwd !== undefined && { cwd }),
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  // 'close', not 'exit': the pipes may still hold output when the process exits.
  const exited = once(child, 'close').then(([code]) => code as number | null)
  return { child, stdout: () => stdout, stderr: () => stderr, exited }
}

/**
 * Waits until what the process wrote to `stream` (stdout by default) matches, failing early if
 * the process exits first. The bound only turns a hang into a failure with a message.
 */
export async function waitFor(
  cli: Cli,
  pattern: RegExp,
  timeoutMs = 10_000,
  stream: 'stdout' | 'stderr' = 'stdout',
): Promise<RegExpMatchArray> {
  const text = stream === 'stdout' ? cli.stdout : cli.stderr
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const match = pattern.exec(text())
    if (match) return match
    if (cli.child.exitCode !== null || cli.child.signalCode !== null) {
      // What it wrote last may still be in the pipe: read it all, and look once more.
      await cli.exited
      const last = pattern.exec(text())
      if (last) return last
      throw new Error(
        `CLI exited (${cli.child.exitCode ?? cli.child.signalCode}) before ${String(pattern)} on ${stream}; stdout: ${cli.stdout()} stderr: ${cli.stderr()}`,
      )
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out waiting for ${String(pattern)} on ${stream}; stdout: ${cli.stdout()} stderr: ${cli.stderr()}`,
      )
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
