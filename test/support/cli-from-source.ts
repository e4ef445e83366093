// The command, as bin/petstore-sandbox.js runs it from the build, but from the source: what
// spawnCli starts, under tsx.
import { run } from '../../src/node/cli.js'

await run(process.argv)
