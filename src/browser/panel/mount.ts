/**
 * Mounts the panel: one host element appended to the page's body, an open shadow root holding the
 * panel and its styles, and the shortcut's keydown listener on the window. Everything it adds is
 * that one element and that one listener, and `unmount()` takes both away.
 *
 * The shadow root is open, not closed: a closed one would hide nothing from the page's scripts
 * (they share its realm, and could wrap attachShadow), but it would hide the panel from the tools
 * that check it, axe-core and Playwright's locators among them. Style isolation is the same either way.
 *
 * May import: src/browser/panel, and types from src/core/sandbox.ts. Nothing at run time from the core.
 */
import { createActions } from './actions.js'
import { checkPanelOptions, type PanelOptions } from './panel-options.js'
import { checkPanelSandbox, type PanelSandbox } from './panel-sandbox.js'
import { PANEL_CSS } from './styles.js'
import { buildView } from './view.js'

/** The mounted panel's controls, for a page that opens it its own way (a button, a query parameter). */
export interface MountedPanel {
  /** Opens the panel and moves focus into it. */
  open(): void
  /** Closes it; focus goes back to where it was before it opened. */
  close(): void
  toggle(): void
  isOpen(): boolean
  /** Takes the panel and its shortcut out of the page; the other methods then do nothing. */
  unmount(): void
}

/** A name of our own: no page styles `petstore-sandbox-panel` by its tag, as it might `div` or `aside`. */
export const HOST_TAG = 'petstore-sandbox-panel'

/**
 * Mounts the sandbox's control panel in the page, closed: Alt+Shift+P (or `options.shortcut`)
 * opens and closes it. A wrong argument throws a TypeError naming it, here; nothing after that
 * throws into the page.
 *
 * @example
 * const sandbox = createSandbox()
 * await setupWorker(...sandbox.handlers).start()
 * mountPanel(sandbox, { onChange: () => void reloadList() })
 */
export function mountPanel(sandbox: PanelSandbox, options: PanelOptions = {}): MountedPanel {
  if (typeof document === 'undefined' || typeof window === 'undefined') {
    throw new TypeError('mountPanel needs a browser page (a document); in Node, the dashboard at /__sandbox/ does this')
  }
  checkPanelSandbox(sandbox)
  const { shortcut, onChange } = checkPanelOptions(options)

  const host = document.createElement(HOST_TAG)
  const root = host.attachShadow({ mode: 'open' })
  adoptStyles(root)
  const view = buildView(shortcut.label)
  root.append(view.panel)
  const actions = createActions(sandbox, view, onChange)

  let mounted = true
  let before: Element | null = null

  const open = () => {
    if (!mounted || !view.panel.hidden) return
    // A page that rebuilt its body since (a framework's first render) took the host out with it.
    if (!host.isConnected) attach(host)
    before = document.activeElement
    view.panel.hidden = false
    void actions.refresh()
    view.close.focus()
  }
  const close = () => {
    if (!mounted || view.panel.hidden) return
    const hadFocus = root.activeElement !== null
    view.panel.hidden = true
    // Focus goes back only from inside the panel: a page that took it elsewhere keeps it there.
    if (hadFocus && before instanceof HTMLElement && before.isConnected) before.focus()
    before = null
  }
  const toggle = () => {
    if (view.panel.hidden) open()
    else close()
  }

  const onKey = (event: KeyboardEvent) => {
    if (event.repeat || !shortcut.matches(event)) return
    event.preventDefault()
    toggle()
  }
  // Capture: a page handler that stops the event's propagation does not swallow the shortcut.
  window.addEventListener('keydown', onKey, true)

  view.panel.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || event.isComposing) return
    // The page's own Escape handlers (its modal, its menu) are not closed along with the panel.
    event.stopPropagation()
    event.preventDefault()
    close()
  })
  // Requests use up scenarios while the panel is open: looking at it, or moving into it, reads them again.
  view.panel.addEventListener('focusin', (event) => {
    if (!view.panel.contains(event.relatedTarget as Node | null)) void actions.refresh()
  })
  view.panel.addEventListener('pointerenter', () => void actions.refresh())

  view.close.addEventListener('click', close)
  view.reset.addEventListener('click', () => void actions.reset())
  for (const preset of view.presets) {
    preset.button.addEventListener('click', () => void actions.addScenario(preset.label, preset.input))
  }
  view.clear.addEventListener('click', () => void actions.clearScenarios())
  view.save.addEventListener('submit', (event) => {
    event.preventDefault()
    void actions.save(view.name.value.trim())
  })

  attach(host)

  return {
    open,
    close,
    toggle,
    isOpen: () => mounted && !view.panel.hidden,
    unmount() {
      if (!mounted) return
      close()
      mounted = false
      window.removeEventListener('keydown', onKey, true)
      host.remove()
    },
  }
}

/** At the end of the body; a script that runs before <body> exists (in <head>) puts it in <html>. */
function attach(host: HTMLElement): void {
  // Typed as always there, but null while <head> runs.
  const body = document.body as HTMLElement | null
  ;(body ?? document.documentElement).append(host)
}

/**
 * A constructed style sheet where the browser has them: a page whose Content-Security-Policy
 * refuses inline styles (`style-src 'self'`, common on static hosts) refuses a <style> element in
 * a shadow root too, but not a sheet built through the CSSOM.
 */
function adoptStyles(root: ShadowRoot): void {
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet.prototype.replaceSync === 'function') {
    const sheet = new CSSStyleSheet()
    sheet.replaceSync(PANEL_CSS)
    root.adoptedStyleSheets = [sheet]
    return
  }
  const style = document.createElement('style')
  style.textContent = PANEL_CSS
  root.append(style)
}
