/**
 * The answers to requests a server's HTTP parser could not read, decided here like every other
 * answer: the adapter says only what it saw (a timeout, the chunk where the header limit was hit,
 * the parser's reason), and writes what comes back.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { errorAnswer, type CoreResponse } from './http.js'
import type { Stage } from './stage.js'
import { targetTooLong } from './target.js'
import type { Limits } from '../limits.js'

/**
 * The parse stage, as http/stages.ts lists it: run by the adapter, the server's parser, before the
 * core sees a request: a timeout, headers past its limit, no HTTP.
 */
export const PARSE_STAGE: Stage = {
  name: 'parse',
  says: ["(server) what Node's parser could not read"],
  file: 'http/unparsable.ts',
  by: 'adapter',
  unrouted: true,
  answers: [{ codes: ['request_timeout', 'headers_too_large', 'bad_request'] }],
}

type Unparsable =
  /** The request line and headers, or the whole request, did not arrive within their time. */
  | { readonly kind: 'timeout' }
  /** The request line and headers passed the parser's size limit; `packet` is the chunk being read then. */
  | { readonly kind: 'too-large'; readonly packet: string }
  /** Not HTTP as the parser reads it; `reason` is the parser's own word, when it gave one. */
  | { readonly kind: 'invalid'; readonly reason?: string | undefined }

export function answerUnparsable(problem: Unparsable, limits: Limits): CoreResponse {
  switch (problem.kind) {
    case 'timeout':
      return errorAnswer(
        'request_timeout',
        `The request did not arrive in time: the sandbox waits ${limits.headersTimeoutMs} ms for the request line and headers, and ${limits.requestTimeoutMs} ms for the whole request`,
      )
    case 'too-large': {
      // Parsers count the request line among the headers. When the chunk begins with the request
      // line, the target in it (or its part, when the line runs past the chunk) tells a long
      // target from many headers; a later chunk holds only headers, which may begin with a word
      // in capitals and a space too, but never then with a path or an absolute URL.
      const target = /^[A-Z]+ ((?:\/|[A-Za-z][A-Za-z0-9+.-]*:\/\/)[^ \r\n]*)/.exec(problem.packet)?.[1]
      const tooLong = target === undefined ? undefined : targetTooLong(target, limits, false)
      return tooLong === undefined
        ? errorAnswer('headers_too_large', 'Request headers are too large')
        : errorAnswer(tooLong)
    }
    case 'invalid':
      return errorAnswer(
        'bad_request',
        problem.reason === undefined || problem.reason === ''
          ? 'The request is not valid HTTP'
          : `The request is not valid HTTP: ${problem.reason}`,
      )
  }
}
