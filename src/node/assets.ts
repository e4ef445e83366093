/**
 * The files the reference page loads (Swagger UI's bundle and styles), shipped inside the
 * package under dist/assets (copied there from swagger-ui-dist at build time), read from disk
 * once and kept. Node only.
 *
 * May import: node:*, the core, the other files here. Never msw.
 */
import { readFileSync } from 'node:fs'
import type { Asset } from '../core/state.js'

/** Each asset by the name the core asks for: its file under dist/assets, and its type. */
const FILES: Readonly<Record<string, { file: string; type: string }>> = {
  'swagger-ui-bundle.js': { file: 'swagger-ui/swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' },
  'swagger-ui.css': { file: 'swagger-ui/swagger-ui.css', type: 'text/css; charset=utf-8' },
  'ui/app.js': { file: 'dashboard/app.js', type: 'text/javascript; charset=utf-8' },
  'ui/app.css': { file: 'dashboard/app.css', type: 'text/css; charset=utf-8' },
}

// The same code runs as dist/src/node/assets.js, inside the bundled dist/cli.cjs, and from src/ in tests.
const CANDIDATES = ['../../assets/', './assets/', '../../dist/assets/']

/** A lookup of the shipped assets by file name; unknown names are undefined. */
export function createAssets(): (name: string) => Asset | undefined {
  const cache = new Map<string, Asset>()
  return (name) => {
    const known = FILES[name]
    if (known === undefined) return undefined
    let asset = cache.get(name)
    if (asset === undefined) {
      const bytes = read(known.file)
      const { type } = known
      if (bytes === undefined) return undefined
      asset = { type, bytes }
      cache.set(name, asset)
    }
    return asset
  }
}

function read(name: string): Uint8Array | undefined {
  for (const directory of CANDIDATES) {
    try {
      return readFileSync(new URL(`${directory}${name}`, import.meta.url))
    } catch {
      // Not at this level; try the next.
    }
  }
  return undefined
}
