// Creating and changing agents (docs/agents.md): every change is a new
// version (never an edit of an old one), checked by validateAgentSpec,
// allowed to operators of the agent's team (admins for everyone's agents),
// and audited. Built-in agents can be copied, never changed.
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { specColumns } from "@/server/kernel";
import { AgentError, invalidSpec } from "./errors";
import type { AgentSpecFields } from "./input";
import { mayPublishTo, validateAgentSpec, type AgentDeps, type SpecMode } from "./validate";
import { VIEW_SELECT, fieldsOf, getAgent, storedGuardrails, visibleAgent, type AgentRow, type AgentView } from "./views";

/** Who acts, and from where (the audit log's channel: admin for the UI, api, cli). */
export interface AgentActor {
  actor: Actor;
  channel: string;
}

export const BUILT_IN_REFUSAL = "Built-in agents can't be changed; copy it to make your own";

/** The columns of a version of these fields. */
export function versionData(fields: AgentSpecFields) {
  return specColumns({ ...fields, guardrails: storedGuardrails(fields) });
}

/** Refuses a change to an agent the actor may see but not change. */
export function checkMayChange(actor: Actor, agent: AgentRow, what = "Changing") {
  if (mayPublishTo(actor, agent.teamId)) return;
  throw new AgentError(
    "FORBIDDEN",
    agent.teamId === null
      ? `${what} ${agent.name} needs an admin: everyone sees it`
      : `${what} ${agent.name} needs the operator role in its team`,
  );
}

async function audit(
  db: Pick<Db, "auditEntry">,
  who: AgentActor,
  kind: string,
  detail: { name: string; version?: number; changeNote?: string } & Record<string, unknown>,
) {
  await recordAudit(db, {
    kind,
    actorId: who.actor.userId,
    actorName: who.actor.name || who.actor.email,
    channel: who.channel,
    subject: detail.name,
    detail,
  });
}

async function checked(deps: AgentDeps, raw: unknown, actor: Actor, mode: SpecMode): Promise<AgentSpecFields> {
  const { spec, problems } = await validateAgentSpec(deps, raw, actor, mode);
  if (!spec) throw invalidSpec(problems);
  return spec;
}

/** A unique-constraint race (two saves of the same version, two creates of one name) is a conflict, not a crash. */
function raced(err: unknown, message: string): never {
  if ((err as { code?: string } | null)?.code === "P2002") throw new AgentError("CONFLICT", message);
  throw err;
}

export async function createAgent(
  deps: AgentDeps,
  who: AgentActor,
  raw: unknown,
  changeNote = "",
  kind = "agent.created",
): Promise<AgentView> {
  const spec = await checked(deps, raw, who.actor, { kind: "create" });
  const note = changeNote || "Created";
  try {
    await deps.db.$transaction(async (tx) => {
      await tx.agent.create({ data: { name: spec.name, teamId: spec.teamId, builtIn: false, createdById: who.actor.userId } });
      await tx.agentSpec.create({
        data: { ...versionData(spec), name: spec.name, version: 1, changeNote: note, createdById: who.actor.userId },
      });
      await audit(tx, who, kind, { name: spec.name, version: 1, changeNote: note, teamId: spec.teamId });
    });
  } catch (err) {
    raced(err, `The name "${spec.name}" was taken a moment ago; pick another`);
  }
  return getAgent(deps.db, who.actor, spec.name);
}

/**
 * A new version of an agent. baseVersion is the version the change was made
 * on: when someone saved another version since, the save is refused (CONFLICT)
 * so nobody's change is lost; leave it out to save over the latest.
 */
export async function saveAgent(
  deps: AgentDeps,
  who: AgentActor,
  input: { name: string; spec: unknown; changeNote?: string; baseVersion?: number },
  kind = "agent.version_saved",
): Promise<AgentView> {
  const { agent, latest } = await visibleAgent(deps.db, who.actor, input.name);
  if (agent.builtIn || latest.builtIn) throw new AgentError("INVALID_INPUT", BUILT_IN_REFUSAL);
  checkMayChange(who.actor, agent);
  if (input.baseVersion !== undefined && input.baseVersion !== latest.version) {
    throw new AgentError(
      "CONFLICT",
      `${input.name} has changed since version ${input.baseVersion}: version ${latest.version} is the latest. Reload it and make your change again`,
    );
  }
  const spec = await checked(deps, input.spec, who.actor, { kind: "save", name: input.name });
  return writeVersion(deps, who, agent, latest.version, spec, input.changeNote || `Version ${latest.version + 1}`, kind);
}

