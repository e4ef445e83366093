// Copies the two files the reference page loads from swagger-ui-dist into dist/assets, with
// swagger-ui's licence and notice, so the package ships them and swagger-ui-dist (12 MB, and a
// telemetry install script through @scarf/scarf) stays a build-time dependency.
import { copyFileSync, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const source = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
const target = new URL('../dist/assets/swagger-ui/', import.meta.url)
mkdirSync(target, { recursive: true })
for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'LICENSE', 'NOTICE']) {
  copyFileSync(join(source, file), new URL(file, target))
}
