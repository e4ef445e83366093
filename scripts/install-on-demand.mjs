// Tools this project is compared with or checked against, installed on first use into a scratch
// folder of their own under os.tmpdir(), outside the project, and reused from there after.
//
// Why not devDependencies: they are other projects' servers, not this one's, and they hold back
// what this one's installs may assume. json-server 1.0.0-beta.15 declares Node >= 22.12, so in
// devDependencies it made every install on Node 20 (which this package supports) warn
// EBADENGINE; Prism is large (hundreds of packages), and only the benchmark and the tests that
// run a peer need either. Each caller pins the exact version it wants, the one place it is named.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'

// The folder the benchmark used before this module served the tests too: a json-server it
// installed there is reused, not installed again.
const ROOT = join(tmpdir(), 'petstore-sandbox-bench')

/**
 * `name` at exactly `version`, installed into its own folder under os.tmpdir() unless it is there
 * already. npm installs into a folder beside that one, renamed into place once npm succeeded: an
 * interrupted install is never taken for a finished one, and a half-made folder is never used.
 *
 * With `quiet`, npm's output is shown only when it fails (for test runs); otherwise a line says
 * what is installed where, and npm's output follows.
 *
 * Returns the folder (`home`), the package's package.json (`manifest`), and `bin(binName)`: the
 * absolute path of one of its commands, to run with `node` (its shebang is not needed).
 */
export function installOnDemand(name, version, { quiet = false } = {}) {
  const home = join(ROOT, `${name.replace(/^@/, '').replace(/\//g, '+')}-${version}`)
  const packageDirectory = join(home, 'node_modules', ...name.split('/'))
  const manifestPath = join(packageDirectory, 'package.json')
  if (!existsSync(manifestPath)) install(name, version, home, manifestPath, quiet)
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'))
  if (manifest.version !== version) {
    throw new Error(`${manifestPath} is version ${manifest.version}, not ${version}: remove ${home} to install again`)
  }
  return {
    home,
    manifest,
    bin(binName) {
      // A package with one command may give its path alone, named after the package.
      const bins = typeof manifest.bin === 'string' ? { [name.split('/').pop()]: manifest.bin } : (manifest.bin ?? {})
      const path = bins[binName]
      if (path === undefined) throw new Error(`${name}@${version} has no command ${binName}`)
      return resolve(packageDirectory, path)
    },
  }
}

function install(name, version, home, manifestPath, quiet) {
  mkdirSync(dirname(home), { recursive: true })
  const staging = mkdtempSync(`${home}.installing-`)
  const args = ['install', '--prefix', staging, '--no-save', '--no-package-lock', '--no-audit', '--no-fund']
  const spec = `${name}@${version}`
  if (!quiet) console.log(`Installing ${spec} into ${home} (once)`)
  const npm = spawnSync('npm', [...args, spec], {
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    encoding: 'utf8',
    // npm's output on a slow network can be long; only a quiet run keeps it, to show on failure.
    maxBuffer: 64 * 1024 * 1024,
  })
  if (npm.status !== 0) {
    rmSync(staging, { recursive: true, force: true })
    const output = quiet ? `\n${npm.stdout ?? ''}${npm.stderr ?? ''}` : ''
    throw new Error(`npm ${args.join(' ')} ${spec} failed (${npm.error ?? npm.status})${output}`)
  }
  try {
    renameSync(staging, home)
  } catch (error) {
    rmSync(staging, { recursive: true, force: true })
    // Another run finished the same install first: use that one.
    if (!existsSync(manifestPath)) throw error
  }
}
