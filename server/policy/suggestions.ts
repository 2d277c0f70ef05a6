// Rules Rein proposes from people's answers (docs/human-requests-and-policy.md#suggested-rules):
// when people keep approving the same shell command for the same team, and never reject it,
// an admin is offered a narrow rule that allows exactly that command line in that team, with
// the approvals it rests on and what it would have decided. Adding it saves a normal policy
// version (audited, and undone by restoring the version before); dismissing it is audited too.
//
// The rule is as narrow as the evidence: `team` (the one team, by the id it has now), `tool:
// shell`, and the command: the line as approved and the spellings the policy reads it as (its
// program without its folder, flags spelled out), since every spelling is put to the rules and
// the strictest answer wins (decide.ts). Only a line that runs one program, all of it known
// before it runs, is proposed: a rule for one part of a longer line would allow that part
// anywhere, which nobody approved.
import { createHash } from "node:crypto";
import { addRule } from "@/lib/policy-rule-edits";
import type { RuleFields } from "@/lib/policy-rules";
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import { DomainError } from "@/server/errors";
import { decideCall } from "./decide";
import { readCommandLine } from "./reader";
import { parsePolicy, PolicyValidationError } from "./document";
import { compileStored } from "./gate";
import { policyGrammar } from "./grammar";
import { activePolicy, savePolicy, type PolicyVersionRecord } from "./store";
import { resolvePolicyTeams, teamNameNotes } from "./team-ids";
import type { PolicyVerdict } from "./types";

/** Approvals (by people, none rejected) of one command in one team before a rule is proposed. */
export const MIN_APPROVALS = 5;
/** How far back the answers are read. */
export const WINDOW_DAYS = 30;
/** The newest decided requests read at most: the mining is bounded whatever the history. */
const MAX_REQUESTS = 2_000;
/** A command line longer than this is never proposed (a rule should read at a glance). */
const MAX_COMMAND_CHARS = 300;
/** A payload longer than this is not parsed: agents write its arguments. */
const MAX_PAYLOAD_CHARS = 8_192;
/** The approvals shown with a suggestion. */
const SHOWN_APPROVALS = 10;
const DISMISSED = "policy.suggestion.dismissed.";

export interface SuggestionApproval {
  requestId: string;
  runId: string;
  agentName: string | null;
  decidedBy: { id: string; name: string };
  decidedAt: Date;
  channel: string | null;
}

export interface RuleSuggestion {
  /** Stable for the same team and command: what dismissing and adding name. */
  id: string;
  team: { id: string; name: string };
  tool: "shell";
  command: string;
  /** What the rule matches: the line and the spellings the policy reads it as. */
  spellings: string[];
  /** The tiers the approved runs ran in: the rule applies there only. */
  tiers: string[];
  approvals: number;
  /** The people who approved it, and the agents whose runs asked. */
  approvers: number;
  agents: string[];
  /** The newest approvals, newest first. */
  recent: SuggestionApproval[];
  /** The rule as it would be added to the policy. */
  yaml: string;
  /** What the policy in force decides for the command now, and what it would with the rule. */
  now: Pick<PolicyVerdict, "effect" | "reason">;
  withRule: Pick<PolicyVerdict, "effect" | "reason">;
  /** The asked calls of the window the rule would have allowed (all approved), and refused (none, or it is not proposed). */
  wouldHaveAllowed: number;
  wouldHaveRefused: number;
}

interface Asked {
  id: string;
  runId: string;
  teamId: string;
  command: string;
  approved: boolean;
  decidedById: string | null;
  decidedAt: Date | null;
  channel: string | null;
}

const suggestionId = (teamId: string, command: string) => createHash("sha256").update(`${teamId}\n${command}`).digest("hex").slice(0, 16);

/** A team name the rule can write as itself: `*` and `?` would make it a glob over other teams. */
const plainName = (name: string) => !/[*?]/.test(name) && name.trim() === name && name.length > 0;

function askedCall(row: {
  id: string;
  runId: string;
  teamId: string | null;
  state: string;
  payload: string;
  decision: string | null;
  decidedById: string | null;
  decidedAt: Date | null;
  channel: string | null;
}): Asked | null {
  if (!row.teamId || row.payload.length > MAX_PAYLOAD_CHARS) return null;
  let payload: { tool?: unknown; args?: { command?: unknown }; options?: unknown };
  let decision: { editedArguments?: unknown } = {};
  try {
    payload = JSON.parse(row.payload) as typeof payload;
    if (row.decision && row.decision.length <= MAX_PAYLOAD_CHARS) decision = JSON.parse(row.decision) as typeof decision;
  } catch {
    return null;
  }
  // A question the policy asked about a shell call, answered as asked (not edited, not a loop or replay question).
  if (payload.tool !== "shell" || payload.options !== undefined || decision.editedArguments !== undefined) return null;
  const command = payload.args?.command;
  if (typeof command !== "string" || !command.trim() || command.length > MAX_COMMAND_CHARS) return null;
  return {
    id: row.id,
    runId: row.runId,
    teamId: row.teamId,
    command,
    approved: row.state === "APPROVED",
    decidedById: row.decidedById,
    decidedAt: row.decidedAt,
    channel: row.channel,
  };
}