async function writeVersion(
  deps: AgentDeps,
  who: AgentActor,
  agent: AgentRow,
  latestVersion: number,
  spec: AgentSpecFields,
  changeNote: string,
  kind: string,
  extra: Record<string, unknown> = {},
) {
  const version = latestVersion + 1;
  try {
    await deps.db.$transaction(async (tx) => {
      await tx.agent.upsert({
        where: { name: agent.name },
        create: { name: agent.name, teamId: spec.teamId, builtIn: false, createdById: who.actor.userId },
        update: { teamId: spec.teamId },
      });
      await tx.agentSpec.create({ data: { ...versionData(spec), name: agent.name, version, changeNote, createdById: who.actor.userId } });
      await audit(tx, who, kind, {
        name: agent.name,
        version,
        changeNote,
        ...(spec.teamId !== agent.teamId ? { teamId: spec.teamId, fromTeamId: agent.teamId } : {}),
        ...extra,
      });
    });
  } catch (err) {
    raced(err, `${agent.name} was saved by someone else a moment ago; reload it and make your change again`);
  }
  return getAgent(deps.db, who.actor, agent.name);
}

/** A new version equal to an old one. */
export async function rollbackAgent(deps: AgentDeps, who: AgentActor, name: string, version: number): Promise<AgentView> {
  const { agent, latest } = await visibleAgent(deps.db, who.actor, name);
  if (agent.builtIn || latest.builtIn) throw new AgentError("INVALID_INPUT", BUILT_IN_REFUSAL);
  checkMayChange(who.actor, agent);
  const old = version > 0 ? await deps.db.agentSpec.findUnique({ where: { name_version: { name, version } }, select: VIEW_SELECT }) : null;
  if (!old || old.draft) throw new AgentError("NOT_FOUND", `${name} has no version ${version}`);
  if (version === latest.version) throw new AgentError("INVALID_INPUT", `Version ${version} is already the latest`);
  // The team stays where it is now; the old version's fields are checked again (a tool or secret may be gone).
  const spec = await checked(deps, fieldsOf(old, agent.teamId), who.actor, { kind: "save", name });
  return writeVersion(deps, who, agent, latest.version, spec, `Rolled back to version ${version}`, "agent.rolled_back", {
    fromVersion: version,
  });
}

export async function setArchived(deps: AgentDeps, who: AgentActor, name: string, archived: boolean): Promise<{ ok: true }> {
  const { agent } = await visibleAgent(deps.db, who.actor, name);
  checkMayChange(who.actor, agent, archived ? "Archiving" : "Unarchiving");
  if ((agent.archivedAt !== null) === archived) return { ok: true };
  await deps.db.$transaction(async (tx) => {
    const at = archived ? new Date() : null;
    await tx.agent.upsert({
      where: { name },
      create: { name, teamId: agent.teamId, builtIn: agent.builtIn, archivedAt: at },
      update: { archivedAt: at },
    });
    await audit(tx, who, archived ? "agent.archived" : "agent.unarchived", { name });
  });
  return { ok: true };
}

/**
 * A new agent with another agent's latest spec (built-ins too): it belongs to
 * teamId, or the source's team, or the first team the actor may publish to.
 */
export async function copyAgent(
  deps: AgentDeps,
  who: AgentActor,
  input: { from: string; name: string; teamId?: string | null },
): Promise<AgentView> {
  const { agent, latest } = await visibleAgent(deps.db, who.actor, input.from);
  const teamId =
    input.teamId !== undefined
      ? input.teamId
      : agent.teamId !== null
        ? agent.teamId
        : (who.actor.teamIds.find((t) => mayPublishTo(who.actor, t)) ?? null);
  const spec = await checked(deps, { ...fieldsOf(latest, teamId), name: input.name }, who.actor, { kind: "create" });
  const note = `Copied from ${input.from} version ${latest.version}`;
  try {
    await deps.db.$transaction(async (tx) => {
      await tx.agent.create({ data: { name: spec.name, teamId: spec.teamId, builtIn: false, createdById: who.actor.userId } });
      await tx.agentSpec.create({
        data: { ...versionData(spec), name: spec.name, version: 1, changeNote: note, createdById: who.actor.userId },
      });
      await audit(tx, who, "agent.copied", {
        name: spec.name,
        version: 1,
        changeNote: note,
        from: input.from,
        fromVersion: latest.version,
        teamId: spec.teamId,
      });
    });
  } catch (err) {
    raced(err, `The name "${spec.name}" was taken a moment ago; pick another`);
  }
  return getAgent(deps.db, who.actor, spec.name);
}
