/**
 * The panel's options, checked when it is mounted: a wrong one is the page's own mistake, refused
 * there with a TypeError naming it (as createSandbox refuses an unknown option), never later in
 * front of an audience. The keyboard shortcut is parsed here into a test of a keydown event.
 *
 * May import: src/browser/panel, and types from src/core/sandbox.ts. Nothing at run time from the core.
 */

/** What a panel action changed, for `onChange`. */
export type PanelChange = 'reset' | 'scenarios' | 'checkpoint' | 'rewind'

export interface PanelOptions {
  /**
   * The keys that open and close the panel: modifiers (`Alt`, `Shift`, `Ctrl`, `Meta`) and one
   * key, joined with `+`. Default `'Alt+Shift+P'`. `false`: no shortcut; the page calls `open()`.
   */
  readonly shortcut?: string | false
  /**
   * Called after an action of the panel changed the data or the scenarios (`'reset'`,
   * `'scenarios'`, `'checkpoint'`, `'rewind'`), for the page to show it, e.g. reload its list.
   * What it throws is shown in the panel.
   */
  readonly onChange?: (change: PanelChange) => void
}

export const DEFAULT_SHORTCUT = 'Alt+Shift+P'

const KNOWN = ['shortcut', 'onChange'] as const

/** A keydown test, and the shortcut's name as the panel shows it (empty without one). */
export interface Shortcut {
  readonly matches: (event: KeyboardEvent) => boolean
  readonly label: string
}

export interface CheckedOptions {
  readonly shortcut: Shortcut
  readonly onChange: ((change: PanelChange) => void) | undefined
}

export function checkPanelOptions(options: unknown): CheckedOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`mountPanel's options must be an object (shortcut, onChange); got ${describe(options)}`)
  }
  const record = options as Record<string, unknown>
  const unknown = Object.keys(record).filter((name) => !(KNOWN as readonly string[]).includes(name))
  if (unknown.length > 0) {
    throw new TypeError(`mountPanel has no option ${unknown.join(', ')} (it takes ${KNOWN.join(', ')})`)
  }
  const { shortcut = DEFAULT_SHORTCUT, onChange } = record
  if (onChange !== undefined && typeof onChange !== 'function') {
    throw new TypeError(`mountPanel's onChange must be a function; got ${describe(onChange)}`)
  }
  return {
    shortcut: parseShortcut(shortcut),
    onChange: onChange as ((change: PanelChange) => void) | undefined,
  }
}

const MODIFIERS: Record<string, 'alt' | 'shift' | 'ctrl' | 'meta'> = {
  alt: 'alt',
  option: 'alt',
  shift: 'shift',
  ctrl: 'ctrl',
  control: 'ctrl',
  meta: 'meta',
  cmd: 'meta',
}

/**
 * `'Alt+Shift+P'` as a keydown test. A letter or digit is matched by the physical key
 * (`event.code`) as well as by the character: with Alt held, macOS types another character
 * (Alt+Shift+P gives `∏`), so `event.key` alone would never match there.
 */
export function parseShortcut(value: unknown): Shortcut {
  if (value === false) return { matches: () => false, label: '' }
  const wrong = (why: string) =>
    new TypeError(
      `mountPanel's shortcut ${describe(value)} ${why}: write modifiers and one key joined with +, like '${DEFAULT_SHORTCUT}', or false for none`,
    )
  if (typeof value !== 'string') throw wrong('is not a string')
  const parts = value.split('+').map((part) => part.trim())
  const key = parts.pop() ?? ''
  if (key === '') throw wrong('names no key')
  const wanted = { alt: false, shift: false, ctrl: false, meta: false }
  for (const part of parts) {
    const modifier = MODIFIERS[part.toLowerCase()]
    if (modifier === undefined) throw wrong(`has ${JSON.stringify(part)}, which is not Alt, Shift, Ctrl or Meta`)
    wanted[modifier] = true
  }
  // A shortcut without Alt, Ctrl or Meta would fire while someone types in the page's own fields.
  if (!wanted.alt && !wanted.ctrl && !wanted.meta) throw wrong('needs Alt, Ctrl or Meta')
  const code = /^[a-z]$/i.test(key) ? `Key${key.toUpperCase()}` : /^\d$/.test(key) ? `Digit${key}` : undefined
  const lower = key.toLowerCase()
  return {
    matches: (event) =>
      event.altKey === wanted.alt &&
      event.shiftKey === wanted.shift &&
      event.ctrlKey === wanted.ctrl &&
      event.metaKey === wanted.meta &&
      (event.code === code || event.key.toLowerCase() === lower),
    label: value,
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object' || typeof value === 'function') return `a ${typeof value}`
  if (typeof value === 'symbol') return value.toString()
  return typeof value === 'bigint' ? `${value}n` : `${value as number | boolean | undefined}`
}
