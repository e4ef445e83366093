/**
 * Colours for the banner and the access log: only on a terminal that takes them. Node decides
 * (`tty.WriteStream#hasColors`): it honours NO_COLOR, NODE_DISABLE_COLORS, FORCE_COLOR and
 * TERM=dumb, and a pipe or a file is never a terminal, so logs redirected to a file stay plain.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { styleText } from 'node:util'
import { statusClass } from '../core/state/counters.js'

type Style = Parameters<typeof styleText>[0]

/** Wraps text in a terminal style, or leaves it as it is. */
export type Paint = (style: Style, text: string) => string

export const plain: Paint = (_style, text) => text

// paintFor has decided already; Node 22's styleText would otherwise judge process.stdout again.
export const coloured: Paint = (style, text) => styleText(style, text, { validateStream: false })

/** Colours when the stream is a terminal that takes them. */
export function paintFor(stream: NodeJS.WriteStream): Paint {
  return stream.isTTY && stream.hasColors() ? coloured : plain
}

/**
 * Text for the terminal with its control characters (but the line breaks) written as `\u001b`:
 * commander quotes a bad value as it was given ("argument '...' is invalid"), and a value with an
 * escape sequence would otherwise clear the screen or restyle what follows.
 */
export function printable(text: string): string {
  return text.replace(/[^\P{Cc}\n]/gu, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

const CLASS_STYLES: Readonly<Record<2 | 3 | 4 | 5, Style>> = { 2: 'green', 3: 'cyan', 4: 'yellow', 5: 'red' }

/** A status by its class (the core's statusClass): 2xx green, 3xx cyan, 4xx yellow, 5xx red. */
export function statusStyle(status: number): Style {
  return CLASS_STYLES[statusClass(status)]
}

/** The terminal's six colours, by hue: the nearest one to a tenant's hue (labelTenant). */
const HUES: readonly Style[] = ['red', 'yellow', 'green', 'cyan', 'blue', 'magenta']

export function hueStyle(hue: number): Style {
  return HUES[Math.round(hue / 60) % HUES.length] ?? 'white'
}

/**
 * What an access log line says of a request sent to the upstream: `→ upstream`, its answer's
 * contract violations when it has any, and, on the first answer left unrecorded for its cause,
 * why (the journal says it of every such answer; the log says it once, not once a request).
 */
export function upstreamMark(
  forwarded: { readonly violations: number; readonly more: boolean; readonly unrecorded?: string },
  paint: Paint,
): string {
  const { violations, more, unrecorded } = forwarded
  const broken =
    violations === 0
      ? ''
      : paint('yellow', `, ${violations}${more ? '+' : ''} contract violation${violations === 1 && !more ? '' : 's'}`)
  const kept =
    unrecorded === undefined ? '' : paint('yellow', `, ${unrecorded} (said once; the journal says it of each call)`)
  return ` → upstream${broken}${kept}`
}
