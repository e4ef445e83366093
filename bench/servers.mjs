// The servers under test, each started fresh and pinned by bench/processes.mjs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { installOnDemand } from '../scripts/install-on-demand.mjs'
import { freePort, startServer } from './processes.mjs'

const here = (path) => fileURLToPath(new URL(path, import.meta.url))
const BIN = here('../bin/petstore-sandbox.js')
const BASELINE = here('./baseline-server.mjs')
const FIXTURES = here('../fixtures/pets.json')
// Both print "... listening on http://HOST:PORT/v1 ...".
const LISTENING = /listening on http:\/\/[^\s/]+:(\d+)\/v1/

/** The bare node:http reference, bench/baseline-server.mjs. */
export const startBare = () => startServer([BASELINE, '0'], LISTENING)

/** The sandbox CLI with its defaults (request journal on), plus `flags`. */
export const startSandbox = (flags = []) => startServer([BIN, '--port', '0', '--quiet', ...flags], LISTENING)

// json-server is what the benchmark compares with, not a dependency of this project (why:
// scripts/install-on-demand.mjs). It is installed on first use into a scratch folder of its own,
// outside the project, and reused from there after. The one place its version is pinned.
export const JSON_SERVER_VERSION = '1.0.0-beta.15'

const jsonServerPackage = () => installOnDemand('json-server', JSON_SERVER_VERSION)

export const jsonServerVersion = () => jsonServerPackage().manifest.version

/**
 * json-server serving fixtures/pets.json as its `pets` collection, from a db.json of its own in a
 * temporary directory (it writes to that file). Its banner shows the port it was asked for, not
 * the one it got, so it is given a free one rather than 0.
 */
export async function startJsonServer() {
  const bin = jsonServerPackage().bin('json-server')
  const directory = mkdtempSync(join(tmpdir(), 'petstore-bench-json-server-'))
  writeFileSync(join(directory, 'db.json'), JSON.stringify({ pets: JSON.parse(readFileSync(FIXTURES, 'utf8')) }))
  const port = await freePort()
  const server = startServer([bin, '--port', String(port), 'db.json'], /started on PORT :(\d+)/, {
    cwd: directory,
  })
  return {
    ...server,
    async stop() {
      await server.stop()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
