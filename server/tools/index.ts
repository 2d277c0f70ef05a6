// ToolRunner (I1): registry, replay cache, built-in tools (docs/runs.md#replay-safety).
export type {
  ReplayClass,
  PersistenceClass,
  ToolDefinition,
  ToolContext,
  ToolOutcome,
  ToolReviewer,
  ToolCallRequest,
  ToolRunResult,
  CallAddress,
  AgentInfo,
  TerminalAccess,
  DesktopAccess,
  TierAccess,
  TierRequest,
  ConsentQuestion,
  ConsentAnswer,
  ToolSecretAccess,
  CallGate,
  GateCall,
  GateNote,
  GateVerdict,
  HumanQuestion,
  WaitingRequest,
} from "./types";
export { ToolError, ReplayUnsafeError } from "./types";
export { ToolRegistry, ToolRunner, callDeadlineMs, DEFAULT_TIMEOUT_MS, type ToolRunnerOptions } from "./runner";
export {
  PrismaReplayCache,
  MemoryReplayCache,
  canonicalJson,
  inputHash,
  type ReplayCache,
  type CacheKey,
  type CacheEntry,
} from "./replay-cache";
export { SqliteReplayCache } from "./sqlite-replay-cache";
export { Workspace, workspaceFor, GIT_IDENTITY, OUTPUTS_DIR } from "./workspace";
export { recentCommits } from "./workspace-git";
export { snapshotWorkspace, restoreSnapshot, SnapshotError } from "./workspace-snapshots";
export { BUILTIN_TOOLS, BROWSER_TOOLS, globToRegExp } from "./builtin";
export {
  WorkspaceFiles,
  WorkspaceFileError,
  workspaceFiles,
  MAX_TEXT_BYTES,
  MAX_TREE_ENTRIES,
  MAX_DIFF_FILES,
  NO_WORKSPACE_MESSAGE,
  type WorkspaceFileErrorCode,
  type TreeNode,
  type FileTree,
  type TextFile,
  type SaveResult,
  type ChangeStatus,
  type FileChange,
  type WorkspaceDiff,
} from "./workspace-files";
