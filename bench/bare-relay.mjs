// The floor of bench/relay-memory.mjs: a bare node:http relay that forwards each GET to the
// upstream (argv[2], its origin) and answers with the upstream's bytes, checking nothing, the
// way the sandbox reads an answer (one buffer of its Content-Length, a connection per exchange).
// What it grows under the same load is what relaying costs before any check. Prints "listening
// on URL" like the CLI.
import { createServer, request } from 'node:http'

const upstream = new URL(process.argv[2])
const server = createServer((incoming, response) => {
  incoming.resume()
  const exchange = request({ host: upstream.hostname, port: upstream.port, path: incoming.url, agent: false })
  exchange.on('response', (answer) => {
    const body = Buffer.allocUnsafe(Number(answer.headers['content-length']))
    let at = 0
    answer.on('data', (chunk) => {
      chunk.copy(body, at)
      at += chunk.length
    })
    answer.on('end', () => {
      response.writeHead(answer.statusCode, { 'Content-Type': 'application/json', 'Content-Length': at })
      response.end(body.subarray(0, at))
    })
  })
  exchange.end()
})
server.listen(0, '127.0.0.1', () => {
  console.log(`Bare relay listening on http://127.0.0.1:${server.address().port}/v1`)
})
