// The servers under test, each started fresh and pinned by bench/processes.mjs.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
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

// json-server is what the benchmark compares with, not a dependency of this project: 1.0.0-beta.15
// declares Node >= 22.12, so in devDependencies it made every install on Node 20 warn EBADENGINE.
// The benchmark installs it on first use into a scratch folder of its own, outside the project,
// and reuses that folder after. The one place its version is pinned.
const JSON_SERVER_VERSION = '1.0.0-beta.15'
const JSON_SERVER_HOME = join(tmpdir(), 'petstore-sandbox-bench', `json-server-${JSON_SERVER_VERSION}`)
const JSON_SERVER_MANIFEST = join(JSON_SERVER_HOME, 'node_modules', 'json-server', 'package.json')

/**
 * Installs json-server into JSON_SERVER_HOME unless it is there already. It installs into a
 * folder beside it and renames that into place once npm succeeded, so an interrupted install is
 * never taken for a finished one.
 */
function installJsonServer() {
  if (existsSync(JSON_SERVER_MANIFEST)) return
  mkdirSync(dirname(JSON_SERVER_HOME), { recursive: true })
  const staging = mkdtempSync(`${JSON_SERVER_HOME}.installing-`)
  const args = ['install', '--prefix', staging, '--no-save', '--no-package-lock', '--no-audit', '--no-fund']
  console.log(`Installing json-server ${JSON_SERVER_VERSION} into ${JSON_SERVER_HOME} (once)`)
  const npm = spawnSync('npm', [...args, `json-server@${JSON_SERVER_VERSION}`], { stdio: 'inherit' })
  if (npm.status !== 0) {
    rmSync(staging, { recursive: true, force: true })
    throw new Error(`npm ${args.join(' ')} json-server@${JSON_SERVER_VERSION} failed (${npm.error ?? npm.status})`)
  }
  try {
    renameSync(staging, JSON_SERVER_HOME)
  } catch (error) {
    rmSync(staging, { recursive: true, force: true })
    // Another run finished the same install first: use that one.
    if (!existsSync(JSON_SERVER_MANIFEST)) throw error
  }
}

function jsonServerPackage() {
  installJsonServer()
  return JSON.parse(readFileSync(JSON_SERVER_MANIFEST, 'utf8'))
}

export const jsonServerVersion = () => jsonServerPackage().version

/**
 * json-server serving fixtures/pets.json as its `pets` collection, from a db.json of its own in a
 * temporary directory (it writes to that file). Its banner shows the port it was asked for, not
 * the one it got, so it is given a free one rather than 0.
 */
export async function startJsonServer() {
  const manifest = jsonServerPackage()
  const bin = join(dirname(JSON_SERVER_MANIFEST), manifest.bin['json-server'])
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
