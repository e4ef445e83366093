import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Opt-in, needs Prism: npm run check:prism.
    exclude: ['test/prism/**', 'node_modules/**'],
    // Spawned CLIs and real servers need a little more than the default on a loaded 2-core machine.
    testTimeout: 15_000,
  },
})
