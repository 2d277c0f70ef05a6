// Rules Rein proposes from people's answers (docs/human-requests-and-policy.md#suggested-rules):
// when people keep approving the same shell command line in one team, and nobody rejected or
// edited it, an admin is offered a rule that allows exactly that line in that team and in the
// tiers it was approved in, with the approvals it rests on. Adding it saves a normal policy
// version (audited); dismissing it is audited too.
//
// The rule matches the whole command line as written (`command_line`, which decide.ts gives every
// reading of a shell call), never one of its spellings: a spelling (the program without its
// folder, flags spelled out, quotes taken off) is shared with other lines, and a rule for it
// would allow them too.
import { createHash } from "node:crypto";
import { addRule } from "@/lib/policy-rule-edits";
import type { RuleFields } from "@/lib/policy-rules";
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import { DomainError } from "@/server/errors";
import { COMMAND_LINE_ARG, decideCall } from "./decide";
import { readCommandLine } from "./reader";
import { parsePolicy, PolicyValidationError } from "./document";
import { compileStored } from "./gate";
import { policyGrammar } from "./grammar";
import { activePolicy, savePolicy, type PolicyVersionRecord } from "./store";
import { resolvePolicyTeams, teamNameNotes } from "./team-ids";
import type { PolicyVerdict } from "./types";

/** Approvals (by people other than the run's launcher; none rejected or edited) of one line in one team. */
export const MIN_APPROVALS = 5;
/** How far back the answers are read. */
export const WINDOW_DAYS = 30;
/** The newest answers read at most, of each kind: the mining is bounded whatever the history. */
const MAX_ANSWERS = 2_000;
/** Suggestions worked out per request at most. */
const MAX_SUGGESTIONS = 50;
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
  /** The tiers it was approved in, and asks in today: the rule applies there only. */
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
  /** Since when the answers were read: 30 days, or less when there were more answers than are read. */
  since: Date;
  /** The team's other questions in that time: the rule matches none of them, so they are decided as before. */
  otherQuestions: number;
}

interface Answer {
  id: string;
  runId: string;
  teamId: string;
  command: string;
  tier: string;
  /** Approved as asked by a person other than the run's launcher: what counts. */
  counts: boolean;
  /** Rejected, or approved with edited arguments: no rule for this line. */
  refused: boolean;
  decidedById: string | null;
  decidedAt: Date;
  channel: string | null;
}

type Row = {
  id: string;
  runId: string;
  teamId: string | null;
  state: string;
  payload: string;
  decision: string | null;
  requestedById: string | null;
  decidedById: string | null;
  decidedAt: Date | null;
  channel: string | null;
};

const suggestionId = (teamId: string, command: string) => createHash("sha256").update(`${teamId}\n${command}`).digest("hex").slice(0, 16);

/** A team name the rule can write as itself: `*` and `?` would make it a glob over other teams. */
const plainName = (name: string) => !/[*?]/.test(name) && name.trim() === name && name.length > 0;

/** A person's id: not "system", not "agent:…". */
const isPerson = (id: string | null): id is string => !!id && id !== "system" && !id.includes(":");

function answerOf(row: Row): Answer | null {
  if (!row.teamId || !row.decidedAt || row.payload.length > MAX_PAYLOAD_CHARS) return null;
  let payload: { tool?: unknown; args?: { command?: unknown }; tier?: unknown };
  let decision: { editedArguments?: unknown } = {};
  try {
    payload = JSON.parse(row.payload) as typeof payload;
    if (row.decision && row.decision.length <= MAX_PAYLOAD_CHARS) decision = JSON.parse(row.decision) as typeof decision;
  } catch {
    return null;
  }
  const command = payload.args?.command;
  // The tier is recorded when the question is asked; a question asked before that was recorded is not read.
  if (payload.tool !== "shell" || typeof command !== "string" || typeof payload.tier !== "string") return null;
  if (!command.trim() || command.length > MAX_COMMAND_CHARS) return null;
  const edited = decision.editedArguments !== undefined;
  const refused = row.state === "REJECTED" || edited;
  return {
    id: row.id,
    runId: row.runId,
    teamId: row.teamId,
    command,
    tier: payload.tier,
    counts: !refused && isPerson(row.decidedById) && row.decidedById !== row.requestedById,
    refused,
    decidedById: row.decidedById,
    decidedAt: row.decidedAt,
    channel: row.channel,
  };
}

