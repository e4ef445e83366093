/**
 * What the panel's buttons do, each a call on the in-process sandbox: no request leaves the page.
 * Every action ends in the status line, in words, whether it worked or not: nothing it does ever
 * throws into the page (an error, even the page's own onChange failing, is shown there), and the
 * lists are read again after it.
 *
 * May import: src/browser/panel, and types from src/core/sandbox.ts. Nothing at run time from the core.
 */
import type { PanelChange } from './panel-options.js'
import type { PanelSandbox, PanelScenarioInput } from './panel-sandbox.js'
import { showCheckpoints, showScenarios, type PanelView } from './view.js'

export interface PanelActions {
  /** Reads the scenarios and the checkpoints again into the panel. */
  refresh(): Promise<void>
  reset(): Promise<void>
  addScenario(label: string, input: PanelScenarioInput): Promise<void>
  clearScenarios(): Promise<void>
  save(name: string): Promise<void>
  rewind(name: string): Promise<void>
}

export function createActions(
  sandbox: PanelSandbox,
  view: PanelView,
  onChange: ((change: PanelChange) => void) | undefined,
): PanelActions {
  // The newest listing wins: an older one answering late is dropped.
  let listing = 0

  const say = (message: string, kind: 'done' | 'error') => {
    view.status.textContent = message
    view.status.dataset.kind = kind
  }

  const refresh = async () => {
    const mine = ++listing
    try {
      showScenarios(view.scenarios, sandbox.scenarios.list())
      const checkpoints = await sandbox.checkpoints()
      if (mine === listing) showCheckpoints(view.checkpoints, checkpoints, (name) => void rewind(name))
    } catch (error) {
      if (mine === listing) say(`Could not read the sandbox: ${messageOf(error)}`, 'error')
    }
  }

  /** Runs one action: its outcome in the status line, then `onChange`, then the lists read again. */
  const run = async (failed: string, change: PanelChange, action: () => Promise<string> | string) => {
    view.panel.setAttribute('aria-busy', 'true')
    try {
      say(await action(), 'done')
      try {
        onChange?.(change)
      } catch (error) {
        say(`The page's onChange failed: ${messageOf(error)}`, 'error')
      }
    } catch (error) {
      say(`${failed}: ${messageOf(error)}`, 'error')
    } finally {
      view.panel.removeAttribute('aria-busy')
      await refresh()
    }
  }

  const rewind = (name: string) =>
    run(`Could not rewind to ${name}`, 'rewind', async () => {
      await sandbox.rewind(name)
      return `Rewound to ${name}.`
    })

  return {
    refresh,
    reset: () =>
      run('Could not reset', 'reset', async () => {
        await sandbox.reset()
        return 'Reset: the seed is back, and no scenario is left.'
      }),
    addScenario: (label, input) =>
      run('Could not add the scenario', 'scenarios', () => {
        sandbox.scenarios.add(input)
        return `Scenario added: ${label}.`
      }),
    clearScenarios: () =>
      run('Could not clear the scenarios', 'scenarios', () => {
        sandbox.scenarios.clear()
        return 'Scenarios cleared: every call is answered normally.'
      }),
    save: (name) =>
      run('Could not save the checkpoint', 'checkpoint', async () => {
        if (name === '') throw new Error('give it a name first, like before-demo')
        const saved = await sandbox.checkpoint(name).catch((error: unknown) => {
          // The core's words name the admin route's `"replace": true`, which a presenter has no field for.
          if ((error as { code?: unknown } | null)?.code !== 'conflict') throw error
          throw new Error(`${name} exists already; choose another name, or rewind to it below`)
        })
        return `Checkpoint ${saved.name} saved (${saved.pets} pet${saved.pets === 1 ? '' : 's'}).`
      }),
    rewind,
  }
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message
  try {
    return String(error)
  } catch {
    // A thrown value without a string form (an object with a throwing toString) is still shown.
    return 'an error with no message'
  }
}
