/**
 * A long task as steps: a generator that yields between slices of its work (a few ms each) and
 * returns its answer. Run whole, or with a pause between slices so the other clients are answered
 * meanwhile; the same answer either way. Checking a large state, a large upstream answer, or
 * keeping a large recording all run through here.
 *
 * May import: nothing.
 */

/** Runs steps to their end without a pause. */
export function drain<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next()
    if (step.done === true) return step.value
  }
}

/** Runs steps to their end, `pause()` between two slices. */
export async function drainInSlices<T>(steps: Generator<void, T>, pause: () => Promise<void>): Promise<T> {
  for (;;) {
    const step = steps.next()
    if (step.done === true) return step.value
    await pause()
  }
}
