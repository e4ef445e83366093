/**
 * THE state document: the data (pets and the id sequence) and the checkpoints of one tenant, in
 * one JSON document. What `--state-file` keeps, what `GET /__sandbox/state` answers, what a
 * browser's storage holds and `sandbox.exportState()` gives. Made here and checked here, the way
 * a state import is: every problem named at once, nothing used when one is wrong. The older
 * download, `{pets, nextId}` alone, is still read where a state is given: its data only.
 *
 * May import: core/admin, core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import * as z from 'zod'
import {
  checkObject,
  checkStoreState,
  checkStoreStateInSlices,
  isPlainObject,
  type Checked,
  type Pet,
  type StoreState,
} from '../api/contract.js'
import { petText } from '../api/store.js'
import { preview } from '../http/json.js'
import { CheckpointNameSchema, type Checkpoint } from '../state/checkpoint-pool.js'
import { isIsoDate } from '../state/clock.js'
import { MAX_SCENARIOS, ScenarioInputSchema, type ScenarioInput } from '../state/shapes.js'

/** The format's version: a file of another version is refused, never guessed at. */
export const PERSISTED_VERSION = 1

/** A state file's data, checked. */
export interface Persisted {
  readonly state: StoreState
  readonly checkpoints: readonly Omit<Checkpoint, 'bytes'>[]
  /**
   * `document`: the whole format, whose checkpoints replace the tenant's. `data`: the older
   * download (`{pets, nextId}`, before 0.14), which holds no checkpoints: they are left as they are.
   */
  readonly shape: 'document' | 'data'
}

/** The older download's keys: an object of these only, without `version`, is read as data alone. */
const DATA_KEYS = ['pets', 'nextId']

/** Pets serialised in one step: a few milliseconds, then a pause for the requests waiting. */
const PETS_PER_SLICE = 5_000

/**
 * The file's text in pieces, for the shared data and its checkpoints: one pet per line, so a
 * person can read it and a diff shows what changed. The live pets are taken in one step (a
 * consistent state) and serialised a slice at a time with a pause between, so a large state
 * never holds the API for long and never makes one string past what V8 allows. A checkpoint
 * never changes: its text is made once, the first time it is written, and kept with it.
 */
export async function* persistedChunks(
  view: { readonly pets: readonly Pet[]; readonly nextId: number },
  checkpoints: readonly Checkpoint[],
  savedAt: string,
  pause: () => Promise<void>,
): AsyncGenerator<string> {
  const field = (name: string, value: unknown) => `${JSON.stringify(name)}: ${JSON.stringify(value)}`
  yield `{\n ${field('version', PERSISTED_VERSION)},\n ${field('savedAt', savedAt)},\n ${field('nextId', view.nextId)},\n "pets": `
  yield* petLines(view.pets, ' ', pause)
  yield ',\n "checkpoints": '
  if (checkpoints.length === 0) yield '[]'
  for (const [index, checkpoint] of checkpoints.entries()) {
    yield index === 0 ? '[\n' : ',\n'
    let text = CHECKPOINT_TEXT.get(checkpoint)
    if (text === undefined) {
      const pieces = [
        '  {\n',
        `   ${field('name', checkpoint.name)},\n`,
        `   ${field('savedAt', checkpoint.savedAt)},\n`,
        `   ${field('nextId', checkpoint.state.nextId)},\n`,
        ...(checkpoint.scenarioInputs === undefined ? [] : [`   ${field('scenarios', checkpoint.scenarioInputs)},\n`]),
        '   "pets": ',
      ]
      for await (const piece of petLines(checkpoint.state.pets, '   ', pause)) pieces.push(piece)
      pieces.push('\n  }')
      text = pieces
      CHECKPOINT_TEXT.set(checkpoint, text)
    }
    yield* text
  }
  if (checkpoints.length > 0) yield '\n ]'
  yield '\n}\n'
}

/** Each checkpoint's text, made once: weak, so a deleted checkpoint's goes with it. */
const CHECKPOINT_TEXT = new WeakMap<Checkpoint, string[]>()

async function* petLines(pets: readonly Pet[], indent: string, pause: () => Promise<void>): AsyncGenerator<string> {
  if (pets.length === 0) {
    yield '[]'
    return
  }
  yield '['
  for (let start = 0; start < pets.length; start += PETS_PER_SLICE) {
    if (start > 0) await pause()
    const lines: string[] = []
    for (const pet of pets.slice(start, start + PETS_PER_SLICE)) lines.push(`\n${indent} ${petText(pet)}`)
    yield (start === 0 ? '' : ',') + lines.join(',')
  }
  yield `\n${indent}]`
}

/**
 * Checks a state's JSON: the document (the data as an import is checked, each checkpoint the same
 * way), or the older `{pets, nextId}`. `subject` names the whole in a message: "the file", "body".
 */
export function checkPersisted(input: unknown, subject = 'the file', petsChecked = false): Checked<Persisted> {
  const steps = checkSteps(input, subject)
  for (let step = steps.next(); ;) {
    if (step.done === true) return step.value
    step = steps.next(checkStoreState(step.value, petsChecked))
  }
}

