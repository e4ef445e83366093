/** Why dist/ must be built again, or undefined when it is current. */
export function staleness(): string | undefined
/** Builds dist/ when it is stale, saying so in one line; true when it built. Throws when the build fails. */
export function buildIfStale(): boolean
