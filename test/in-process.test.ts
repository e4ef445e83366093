import { setupServer } from 'msw/node'
import { createSandbox } from '../src/index.js'
import { describeApi } from './support/api-suite.js'

describeApi('in-process, setupServer', async () => {
  const sandbox = createSandbox()
  const server = setupServer(...sandbox.handlers)
  server.listen({ onUnhandledRequest: 'error' })
  return {
    origin: 'https://petstore.test',
    sandbox,
    close: async () => {
      server.close()
    },
  }
})