/** checkPersisted for a large state (an import): the pets checked in slices, pausing between them. */
export async function checkPersistedInSlices(
  input: unknown,
  pause: () => Promise<void>,
  subject = 'body',
): Promise<Checked<Persisted>> {
  const steps = checkSteps(input, subject)
  for (let step = steps.next(); ;) {
    if (step.done === true) return step.value
    step = steps.next(await checkStoreStateInSlices(step.value, pause))
  }
}

/** The older download: an object of `pets` and `nextId` only, with no `version` to say otherwise. */
function isDataOnly(document: Record<string, unknown>): boolean {
  return document.version === undefined && Object.keys(document).every((key) => DATA_KEYS.includes(key))
}

/** A date and time with its zone whose day exists, as the sandbox writes them (state/clock.ts). */
const SavedAtSchema = z.custom<string>((value) => typeof value === 'string' && isIsoDate(value, true), {
  error: (issue) => `must be a date (ISO 8601), got ${describe(issue.input)}`,
})

/**
 * A checkpoint as the document holds it, its `{pets, nextId}` left to the store's check (whole or
 * in slices, with its budget of problems): walking 8 MiB of pets twice would cost a second check.
 */
const CheckpointShellSchema = z
  .object({
    name: CheckpointNameSchema,
    savedAt: SavedAtSchema,
    nextId: z.unknown(),
    pets: z.unknown(),
    scenarios: z
      .array(ScenarioInputSchema)
      .refine((scenarios) => scenarios.length <= MAX_SCENARIOS, {
        error: (issue) => `holds ${(issue.input as unknown[]).length}, more than the ${MAX_SCENARIOS} a sandbox keeps`,
      })
      .optional(),
  })
  .strict()

/** The document around its data, checked as admin/contract.ts's StateDocumentSchema describes it. */
const DocumentShellSchema = z
  .object({
    version: z.custom<typeof PERSISTED_VERSION>((value) => value === PERSISTED_VERSION, {
      error: (issue) => `must be ${PERSISTED_VERSION}, got ${describe(issue.input)}`,
    }),
    savedAt: SavedAtSchema.optional(),
    nextId: z.unknown(),
    pets: z.unknown(),
    checkpoints: z
      .array(CheckpointShellSchema)
      .superRefine((checkpoints, context) => {
        const names = new Map<string, number>()
        for (const [index, { name }] of checkpoints.entries()) {
          const earlier = names.get(name)
          if (earlier !== undefined) {
            context.addIssue({
              code: 'custom',
              path: [index, 'name'],
              message: `${name} is already used by checkpoints.${earlier}`,
            })
          }
          names.set(name, index)
        }
      })
      .optional(),
  })
  .strict()

/**
 * The checks, in one place for both ways of running them: the document's shell by its schema,
 * then each `{pets, nextId}` met (the data, then each checkpoint's) is yielded, and the caller
 * sends back its check, whole or in slices. Every problem is named at once.
 */
function* checkSteps(input: unknown, subject: string): Generator<unknown, Checked<Persisted>, Checked<StoreState>> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    const must = subject === 'the file' ? 'the file must hold a JSON object' : `${subject} must be a JSON object`
    return { ok: false, problems: [`${must}, got ${Array.isArray(input) ? 'an array' : preview(input)}`] }
  }
  const document = input as Record<string, unknown>
  if (isDataOnly(document)) {
    const data = yield document
    return data.ok ? { ok: true, value: { state: data.value, checkpoints: [], shape: 'data' } } : data
  }
  const shell = checkObject(DocumentShellSchema, document, subject)
  const problems = shell.ok ? [] : [...shell.problems]
  const state = yield { pets: document.pets, nextId: document.nextId }
  if (!state.ok) problems.push(...state.problems)
  const checkpoints: Omit<Checkpoint, 'bytes'>[] = []
  const raw = Array.isArray(document.checkpoints) ? (document.checkpoints as unknown[]) : []
  for (const [index, entry] of raw.entries()) {
    if (!isPlainObject(entry)) continue
    const saved = yield { pets: entry.pets, nextId: entry.nextId }
    if (!saved.ok) problems.push(...saved.problems.map((problem) => `checkpoints.${index}.${problem}`))
    else if (shell.ok) {
      // The scenarios as they were written (no default filled in), so the file reads back the same.
      const scenarios = entry.scenarios as ScenarioInput[] | undefined
      checkpoints.push({
        name: entry.name as string,
        savedAt: entry.savedAt as string,
        pets: saved.value.pets.length,
        nextId: saved.value.nextId,
        scenarios: scenarios !== undefined,
        state: saved.value,
        scenarioInputs: scenarios,
      })
    }
  }
  if (problems.length > 0 || !state.ok) return { ok: false, problems }
  return { ok: true, value: { state: state.value, checkpoints, shape: 'document' } }
}

function describe(value: unknown): string {
  return value === undefined ? 'nothing' : preview(value)
}
