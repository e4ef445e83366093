// An upstream for bench/relay-memory.mjs: every GET gets the same list of PETS pets (12,000 by
// default, about 700 KB), each with a status the interface does not have, so each relayed
// answer breaks the contract 12,000 times. Prints "listening on URL" like the CLI.
import { createServer } from 'node:http'

const count = Number(process.env.PETS ?? 12_000)
const body = Buffer.from(
  JSON.stringify(
    Array.from({ length: count }, (_, index) => ({
      id: index + 1,
      name: `Relayed pet number ${index + 1}`,
      categoryId: (index % 7) + 1,
      status: 'misplaced',
    })),
  ),
)
const server = createServer((request, response) => {
  request.resume()
  response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length })
  response.end(body)
})
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  console.log(`Upstream listening on http://127.0.0.1:${server.address().port}/v1 (${body.length} bytes a list)`)
})
