// Memory that outlives a run (issue "Memory"): the store and its full-text
// search, the remember / recall tools, the prompt loader with its budget,
// confirmations in the Inbox, and the episode every run leaves.

export * from "./types";
export { MemoryStore, memoriesVisibleTo, memoriesOfRun, titleOf, type NewMemory, type MemoryStoreDeps } from "./store";
export { ensureSearchIndex, searchTerms, fts5Query, tsQuery, rankedIds, likeScanIds } from "./search";
export { memoriesFor, memoriesSection, MEMORY_HEADER, DEFAULT_MEMORY_TOKENS, type MemoriesSection, type MemoriesForInput } from "./prompt";
export { memoryTools, MEMORY_TOOL_NAMES, REMEMBER_TOOL, RECALL_TOOL, type MemoryToolOptions } from "./tools";
export { askToKeep, settleRequest, settleDecided, MEMORY_SLOT, KEEP, DISCARD, type ConfirmDeps } from "./confirm";
export {
  episodeOf,
  keepsEpisode,
  writeEpisode,
  startMemoryListener,
  type EpisodeRun,
  type EpisodeDeps,
  type MemoryListenerDeps,
} from "./episodes";
export { scenarioMemoriesShared, scenarioSharingFor, setScenarioSharing, ScenarioSharingInput } from "./sharing";
export { createRunMemory, memoryBudget, type RunMemory, type RunMemoryPrompt } from "./runtime";
