// "Try it" (SPEC section 2): a run of an unsaved spec. The draft is stored as
// a version of its own with a negative number (-1, -2, ... per name), never
// listed and never the latest, so the run records, and resumes with, the
// exact spec it was started with.
import { agentVisibleTo, createRun, type RunServiceDeps } from "@/server/kernel";
import { AgentError, invalidSpec } from "./errors";
import { BUILT_IN_REFUSAL, checkMayChange, versionData, type AgentActor } from "./service";
import { mayPublishTo, validateAgentSpec, type AgentDeps } from "./validate";
import { agentRowOf } from "./views";

export interface DraftRunInput {
  spec: unknown;
  goal: string;
  /** The team the run belongs to; it must be one the actor may launch in. */
  teamId?: string;
}

export async function tryDraft(deps: AgentDeps & { runs: RunServiceDeps }, who: AgentActor, input: DraftRunInput) {
  const { actor } = who;
  if (input.teamId !== undefined && !mayPublishTo(actor, input.teamId)) throw new AgentError("FORBIDDEN", "Trying an agent in that team needs the operator role there");
  const { spec, problems } = await validateAgentSpec(deps, input.spec, actor, { kind: "infer" });
  if (!spec) throw invalidSpec(problems);
  const existing = await agentRowOf(deps.db, spec.name);
  if (existing && agentVisibleTo(existing, actor)) {
    if (existing.builtIn) throw new AgentError("BAD_REQUEST", BUILT_IN_REFUSAL);
    checkMayChange(actor, existing, "Trying a change of");
    if (existing.archivedAt) throw new AgentError("BAD_REQUEST", `The agent ${spec.name} is archived; unarchive it to try it`);
  }
  const lowest = await deps.db.agentSpec.findFirst({ where: { name: spec.name }, orderBy: { version: "asc" }, select: { version: true } });
  const version = Math.min(0, lowest?.version ?? 0) - 1;
  await deps.db.agentSpec.create({ data: { ...versionData(spec), name: spec.name, version, draft: true, changeNote: "Draft", createdById: actor.userId } });
  try {
    return await createRun(deps.runs, { goal: input.goal, agent: spec.name }, actor, { specVersion: version });
  } catch (err) {
    // No run uses it: the draft goes.
    await deps.db.agentSpec.delete({ where: { name_version: { name: spec.name, version } } }).catch(() => {});
    throw err;
  }
}
