/**
 * The shapes of the admin routes' inputs and answers, as zod schemas: the routes validate with
 * them, the OpenAPI document lists them, the dashboard and the admin client take their types. The
 * shapes the state itself holds (a journal entry, a scenario, a hold, forwarding) are
 * state/shapes.ts's, re-exported here so that this file stays the one list of what the routes say.
 *
 * May import: core/admin, core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import * as z from 'zod'
// Shared with the Pet Store on purpose: a pet, a state's {pets, nextId} and the operations' names
// are the same things on both sides (a state PUT here is what the API's store holds, and a page
// of pets is the API's Pet with one mark), so one schema keeps them from drifting apart. What the
// admin routes take that the API does not (filters, checkpoints, holds, forwarding) is theirs.
import { OPERATIONS, PetSchema, StoreStateSchema } from '../api/contract.js'
import { LIMIT_NAMES } from '../limits.js'
import { CheckpointNameSchema } from '../state/checkpoint-pool.js'
import { MAX_SCENARIOS, SCENARIO_STATUSES, ScenarioInputSchema } from '../state/shapes.js'

export {
  SCENARIO_STATUSES,
  MAX_DELAY_MS,
  MAX_SCENARIOS,
  ScenarioInputSchema,
  JournalEntrySchema,
  JournalFilterSchema,
  ScenarioSchema,
  ForwardingSchema,
  HoldSchema,
  type JournalFilter,
  type JournalEntry,
  type Scenario,
  type ScenarioInput,
  type Forwarding,
  type Hold,
} from '../state/shapes.js'

export const ForwardingInputSchema = z
  .object({
    forward: z
      .union([z.literal('all'), z.array(z.enum(OPERATIONS))])
      .optional()
      .meta({ description: 'The operations to forward from now on, "all", or [] for none; left out: as they are' }),
    record: z
      .boolean()
      .optional()
      .meta({ description: "Keep forwarded answers' pets in the sandbox's data from now on; left out: as it is" }),
  })
  .strict()
  .meta({ description: 'forward, record, or both' })

/** Calls a hold may catch: a hold is for a test's next few calls, never a standing rule. */
export const MAX_HOLD_TIMES = 1000

export const HoldInputSchema = z
  .object({
    operation: z.enum(OPERATIONS).meta({ description: 'The operation whose next calls wait' }),
    times: z
      .int()
      .min(1)
      .max(MAX_HOLD_TIMES)
      .default(1)
      .meta({ description: 'How many of its next calls it catches (default 1)' }),
  })
  .strict()

export const HoldReleaseSchema = z
  .object({
    status: z.literal(SCENARIO_STATUSES).optional().meta({
      description: 'Answer the held calls with this simulated failure instead (404 for getPet only)',
    }),
  })
  .strict()

export const CheckpointSchema = z
  .object({
    name: z.string(),
    savedAt: z.string().meta({ description: 'When it was saved, on the sandbox clock (ISO 8601)' }),
    pets: z.int().min(0),
    nextId: z.int().min(1),
    scenarios: z.boolean().meta({ description: 'Whether it holds the scenarios too, which a rewind puts back' }),
    bytes: z.int().min(0).meta({ description: 'What it weighs against the checkpointBytes limit' }),
  })
  .meta({ description: "A saved copy of a tenant's data, to rewind to" })

export const CheckpointListSchema = z.array(CheckpointSchema)

export const CheckpointInputSchema = z
  .object({
    name: CheckpointNameSchema.meta({
      description: '1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit',
    }),
    scenarios: z.boolean().optional().meta({ description: 'Save the scenarios too (default: false)' }),
    replace: z.boolean().optional().meta({ description: 'Save over a checkpoint of the same name (default: false)' }),
  })
  .strict()

const SavedAtSchema = z.string().meta({ description: 'When it was saved (ISO 8601)' })

/** A checkpoint as a state document holds it: its data whole, and its scenarios when saved with them. */
export const StateCheckpointSchema = z
  .object({
    name: CheckpointInputSchema.shape.name,
    savedAt: SavedAtSchema,
    nextId: StoreStateSchema.shape.nextId,
    scenarios: z
      .array(ScenarioInputSchema)
      .max(MAX_SCENARIOS)
      .optional()
      .meta({ description: 'The scenarios a rewind puts back, as they were added; absent when saved without them' }),
    pets: z.array(PetSchema),
  })
  .strict()

/**
 * THE state document (admin/persisted.ts writes and checks it): what GET /__sandbox/state
 * answers, a `--state-file` holds, and a browser sandbox exports and loads.
 */
export const StateDocumentSchema = z
  .object({
    version: z.literal(1).meta({ description: 'The format: a state of another version is refused, never guessed at' }),
    savedAt: SavedAtSchema,
    nextId: StoreStateSchema.shape.nextId,
    pets: z.array(PetSchema),
    checkpoints: z.array(StateCheckpointSchema).meta({ description: 'Oldest saved first' }),
  })
  .strict()
  .meta({ description: 'The data (pets and the id sequence) and the checkpoints of one key' })

