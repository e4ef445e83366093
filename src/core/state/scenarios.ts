/**
 * Scenarios: make calls of an operation fail with a chosen status and/or wait first, for a
 * number of calls or until cleared; and the same per request through `Prefer` (RFC 7240),
 * as Prism users know it; and `simulate`, the stage of an API call that applies them with
 * --delay and --failure-rate. Browser-safe, and owned by one sandbox.
 *
 * May import: core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import type { z } from 'zod'
import {
  MAX_DELAY_MS,
  MAX_SCENARIOS,
  SCENARIO_STATUSES,
  ScenarioInputSchema,
  type Scenario,
  type ScenarioInput,
} from './shapes.js'
import { checkObject, type Checked, type OperationId } from '../api/contract.js'
import { unauthorized } from '../api/auth.js'
import { ApiError, type ErrorCode } from '../http/errors.js'
import type { Delays } from './delays.js'

const SIMULATED: Record<(typeof SCENARIO_STATUSES)[number], ErrorCode> = {
  401: 'unauthorized',
  404: 'pet_not_found',
  429: 'too_many_requests',
  500: 'internal_error',
  503: 'service_unavailable',
}

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

function checkScenario(input: unknown): Checked<z.output<typeof ScenarioInputSchema>> {
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
  const message = `Simulated by the sandbox (${reason})`
  if (status === 401) {
    const { headers } = unauthorized(message, true)
    return new ApiError('unauthorized', message, { ...extraHeaders, ...headers })
  }
  const retry = status === 429 || status === 503 ? { 'Retry-After': String(retryAfterSeconds) } : {}
  return new ApiError(SIMULATED[status as keyof typeof SIMULATED], message, { ...extraHeaders, ...retry })
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

interface TrafficOptions {
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
  // Both were checked with the options (options.ts).
  return {
    delayMs: () => (range.max === 0 ? 0 : range.min + Math.floor(random() * (range.max - range.min + 1))),
    failure: () => (failureRate > 0 && random() < failureRate ? (random() < 0.5 ? 500 : 503) : undefined),
  }
}

/** What simulation draws on: the shared scenarios, --delay and --failure-rate, and the pending delays. */
export interface Simulation {
  readonly scenarios: WritableScenarioBook
  readonly traffic: Traffic
  readonly delays: Delays
}

/** No Preference-Applied: shared by every request that applied nothing. */
export const NONE_APPLIED: readonly string[] = Object.freeze([])

/**
 * Applies the first matching scenario (the key's own, else a shared one), the request's Prefer,
 * and the run-wide failure rate: a refusal thrown, or what Preference-Applied says. Synchronous
 * when nothing waits (no scenario, no Prefer): the common request makes no promise.
 */
export function simulate(
  simulation: Simulation,
  operation: OperationId,
  prefer: string | undefined,
  own: WritableScenarioBook | undefined,
): readonly string[] | Promise<readonly string[]> {
  // Read first: a Prefer the sandbox cannot honour is refused before any scenario is used up.
  const preference = prefer === undefined ? undefined : readPrefer(prefer, operation)
  const scenario = own?.take(operation) ?? simulation.scenarios.take(operation)
  if (scenario !== undefined || preference !== undefined) return simulateSlowly(simulation, scenario, preference)
  const failure = simulation.traffic.failure()
  if (failure !== undefined) throw simulatedFailure(failure, 'failure rate')
  return NONE_APPLIED
}

async function simulateSlowly(
  { traffic, delays }: Simulation,
  scenario: Scenario | undefined,
  preference: Preference | undefined,
): Promise<readonly string[]> {
  if (scenario !== undefined) {
    if (scenario.delayMs !== undefined) await delays.sleep(scenario.delayMs)
    if (scenario.status !== undefined) {
      throw simulatedFailure(scenario.status, `scenario ${scenario.id}`, scenario.retryAfterSeconds)
    }
  }
  if (preference?.delayMs !== undefined) await delays.sleep(preference.delayMs)
  if (preference?.status !== undefined) {
    throw simulatedFailure(preference.status, `Prefer: code=${preference.status}`, 1, {
      'Preference-Applied': preference.applied.join(', '),
    })
  }
  const failure = traffic.failure()
  if (failure !== undefined) throw simulatedFailure(failure, 'failure rate')
  return preference?.applied ?? NONE_APPLIED
}
