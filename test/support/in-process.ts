import { getResponse } from 'msw'
import type { Sandbox } from '../../src/index.js'

/**
 * One request through a sandbox's msw handlers (API and admin), with no server: a key when given,
 * and a JSON content type when there is a body.
 */
export async function sendTo(
  sandbox: Sandbox,
  key: string | undefined,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const request = new Request(`https://petstore.test${path}`, {
    method,
    headers: {
      ...(key !== undefined && { Authorization: `Bearer ${key}` }),
      ...(body !== undefined && { 'Content-Type': 'application/json' }),
      ...headers,
    },
    ...(body !== undefined && { body }),
  })
  const response = await getResponse([...sandbox.handlers, ...sandbox.adminHandlers], request)
  if (response === undefined) throw new Error(`nothing answered ${method} ${path}`)
  return response
}
