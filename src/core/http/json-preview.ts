/**
 * A value as a short JSON text for a message, whatever the value: the reader's InexactNumber
 * shows its literal, and no depth or length makes it recurse deep or write long.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { InexactNumber } from './json-number.js'

/**
 * A value as JSON for a message, cut at `max` characters with `...`: bounded work and no deep
 * recursion whatever the value is (JSON.stringify overflows the stack near 5,000 levels, and
 * would spell out a megabyte list in full). Each level adds a character, so the walk stops
 * within `max` levels. An InexactNumber shows its literal.
 */
export function preview(value: unknown, max = 40): string {
  let out = ''
  const full = () => out.length > max
  const visit = (node: unknown): void => {
    if (full()) return
    if (node instanceof InexactNumber) {
      out += node.literal
    } else if (Array.isArray(node)) {
      out += '['
      for (let index = 0; index < node.length && !full(); index++) {
        if (index > 0) out += ','
        visit(node[index])
      }
      out += ']'
    } else if (typeof node === 'object' && node !== null) {
      out += '{'
      let first = true
      for (const key in node) {
        if (full()) break
        if (!Object.hasOwn(node, key)) continue
        out += `${first ? '' : ','}${JSON.stringify(key.length > max ? key.slice(0, max) : key)}:`
        first = false
        visit((node as Record<string, unknown>)[key])
      }
      out += '}'
    } else if (typeof node === 'string') {
      out += JSON.stringify(node.length > max ? node.slice(0, max + 1) : node)
    } else {
      // JSON.stringify gives undefined for undefined (and functions): JSON has null for them.
      const text = JSON.stringify(node) as string | undefined
      out += text ?? 'null'
    }
  }
  visit(value)
  return out.length > max ? `${out.slice(0, max - 3)}...` : out
}
