import { defineConfig } from 'vitest/config'

// `npm run test:peers`: verify against Prism and json-server, installed on first use from the
// registry into a folder of their own (scripts/install-on-demand.mjs). Apart from npm test, which
// installs nothing and reaches nothing but loopback; CI runs it as a stage of its own.
export default defineConfig({
  test: {
    include: ['test/peers/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 120_000,
  },
})
