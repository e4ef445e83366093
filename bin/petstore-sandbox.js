#!/usr/bin/env node
import { run } from '../dist/src/cli.js'

await run(process.argv)
