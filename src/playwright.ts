/**
 * `petstore-sandbox/playwright`: Playwright's `test`, with a key per worker and a fresh copy of the
 * seed per test, against a sandbox started with `--isolate` (Playwright's `webServer`, as the
 * recipe has it). Tests in parallel workers never meet: each worker's key has its own data.
 *
 * - `sandbox`: the admin client for the worker's key: scenarios, holds, checkpoints, the journal.
 * - `apiKey`: the worker's key; the page and `request` send it with every request.
 * - `sandboxUrl` (an option): where the sandbox is; default the project's `baseURL`.
 * The sandbox must run with `--isolate`, which accepts the workers' keys and gives each its data.
 * Before a worker's first test the fixture reads the sandbox's mode from health, so a sandbox
 * without `--isolate` (whoever started it) fails each test with what to run instead.
 * Before each test the worker's data is reset to the seed (its scenarios cleared, its holds
 * released); the other workers' data stays as it is.
 *
 * `@playwright/test` is an optional peer: only this entry loads it.
 *
 * May import: @playwright/test, and the admin client (src/client.ts). Nothing of the core at run time.
 */
import { test as base } from '@playwright/test'
import { createSandboxClient, SandboxClientError, type SandboxClient } from './client.js'

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

const PREFIX = 'petstore-sandbox/playwright:'

/** The CLI's default port: the command to suggest names `--port` only for another one. */
const DEFAULT_PORT = '3210'

/** The command that starts a sandbox the fixture can use, at the origin it was pointed at. */
function commandFor(origin: string): string {
  const url = new URL(origin)
  const port = url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port
  return `npx petstore-sandbox --isolate${port === DEFAULT_PORT ? '' : ` --port ${port}`}`
}

/**
 * Reads the sandbox's mode from health, which answers without a key (the worker's key would be
 * refused by a shared sandbox, and its 401 says nothing of `--isolate`). Throws an Error that says
 * what is wrong and what to run when nothing answers, the answer is not a sandbox's, or the
 * sandbox is shared.
 */
async function checkIsolated(origin: string): Promise<void> {
  const command = commandFor(origin)
  let mode: unknown
  try {
    mode = (await createSandboxClient({ baseUrl: origin }).health()).mode
  } catch (error) {
    if (error instanceof TypeError) {
      throw new Error(
        `${PREFIX} nothing answers at ${origin}. Start the sandbox there with \`${command}\` (in Playwright's webServer, or in a terminal of its own), or set use.sandboxUrl (or use.baseURL) to where it runs.`,
        { cause: error },
      )
    }
    if (!(error instanceof SandboxClientError)) throw error
    throw new Error(
      `${PREFIX} the server at ${origin} is not a petstore sandbox (GET /__sandbox/health answered ${error.status}). When use.baseURL is your app, set use.sandboxUrl to the sandbox, started with \`npx petstore-sandbox --isolate\`.`,
      { cause: error },
    )
  }
  if (mode === 'isolated') return
  if (mode === 'shared') {
    throw new Error(
      `${PREFIX} the sandbox at ${origin} runs in shared mode (started without --isolate), where it refuses the workers' keys and every key would share one copy of the data. Start it with \`${command}\` instead (as Playwright's webServer command, or in place of the one running there).`,
    )
  }
  throw new Error(
    `${PREFIX} the server at ${origin} does not say its mode in GET /__sandbox/health: it is not a petstore sandbox this fixture knows. Start one with \`${command}\`.`,
  )
}

export const test = base.extend<
  SandboxTestFixtures & { sandboxFresh: undefined },
  SandboxWorkerFixtures & { sandboxIsolated: Set<string> }
>({
  // A new worker (after a failure too) takes a new key, so it starts from the seed.
  // Playwright reads a fixture's dependencies from its parameter's pattern: `{}` asks for none.
  // eslint-disable-next-line no-empty-pattern
  apiKey: [async ({}, use, workerInfo) => use(`petstore-worker-${workerInfo.workerIndex}`), { scope: 'worker' }],
  // The origins this worker found isolated: health is read once per worker, not before every test.
  // A failed check is not kept, so each test after it says the same.
  // eslint-disable-next-line no-empty-pattern
  sandboxIsolated: [async ({}, use) => use(new Set()), { scope: 'worker' }],
  sandboxUrl: [undefined, { option: true }],
  sandbox: async ({ sandboxUrl, baseURL, apiKey, sandboxIsolated }, use) => {
    const url = sandboxUrl ?? baseURL
    if (url === undefined) {
      throw new Error(
        `${PREFIX} set use.baseURL (or use.sandboxUrl) to the sandbox, e.g. http://127.0.0.1:3210, started with \`npx petstore-sandbox --isolate\``,
      )
    }
    const origin = new URL(url).origin
    if (!sandboxIsolated.has(origin)) {
      await checkIsolated(origin)
      sandboxIsolated.add(origin)
    }
    await use(createSandboxClient({ baseUrl: origin, key: apiKey }))
  },
  extraHTTPHeaders: async ({ extraHTTPHeaders, apiKey }, use) =>
    use({ ...extraHTTPHeaders, Authorization: `Bearer ${apiKey}` }),
  // Before each test: this worker's data back to the seed, its scenarios cleared, its holds released.
  sandboxFresh: [
    async ({ sandbox }, use) => {
      try {
        await sandbox.reset()
      } catch (error) {
        // An isolated sandbox refuses a key only when its --api-key-pattern leaves it out.
        if (!(error instanceof SandboxClientError) || error.status !== 401) throw error
        throw new Error(
          `${PREFIX} the sandbox runs with --isolate but refused this worker's key (${error.message}): its --api-key-pattern must admit the fixture's keys, petstore-worker-0, petstore-worker-1 and so on, e.g. --api-key-pattern 'petstore-worker-[0-9]+'.`,
          { cause: error },
        )
      }
      await use(undefined)
    },
    { auto: true },
  ],
})
