// The physical limit: a bare node:http server answering the same JSON the sandbox would, with
// no routing library, no validation and no store. Its POST still reads and parses the body and
// serializes a new pet, the work no server can skip. Prints "listening on URL" like the CLI.
import { createServer } from 'node:http'
import { readFileSync } from 'node:fs'

const pets = JSON.parse(readFileSync(new URL('../fixtures/pets.json', import.meta.url), 'utf8'))
const list = JSON.stringify(pets.slice(0, 20))
const one = JSON.stringify(pets[6])
let nextId = pets.length + 1

function create(request, response) {
  let body = ''
  request.setEncoding('utf8')
  request.on('data', (chunk) => (body += chunk))
  request.on('end', () => {
    const { name, categoryId } = JSON.parse(body)
    const pet = { id: nextId++, name, categoryId }
    response.writeHead(201, { 'Content-Type': 'application/json', Location: `/v1/pets/${pet.id}` })
    response.end(JSON.stringify(pet))
  })
}

const server = createServer((request, response) => {
  if (request.method === 'POST') return create(request, response)
  response.writeHead(200, { 'Content-Type': 'application/json' })
  response.end(request.url === '/v1/pets' || request.url?.startsWith('/v1/pets?') ? list : one)
})
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  console.log(`Baseline listening on http://127.0.0.1:${server.address().port}/v1`)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
