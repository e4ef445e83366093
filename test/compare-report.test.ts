/**
 * bench:compare's verdicts (bench/compare-report.mjs), from figures made up for the purpose: a
 * fall past a threshold against the previous release or an anchor is a regression; a cost a tree
 * does not have (no persist before 0.14.0) is not held against it; a cost never recorded (an npm
 * test time) fails, since the gate cannot see it; what createPet promotes is gated with it.
 */
import { describe, expect, it } from 'vitest'
import { beaten, regressions, render, verdicts } from '../bench/compare-report.mjs'

type Sample = { rps: number; p99: number; promotedPerThousand?: number | undefined }
const rounds = (rps: number[], promoted?: number[]): Sample[] =>
  rps.map((value, index) => ({ rps: value, p99: 10, promotedPerThousand: promoted?.[index] }))
const label = (name: string) => name

describe("bench:compare's verdicts", () => {
  it('passes a head within the thresholds and fails one that fell, naming the measure, the ratio and whom', () => {
    const http = {
      listPets: { head: rounds([95, 100, 97]), previous: rounds([100, 100, 100]), '0.9.0': rounds([100, 100, 100]) },
      getPet: { head: rounds([80, 82, 79]), previous: rounds([100, 100, 100]), '0.9.0': rounds([85, 85, 85]) },
    }
    const gates = { listPets: ['previous', '0.9.0'], getPet: ['previous', '0.9.0'] }
    const rows = verdicts({ http, gates })
    expect(regressions(rows, label)).toEqual(['getPet req/s at 0.80 of previous'])
    const table = render(rows, ['head', 'previous', '0.9.0'])
    expect(table).toMatch(/\| listPets req\/s \| 97 \| 100 \| 100 \| 0\.97 \| 0\.97 \| pass/)
    expect(table).toMatch(/\| getPet req\/s .*FAIL against previous \(>= 0\.9 of previous, 0\.9\.0\)/)
  })

  it("holds what createPet's turns promote to twice the anchor's, from the medians", () => {
    const http = {
      createPet: {
        head: rounds([100, 100, 100], [3.1, 3.3, 3.2]),
        '0.9.0': rounds([100, 100, 100], [0.3, 0.5, 0.2]),
        bare: rounds([150, 150, 150]),
      },
    }
    const rows = verdicts({ http, gates: { createPet: ['0.9.0'], createPromoted: ['0.9.0'] } })
    const promoted = rows.find((row) => row.measure === 'createPromoted')
    expect(promoted?.values).toEqual({ head: 3.2, '0.9.0': 0.3 })
    expect(Object.keys(promoted?.ratios ?? {})).toEqual(['0.9.0'])
    expect(regressions(rows, label)).toEqual(['createPet MB promoted per 1,000 at 10.67 of 0.9.0'])

    const fixed = { createPet: { ...http.createPet, head: rounds([100, 100, 100], [0.5, 0.4, 0.6]) } }
    expect(
      regressions(verdicts({ http: fixed, gates: { createPet: ['0.9.0'], createPromoted: ['0.9.0'] } }), label),
    ).toEqual([])
  })

  it('leaves out a cost a tree does not have, and fails one that was never recorded', () => {
    const costs = {
      head: { install: 18.7, persistBundle: 90.9, npmTest: 55 },
      previous: { install: 19.4, persistBundle: 90.8, npmTest: undefined },
      '0.9.0': { install: 18.1, persistBundle: null, npmTest: 40 },
    }
    const gates = {
      install: ['previous', '0.9.0'],
      persistBundle: ['previous', '0.9.0'],
      npmTest: ['previous', '0.9.0'],
    }
    const rows = verdicts({ costs, gates })
    expect(rows.find((row) => row.measure === 'persistBundle')?.gated).toEqual(['previous'])
    expect(regressions(rows, label)).toEqual(['npm test s at n/a of previous', 'npm test s at 1.38 of 0.9.0'])

    const grown = {
      ...costs,
      head: { ...costs.head, install: 19.1, npmTest: 44 },
      previous: { ...costs.previous, npmTest: 60 },
    }
    expect(regressions(verdicts({ costs: grown, gates }), label)).toEqual(['install size MB at 1.06 of 0.9.0'])
  })

  it('names an anchor head beat by more than the gate allows on the bad side, and no other', () => {
    const costs = {
      head: { tenantsRss: 127, install: 18.0 },
      '0.9.0': { tenantsRss: 200, install: 18.1 },
    }
    const rows = verdicts({ costs, gates: { tenantsRss: ['0.9.0'], install: ['0.9.0'] } })
    expect(beaten(rows, { tenantsRss: ['0.9.0'], install: ['0.9.0'] })).toEqual([
      'RSS with 1,000 tenants MB at 0.64 of its anchor 0.9.0',
    ])
  })
})
