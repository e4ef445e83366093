/**
 * The files the reference page loads (Swagger UI's bundle and styles), shipped inside the
 * package under dist/assets (copied there from swagger-ui-dist at build time), read from disk
 * once and kept. Node only.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import type { Asset } from '../core/admin/exchange.js'
import { readPackageFile } from './package-files.js'

/** Each asset by the name the core asks for: its file under dist/assets, and its type. */
const FILES: Readonly<Record<string, { file: string; type: string }>> = {
  'swagger-ui-bundle.js': { file: 'swagger-ui/swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' },
  'swagger-ui.css': { file: 'swagger-ui/swagger-ui.css', type: 'text/css; charset=utf-8' },
  'ui/app.js': { file: 'dashboard/app.js', type: 'text/javascript; charset=utf-8' },
  'ui/app.css': { file: 'dashboard/app.css', type: 'text/css; charset=utf-8' },
}

/** A lookup of the shipped assets by file name; unknown names are undefined. */
export function createAssets(): (name: string) => Asset | undefined {
  const cache = new Map<string, Asset>()
  return (name) => {
    const known = FILES[name]
    if (known === undefined) return undefined
    let asset = cache.get(name)
    if (asset === undefined) {
      const bytes = readPackageFile(`dist/assets/${known.file}`)
      const { type } = known
      if (bytes === undefined) return undefined
      asset = { type, bytes }
      cache.set(name, asset)
    }
    return asset
  }
}
