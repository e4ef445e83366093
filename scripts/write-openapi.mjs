// Writes openapi.json from the built contract. Run through `npm run openapi`, which builds first.
import { writeFileSync } from 'node:fs'
import { createOpenApiDocument } from '../dist/src/core/docs/openapi.js'

const target = new URL('../openapi.json', import.meta.url)
writeFileSync(target, `${JSON.stringify(createOpenApiDocument(), null, 2)}\n`)
console.log(`Wrote ${target.pathname}`)
