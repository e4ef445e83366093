/**
 * What `npm run bench` writes (bench/report.mjs), from made-up figures: a run of fewer than 3
 * rounds is indicative and never says a target was met or missed; one of 3 or more does, from
 * the figures. The headline it writes into docs/performance.md names the version it was given.
 */
import { describe, expect, it } from 'vitest'
import { renderHeadline, renderReport } from '../bench/report.mjs'

const run = (rps: number, p99: number) => ({ rps, p50: p99 / 2, p99, wrkCpu: 0.5, rpsRange: [rps, rps] })
const results = {
  http: {
    bare: { listPets: run(20_000, 2), getPet: run(20_000, 2), createPet: run(10_000, 4) },
    jsonServer: { listPets: run(5000, 20), getPet: run(5000, 20) },
    // listPets meets its target (0.9 of bare), getPet misses it (0.5).
    sandbox: { listPets: run(18_000, 2.2), getPet: run(10_000, 3), createPet: run(8000, 5) },
    isolate: { isolate: run(17_000, 3) },
    secondOpinion: {
      bare: { rps: 30_000, rpsRange: [30_000, 30_000], loadCpu: 0.9 },
      sandbox: { rps: 20_000, rpsRange: [20_000, 20_000], loadCpu: 0.9 },
    },
  },
  startup: { rounds: 5, bare: 100, sandbox: 150 },
  inProcess: { rounds: 5, sandbox: 500, floor: 600, shared: { sandbox: 500, floor: 600 } },
  coldStart: { rounds: 9, msw: 400, sandbox: 420 },
  scale: [
    { count: 1000, getPetMicros: 100, listSoldMicros: 100, resetMs: 0.001, seedMs: 5, rssMB: 80 },
    { count: 100_000, getPetMicros: 110, listSoldMicros: 105, resetMs: 0.002, seedMs: 500, rssMB: 150 },
  ],
  install: {
    msw: 'msw@2.15.0',
    zod: 'zod@^4',
    tarball: { filename: 'petstore-sandbox-9.9.9.tgz', bytes: 1e6, unpackedBytes: 4e6 },
    alone: { kilobytes: 30_000, packages: 40 },
    withSandbox: { kilobytes: 40_000, packages: 45 },
  },
  dashboard: { pets: 100_000, runs: [800, 820], medianMs: 810 },
}
const meta = (rounds: number) => ({
  version: '9.9.9',
  date: '2026-11-28',
  node: 'v20.20.2',
  cpu: '2 cores (test)',
  load: [1, 1],
  rounds,
  seconds: 5,
  wrk: 'wrk 4.1.0',
  jsonServer: '1.0.0-beta.15',
  wholeRunSeconds: 100,
})
const row = (text: string, start: string) => text.split('\n').find((line) => line.startsWith(`| ${start}`)) ?? ''

describe("npm run bench's report", () => {
  it('says "indicative", never met or missed, from one round', async () => {
    const report = await renderReport(results, meta(1))
    expect(report).toContain('petstore-sandbox 9.9.9.')
    expect(report).toMatch(/\*\*Indicative:\*\* 1 round/)
    expect(row(report, 'listPets over HTTP')).toMatch(/\| indicative *\|$/)
    expect(row(report, 'getPet over HTTP')).toMatch(/\| indicative *\|$/)
    expect(report).not.toMatch(/\| (yes|\*\*no\*\*) *\|$/m)
  })

  it('says met or missed, from the figures, from 3 rounds', async () => {
    const report = await renderReport(results, meta(3))
    expect(report).not.toContain('Indicative')
    expect(row(report, 'listPets over HTTP')).toMatch(/\| yes *\|$/)
    expect(row(report, 'getPet over HTTP')).toMatch(/\| \*\*no\*\* \|$/)
  })

  it("writes docs/performance.md's headline for the version it was given", async () => {
    const headline = await renderHeadline(results, meta(3))
    expect(headline.startsWith('## This release\n')).toBe(true)
    expect(/\d+\.\d+\.\d+/.exec(headline)?.[0]).toBe('9.9.9')
    expect(row(headline, 'listPets over HTTP')).toMatch(/\| yes *\|$/)
    expect(await renderHeadline(results, meta(2))).toMatch(/\| indicative *\|$/m)
  })
})
