/**
 * `petstore-sandbox/playwright`: Playwright's `test`, with a key per worker and a fresh copy of the
 * seed per test, against a sandbox started with `--isolate` (Playwright's `webServer`, as the
 * recipe has it). Tests in parallel workers never meet: each worker's key has its own data.
 *
 * - `sandbox`: the admin client for the worker's key: scenarios, holds, checkpoints, the journal.
 * - `apiKey`: the worker's key; the page and `request` send it with every request.
 * - `sandboxUrl` (an option): where the sandbox is; default the project's `baseURL`.
 * The sandbox must run with `--isolate`, which accepts the workers' keys and gives each its data.
 * Before each test the worker's data is reset to the seed (its scenarios cleared, its holds
 * released); the other workers' data stays as it is.
 *
 * `@playwright/test` is an optional peer: only this entry loads it.
 *
 * May import: @playwright/test, and the admin client (src/client.ts). Nothing of the core at run time.
 */
import { test as base } from '@playwright/test'
import { createSandboxClient, type SandboxClient } from './client.js'

export { expect } from '@playwright/test'
export type { SandboxClient } from './client.js'

/**
 * The fixture's option, for `defineConfig<SandboxOptions>({ use: { sandboxUrl } })` when the
 * project's `baseURL` is the app under test rather than the sandbox.
 */
export interface SandboxOptions {
  readonly sandboxUrl: string | undefined
}

/** What each test gets, beside Playwright's own. */
export interface SandboxTestFixtures {
  /** The admin client for this worker's key: scenarios, holds, checkpoints and the journal. */
  readonly sandbox: SandboxClient
  /** Where the sandbox is (its origin, e.g. http://127.0.0.1:3210): default the project's `baseURL`. */
  readonly sandboxUrl: string | undefined
}

/** What each worker gets. */
export interface SandboxWorkerFixtures {
  /** This worker's API key, sent by the page and `request` with every request. */
  readonly apiKey: string
}

export const test = base.extend<SandboxTestFixtures & { sandboxFresh: undefined }, SandboxWorkerFixtures>({
  // A new worker (after a failure too) takes a new key, so it starts from the seed.
  // Playwright reads a fixture's dependencies from its parameter's pattern: `{}` asks for none.
  // eslint-disable-next-line no-empty-pattern
  apiKey: [async ({}, use, workerInfo) => use(`petstore-worker-${workerInfo.workerIndex}`), { scope: 'worker' }],
  sandboxUrl: [undefined, { option: true }],
  sandbox: async ({ sandboxUrl, baseURL, apiKey }, use) => {
    const url = sandboxUrl ?? baseURL
    if (url === undefined) {
      throw new Error(
        'petstore-sandbox/playwright: set use.baseURL (or use.sandboxUrl) to the sandbox, e.g. http://127.0.0.1:3210',
      )
    }
    await use(createSandboxClient({ baseUrl: new URL(url).origin, key: apiKey }))
  },
  extraHTTPHeaders: async ({ extraHTTPHeaders, apiKey }, use) =>
    use({ ...extraHTTPHeaders, Authorization: `Bearer ${apiKey}` }),
  // Before each test: this worker's data back to the seed, its scenarios cleared, its holds released.
  sandboxFresh: [
    async ({ sandbox }, use) => {
      await sandbox.reset()
      await use(undefined)
    },
    { auto: true },
  ],
})
