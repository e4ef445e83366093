/**
 * One at a time: the large answers the sandbox checks against the interface and records (a list
 * of a million pets, with `--limit upstreamBodyBytes` raised). Each is checked and kept in slices
 * so that the other clients are answered meanwhile; four at once still held the heap at four
 * parsed lists, whose collections stalled every other call for up to 1.2 s, and left the process
 * at 2.1 GB. Taking turns, each one's slices alternate with the other clients' calls alone, and
 * the heap holds one parsed list at a time. A turn waits in line (first come, first served); what
 * waits is an answer already read, bounded as before by upstreamRequests x upstreamBodyBytes.
 *
 * May import: nothing.
 */

/** Gives the turn back: the next in line goes. Calling it again does nothing. */
export type Release = () => void

export interface Turns {
  /** Resolves with the turn's release once it is this caller's turn. */
  take(): Promise<Release>
  /** How many hold or wait for a turn now (test/record-turns.test.ts reads it). */
  readonly busy: number
}

export function createTurns(): Turns {
  return new TurnQueue()
}

/** A class, not closures kept per waiter on a long-lived object (see node/body-reader.ts). */
class TurnQueue implements Turns {
  private readonly waiting: (() => void)[] = []
  private held = false

  get busy(): number {
    return this.waiting.length + (this.held ? 1 : 0)
  }

  take(): Promise<Release> {
    if (!this.held) {
      this.held = true
      return Promise.resolve(this.releaser())
    }
    return new Promise((resolve) => {
      const go = () => {
        resolve(this.releaser())
      }
      this.waiting.push(go)
    })
  }

  private releaser(): Release {
    let done = false
    const release = () => {
      if (done) return
      done = true
      const next = this.waiting.shift()
      if (next === undefined) this.held = false
      else next()
    }
    return release
  }
}
