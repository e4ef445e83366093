/**
 * Small DOM helpers shared by the dashboard's panels: element lookup and creation, timers,
 * number formatting and the page-wide status message.
 *
 * May import: nothing (browser DOM only).
 */

/** The element with this id, which the page (src/core/docs/dashboard-page.ts) always renders. */
export function byId(id: string): HTMLElement {
  const element = document.getElementById(id)
  if (element === null) throw new Error(`The page has no #${id}`)
  return element
}

type Child = Node | string | number | null | undefined | false

/** Creates an element with a class (or none) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  if (className !== undefined && className !== '') element.className = className
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    element.append(typeof child === 'number' ? String(child) : child)
  }
  return element
}

/** Calls `run` at most once per `ms`, always after the last call (trailing, never starved). */
export function throttle(run: () => void, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined
  return () => {
    timer ??= setTimeout(() => {
      timer = undefined
      run()
    }, ms)
  }
}

/** Runs `run` now (or after `ms`) and every `ms` while the page is visible; at once when it comes back. */
export function poll(run: () => Promise<void>, ms: number, now = true): void {
  let timer: ReturnType<typeof setTimeout> | undefined
  const tick = async () => {
    clearTimeout(timer)
    timer = undefined
    if (document.hidden) return
    try {
      await run()
    } finally {
      timer = setTimeout(() => void tick(), ms)
    }
  }
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && timer === undefined) void tick()
  })
  if (now) void tick()
  else timer = setTimeout(() => void tick(), ms)
}

const numbers = new Intl.NumberFormat('en')
export const num = (value: number): string => numbers.format(value)

/** How long a message stays in sight. */
const SHOWN_MS = 5000

let sayTimer: ReturnType<typeof setTimeout> | undefined

/**
 * Says something: spoken by the page's polite live region (#status, out of sight), and shown as a
 * toast in the page's flow, right below the control that was used (the focused one), or at the
 * top of the page when none was; it never covers a control, it moves what is below it down. Gone
 * after 5 s, or when the next message comes.
 */
export function say(message: string): void {
  const status = byId('status')
  // Emptied first, so the same message twice is announced twice.
  status.textContent = ''
  clearTimeout(sayTimer)
  for (const shown of document.querySelectorAll('.toast')) shown.remove()
  const toast = h('p', 'toast', message)
  // Spoken by #status already: the toast is for the eye.
  toast.setAttribute('aria-hidden', 'true')
  const used = document.activeElement
  const near = used instanceof HTMLElement && used !== document.body ? used.closest('.row, .field, form') : null
  if (near instanceof HTMLElement && near.offsetParent !== null) near.after(toast)
  else status.after(toast)
  sayTimer = setTimeout(() => {
    status.textContent = message
    sayTimer = setTimeout(() => {
      status.textContent = ''
      toast.remove()
    }, SHOWN_MS)
  }, 50)
}

/** A tenant's colour dot (decorative: the label beside it says who), or nothing without a hue. */
export function swatch(hue: number | null | undefined): HTMLSpanElement | null {
  if (hue === null || hue === undefined) return null
  const dot = h('span', 'tenant-swatch')
  dot.setAttribute('aria-hidden', 'true')
  paintHue(dot, hue)
  return dot
}

/** Colours a swatch with a hue in degrees; without one, app.css keeps it out of sight. */
export function paintHue(dot: HTMLElement, hue: number | undefined): void {
  if (hue === undefined) dot.removeAttribute('style')
  else dot.style.setProperty('--hue', String(hue))
}

/** Shows an error in a role="alert" region (or empties it). */
export function alertIn(id: string, message: string): void {
  byId(id).textContent = message
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * Marks a form as sending, or done: aria-busy on the form, aria-disabled on its buttons (which,
 * unlike disabled, leaves the focus where it was). The forms send nothing while one is on its way,
 * so a second press makes no twin.
 */
export function setSending(form: HTMLFormElement, on: boolean): void {
  if (on) form.setAttribute('aria-busy', 'true')
  else form.removeAttribute('aria-busy')
  for (const button of form.querySelectorAll('button')) button.setAttribute('aria-disabled', String(on))
}

export const isSending = (form: HTMLFormElement): boolean => form.getAttribute('aria-busy') === 'true'
