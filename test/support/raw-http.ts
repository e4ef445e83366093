import { connect } from 'node:net'

/**
 * Sends bytes as they are and returns everything the server writes until it closes: for
 * requests fetch() will not make. The client's side stays open, as a client that might send
 * more would (a pipelined request, a body still coming), unless `end` half-closes it at once.
 */
export function rawExchange(url: string, text: string, { end = false } = {}): Promise<string> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    let answer = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => (answer += chunk))
    socket.on('error', reject)
    socket.on(end ? 'end' : 'close', () => {
      resolve(answer)
    })
    if (end) socket.end(text)
    else socket.write(text)
  })
}

/** One request sent as it is, the client's side closed after it; the answer split into status, head and body. */
export async function rawRequest(url: string, text: string): Promise<{ status: number; head: string; body: string }> {
  const answer = Buffer.from(await rawExchange(url, text, { end: true }), 'latin1').toString('utf8')
  const [head = '', body = ''] = answer.split('\r\n\r\n')
  return { status: Number(head.split(' ')[1]), head, body }
}
