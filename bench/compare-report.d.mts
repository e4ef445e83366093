// Types for bench/compare-report.mjs, read by test/compare-report.test.ts.
export interface Row {
  measure: string
  label: string
  values: Record<string, number | null | undefined>
  ratios: Record<string, number>
  gated: string[]
  threshold?: number
  better?: 'higher' | 'lower'
}
export declare const THRESHOLDS: Record<string, { better: 'higher' | 'lower'; threshold: number }>
export declare function verdicts(input: {
  http?: Record<string, Record<string, { rps: number; p99: number; promotedPerThousand?: number | undefined }[]>>
  inProcess?: unknown
  costs?: Record<string, Record<string, number | null | undefined>>
  gates: Record<string, string[]>
}): Row[]
export declare function regressions(rows: Row[], labelOf: (name: string) => string): string[]
export declare function beaten(rows: Row[], anchorsOf: Record<string, string[]>): string[]
export declare function render(rows: Row[], names: string[]): string
