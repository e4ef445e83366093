/**
 * Scenarios: make calls of an operation fail with a chosen status and/or wait first, for a
 * number of calls or until cleared; and the same per request through `Prefer` (RFC 7240),
 * as Prism users know it. Browser-safe, and owned by one sandbox.
 *
 * May import: other core files, zod, pure-rand (faker lazily). No msw, no node:*, no adapter.
 */
import { z } from 'zod'
import type { Scenario } from './admin-contract.js'
import { checkObject, type Checked } from './contract.js'
import { ApiError, type ErrorCode } from './errors.js'
import { LIMITS } from './limits.js'

export const OPERATIONS = ['listPets', 'createPet', 'getPet'] as const
export type OperationId = (typeof OPERATIONS)[number]

/** The failures a scenario can simulate: what the interface or any HTTP service can answer. */
export const SCENARIO_STATUSES = [401, 404, 429, 500, 503] as const
export const MAX_DELAY_MS = LIMITS.delayMs.value
/** Scenarios without `times` stay until cleared: a cap keeps a runaway script from growing memory. */
export const MAX_SCENARIOS = LIMITS.scenarios.value

const SIMULATED: Record<(typeof SCENARIO_STATUSES)[number], ErrorCode> = {
  401: 'unauthorized',
  404: 'pet_not_found',
  429: 'too_many_requests',
  500: 'internal_error',
  503: 'service_unavailable',
}

export const ScenarioInputSchema = z
  .object({
    operation: z.enum([...OPERATIONS, '*']).default('*'),
    status: z.literal(SCENARIO_STATUSES).optional(),
    delayMs: z.int().min(0).max(MAX_DELAY_MS).optional(),
    times: z.int().min(1).optional(),
    retryAfterSeconds: z.int().min(0).max(86_400).optional(),
  })
  .strict()
  .superRefine((scenario, context) => {
    if (scenario.status === undefined && scenario.delayMs === undefined) {
      context.addIssue({ code: 'custom', path: ['status'], message: 'or delayMs is required' })
    }
    if (scenario.status === 404 && scenario.operation !== 'getPet') {
      context.addIssue({ code: 'custom', path: ['status'], message: '404 is only a getPet answer' })
    }
  })

/** What to simulate: `times` calls of `operation` (all calls when left out), `*` for every operation. */
export type ScenarioInput = z.input<typeof ScenarioInputSchema>
export type { Scenario }

export interface ScenarioBook {
  /** Adds a scenario; throws ScenarioError naming the field when the input is wrong. */
  add(input: ScenarioInput): Scenario
  list(): Scenario[]
  clear(): void
}

export interface WritableScenarioBook extends ScenarioBook {
  /** The first scenario for this operation, counting one call against it. */
  take(operation: OperationId): Scenario | undefined
}

/** Thrown for a scenario that cannot be simulated; the message names the field. */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError'
}

export function checkScenario(input: unknown): Checked<z.output<typeof ScenarioInputSchema>> {
  return checkObject(ScenarioInputSchema, input, 'scenario')
}

export function createScenarioBook(): WritableScenarioBook {
  let scenarios: { -readonly [K in keyof Scenario]: Scenario[K] }[] = []
  let nextId = 1
  return {
    add(input) {
      const checked = checkScenario(input)
      if (!checked.ok) throw new ScenarioError(checked.problems.join('; '))
      if (scenarios.length >= MAX_SCENARIOS) {
        throw new ScenarioError(`there are already ${MAX_SCENARIOS} scenarios; clear them before adding more`)
      }
      const { times, ...rest } = checked.value
      const scenario = { id: nextId++, ...rest, ...(times !== undefined && { remaining: times }) }
      scenarios.push(scenario)
      return { ...scenario }
    },
    list: () => scenarios.map((scenario) => ({ ...scenario })),
    clear() {
      scenarios = []
    },
    take(operation) {
      const scenario = scenarios.find((candidate) => candidate.operation === operation || candidate.operation === '*')
      if (scenario === undefined) return undefined
      if (scenario.remaining !== undefined) {
        scenario.remaining -= 1
        if (scenario.remaining === 0) scenarios = scenarios.filter((candidate) => candidate !== scenario)
      }
      return { ...scenario }
    },
  }
}

