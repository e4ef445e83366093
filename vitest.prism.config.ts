import { defineConfig } from 'vitest/config'

// `npm run check:prism`: the opt-in check through Prism's validating proxy.
export default defineConfig({
  test: { include: ['test/prism/*.test.ts'], testTimeout: 120_000 },
})