/** The line and the spellings the policy reads it as, when it runs one program known before it runs; else null. */
async function spellingsOf(command: string): Promise<string[] | null> {
  const analysis = await readCommandLine(command);
  if (analysis.unresolved || analysis.parts.length !== 1) return null;
  return [...new Set([command, ...analysis.parts[0].views])];
}

function ruleFor(teamName: string, command: string, spellings: string[], tiers: string[]): RuleFields {
  const args = spellings.length === 1 ? { kind: "equals", values: spellings } : { kind: "oneOf", values: spellings };
  return {
    name: `approved ${MIN_APPROVALS}+ times in ${teamName}: ${command}`.slice(0, 120),
    actor: [],
    team: [teamName],
    tool: ["shell"],
    tierKey: "tier",
    // Only where it was approved: a team rule comes before the rules for a tier (a T3 machine that asks).
    tier: tiers,
    args: [{ name: "command", ...args }],
    decision: "allow",
    ask: null,
  };
}

/** The policy in force with the rule added at its end, compiled with its teams resolved now. */
async function withRule(db: Db, active: PolicyVersionRecord, rule: RuleFields) {
  const { source } = addRule(active.source, rule, policyGrammar().ruleKeys);
  const parsed = parsePolicy(source);
  if (!parsed.ok) throw new PolicyValidationError(parsed.errors);
  const { teams } = await resolvePolicyTeams(db, parsed.policy, false);
  return { source, parsed: parsed.policy, compiled: compileStored(0, source, teams), teams };
}

const brief = (v: PolicyVerdict) => ({ effect: v.effect, reason: v.reason });

/** The suggestions for admins now: newest evidence first; dismissed ones left out. */
export async function ruleSuggestions(db: Db, now = new Date()): Promise<RuleSuggestion[]> {
  const since = new Date(now.getTime() - WINDOW_DAYS * 86_400_000);
  const rows = await db.humanRequest.findMany({
    where: { kind: "approve", state: { in: ["APPROVED", "REJECTED"] }, decidedAt: { gte: since }, teamId: { not: null } },
    orderBy: { decidedAt: "desc" },
    take: MAX_REQUESTS,
    select: {
      id: true,
      runId: true,
      teamId: true,
      state: true,
      payload: true,
      decision: true,
      decidedById: true,
      decidedAt: true,
      channel: true,
    },
  });
  const groups = new Map<string, Asked[]>();
  for (const [i, row] of rows.entries()) {
    if (i % 200 === 199) await new Promise((r) => setImmediate(r));
    const call = askedCall(row);
    if (!call) continue;
    const key = suggestionId(call.teamId, call.command);
    groups.set(key, [...(groups.get(key) ?? []), call]);
  }
  const candidates = [...groups.entries()].filter(
    ([, calls]) => calls.every((c) => c.approved) && calls.filter((c) => c.decidedById).length >= MIN_APPROVALS,
  );
  if (!candidates.length) return [];
  const dismissed = new Set(
    (await db.setting.findMany({ where: { key: { in: candidates.map(([id]) => DISMISSED + id) } }, select: { key: true } })).map((s) =>
      s.key.slice(DISMISSED.length),
    ),
  );
  const teamIds = [...new Set(candidates.map(([, calls]) => calls[0].teamId))];
  const teams = new Map(
    (await db.team.findMany({ where: { id: { in: teamIds }, archivedAt: null }, select: { id: true, name: true } })).map((t) => [
      t.id,
      t.name,
    ]),
  );
  const runIds = [...new Set(candidates.flatMap(([, calls]) => calls.map((c) => c.runId)))];
  const runs = new Map(
    (await db.run.findMany({ where: { id: { in: runIds } }, select: { id: true, agentName: true, tier: true } })).map((r) => [r.id, r]),
  );
  const agents = new Map([...runs.values()].map((r) => [r.id, r.agentName]));
  const people = new Map(
    (
      await db.user.findMany({
        where: { id: { in: [...new Set(candidates.flatMap(([, calls]) => calls.map((c) => c.decidedById ?? "")))] } },
        select: { id: true, name: true, email: true },
      })
    ).map((u) => [u.id, u.name || u.email]),
  );
  const active = await activePolicy(db);
  const inForce = compileStored(active.version, active.source, active.teams);
  const out: RuleSuggestion[] = [];
  for (const [id, calls] of candidates) {
    const teamName = teams.get(calls[0].teamId);
    if (dismissed.has(id) || !teamName || !plainName(teamName)) continue;
    const { command, teamId } = calls[0];
    const tiers = [...new Set(calls.map((c) => runs.get(c.runId)?.tier ?? "T1"))].sort();
    const input = { actor: { id: "" }, team: teamName, teamId, tool: "shell", args: { command }, tier: tiers[0] };
    const before = await decideCall(inForce, input);
    if (before.effect !== "ask" || before.ask?.kind === "veto") continue; // nothing to spare, or a window, not a question
    const spellings = await spellingsOf(command);
    if (!spellings) continue;
    const rule = ruleFor(teamName, command, spellings, tiers);
    const proposed = await withRule(db, active, rule);
    const after = await decideCall(proposed.compiled, input);
    if (after.effect !== "allow") continue; // another part of the line still asks: the rule would spare no one
    const approvedBy = calls.filter((c) => c.decidedById);
    out.push({
      id,
      team: { id: teamId, name: teamName },
      tool: "shell",
      command,
      approvals: approvedBy.length,
      approvers: new Set(approvedBy.map((c) => c.decidedById)).size,
      agents: [...new Set(calls.map((c) => agents.get(c.runId)).filter((a): a is string => !!a))].sort(),
      recent: approvedBy.slice(0, SHOWN_APPROVALS).map((c) => ({
        requestId: c.id,
        runId: c.runId,
        agentName: agents.get(c.runId) ?? null,
        decidedBy: { id: c.decidedById!, name: people.get(c.decidedById!) ?? c.decidedById! },
        decidedAt: c.decidedAt!,
        channel: c.channel,
      })),
      spellings,
      tiers,
      yaml: ruleYaml(rule),
      now: brief(before),
      withRule: brief(after),
      wouldHaveAllowed: calls.length,
      wouldHaveRefused: 0,
    });
  }
  return out.sort((a, b) => b.approvals - a.approvals || a.command.localeCompare(b.command));
}

