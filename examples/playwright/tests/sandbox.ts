// One key per worker, its data reset before every test: tests in parallel workers never meet.
import { test as base } from '@playwright/test'
import { createSandboxClient, type SandboxClient } from 'petstore-sandbox/client'
import { sandboxUrl } from '../playwright.config.js'

interface WorkerFixtures {
  apiKey: string
  sandbox: SandboxClient
}

export const test = base.extend<{ fresh: void }, WorkerFixtures>({
  apiKey: [({}, use, workerInfo) => use(`worker-${workerInfo.workerIndex}`), { scope: 'worker' }],
  sandbox: [({ apiKey }, use) => use(createSandboxClient({ baseUrl: sandboxUrl, key: apiKey })), { scope: 'worker' }],
  // The page and the request fixture send this worker's key with every request.
  extraHTTPHeaders: ({ apiKey }, use) => use({ Authorization: `Bearer ${apiKey}` }),
  // Resets this worker's key only: the other workers' data stays as it is.
  fresh: [
    async ({ sandbox }, use) => {
      await sandbox.reset()
      await use()
    },
    { auto: true },
  ],
})

export { expect } from '@playwright/test'