/**
 * What PUT /__sandbox/state takes: a state document (`savedAt` and `checkpoints` may be left
 * out), or the older download, `{pets, nextId}`, which leaves the checkpoints as they are.
 */
export const StateInputSchema = z.union([
  StateDocumentSchema.partial({ savedAt: true, checkpoints: true }),
  StoreStateSchema.meta({
    description:
      'The older download (before 0.14): the pets and the next id only; the checkpoints are left as they are',
  }),
])

export type StateDocument = z.infer<typeof StateDocumentSchema>
export type StateInput = z.input<typeof StateInputSchema>

export const SandboxHealthSchema = z.object({
  status: z.literal('ok'),
  version: z.string(),
  uptimeSeconds: z.int().min(0),
  pets: z.int().min(0).meta({ description: "Pets in the default key's data" }),
  mode: z.enum(['shared', 'isolated']),
  tenants: z.int().min(0),
  evictions: z.int().min(0).meta({ description: 'Tenants evicted (least recently used, past the cap) since start' }),
  dashboard: z.string().meta({ description: "The dashboard's path on the server" }),
  upstream: z
    .object({
      label: z.string().meta({ description: "The upstream's origin, never its path, query or credentials" }),
      forward: z.array(z.enum(OPERATIONS)).meta({ description: 'The operations sent to it now' }),
      record: z.boolean().meta({ description: "Whether forwarded answers' pets are kept (--record)" }),
      recorded: z.int().min(0).meta({ description: 'Pets recorded since the server started' }),
    })
    .nullable()
    .meta({ description: 'The upstream the server forwards to (--upstream); null without one' }),
  stateFile: z
    .object({
      file: z.string().meta({ description: 'The file, as given to --state-file' }),
      savedAt: z
        .string()
        .nullable()
        .meta({ description: 'When it was last written whole; null before the first save' }),
      error: z.string().nullable().meta({ description: 'Why the last save failed, until one succeeds; else null' }),
      save: z.enum(['always', 'interval']).meta({
        description:
          'always: every change is on disk before its answer (--state-save always, the default); interval: written at most once per stateSaveIntervalMs',
      }),
      flushes: z.int().min(0).meta({
        description: "always: the change log's flushes since the start (one for the writes that arrive together)",
      }),
      flushedChanges: z.int().min(0).meta({ description: 'always: the changes those flushes held' }),
    })
    .nullable()
    .meta({ description: 'The state file the server keeps (--state-file); null without one' }),
  limits: z
    .record(
      z.enum(LIMIT_NAMES),
      z.object({
        budget: z.int().min(0),
        used: z.int().min(0).nullable().meta({ description: 'Use now; null for a budget that bounds each request' }),
        unit: z.enum(['bytes', 'count', 'ms', 'characters', 'levels']),
      }),
    )
    .meta({ description: 'Every budget of the limits table beside its use now' }),
})

export const TenantSchema = z.object({
  id: z.string().meta({ description: 'The handle that names the tenant in ?tenant=, never its key' }),
  label: z.string().meta({ description: '"default", or the key masked: its first and last characters and its length' }),
  hue: z
    .int()
    .min(0)
    .max(330)
    .meta({ description: 'A colour that stays with the key, as a hue in degrees (0, 30, ... 330); never reveals it' }),
  pets: z.int().min(0),
  createdSinceReset: z.int().min(0),
})

export const PetPageSchema = z.object({
  total: z.int().min(0).meta({ description: 'Pets matching the filter in the whole store' }),
  offset: z.int().min(0),
  limit: z.int().min(1),
  pets: z.array(PetSchema.extend({ created: z.boolean().meta({ description: 'Created since the last reset' }) })),
})

export const TrafficSchema = z.object({
  seconds: z.int(),
  now: z.int().meta({ description: 'Epoch milliseconds' }),
  series: z.array(
    z.object({
      t: z.int().meta({ description: 'Epoch seconds' }),
      c2xx: z.int(),
      c3xx: z.int(),
      c4xx: z.int(),
      c5xx: z.int(),
    }),
  ),
})

export type SandboxHealth = z.infer<typeof SandboxHealthSchema>
export type PetPage = z.infer<typeof PetPageSchema>
export type Tenant = z.infer<typeof TenantSchema>
export type Traffic = z.infer<typeof TrafficSchema>
export type CheckpointInput = z.input<typeof CheckpointInputSchema>
export type Checkpoint = z.infer<typeof CheckpointSchema>
export type HoldInput = z.input<typeof HoldInputSchema>
/** Which operations to forward: a list (`[]` for none), or `all`. */
export type ForwardingInput = z.infer<typeof ForwardingInputSchema>
