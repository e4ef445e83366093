/**
 * The panel's elements, built once per mount inside its shadow root: a non-modal dialog with a
 * heading, Reset, the scenario buttons and the active scenarios, the checkpoint form and list,
 * and one status line (role="status") where every action says how it went. Ids are the shadow
 * tree's own, so they meet none of the page's.
 *
 * May import: src/browser/panel, types from src/core/sandbox.ts, and at run time only core files that
 * import nothing (state/scenario-words.ts).
 */
import { describeScenario } from '../../core/state/scenario-words.js'
import type { PanelCheckpoint, PanelScenario, PanelScenarioInput } from './panel-sandbox.js'

/** The scenarios a presenter reaches for: an error state, a slow list, an outage. */
export const PRESETS: readonly { readonly label: string; readonly input: PanelScenarioInput }[] = [
  { label: 'Next createPet fails with 503', input: { operation: 'createPet', status: 503, times: 1 } },
  { label: 'listPets slow by 2 s', input: { operation: 'listPets', delayMs: 2000 } },
  { label: 'Every call fails with 500', input: { operation: '*', status: 500 } },
]

export interface PanelView {
  readonly panel: HTMLElement
  readonly close: HTMLButtonElement
  readonly reset: HTMLButtonElement
  readonly presets: readonly {
    readonly button: HTMLButtonElement
    readonly label: string
    readonly input: PanelScenarioInput
  }[]
  readonly clear: HTMLButtonElement
  readonly scenarios: HTMLUListElement
  readonly save: HTMLFormElement
  readonly name: HTMLInputElement
  readonly checkpoints: HTMLUListElement
  readonly status: HTMLElement
}

type Child = Node | string

function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value)
  element.append(...children)
  return element
}

const button = (label: string, attributes: Record<string, string> = {}) =>
  h('button', { type: 'button', ...attributes }, label)

/** The panel, closed. `shortcut` is the shortcut's name for the hint ('' when there is none). */
export function buildView(shortcut: string): PanelView {
  const close = button('Close')
  const reset = button('Reset to the seed')
  const presets = PRESETS.map((preset) => ({ ...preset, button: button(preset.label) }))
  const clear = button('Clear scenarios')
  const scenarios = h('ul', { 'aria-label': 'Active scenarios' })
  const name = h('input', {
    id: 'checkpoint-name',
    type: 'text',
    autocomplete: 'off',
    spellcheck: 'false',
    maxlength: '64',
    placeholder: 'before-demo',
  })
  const save = h('form', {}, name, h('button', { type: 'submit' }, 'Save checkpoint'))
  const checkpoints = h('ul', { 'aria-label': 'Saved checkpoints' })
  const status = h('p', { class: 'status', role: 'status' })
  const hint =
    shortcut === '' ? 'Escape closes this panel.' : `${shortcut} opens and closes this panel; Escape closes it.`
  const panel = h(
    'section',
    { class: 'panel', role: 'dialog', 'aria-modal': 'false', 'aria-labelledby': 'panel-title' },
    h('header', {}, h('h2', { id: 'panel-title' }, 'Pet Store sandbox'), close),
    h('h3', { id: 'data-title' }, 'Data'),
    h('div', { class: 'buttons', role: 'group', 'aria-labelledby': 'data-title' }, reset),
    h('h3', { id: 'scenarios-title' }, 'Scenarios'),
    h(
      'div',
      { class: 'buttons', role: 'group', 'aria-labelledby': 'scenarios-title' },
      ...presets.map((preset) => preset.button),
      clear,
    ),
    scenarios,
    h('h3', { id: 'checkpoints-title' }, 'Checkpoints'),
    h('label', { for: 'checkpoint-name' }, 'Checkpoint name'),
    save,
    checkpoints,
    status,
    h('p', { class: 'hint' }, hint),
  )
  panel.hidden = true
  return { panel, close, reset, presets, clear, scenarios, save, name, checkpoints, status }
}

/** The active scenarios, in words, as the dashboard words them. */
export function showScenarios(list: HTMLUListElement, scenarios: readonly PanelScenario[]): void {
  list.replaceChildren(
    ...(scenarios.length === 0
      ? [h('li', { class: 'muted' }, 'No scenarios: every call is answered normally.')]
      : scenarios.map((scenario) => h('li', {}, describeScenario(scenario)))),
  )
}

/** The saved checkpoints, each with its Rewind button; `rewind` is called with its name. */
export function showCheckpoints(
  list: HTMLUListElement,
  checkpoints: readonly PanelCheckpoint[],
  rewind: (name: string) => void,
): void {
  list.replaceChildren(
    ...(checkpoints.length === 0
      ? [h('li', { class: 'muted' }, 'No checkpoints yet.')]
      : checkpoints.map((checkpoint) => {
          const go = button('Rewind', { 'aria-label': `Rewind to ${checkpoint.name}` })
          go.addEventListener('click', () => {
            rewind(checkpoint.name)
          })
          const pets = `${checkpoint.pets} pet${checkpoint.pets === 1 ? '' : 's'}`
          return h('li', {}, h('span', {}, `${checkpoint.name} (${pets}, ${when(checkpoint.savedAt)})`), go)
        })),
  )
}

function when(iso: string): string {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleTimeString('en-GB', { hour12: false })
}
