/**
 * Colours for the banner and the access log: only on a terminal that takes them. Node decides
 * (`tty.WriteStream#hasColors`): it honours NO_COLOR, NODE_DISABLE_COLORS, FORCE_COLOR and
 * TERM=dumb, and a pipe or a file is never a terminal, so logs redirected to a file stay plain.
 *
 * May import: node:*, and the Node adapter.
 */
import { styleText } from 'node:util'

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

/** A status by its class: 2xx green, 3xx cyan, 4xx yellow, 5xx red. */
export function statusStyle(status: number): Style {
  return status >= 500 ? 'red' : status >= 400 ? 'yellow' : status >= 300 ? 'cyan' : 'green'
}

/** The terminal's six colours, by hue: the nearest one to a tenant's hue (labelTenant). */
const HUES: readonly Style[] = ['red', 'yellow', 'green', 'cyan', 'blue', 'magenta']

export function hueStyle(hue: number): Style {
  return HUES[Math.round(hue / 60) % HUES.length] ?? 'white'
}
