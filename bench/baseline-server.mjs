// The physical limit: a bare node:http server answering the same JSON the sandbox would, with
// no routing library, no validation and no store. Prints "listening on URL" like the CLI.
import { createServer } from 'node:http'
import { readFileSync } from 'node:fs'

const pets = JSON.parse(readFileSync(new URL('../fixtures/pets.json', import.meta.url), 'utf8'))
const list = JSON.stringify(pets.slice(0, 20))
const one = JSON.stringify(pets[6])
const created = JSON.stringify({ id: 33, name: 'Rex', categoryId: 1 })

const server = createServer((request, response) => {
  if (request.method === 'POST') {
    request.resume()
    request.on('end', () => {
      response.writeHead(201, { 'Content-Type': 'application/json', Location: '/v1/pets/33' })
      response.end(created)
    })
    return
  }
  response.writeHead(200, { 'Content-Type': 'application/json' })
  response.end(request.url === '/v1/pets' || request.url?.startsWith('/v1/pets?') ? list : one)
})
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  console.log(`Baseline listening on http://127.0.0.1:${server.address().port}/v1`)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
