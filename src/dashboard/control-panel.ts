/**
 * The Controls panel: reset (with an in-page confirm step), scenarios from presets (list,
 * clear), and the state downloaded as a file or uploaded from one.
 *
 * May import: other dashboard files, and core files that import nothing (state/scenario-words.ts).
 */
import { describeScenario } from '../core/state/scenario-words.js'
import { adminUrl, call, getJson, scope, sendJson, type Scenario, type ScenarioInput } from './api.js'
import { alertIn, byId, h, messageOf, say } from './dom.js'
import { loadCheckpoints } from './checkpoints.js'

const PRESETS: readonly (readonly [string, ScenarioInput])[] = [
  ['The next createPet fails with 503', { operation: 'createPet', status: 503, times: 1 }],
  ['listPets slow by 2 s', { operation: 'listPets', delayMs: 2000 }],
  ['getPet answers 404 twice', { operation: 'getPet', status: 404, times: 2 }],
  ['Every call fails with 500 until cleared', { operation: '*', status: 500 }],
]

let scenarioCount = 0
let sequence = 0

export async function loadScenarios(): Promise<void> {
  const mine = ++sequence
  try {
    const scenarios = await getJson<Scenario[]>(adminUrl('/scenarios'))
    if (mine !== sequence) return
    scenarioCount = scenarios.length
    byId('scenarios').replaceChildren(
      ...(scenarios.length === 0 ? [h('li', 'muted', 'No scenarios: every call is answered normally.')] : []),
      ...scenarios.map((scenario) => h('li', undefined, describeScenario(scenario))),
    )
  } catch (error) {
    if (mine === sequence) alertIn('scenarios-error', `Could not list the scenarios: ${messageOf(error)}`)
  }
}

/** True when a request may have used up a scenario, so the list is worth reloading. */
export const hasScenarios = (): boolean => scenarioCount > 0

/** Runs an action, showing its error in the alert region `errorId`; true when it worked. */
async function attempt(errorId: string, action: () => Promise<unknown>): Promise<boolean> {
  alertIn(errorId, '')
  try {
    await action()
    return true
  } catch (error) {
    alertIn(errorId, messageOf(error))
    return false
  }
}

export function setUpControls(afterReset: () => void, afterImport: () => void): void {
  const reset = byId('reset') as HTMLButtonElement
  const confirm = byId('reset-confirm') as HTMLButtonElement
  const cancel = byId('reset-cancel') as HTMLButtonElement
  const confirming = (on: boolean) => {
    reset.hidden = on
    confirm.hidden = !on
    cancel.hidden = !on
    ;(on ? confirm : reset).focus()
  }
  reset.addEventListener('click', () => {
    confirming(true)
  })
  cancel.addEventListener('click', () => {
    confirming(false)
  })
  for (const button of [confirm, cancel]) {
    button.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') confirming(false)
    })
  }
  confirm.addEventListener('click', () => {
    void attempt('reset-error', () => call(adminUrl('/reset'), { method: 'POST' })).then((done) => {
      confirming(false)
      if (!done) return
      say(scope.label === undefined ? 'The data is reset.' : `The data of ${scope.label} is reset.`)
      afterReset()
    })
  })

  const presets = byId('scenario-presets')
  for (const [label, input] of PRESETS) {
    const button = h('button', undefined, label)
    button.type = 'button'
    button.addEventListener('click', () => {
      void attempt('scenarios-error', () => sendJson(adminUrl('/scenarios'), 'POST', input)).then((done) => {
        if (done) say(`Scenario added: ${label}.`)
        return loadScenarios()
      })
    })
    presets.append(button)
  }
  byId('scenarios-clear').addEventListener('click', () => {
    void attempt('scenarios-error', () => call(adminUrl('/scenarios'), { method: 'DELETE' })).then((done) => {
      if (done) say('All scenarios cleared.')
      return loadScenarios()
    })
  })

  byId('state-download').addEventListener('click', () => {
    void attempt('state-error', async () => {
      const blob = await (await call(adminUrl('/state'))).blob()
      const url = URL.createObjectURL(new Blob([blob], { type: 'application/json' }))
      const link = h('a')
      link.href = url
      link.download = 'petstore-state.json'
      document.body.append(link)
      link.click()
      link.remove()
      setTimeout(() => {
        URL.revokeObjectURL(url)
      }, 10_000)
      // The state document: what --state-file starts from, and a browser sandbox's importState() loads.
      say('State saved as petstore-state.json: --state-file petstore-state.json starts a server from it.')
    })
  })

  const upload = byId('state-upload') as HTMLFormElement
  const file = byId('state-file') as HTMLInputElement
  upload.addEventListener('submit', (event) => {
    event.preventDefault()
    const chosen = file.files?.[0]
    if (chosen === undefined) {
      alertIn('state-error', 'Choose a JSON state file first.')
      file.focus()
      return
    }
    void attempt('state-error', () => sendJson(adminUrl('/state'), 'PUT', chosen)).then((done) => {
      if (!done) return
      say(`State replaced from ${chosen.name}.`)
      upload.reset()
      afterImport()
      // A state document brings its checkpoints (the older {pets, nextId} leaves them as they were).
      void loadCheckpoints()
    })
  })
}
