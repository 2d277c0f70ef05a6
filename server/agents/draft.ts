// "Try it" (docs/agents.md): a run of an unsaved spec. The draft is stored as
// a version of its own with a negative number (-1, -2, ... per name), never
// listed and never the latest, so the run records, and resumes with, the
// exact spec it was started with.
import { agentVisibleTo, createRun, type RunServiceDeps } from "@/server/kernel";
import { AgentError, invalidSpec } from "./errors";
import { BUILT_IN_REFUSAL, checkMayChange, versionData, type AgentActor } from "./service";
import type { AgentSpecFields } from "./input";
import { validateAgentSpec, type AgentDeps } from "./validate";
import { agentRowOf } from "./views";

export interface DraftRunInput {
  spec: unknown;
  goal: string;
  /** The team the run belongs to; it must be one the actor may launch in. */
  teamId?: string;
}

export async function tryDraft(deps: AgentDeps & { runs: RunServiceDeps }, who: AgentActor, input: DraftRunInput) {
  const { actor } = who;
  const { spec, problems } = await validateAgentSpec(deps, input.spec, actor, { kind: "infer" });
  if (!spec) throw invalidSpec(problems);
  const existing = await agentRowOf(deps.db, spec.name);
  if (existing && agentVisibleTo(existing, actor)) {
    if (existing.builtIn) throw new AgentError("INVALID_INPUT", BUILT_IN_REFUSAL);
    checkMayChange(actor, existing, "Trying a change of");
    if (existing.archivedAt) throw new AgentError("INVALID_INPUT", `The agent ${spec.name} is archived; unarchive it to try it`);
  }
  // The draft was checked for its own team (handoffs to that team's agents, publishing there): it runs there and nowhere else.
  if (spec.teamId !== null && input.teamId !== undefined && input.teamId !== spec.teamId) {
    throw new AgentError("INVALID_INPUT", `The draft belongs to another team than the one asked for; try it in its own team`, [
      { field: "teamId", message: "Try the draft in its own team" },
    ]);
  }
  const version = await storeDraft(deps, spec, actor.userId);
  try {
    // The run's team: the one asked for, else the draft's own (createRun checks the operator role there).
    return await createRun(deps.runs, { goal: input.goal, agent: spec.name, teamId: input.teamId ?? spec.teamId ?? undefined }, actor, {
      specVersion: version,
    });
  } catch (err) {
    // No run uses it: the draft goes.
    await deps.db.agentSpec.delete({ where: { name_version: { name: spec.name, version } } }).catch(() => {});
    throw err;
  }
}

/** Stores the draft under the next negative version; two people trying at once each get their own. */
async function storeDraft(deps: AgentDeps, spec: AgentSpecFields, userId: string): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const lowest = await deps.db.agentSpec.findFirst({
      where: { name: spec.name },
      orderBy: { version: "asc" },
      select: { version: true },
    });
    const version = Math.min(0, lowest?.version ?? 0) - 1;
    try {
      await deps.db.agentSpec.create({
        data: { ...versionData(spec), name: spec.name, version, draft: true, changeNote: "Draft", createdById: userId },
      });
      return version;
    } catch (err) {
      if ((err as { code?: string } | null)?.code !== "P2002" || attempt >= 4) throw err;
    }
  }
}
