import { connect } from 'node:net'

/** Sends bytes as they are and returns the whole answer: for requests fetch() will not make. */
export function rawRequest(url: string, text: string): Promise<{ status: number; head: string; body: string }> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    let answer = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => (answer += chunk))
    socket.on('error', reject)
    socket.on('end', () => {
      const [head = '', body = ''] = answer.split('\r\n\r\n')
      resolve({ status: Number(head.split(' ')[1]), head, body })
    })
    socket.end(text)
  })
}
