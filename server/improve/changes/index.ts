// Change requests to repositories (docs/changes.md): the state
// machine, the protected paths and the files grouped by risk. Repositories,
// worktrees, checks and merging build on these.
export * from "./states";
export { DEFAULT_PROTECTED_PATHS, ProtectedPathError, ProtectedPaths, canonicalPath } from "./protected";
export { groupByRisk, riskOf, type Risk } from "./risk";
export { MergeError, mergeNoFf, mergePreview, repoGit, revertMerge, type MergeResult, type Signature } from "./git-merge";
