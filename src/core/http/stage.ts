/**
 * What a stage of the request's way declares beside its rule: its name, the Error codes it may
 * answer (and for which rows of the route table), the headers those answers carry, and the
 * headers it sets on others. Each stage whose rule lives in core/http declares itself in its
 * module (head.ts, body.ts, unparsable.ts); http/stages.ts puts them in their order.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import type { ErrorCode } from './errors.js'
import type { OperationSpec } from './routes.js'

/** Header names per Error code: on every such answer (`always`), or on some (`sometimes`). */
export type ErrorHeaders = Readonly<Partial<Record<ErrorCode, Readonly<Record<string, 'always' | 'sometimes'>>>>>

/** Codes a stage may answer, for the rows `when` picks (every row when left out). */
export interface StageAnswer {
  readonly codes: readonly ErrorCode[]
  readonly when?: (operation: OperationSpec) => boolean
}

export interface Stage {
  readonly name: string
  /** What it decides, in docs/architecture.md's list: lines of at most 48 characters (docs/stage-list.ts). */
  readonly says: readonly string[]
  /** Where its rule lives, from src/core. */
  readonly file: string
  /** Run by the adapter before the core sees the request (a server's parser), not by the dispatcher. */
  readonly by?: 'adapter'
  /**
   * It may answer before the operation is known (a bad head, a path or method no row takes, a
   * failure of the sandbox's own): such an answer carries none of the operation's own headers.
   */
  readonly unrouted?: boolean
  readonly answers: readonly StageAnswer[]
  /** Headers its Error answers carry, per code: `always`, or `sometimes` (a 415 says Accept-Encoding for a content coding only). */
  readonly errorHeaders?: ErrorHeaders
  /** Headers it sets on the answers of the rows `when` picks, whatever their status. */
  readonly sets?: { readonly names: readonly string[]; readonly when: (operation: OperationSpec) => boolean }
}

/** Retry-After, on every answer of a code that says to come back later. */
export const RETRY = { 'Retry-After': 'always' } as const
