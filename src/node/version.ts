/**
 * Node only: this package's version, read from its package.json at run time.
 *
 * May import: node:*, the core, the other files here. Never msw.
 */
import { readFileSync } from 'node:fs'

// Importing package.json would make tsc copy it into dist/; read it from the package root instead:
// three levels up from dist/src/node/version.js, two from src/node/version.ts, one from dist/cli.cjs.
export function packageVersion(): string {
  for (const candidate of ['../../../package.json', '../../package.json', '../package.json']) {
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