function ruleFor(teamName: string, command: string, tiers: string[]): RuleFields {
  return {
    name: `approved ${MIN_APPROVALS}+ times in ${teamName}: ${command}`.slice(0, 120),
    actor: [],
    team: [teamName],
    tool: ["shell"],
    tierKey: "tier",
    tier: tiers,
    args: [{ name: COMMAND_LINE_ARG, kind: "equals", values: [command] }],
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

const SELECT = {
  id: true,
  runId: true,
  teamId: true,
  state: true,
  payload: true,
  decision: true,
  requestedById: true,
  decidedById: true,
  decidedAt: true,
  channel: true,
} as const;

/**
 * The policy's questions answered since `since`, newest first, approvals and refusals read apart
 * so that many approvals never push a rejection out of sight. When either list is cut short, the
 * window starts at its oldest answer read, for both.
 */
async function answers(db: Db, since: Date): Promise<{ answers: Answer[]; since: Date }> {
  const read = (state: string) =>
    db.humanRequest.findMany({
      where: { kind: "approve", slot: "policy", state, decidedAt: { gte: since }, teamId: { not: null } },
      orderBy: { decidedAt: "desc" },
      take: MAX_ANSWERS,
      select: SELECT,
    });
  const [approved, rejected] = await Promise.all([read("APPROVED"), read("REJECTED")]);
  let from = since;
  for (const list of [approved, rejected])
    if (list.length === MAX_ANSWERS && list[list.length - 1].decidedAt! > from) from = list[list.length - 1].decidedAt!;
  const out: Answer[] = [];
  for (const [i, row] of [...approved, ...rejected].entries()) {
    if (i % 200 === 199) await new Promise((r) => setImmediate(r));
    if (row.decidedAt! < from) continue;
    const answer = answerOf(row);
    if (answer) out.push(answer);
  }
  return { answers: out, since: from };
}

/** The suggestions for admins now: most approved first; dismissed ones left out. */
export async function ruleSuggestions(db: Db, now = new Date()): Promise<RuleSuggestion[]> {
  const read = await answers(db, new Date(now.getTime() - WINDOW_DAYS * 86_400_000));
  const groups = new Map<string, Answer[]>();
  const perTeam = new Map<string, number>();
  for (const a of read.answers) {
    const key = suggestionId(a.teamId, a.command);
    groups.set(key, [...(groups.get(key) ?? []), a]);
    perTeam.set(a.teamId, (perTeam.get(a.teamId) ?? 0) + 1);
  }
  const candidates = [...groups.entries()]
    .filter(([, all]) => !all.some((a) => a.refused) && all.filter((a) => a.counts).length >= MIN_APPROVALS)
    .sort(([, a], [, b]) => b.length - a.length)
    .slice(0, MAX_SUGGESTIONS);
  if (!candidates.length) return [];
  const dismissed = new Set(
    (await db.setting.findMany({ where: { key: { in: candidates.map(([id]) => DISMISSED + id) } }, select: { key: true } })).map((s) =>
      s.key.slice(DISMISSED.length),
    ),
  );
  const teamIds = [...new Set(candidates.map(([, all]) => all[0].teamId))];
  const teams = new Map(
    (await db.team.findMany({ where: { id: { in: teamIds }, archivedAt: null }, select: { id: true, name: true } })).map((t) => [
      t.id,
      t.name,
    ]),
  );
  const runIds = [...new Set(candidates.flatMap(([, all]) => all.map((a) => a.runId)))];
  const agents = new Map(
    (await db.run.findMany({ where: { id: { in: runIds } }, select: { id: true, agentName: true } })).map((r) => [r.id, r.agentName]),
  );
  const people = new Map(
    (
      await db.user.findMany({
        where: { id: { in: [...new Set(candidates.flatMap(([, all]) => all.map((a) => a.decidedById ?? "")))] } },
        select: { id: true, name: true, email: true },
      })
    ).map((u) => [u.id, u.name || u.email]),
  );
  const active = await activePolicy(db);
  const inForce = compileStored(active.version, active.source, active.teams);
  const out: RuleSuggestion[] = [];
  for (const [id, all] of candidates) {
    const teamName = teams.get(all[0].teamId);
    if (dismissed.has(id) || !teamName || !plainName(teamName)) continue;
    const { command, teamId } = all[0];
    // A line with a variable or a substitution ($HOME, $(…), `…`), or whose program is known only when it runs
    // (eval, source), does not do the same thing each time it is approved.
    if (/[$`]/.test(command) || (await readCommandLine(command)).unresolved) continue;
    const counted = all.filter((a) => a.counts);
    const call = (tier: string) => ({ actor: { id: "" }, team: teamName, teamId, tool: "shell", args: { command }, tier });
    // Only the tiers where it was approved and where the policy still asks a question (not a veto window, not a denial).
    const tiers: string[] = [];
    let now: PolicyVerdict | null = null;
    for (const tier of [...new Set(counted.map((a) => a.tier))].sort()) {
      const verdict = await decideCall(inForce, call(tier));
      if (verdict.effect !== "ask" || verdict.ask?.kind === "veto") continue;
      tiers.push(tier);
      now ??= verdict;
    }
    if (!tiers.length || !now) continue;
    const rule = ruleFor(teamName, command, tiers);
    const proposed = await withRule(db, active, rule);
    const after = await Promise.all(tiers.map((tier) => decideCall(proposed.compiled, call(tier))));
    if (after.some((v) => v.effect !== "allow")) continue; // a rule above it still asks: it would spare no one
    out.push({
      id,
      team: { id: teamId, name: teamName },
      tool: "shell",
      command,
      tiers,
      approvals: counted.length,
      approvers: new Set(counted.map((a) => a.decidedById)).size,
      agents: [...new Set(all.map((a) => agents.get(a.runId)).filter((a): a is string => !!a))].sort(),
      recent: counted.slice(0, SHOWN_APPROVALS).map((a) => ({
        requestId: a.id,
        runId: a.runId,
        agentName: agents.get(a.runId) ?? null,
        decidedBy: { id: a.decidedById!, name: people.get(a.decidedById!) ?? a.decidedById! },
        decidedAt: a.decidedAt,
        channel: a.channel,
      })),
      yaml: ruleYaml(rule),
      now: brief(now),
      withRule: brief(after[0]),
      since: read.since,
      otherQuestions: (perTeam.get(teamId) ?? 0) - all.length,
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
 * taken from what the page showed), and the save is refused unless the rule's team still names
 * exactly that team when the version is stored.
 */
export async function acceptSuggestion(db: Db, actor: Acting, id: string): Promise<PolicyVersionRecord> {
  const suggestion = await current(db, id);
  const active = await activePolicy(db);
  const proposed = await withRule(db, active, ruleFor(suggestion.team.name, suggestion.command, suggestion.tiers));
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
    expectTeams: { [suggestion.team.name]: [suggestion.team.id] },
  });
  await recordAudit(db, {
    kind: "policy.suggestion_accepted",
    actorId: actor.id,
    actorName: actor.name,
    channel: "admin",
    subject: `v${saved.version}`,
    teamId: suggestion.team.id,
    detail: {
      suggestionId: id,
      command: suggestion.command,
      tiers: suggestion.tiers,
      approvals: suggestion.approvals,
      version: saved.version,
    },
  });
  return saved;
}

/** Stops offering a suggestion; audited with the reason. */
export async function dismissSuggestion(db: Db, actor: Acting, id: string, reason: string): Promise<void> {
  const suggestion = await current(db, id);
  const why = reason.trim();
  const value = JSON.stringify({ reason: why, at: new Date().toISOString() });
  await db.$transaction(async (tx) => {
    await tx.setting.upsert({
      where: { key: DISMISSED + id },
      create: { key: DISMISSED + id, value, updatedById: actor.id },
      update: { value, updatedById: actor.id },
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
