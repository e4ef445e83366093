import { defineConfig } from '@playwright/test'

const port = Number(process.env.PETSTORE_PORT ?? 3210)
export const sandboxUrl = `http://127.0.0.1:${port}`

export default defineConfig({
  testDir: './tests',
  fullyParallel: true,
  workers: 3,
  forbidOnly: Boolean(process.env.CI),
  reporter: [['list'], ['json', { outputFile: 'results.json' }]],
  use: {
    baseURL: sandboxUrl,
    browserName: 'chromium',
    // Debian's chromium (apt-get install chromium): no browser download.
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
  },
  webServer: {
    // --isolate: every key gets its own copy of the seed, so workers never see each other's data.
    command: `npx petstore-sandbox --isolate --port ${port}`,
    url: `${sandboxUrl}/__sandbox/health`,
    reuseExistingServer: !process.env.CI,
  },
})
