/**
 * The Node entry, `petstore-sandbox/server`: the sandbox as an HTTP server. It loads the core
 * and node:http only; msw is not needed to run it.
 */
export {
  DEFAULT_HOST,
  DEFAULT_PORT,
  ServerStartError,
  startServer,
  type RunningServer,
  type ServerOptions,
} from './node/server.js'
export type { SandboxCore } from './core/sandbox.js'
