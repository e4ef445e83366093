/**
 * The Node entry, `petstore-sandbox/server`: the sandbox as an HTTP server. It loads the core
 * and node:http only; msw is not needed to run it.
 */
export { startServer } from './node/start-server.js'
export {
  DEFAULT_HOST,
  DEFAULT_PORT,
  ServerStartError,
  type RunningServer,
  type ServerOptions,
} from './node/server-options.js'
export type { SandboxCore } from './core/sandbox.js'
