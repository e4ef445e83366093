/**
 * A drifted server for `verify`: a thin proxy in front of a real sandbox that changes one thing
 * of its requests or answers. Targets go on exactly as they came, so only the drift differs.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { exchange } from '../../src/node/http-client.js'
import type { PlainAnswer } from '../../src/core/http/http.js'

export interface Drift {
  /** Changes the target before it is forwarded. */
  target?: (target: string) => string
  /** Changes the answer before it goes back. */
  answer?: (answer: PlainAnswer, method: string, target: string) => PlainAnswer
}

export interface DriftProxy {
  /** The proxy's base URL, with the sandbox's `/v1`. */
  readonly apiUrl: string
  close(): Promise<void>
}

export async function startDriftProxy(origin: string, drift: Drift): Promise<DriftProxy> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const target = drift.target?.(request.url ?? '/') ?? request.url ?? '/'
      exchange({
        method: request.method ?? 'GET',
        origin,
        target,
        headers: forwardable(request.headers),
        body: chunks.length === 0 ? null : Buffer.concat(chunks),
        timeoutMs: 10_000,
        maxBytes: 1024 * 1024,
      }).then(
        (received) => {
          // A plain copy the drift may spread: the exchange's answer decodes its text on first read.
          const answer: PlainAnswer = { status: received.status, headers: received.headers, body: received.body }
          const changed = drift.answer?.(answer, request.method ?? 'GET', request.url ?? '/') ?? answer
          const headers = { ...changed.headers }
          delete headers['content-length']
          delete headers['transfer-encoding']
          delete headers.connection
          delete headers['keep-alive']
          response.writeHead(changed.status, headers).end(changed.body)
        },
        (error: unknown) => {
          response.writeHead(502).end(String(error))
        },
      )
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    apiUrl: `http://127.0.0.1:${port}/v1`,
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}

function forwardable(headers: IncomingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'host' || name === 'connection' || value === undefined) continue
    kept[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return kept
}
