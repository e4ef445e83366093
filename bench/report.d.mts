// Types for bench/report.mjs, read by test/bench-report.test.ts.
export declare const ROUNDS_FOR_VERDICT: number
export declare function renderReport(results: unknown, meta: unknown): Promise<string>
export declare function renderHeadline(results: unknown, meta: unknown): Promise<string>