/** The Error a simulated failure answers with; 429 and 503 say when to retry. */
export function simulatedFailure(
  status: number,
  reason: string,
  retryAfterSeconds = 1,
  extraHeaders: Record<string, string> = {},
): ApiError {
  const code = SIMULATED[status as keyof typeof SIMULATED]
  const headers: Record<string, string> = { ...extraHeaders }
  if (status === 429 || status === 503) headers['Retry-After'] = String(retryAfterSeconds)
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer realm="petstore", error="invalid_token"'
  return new ApiError(code, `Simulated by the sandbox (${reason})`, headers)
}

export interface Preference {
  status?: number
  delayMs?: number
  /** For Preference-Applied. */
  applied: string[]
}

/**
 * Reads `Prefer: code=503, delay=1500`. Preferences the sandbox does not know are ignored,
 * as RFC 7240 asks; a known one with a value it cannot honour is a 400 naming it.
 */
export function readPrefer(header: string | null, operation: OperationId): Preference {
  const preference: Preference = { applied: [] }
  if (header === null) return preference
  // A preference given twice (two Prefer headers, or one list) counts once, the first (RFC 7240 section 2).
  const seen = new Set<string>()
  for (const part of header.split(',')) {
    const [token = '', ...rest] = part.split(';')[0]?.split('=') ?? []
    const name = token.trim().toLowerCase()
    if (seen.has(name)) continue
    seen.add(name)
    const value = rest
      .join('=')
      .trim()
      .replace(/^"(.*)"$/, '$1')
    if (name === 'code') {
      const status = Number(value)
      const allowed = SCENARIO_STATUSES.filter((candidate) => candidate !== 404 || operation === 'getPet')
      if (!/^\d{3}$/.test(value) || !(allowed as readonly number[]).includes(status)) {
        throw new ApiError(
          'invalid_parameter',
          `Prefer code=${value} cannot be simulated for ${operation}; use one of ${allowed.join(', ')}`,
        )
      }
      preference.status = status
      preference.applied.push(`code=${value}`)
    } else if (name === 'delay') {
      const delayMs = Number(value)
      if (!/^\d+$/.test(value) || delayMs > MAX_DELAY_MS) {
        throw new ApiError('invalid_parameter', `Prefer delay=${value} must be milliseconds from 0 to ${MAX_DELAY_MS}`)
      }
      preference.delayMs = delayMs
      preference.applied.push(`delay=${value}`)
    }
  }
  return preference
}

export interface TrafficOptions {
  /** Milliseconds before every response, or a range to draw from. */
  delay?: number | { min: number; max: number } | undefined
  /** Share of authenticated calls, 0..1, that fail with 500 or 503. */
  failureRate?: number | undefined
}

export interface Traffic {
  delayMs(): number
  /** 500 or 503 for a call chosen to fail, else undefined. */
  failure(): number | undefined
}

/** The sandbox-wide conditions of --delay and --failure-rate, drawn from the sandbox's seeded random. */
export function createTraffic({ delay, failureRate = 0 }: TrafficOptions, random: () => number): Traffic {
  const range = typeof delay === 'number' ? { min: delay, max: delay } : (delay ?? { min: 0, max: 0 })
  if (
    !Number.isSafeInteger(range.min) ||
    !Number.isSafeInteger(range.max) ||
    range.min < 0 ||
    range.max < range.min ||
    range.max > MAX_DELAY_MS
  ) {
    throw new TypeError(
      `Failed to create the sandbox: delay must be milliseconds from 0 to ${MAX_DELAY_MS}, as a number or a min-max range`,
    )
  }
  if (!(failureRate >= 0 && failureRate <= 1)) {
    throw new TypeError(`Failed to create the sandbox: failureRate must be from 0 to 1, got ${failureRate}`)
  }
  return {
    delayMs: () => (range.max === 0 ? 0 : range.min + Math.floor(random() * (range.max - range.min + 1))),
    failure: () => (failureRate > 0 && random() < failureRate ? (random() < 0.5 ? 500 : 503) : undefined),
  }
}
