// Types for bench/gate-files.mjs, read by test/gate-files.test.ts.
export declare function gateFiles(root?: string): string[]
export declare function changedGateFiles(base: string, root?: string): string[]
