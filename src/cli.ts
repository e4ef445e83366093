/**
 * The command line: parse options, read the fixtures file, start the server, print
 * the banner, and close cleanly on Ctrl-C or SIGTERM. All real work is in startServer().
 */
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { Command, InvalidArgumentError, Option } from 'commander'
import { DEFAULT_API_KEY } from './auth.js'
import type { Pet } from './contract.js'
import { FixtureError, parseSeed } from './seed.js'
import { DEFAULT_HOST, DEFAULT_PORT, startServer, type RunningServer } from './server.js'

interface CliOptions {
  port: number
  host: string
  apiKey?: string[]
  fixtures?: string
  quiet?: boolean
}

/** Runs the CLI with process.argv-style arguments. Resolves once the server is listening. */
export async function run(argv: readonly string[]): Promise<RunningServer> {
  const program = new Command()
    .name('petstore-sandbox')
    .description('A stateful, in-memory Pet Store API sandbox.')
    .version(readOwnVersion(), '-v, --version')
    .addOption(
      new Option('-p, --port <number>', 'port to listen on, 0 for a free one')
        .env('PORT')
        .default(DEFAULT_PORT)
        .argParser(parsePort),
    )
    .option('--host <address>', 'interface to bind (0.0.0.0 exposes it to the network)', DEFAULT_HOST)
    .option('-k, --api-key <key>', `accepted API key, repeatable (default: ${DEFAULT_API_KEY})`, collect)
    .option('-f, --fixtures <file>', 'JSON file with the seed pets (default: the bundled seed)')
    .option('-q, --quiet', 'do not log each request')
    .showHelpAfterError('(run petstore-sandbox --help for usage)')
    .parse(argv)

  const options = program.opts<CliOptions>()
  const fixtures = options.fixtures === undefined ? undefined : await loadFixtures(options.fixtures)

  let server: RunningServer
  try {
    server = await startServer({
      port: options.port,
      host: options.host,
      ...(options.apiKey && { apiKeys: options.apiKey }),
      ...(fixtures && { fixtures }),
      ...(!options.quiet && {
        log: (line: string) => {
          console.log(line)
        },
      }),
    })
  } catch (error) {
    return fail((error as Error).message)
  }

  // Signal handlers first: whoever reads the banner may signal at once (a pipe write is synchronous).
  closeOnSignals(server)
  printBanner(server)
  return server
}

async function loadFixtures(file: string): Promise<readonly Pet[]> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    return fail(`cannot read fixtures file ${file}: ${(error as Error).message}`)
  }
  try {
    return parseSeed(JSON.parse(text), `fixtures file ${file}`)
  } catch (error) {
    if (error instanceof SyntaxError) return fail(`fixtures file ${file} is not valid JSON: ${error.message}`)
    if (error instanceof FixtureError) return fail(error.message)
    throw error
  }
}

// Problems with the environment rather than the command line: one line, no usage text.
function fail(message: string): never {
  console.error(`petstore-sandbox: ${message}`)
  process.exit(1)
}

function printBanner(server: RunningServer): void {
  const key = server.sandbox.apiKeys[0] ?? DEFAULT_API_KEY
  console.log(
    [
      `Pet Store sandbox listening on ${server.apiUrl}`,
      `API key${server.sandbox.apiKeys.length > 1 ? 's' : ''}: ${server.sandbox.apiKeys.join(', ')}`,
      `Try:   curl -H 'Authorization: Bearer ${key}' '${server.apiUrl}/pets?limit=3'`,
      `Docs:  ${server.url}/`,
      `Reset: curl -X POST ${server.url}/__sandbox/reset`,
      'Press Ctrl-C to stop.',
    ].join('\n'),
  )
}

function closeOnSignals(server: RunningServer): void {
  let closing = false
  const stop = (signal: NodeJS.Signals) => {
    // A second signal means "now": do not wait for connections to drain.
    if (closing) process.exit(1)
    closing = true
    void server.close().then(() => {
      console.log(`Stopped (${signal}).`)
      process.exit(0)
    })
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

function parsePort(value: string): number {
  if (!/^[0-9]+$/.test(value) || Number(value) > 65535) {
    throw new InvalidArgumentError('port must be an integer from 0 to 65535.')
  }
  return Number(value)
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value]
}

// Importing package.json would make tsc copy it into dist/; read it from the package root instead,
// which is two levels up from dist/src/cli.js and one from src/cli.ts.
function readOwnVersion(): string {
  for (const candidate of ['../../package.json', '../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as {
        name?: string
        version?: string
      }
      if (manifest.name === 'petstore-sandbox' && manifest.version !== undefined) return manifest.version
    } catch {
      // Not at this level; try the next.
    }
  }
  return 'unknown'
}
