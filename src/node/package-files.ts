/**
 * Node only: files of this package read at run time, found from its root. The same code runs as
 * dist/src/node/*.js, inside the bundled dist/cli.cjs and from src/ in tests, so the root is the
 * first of three levels up holding our package.json. Importing package.json instead would make
 * tsc copy it into dist/.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { readFileSync } from 'node:fs'

// Three levels up from dist/src/node/, two from src/node/, one from dist/cli.cjs.
const CANDIDATES = ['../../../', '../../', '../']

interface Manifest {
  readonly name?: string
  readonly version?: string
}

/** The package's root folder and its manifest, or undefined when the files are not where a build puts them. */
function packageRoot(): { root: URL; manifest: Manifest } | undefined {
  for (const candidate of CANDIDATES) {
    const root = new URL(candidate, import.meta.url)
    try {
      const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as Manifest
      if (manifest.name === 'petstore-sandbox') return { root, manifest }
    } catch {
      // Not at this level; try the next.
    }
  }
  return undefined
}

/** This package's version, from its package.json. */
export function packageVersion(): string {
  return packageRoot()?.manifest.version ?? 'unknown'
}

/** A file under the package's root, e.g. `dist/assets/swagger-ui/swagger-ui.css`; undefined when absent. */
export function readPackageFile(path: string): Uint8Array | undefined {
  const found = packageRoot()
  if (found === undefined) return undefined
  try {
    return readFileSync(new URL(path, found.root))
  } catch {
    return undefined
  }
}
