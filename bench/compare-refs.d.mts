// Types for bench/compare-refs.mjs, read by test/bench-compare.test.ts.
export declare class UsageError extends Error {}
export declare function git(root: string, ...args: string[]): string
export declare function versionAt(root: string, commit: string): string | undefined
export declare function previousRelease(root: string): string
export interface Tree {
  label: string
  sha: string
  folder: string
}
export declare function buildCommit(root: string, ref: string): Tree
export declare function workingTree(root: string): Tree
