/**
 * What `--state-file` keeps: the data (pets and the id sequence) and the checkpoints of the
 * shared tenant, in one JSON document. Made here and checked here, the way a state import is:
 * every problem named at once, nothing used when one is wrong.
 *
 * May import: core/admin, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { checkObject, checkStoreState, type Checked, type Pet, type StoreState } from '../api/contract.js'
import { checkpointNameProblem, type Checkpoint } from './checkpoints.js'
import { ScenarioInputSchema, type ScenarioInput } from './contract.js'

/** The format's version: a file of another version is refused, never guessed at. */
export const PERSISTED_VERSION = 1

/** A state file's data, checked. */
export interface Persisted {
  readonly state: StoreState
  readonly checkpoints: readonly Omit<Checkpoint, 'bytes'>[]
}

const TOP_KEYS = ['version', 'savedAt', 'pets', 'nextId', 'checkpoints']
const CHECKPOINT_KEYS = ['name', 'savedAt', 'pets', 'nextId', 'scenarios']

/**
 * The file's text for the shared data and its checkpoints: one pet per line, so a person can
 * read it and a diff shows what changed, without the size of full indentation.
 */
export function persistedText(state: StoreState, checkpoints: readonly Checkpoint[], savedAt: string): string {
  const field = (name: string, value: unknown) => `${JSON.stringify(name)}: ${JSON.stringify(value)}`
  const pets = (list: readonly Pet[], indent: string) =>
    list.length === 0 ? '[]' : `[\n${list.map((pet) => `${indent} ${JSON.stringify(pet)}`).join(',\n')}\n${indent}]`
  const checkpointText = (checkpoint: Checkpoint) =>
    [
      '  {',
      `   ${field('name', checkpoint.name)},`,
      `   ${field('savedAt', checkpoint.savedAt)},`,
      `   ${field('nextId', checkpoint.state.nextId)},`,
      ...(checkpoint.scenarioInputs === undefined ? [] : [`   ${field('scenarios', checkpoint.scenarioInputs)},`]),
      `   "pets": ${pets(checkpoint.state.pets, '   ')}`,
      '  }',
    ].join('\n')
  return [
    '{',
    ` ${field('version', PERSISTED_VERSION)},`,
    ` ${field('savedAt', savedAt)},`,
    ` ${field('nextId', state.nextId)},`,
    ` "pets": ${pets(state.pets, ' ')},`,
    ` "checkpoints": ${checkpoints.length === 0 ? '[]' : `[\n${checkpoints.map(checkpointText).join(',\n')}\n ]`}`,
    '}',
    '',
  ].join('\n')
}

/** Checks a state file's JSON: the data as an import is checked, each checkpoint the same way. */
export function checkPersisted(input: unknown): Checked<Persisted> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return {
      ok: false,
      problems: [`the file must hold a JSON object, got ${Array.isArray(input) ? 'an array' : JSON.stringify(input)}`],
    }
  }
  const document = input as Record<string, unknown>
  const problems: string[] = []
  for (const key of Object.keys(document)) if (!TOP_KEYS.includes(key)) problems.push(`unknown field ${key}`)
  if (document.version !== PERSISTED_VERSION) {
    problems.push(`version must be ${PERSISTED_VERSION}, got ${describe(document.version)}`)
  }
  const state = checkStoreState({ pets: document.pets, nextId: document.nextId })
  if (!state.ok) problems.push(...state.problems)
  const checkpoints: Omit<Checkpoint, 'bytes'>[] = []
  const raw = document.checkpoints ?? []
  if (!Array.isArray(raw)) problems.push('checkpoints must be an array')
  const names = new Map<string, number>()
  for (const [index, entry] of (Array.isArray(raw) ? (raw as unknown[]) : []).entries()) {
    const at = `checkpoints.${index}`
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`${at} must be a JSON object`)
      continue
    }
    const fields = entry as Record<string, unknown>
    for (const key of Object.keys(fields))
      if (!CHECKPOINT_KEYS.includes(key)) problems.push(`${at}: unknown field ${key}`)
    const nameProblem = checkpointNameProblem(fields.name)
    if (nameProblem !== undefined) problems.push(`${at}.${nameProblem}`)
    const name = String(fields.name)
    const earlier = names.get(name)
    if (nameProblem === undefined && earlier !== undefined)
      problems.push(`${at}.name ${name} is already used by checkpoints.${earlier}`)
    names.set(name, index)
    const savedAt = fields.savedAt
    if (typeof savedAt !== 'string' || Number.isNaN(Date.parse(savedAt))) {
      problems.push(`${at}.savedAt must be a date (ISO 8601), got ${describe(savedAt)}`)
    }
    const saved = checkStoreState({ pets: fields.pets, nextId: fields.nextId })
    if (!saved.ok) problems.push(...saved.problems.map((problem) => `${at}.${problem}`))
    let scenarios: ScenarioInput[] | undefined
    if (fields.scenarios !== undefined) {
      if (!Array.isArray(fields.scenarios)) {
        problems.push(`${at}.scenarios must be an array`)
      } else {
        scenarios = []
        for (const [position, scenario] of (fields.scenarios as unknown[]).entries()) {
          const checked = checkObject(ScenarioInputSchema, scenario, `${at}.scenarios.${position}`)
          if (checked.ok) scenarios.push(scenario as ScenarioInput)
          else problems.push(...checked.problems.map((problem) => `${at}.scenarios.${position}.${problem}`))
        }
      }
    }
    if (saved.ok && nameProblem === undefined && typeof savedAt === 'string') {
      checkpoints.push({
        name,
        savedAt,
        pets: saved.value.pets.length,
        nextId: saved.value.nextId,
        scenarios: scenarios !== undefined,
        state: saved.value,
        scenarioInputs: scenarios,
      })
    }
  }
  if (problems.length > 0 || !state.ok) return { ok: false, problems }
  return { ok: true, value: { state: state.value, checkpoints } }
}

function describe(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value)
}
