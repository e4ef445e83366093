/**
 * The shapes of what the request-time state holds, as zod schemas: a journal entry and the
 * journal's filter, a scenario and what adds one, a hold, the forwarding switch. The state's
 * modules check and type with them; the admin routes answer with them (admin/contract.ts
 * re-exports them beside the routes' own schemas, for the OpenAPI document, the dashboard and the
 * admin client).
 *
 * May import: core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import * as z from 'zod'
import { OPERATIONS } from '../api/contract.js'
import { LIMITS } from '../limits.js'

/** The failures a scenario can simulate: what the interface or any HTTP service can answer. */
export const SCENARIO_STATUSES = [401, 404, 429, 500, 503] as const
export const MAX_DELAY_MS = LIMITS.delayMs.value
/** Scenarios without `times` stay until cleared: a cap keeps a runaway script from growing memory. */
export const MAX_SCENARIOS = LIMITS.scenarios.value

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

export const JournalEntrySchema = z
  .object({
    id: z.int().min(1).meta({ description: 'Increases by one per recorded request, across drops' }),
    time: z.string().meta({ description: 'When the request arrived, on the sandbox clock (ISO 8601)' }),
    operation: z.enum(OPERATIONS).nullable().meta({ description: 'null for requests that matched no operation' }),
    method: z.string(),
    url: z.string(),
    path: z.string().meta({ description: 'The path as sent' }),
    query: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
    headers: z.record(z.string(), z.string()).meta({ description: 'With the Authorization credential redacted' }),
    body: z.unknown().meta({ description: 'createPet: the body parsed as JSON, or its text when it is not JSON' }),
    status: z.int(),
    durationMs: z.number(),
    tenant: z
      .string()
      .nullable()
      .meta({ description: 'Isolated mode: "default", or the key masked (as in GET /tenants); otherwise null' }),
    tenantHue: z.int().min(0).max(330).nullable().meta({
      description: "Isolated mode: the tenant's colour, a hue in degrees (as in GET /tenants); otherwise null",
    }),
    forwarded: z.boolean().meta({
      description:
        "Sent to the upstream (--upstream): the answer is the upstream's, or the sandbox's 502/504 when it gave none",
    }),
    violations: z.array(z.string()).meta({
      description:
        "Forwarded: each way the upstream's answer breaks the interface document, one sentence each, at most 20 (the contractProblems limit); else empty",
    }),
    heldMs: z.number().min(0).nullable().meta({
      description: 'How long a hold kept the request waiting (POST /__sandbox/holds), in ms; null when none caught it',
    }),
    recorded: z
      .object({
        pets: z.int().min(0).meta({ description: 'Pets of the answer kept in the data (new, changed or the same)' }),
        refused: z.array(z.string()).meta({ description: 'Why each pet left out was, one sentence each' }),
      })
      .nullable()
      .meta({
        description:
          'With --record, on a forwarded success that carries pets: what it left in the data; otherwise null',
      }),
    moreViolations: z.boolean().meta({
      description:
        'Forwarded: the contract check stopped at 20 problems with more to find (the count reads "20+"); else false',
    }),
  })
  .meta({ description: 'One request the API answered' })

/**
 * The journal's filters, one schema for all three of their uses: GET /__sandbox/requests reads its
 * query with it, the OpenAPI document lists its fields as that route's parameters, and the admin
 * client's `requests(filter)` takes its type. `operation` none (or null) picks the requests that
 * matched no operation.
 */
export const JournalFilterSchema = z
  .object({
    operation: z
      .enum([...OPERATIONS, 'none'])
      .nullable()
      .optional()
      .meta({ description: 'The operation; none picks the requests that matched no operation' }),
    method: z.string().optional().meta({ description: 'The method, in any case' }),
    status: z.int().min(100).max(599).optional().meta({ description: 'The status answered' }),
  })
  .strict()

export type JournalFilter = z.input<typeof JournalFilterSchema>

export const ScenarioSchema = z.object({
  id: z.int().min(1),
  operation: z.enum([...OPERATIONS, '*']),
  status: z.literal(SCENARIO_STATUSES).optional(),
  delayMs: z.int().min(0).optional(),
  retryAfterSeconds: z.int().min(0).optional(),
  remaining: z.int().min(1).optional().meta({ description: 'Calls left; absent: until cleared' }),
})

export const ForwardingSchema = z
  .object({
    upstream: z.string().nullable().meta({
      description: "The upstream's origin (--upstream, never its path, query or credentials); null without one",
    }),
    forward: z.array(z.enum(OPERATIONS)).meta({ description: 'The operations sent to the upstream now' }),
    operations: z.array(z.enum(OPERATIONS)).meta({ description: 'Every operation that can be forwarded' }),
    record: z.boolean().meta({
      description:
        "Whether forwarded answers' pets are kept in the sandbox's data (--record), to answer from once forwarding is off",
    }),
    recorded: z.int().min(0).meta({
      description: 'Pets recorded since the server started (new or changed; the same pet again is not counted)',
    }),
  })
  .meta({ description: 'Which operations the upstream answers; the sandbox answers the rest' })

export const HoldSchema = z
  .object({
    id: z.int().min(1),
    operation: z.enum(OPERATIONS),
    remaining: z.int().min(0).meta({ description: 'Calls it will still catch' }),
    holding: z.int().min(0).meta({ description: 'Calls waiting in it now, holding no answer' }),
    caught: z.int().min(0).meta({ description: 'Calls it has caught so far, gone clients included' }),
  })
  .meta({ description: 'A hold: the next calls of an operation wait until it is released' })

export type JournalEntry = Readonly<z.infer<typeof JournalEntrySchema>>
export type Scenario = Readonly<z.infer<typeof ScenarioSchema>>
/** What to simulate: `times` calls of `operation` (all calls when left out), `*` for every operation. */
export type ScenarioInput = z.input<typeof ScenarioInputSchema>
export type Forwarding = z.infer<typeof ForwardingSchema>
export type Hold = z.infer<typeof HoldSchema>
