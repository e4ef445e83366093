/**
 * A scenario in words, as the dashboard's Controls and the presenter's panel list it: "listPets
 * fails with 503, for the next 2 calls". One sentence for both, from a shape both have, so this
 * file imports nothing and the browser bundles take it as it is.
 *
 * May import: nothing.
 */

/** What a listed scenario says of itself (state/shapes.ts's Scenario, and the panel's copy of it). */
export interface ScenarioInWords {
  readonly operation: string
  readonly status?: number | undefined
  readonly delayMs?: number | undefined
  readonly remaining?: number | undefined
}

/** "Every call waits 2 s and fails with 503, until cleared". */
export function describeScenario(scenario: ScenarioInWords): string {
  const what: string[] = []
  if (scenario.delayMs !== undefined) what.push(`waits ${scenario.delayMs / 1000} s`)
  if (scenario.status !== undefined) what.push(`fails with ${scenario.status}`)
  const many = scenario.remaining
  const how = many === undefined ? 'until cleared' : `for the next ${many} call${many === 1 ? '' : 's'}`
  const operation = scenario.operation === '*' ? 'Every call' : scenario.operation
  return `${operation} ${what.join(' and ')}, ${how}`
}
