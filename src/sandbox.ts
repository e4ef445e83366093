/**
 * createSandbox: one store, its settings and its handlers. Each call owns its data,
 * so two sandboxes (two test files, two workers) never see each other's pets.
 */
import type { HttpHandler } from 'msw'
import { createAuthenticator, DEFAULT_API_KEY } from './auth.js'
import { parseBaseUrl } from './base-url.js'
import type { Pet } from './contract.js'
import { createHandlers } from './handlers.js'
import { DEFAULT_MAX_BODY_BYTES } from './request.js'
import { bundledSeed, parseSeed } from './seed.js'
import { createPetStore, type PetStore } from './store.js'

export interface SandboxOptions {
  /** Keys accepted as `Authorization: Bearer <key>`. Default: `["petstore-sandbox-key"]`. */
  apiKeys?: readonly string[]
  /**
   * Where the API is served. Default: any origin under the path `/v1`, so `/v1/pets` in a
   * browser and `https://any.host/v1/pets` in Node both match. Given as
   * `https://api.example.com/v1`, only that origin matches.
   */
  baseUrl?: string
  /** The seed, an array of Pets with unique ids. Default: the bundled `fixtures/pets.json`. */
  fixtures?: readonly Pet[]
  /** Largest accepted request body in bytes; larger ones get 413. Default: 16 KiB. */
  maxBodyBytes?: number
}

export interface Sandbox {
  /** The MSW request handlers: pass them to `setupServer` or `setupWorker`. */
  readonly handlers: readonly HttpHandler[]
  /** Direct access to the data, for arranging and inspecting state in tests. */
  readonly pets: PetStore
  /** The accepted API keys. */
  readonly apiKeys: readonly string[]
  /** Restores the seed and the id sequence exactly. */
  reset(): Promise<void>
}

/**
 * Creates an isolated Pet Store sandbox.
 *
 * @example
 * const sandbox = createSandbox()
 * const server = setupServer(...sandbox.handlers)
 * beforeEach(() => sandbox.reset())
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const apiKeys = Object.freeze([...(options.apiKeys ?? [DEFAULT_API_KEY])])
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new TypeError(`Failed to create the sandbox: maxBodyBytes must be a positive integer, got ${maxBodyBytes}`)
  }
  const seed = options.fixtures === undefined ? bundledSeed() : parseSeed(options.fixtures)
  const store = createPetStore(seed)
  const handlers = Object.freeze(
    createHandlers({
      store,
      authenticate: createAuthenticator(apiKeys),
      base: parseBaseUrl(options.baseUrl),
      maxBodyBytes,
      onUnexpectedError: (error, request) => {
        console.error(`petstore-sandbox: unexpected failure on ${request.method} ${request.url}`, error)
      },
    }),
  )
  return { handlers, pets: store, apiKeys, reset: () => store.reset() }
}
