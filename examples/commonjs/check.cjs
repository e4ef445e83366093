// check.cjs: the package's code entries (., ./client, ./server) from CommonJS, with require().
const assert = require('node:assert/strict')
const { setupServer } = require('msw/node')
const { createSandbox, DEFAULT_API_KEY } = require('petstore-sandbox')
const { createSandboxClient } = require('petstore-sandbox/client')
const { startServer } = require('petstore-sandbox/server') // ESM, through require(esm)

const headers = { Authorization: `Bearer ${DEFAULT_API_KEY}` }

async function main() {
  const sandbox = createSandbox()
  const mocked = setupServer(...sandbox.handlers)
  mocked.listen()
  const listed = await fetch('https://api.example.com/v1/pets?limit=2', { headers })
  assert.equal(listed.status, 200)
  assert.deepEqual(
    (await listed.json()).map((pet) => pet.id),
    [1, 2],
  )
  mocked.close()

  const server = await startServer({ port: 0 })
  try {
    const client = createSandboxClient({ baseUrl: server.apiUrl })
    const created = await fetch(`${server.apiUrl}/pets`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Required', categoryId: 1 }),
    })
    assert.equal(created.status, 201)
    assert.equal((await client.health()).pets, 33)
    await client.reset()
    assert.equal((await client.health()).pets, 32)
  } finally {
    await server.close()
  }
  console.log('CommonJS: main, client and server entries all work')
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
