import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'

export const BIN = fileURLToPath(new URL('../../bin/petstore-sandbox.js', import.meta.url))

export interface Cli {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  /** Resolves with the exit code. */
  exited: Promise<number | null>
}

export function spawnCli(args: string[], env: Record<string, string> = {}): Cli {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: 'pipe' })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = once(child, 'exit').then(([code]) => code as number | null)
  return { child, stdout: () => stdout, stderr: () => stderr, exited }
}

/** Waits until stdout matches, failing early if the process exits first. */
export async function waitFor(cli: Cli, pattern: RegExp, timeoutMs = 10_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const match = pattern.exec(cli.stdout())
    if (match) return match
    if (cli.child.exitCode !== null) throw new Error(`CLI exited (${cli.child.exitCode}): ${cli.stderr()}`)
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${pattern}; stdout: ${cli.stdout()}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
