/**
 * What the panel drives: the in-process sandbox the page already has (`createSandbox()`), through
 * its facade's own methods, never over the network. Only these five, so a page may hand it a
 * sandbox of its own making (a persisted one, a wrapper) as long as it has them.
 *
 * May import: src/browser/panel, and types from src/core/sandbox.ts. Nothing at run time from the core.
 */
import type { SandboxCore } from '../../core/sandbox.js'

/** The part of a sandbox the panel calls: reset, the shared scenarios, and the checkpoints. */
export type PanelSandbox = Pick<SandboxCore, 'reset' | 'scenarios' | 'checkpoint' | 'checkpoints' | 'rewind'>

export type PanelScenario = ReturnType<PanelSandbox['scenarios']['list']>[number]
export type PanelScenarioInput = Parameters<PanelSandbox['scenarios']['add']>[0]
export type PanelCheckpoint = Awaited<ReturnType<PanelSandbox['checkpoints']>>[number]

const METHODS = ['reset', 'checkpoint', 'checkpoints', 'rewind'] as const
const SCENARIO_METHODS = ['add', 'list', 'clear'] as const

/**
 * Refuses, naming what is missing, anything that is not a sandbox: a mistake in the page's own
 * code, told at the call that made it rather than at the first button pressed.
 */
export function checkPanelSandbox(value: unknown): asserts value is PanelSandbox {
  const problem = 'mountPanel(sandbox) takes the sandbox from createSandbox()'
  if (typeof value !== 'object' || value === null) {
    throw new TypeError(`${problem}; got ${value === null ? 'null' : typeof value}`)
  }
  const record = value as Record<string, unknown>
  const scenarios = record.scenarios as Record<string, unknown> | null | undefined
  const missing = [
    ...METHODS.filter((name) => typeof record[name] !== 'function'),
    ...SCENARIO_METHODS.filter((name) => typeof scenarios?.[name] !== 'function').map((name) => `scenarios.${name}`),
  ]
  if (missing.length > 0) throw new TypeError(`${problem}; this one has no ${missing.join(', ')}`)
}
