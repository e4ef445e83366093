import { startServer } from '../src/server.js'
import { describeApi } from './support/api-suite.js'

describeApi('over HTTP, startServer', async () => {
  const server = await startServer({ port: 0 })
  return { origin: server.url, sandbox: server.sandbox, close: () => server.close() }
})
