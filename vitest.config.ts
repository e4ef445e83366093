import { defineConfig } from 'vitest/config'

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
  },
})
