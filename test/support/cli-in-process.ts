import { vi } from 'vitest'
import { run } from '../../src/node/cli.js'

/** What a command did before it exited: the code it exited with, and its output. */
export interface Outcome {
  code: number | undefined
  stdout: string
  stderr: string
}

/** Thrown in place of process.exit, so nothing exits. */
class Exited extends Error {
  constructor(readonly code: number | undefined) {
    super(`process.exit(${code})`)
  }
}

/** A refused command line's outcome. */
export type Refusal = Outcome

/**
 * Runs the CLI's own `run()` in this process, as `petstore-sandbox ...args` with `env` set, for a
 * command that ends by exiting (a refused command line, `verify`, `--help`): process.exit is
 * caught (its code kept, nothing exits) and what the command writes to stdout and stderr
 * (commander's messages, its own `petstore-sandbox: ...` lines, verify's report) is kept, written
 * as to a pipe (`isTTY` false, as in a spawned process: no colours). A spawned command costs about
 * 0.3 s of CPU, Node's own start-up most of it (2-core EPYC, Node 20); this costs a few
 * milliseconds beside the command's own work. Each file still runs some cases as real processes
 * (spawn-cli.ts), so exit codes and output reach a shell and a pipe. A command line that starts a
 * server here fails the test.
 */
export async function runToExit(args: readonly string[], env: Record<string, string> = {}): Promise<Outcome> {
  let stdout = ''
  let stderr = ''
  // The first exit ends the command, as it ends a process: the Exited thrown here may be caught by
  // the command's own catch (verify turns an error into exit 2), so its code is kept, and
  // nothing written after it counts.
  let exited: Exited | undefined
  const exit = vi.spyOn(process, 'exit').mockImplementation((code) => {
    exited ??= new Exited(code === undefined || code === null ? undefined : Number(code))
    throw exited
  })
  // The command may wait for a write's callback before it exits (verify's exit() does).
  const keep =
    (add: (text: string) => void) =>
    (chunk: unknown, ...rest: unknown[]) => {
      if (exited === undefined) add(String(chunk))
      const done = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined
      if (done !== undefined) queueMicrotask(done)
      return true
    }
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(keep((text) => (stdout += text)))
  const write = vi.spyOn(process.stderr, 'write').mockImplementation(keep((text) => (stderr += text)))
  // vitest's console does not write to process.stdout or process.stderr: each method the command
  // (or a sandbox it makes, whose notices go to console.warn) may call is kept where a process
  // would print it.
  const line =
    (add: (text: string) => void) =>
    (...parts: unknown[]) => {
      if (exited === undefined) add(`${parts.map(String).join(' ')}\n`)
    }
  const consoles = [
    vi.spyOn(console, 'error').mockImplementation(line((text) => (stderr += text))),
    vi.spyOn(console, 'warn').mockImplementation(line((text) => (stderr += text))),
    vi.spyOn(console, 'log').mockImplementation(line((text) => (stdout += text))),
    vi.spyOn(console, 'info').mockImplementation(line((text) => (stdout += text))),
  ]
  const saved = Object.keys(env).map((name) => [name, process.env[name]] as const)
  Object.assign(process.env, env)
  const terminals = [process.stdout, process.stderr].map((stream) => [stream, stream.isTTY] as const)
  for (const [stream] of terminals) stream.isTTY = false
  try {
    const server = await run(['node', 'petstore-sandbox', ...args])
    await server.close()
    throw new Error(`petstore-sandbox ${args.join(' ')} started a server: it should have exited`)
  } catch (caught) {
    if (exited !== undefined) return { code: exited.code, stdout, stderr }
    throw caught
  } finally {
    exit.mockRestore()
    out.mockRestore()
    write.mockRestore()
    for (const spy of consoles) spy.mockRestore()
    for (const [stream, isTTY] of terminals) stream.isTTY = isTTY
    for (const [name, value] of saved) {
      if (value === undefined) Reflect.deleteProperty(process.env, name)
      else process.env[name] = value
    }
  }
}

/** A command line the CLI must refuse: its exit code and its messages (runToExit). */
export const refusal = runToExit