function ruleYaml(rule: RuleFields): string {
  const { source } = addRule("rules: []\n", rule, policyGrammar().ruleKeys);
  return source.replace(/^rules:\n/, "");
}

interface Acting {
  id: string;
  name: string;
}

async function current(db: Db, id: string): Promise<RuleSuggestion> {
  const found = (await ruleSuggestions(db)).find((s) => s.id === id);
  if (!found)
    throw new DomainError(
      "NOT_FOUND",
      "This suggestion is no longer offered: the policy changed, someone rejected the command, or it was dismissed",
    );
  return found;
}

/**
 * Adds the suggested rule as a new policy version. The suggestion is worked out again now (not
 * taken from what the page showed), and the rule's team must resolve to exactly that team.
 */
export async function acceptSuggestion(db: Db, actor: Acting, id: string): Promise<PolicyVersionRecord> {
  const suggestion = await current(db, id);
  const active = await activePolicy(db);
  const proposed = await withRule(db, active, ruleFor(suggestion.team.name, suggestion.command, suggestion.spellings, suggestion.tiers));
  const resolved = proposed.teams[suggestion.team.name] ?? [];
  if (resolved.length !== 1 || resolved[0] !== suggestion.team.id)
    throw new DomainError(
      "CONFLICT",
      `The team "${suggestion.team.name}" is not the one the approvals came from any more; nothing was added`,
    );
  // Saving resolves every team name again: refuse while a rule's team has been renamed since the version in force.
  const renamed = await teamNameNotes(db, proposed.parsed, active.teams, proposed.source);
  if (renamed.length)
    throw new DomainError(
      "CONFLICT",
      `A rule's team was renamed since version ${active.version} was saved (${renamed[0].message}); open Settings › Policy, write the new name and save, then add this rule`,
    );
  const saved = await savePolicy(db, {
    source: proposed.source,
    comment: `Suggested rule: ${suggestion.command} in ${suggestion.team.name} (approved ${suggestion.approvals} times, never rejected)`,
    actor,
    baseVersion: active.version,
  });
  await recordAudit(db, {
    kind: "policy.suggestion_accepted",
    actorId: actor.id,
    actorName: actor.name,
    channel: "admin",
    subject: `v${saved.version}`,
    teamId: suggestion.team.id,
    detail: { suggestionId: id, command: suggestion.command, approvals: suggestion.approvals, version: saved.version },
  });
  return saved;
}

/** Stops offering a suggestion; audited with the reason. */
export async function dismissSuggestion(db: Db, actor: Acting, id: string, reason: string): Promise<void> {
  const suggestion = await current(db, id);
  const why = reason.trim();
  await db.$transaction(async (tx) => {
    await tx.setting.upsert({
      where: { key: DISMISSED + id },
      create: { key: DISMISSED + id, value: JSON.stringify({ reason: why, at: new Date().toISOString() }), updatedById: actor.id },
      update: { value: JSON.stringify({ reason: why, at: new Date().toISOString() }), updatedById: actor.id },
    });
    await recordAudit(tx, {
      kind: "policy.suggestion_dismissed",
      actorId: actor.id,
      actorName: actor.name,
      channel: "admin",
      subject: suggestion.command,
      teamId: suggestion.team.id,
      detail: { suggestionId: id, reason: why },
    });
  });
}
