// Writes openapi.json (the API's document) and admin-openapi.json (the admin routes') from the
// built contract. Run through `npm run openapi`, which builds first.
import { writeFileSync } from 'node:fs'
import { createAdminOpenApiDocument, createOpenApiDocument } from '../dist/src/core/docs/openapi.js'

for (const [file, build] of [
  ['openapi.json', createOpenApiDocument],
  ['admin-openapi.json', createAdminOpenApiDocument],
]) {
  const target = new URL(`../${file}`, import.meta.url)
  writeFileSync(target, `${JSON.stringify(build(), null, 2)}\n`)
  console.log(`Wrote ${target.pathname}`)
}
