// Repositories for reviewed changes (docs/changes.md#repositories): the
// registry, the demo repository, worktrees outside the running checkout, and
// the CI runner.
export { RepositoryError, repositoryNotFound, type RepositoryErrorCode } from "./errors";
export {
  RepositoryInput,
  RepositoryPatch,
  createRepository,
  updateRepository,
  setRepositoryArchived,
  getRepository,
  listRepositories,
  visibleRepository,
  protectedPathsOf,
  type RegistryDeps,
  type RepositoryActor,
  type RepositoryRow,
  type RepositoryView,
} from "./registry";
export { parseSource, cloneDirOf, type SourceKind } from "./source";
export {
  seedDemoRepository,
  writeDemoRepository,
  demoRepositoryDir,
  DEMO_REPOSITORY,
  DEMO_TEST_COMMAND,
  DEMO_PROTECTED_PATHS,
  DEMO_FILES,
  DEMO_FIX,
} from "./demo";
export {
  createWorktree,
  openWorktree,
  removeWorktree,
  commitWorktree,
  commitTree,
  advanceBranch,
  snapshotTree,
  diffOf,
  diffBetween,
  changeBranch,
  worktreesDir,
  repositoryGitDir,
  isReinsOwn,
  protectedPathsFor,
  checkProtectedPaths,
  MAX_DIFF_BYTES,
  type RepositoryRef,
  type Worktree,
  type WorktreeDeps,
  type WorktreeDiff,
  type ChangedFile,
  type FileStatus,
} from "./worktrees";
export { runChecks, readCapped, MAX_CHECK_LOG_BYTES, type CheckOptions, type CheckResult, type CheckState } from "./checks";
export { GitError } from "./git";
export { benchWorktrees, type WorktreeBench, type WorktreeFigures } from "./bench";
