/** Reading `/__sandbox/events` through fetch, as far as a test needs it. */

/** An event stream read as text, on demand. */
export interface EventText {
  /** Reads on until the text so far matches `pattern`; throws when the stream ends first. */
  until: (pattern: RegExp) => Promise<void>
  /** Everything read so far. */
  text: () => string
  /** Stops reading. */
  cancel: () => Promise<void>
}

/** Reads an event stream response's body as text, only when a test asks for more. */
export function eventText(response: Response): EventText {
  if (response.body === null) throw new Error('an event stream without a body')
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  return {
    until: async (pattern) => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read()
        if (done) throw new Error(`the stream ended before ${String(pattern)}: ${text}`)
        text += decoder.decode(value, { stream: true })
      }
    },
    text: () => text,
    cancel: () => reader.cancel(),
  }
}
