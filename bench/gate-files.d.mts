// Types for bench/gate-files.mjs, read by test/gate-files.test.ts.
export declare function gateFiles(root?: string): string[]
export declare function gateDigests(root?: string): Record<string, string>
export declare function unrehearsedGateFiles(root?: string): string[]
export declare function recordRehearsed(root?: string): void
