// Agents (docs/agents.md): specs people create, version, compare, roll back,
// archive, copy, export and import as YAML, and try before saving. The run
// loop reads specs through the kernel's SpecSource; this folder is how people
// and programs change them. Other code imports only this file.
import type { Kernel } from "@/server/kernel";
import type { ReplayClass } from "@/server/tools";
import type { AgentDeps } from "./validate";

export {
  AgentSpecInput,
  AgentGuardrails,
  AgentName,
  ChangeNote,
  AGENT_NAME_PATTERN,
  MAX_INSTRUCTIONS,
  MAX_DESCRIPTION,
  MAX_CALL_CAP,
  type AgentSpecFields,
  type SpecProblem,
} from "./input";
export { AgentError, type AgentErrorCode } from "./errors";
export { validateAgentSpec, mayPublishTo, CALL_CAP_WITHOUT_CEILING, type AgentDeps, type SpecMode } from "./validate";
export { listAgents, getAgent, listVersions, type AgentView, type AgentListItem, type VersionItem } from "./views";
export { createAgent, saveAgent, rollbackAgent, setArchived, copyAgent, BUILT_IN_REFUSAL, type AgentActor } from "./service";
export { diffVersions, diffLines, diffFields, type AgentDiff, type DiffLine, type FieldChange } from "./diff";
export { exportAgentYaml, importAgentYaml, readSpecYaml, specToYaml, MAX_YAML_BYTES } from "./yaml";
export { tryDraft, type DraftRunInput } from "./draft";

/** The service's dependencies from the kernel: its database, tool registry and model router, and its runs for drafts. */
export function agentDepsOf(kernel: Kernel): AgentDeps & { runs: Kernel } {
  return { db: kernel.db, registry: kernel.deps.registry, router: kernel.router, runs: kernel };
}

export interface ToolInfo {
  name: string;
  description: string;
  replayClass: ReplayClass;
}

/** The tools an agent may list, with how each replays on resume. */
export function listTools(kernel: Kernel): ToolInfo[] {
  const registry = kernel.deps.registry;
  return registry
    .names()
    .map((name) => registry.get(name)!)
    .map((t) => ({ name: t.name, description: t.description, replayClass: t.replayClass }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
