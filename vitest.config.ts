import { basename } from 'node:path'
import { defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * The files that take longest, slowest first (a fresh clone at rest, Node 20, 2 cores): they start
 * first, so the two workers end together. vitest orders by the durations of the last run when it
 * has them, and otherwise by file size, which put pretenuring.test.ts (25 s, 4.6 kB) last in a
 * fresh clone and left one worker alone for its whole run. A name missing here only costs time.
 */
const LONGEST = ['generated-clients', 'pretenuring', 'dashboard', 'npx']

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = LONGEST.indexOf(basename(file.moduleId, '.test.ts'))
      return index === -1 ? LONGEST.length : index
    }
    // Array.prototype.sort is stable: the rest keep vitest's own order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b))
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Apart: test/prism/** needs Prism (npm run check:prism); test/peers/** installs Prism and
    // json-server from the registry (npm run test:peers). npm test reaches nothing but loopback.
    exclude: ['test/prism/**', 'test/peers/**', 'node_modules/**'],
    // Builds dist/ when stale, and asks once whether Chromium, HAProxy, Caddy and script run.
    globalSetup: ['test/support/global-setup.ts'],
    // Spawned CLIs and real servers need a little more than the default on a loaded 2-core machine.
    testTimeout: 15_000,
    // Test files share a worker's modules instead of loading them again each: no test relies on
    // module state (the sandbox keeps none; each test makes its own). On 2 cores this took twenty
    // small files from 31 s of CPU to 11 s.
    isolate: false,
    // Two files at a time on a 2-core machine (vitest's default is one fewer than the cores): much
    // of the suite waits on children, sockets and a browser.
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
  },
})
