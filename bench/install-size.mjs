// What installing the sandbox costs a project that already uses msw and zod: `npm pack` the
// repo, install msw + zod alone in one empty project and the tarball + msw in another, and
// compare `du -sk node_modules` and the number of installed packages.
// Usage: node bench/install-size.mjs (after a build). Prints one JSON line.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const installedVersion = (name) =>
  JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version

// Both projects get the very same msw: the one the repo is developed against. zod is given the
// range the package depends on, which resolves to the version the tarball pulls in.
const msw = `msw@${installedVersion('msw')}`
const zod = `zod@${manifest.dependencies?.zod ?? 'latest'}`

/** Runs a command for its output; npm's chatter on stderr is shown only when it fails. */
function run(command, args, cwd) {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  } catch (error) {
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${error.stderr}`, { cause: error })
  }
}

function install(directory, specs) {
  mkdirSync(directory)
  run('npm', ['init', '-y'], directory)
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...specs], directory)
  const kilobytes = Number(run('du', ['-sk', 'node_modules'], directory).split('\t')[0])
  // Every installed package directory, nested ones included, each once; minus the project itself.
  const packages = new Set(run('npm', ['ls', '--all', '--parseable'], directory).trim().split('\n')).size - 1
  return { kilobytes, packages }
}

const work = mkdtempSync(join(tmpdir(), 'petstore-sandbox-size-'))
try {
  // The build is fresh (npm run bench builds first), so skip the prepack script's rebuild.
  const [packed] = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], root))
  const tarball = join(work, packed.filename)
  const alone = install(join(work, 'alone'), [msw, zod])
  const withSandbox = install(join(work, 'with-sandbox'), [tarball, msw])
  const tarballInfo = { filename: packed.filename, bytes: packed.size, unpackedBytes: packed.unpackedSize }
  console.log(JSON.stringify({ msw, zod, tarball: tarballInfo, alone, withSandbox }))
} finally {
  rmSync(work, { recursive: true, force: true })
}
