// Writes the list of the request's stages into docs/architecture.md, from their declaration
// (src/core/http/stages.ts, through src/core/docs/stage-list.ts, as tsc built it into dist/src):
// `npm run docs:stages`. test/stages-declared.test.ts fails until it is run after a change.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { stageList } from '../dist/src/core/docs/stage-list.js'

const file = fileURLToPath(new URL('../docs/architecture.md', import.meta.url))
const text = readFileSync(file, 'utf8')
const block = /\n```\n(every request \(dispatch\.ts\)\n[\s\S]*?)\n```/
if (!block.test(text)) throw new Error(`docs/architecture.md has no stage list to replace`)
const written = text.replace(block, () => `\n\`\`\`\n${stageList()}\n\`\`\``)
writeFileSync(file, written)
console.log(
  written === text ? 'docs/architecture.md: the stage list was current' : 'docs/architecture.md: stage list written',
)
