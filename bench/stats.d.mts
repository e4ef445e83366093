// Types for bench/stats.mjs, read by the tests.
export declare function quantile(values: readonly number[], q: number): number
export declare const median: (values: readonly number[]) => number
