import { vi } from 'vitest'
import { run } from '../../src/node/cli.js'

/** What the command did when it refused a command line: the code it exited with, and its output. */
export interface Refusal {
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

/**
 * Runs the CLI's own `run()` in this process, as `petstore-sandbox ...args` with `env` set, for a
 * command line it must refuse: process.exit is caught (its code kept, nothing exits) and what
 * the command writes to stderr (commander's messages, and its own `petstore-sandbox: ...` lines)
 * is kept. A spawned command costs about 0.3 s of CPU, Node's own start-up most of it (2-core
 * EPYC, Node 20); this costs a few milliseconds, and the tables of refused values are long.
 * Each table still has a case run as a real process (spawn-cli.ts), so the exit code and the
 * message reach a shell. A command line it accepts starts a server here: that fails the test.
 */
export async function refusal(args: readonly string[], env: Record<string, string> = {}): Promise<Refusal> {
  let stdout = ''
  let stderr = ''
  const exit = vi.spyOn(process, 'exit').mockImplementation((code) => {
    throw new Exited(code === undefined || code === null ? undefined : Number(code))
  })
  // The command may wait for a write's callback before it exits (verify's exit() does).
  const keep =
    (add: (text: string) => void) =>
    (chunk: unknown, ...rest: unknown[]) => {
      add(String(chunk))
      const done = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined
      if (done !== undefined) queueMicrotask(done)
      return true
    }
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(keep((text) => (stdout += text)))
  const write = vi.spyOn(process.stderr, 'write').mockImplementation(keep((text) => (stderr += text)))
  const error = vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => {
    stderr += `${parts.map(String).join(' ')}\n`
  })
  const saved = Object.keys(env).map((name) => [name, process.env[name]] as const)
  Object.assign(process.env, env)
  try {
    const server = await run(['node', 'petstore-sandbox', ...args])
    await server.close()
    throw new Error(`petstore-sandbox ${args.join(' ')} started a server: it should have been refused`)
  } catch (caught) {
    if (caught instanceof Exited) return { code: caught.code, stdout, stderr }
    throw caught
  } finally {
    exit.mockRestore()
    out.mockRestore()
    write.mockRestore()
    error.mockRestore()
    for (const [name, value] of saved) {
      if (value === undefined) Reflect.deleteProperty(process.env, name)
      else process.env[name] = value
    }
  }
}
