// The skills' tools: load_skill for any run with a skill in its scope, and
// propose_skill for the improver, whose proposal goes through the review
// gate before any run sees it.
import { z } from "zod";
import { ToolError, type ToolDefinition } from "@/server/tools";
import { jsonList, SkillError, type SkillLibrary } from "./library";
import { authorModelOf, reviewSkill, type SkillGateDeps, type SkillReview } from "./gate";
import { formatProblem, parseSkillMd } from "./skill-md";

export function loadSkillTool(library: SkillLibrary): ToolDefinition<{ name: string }> {
  return {
    name: "load_skill",
    description:
      "Loads a skill listed in your instructions by its name and returns its instructions (markdown). Load one when your goal matches its description.",
    args: z.object({ name: z.string().trim().min(1, "name is required").max(64) }).strict(),
    replayClass: "pure",
    persistence: "none",
    async execute(args, ctx) {
      try {
        const skill = await library.load(
          { id: ctx.runId, agentName: ctx.agent.name, teamId: ctx.teamId ?? null },
          args.name,
          ctx.toolCallId ?? null,
        );
        return { skill: skill.name, version: skill.version, instructions: skill.body };
      } catch (err) {
        if (err instanceof SkillError) throw new ToolError("SKILL_NOT_FOUND", err.message);
        throw err;
      }
    },
  };
}

export interface SkillProposalResult {
  name: string;
  version: number;
  state: "active" | "rejected";
  reasons: string[];
  triggers: SkillReview["triggers"];
  reviewer: string | null;
}

/** Stores the improver's SKILL.md as a proposed version, reviews it, and activates or rejects it. */
export async function proposeSkill(library: SkillLibrary, gate: SkillGateDeps, runId: string, text: string): Promise<SkillProposalResult> {
  const parsed = parseSkillMd(text);
  if (!parsed.ok)
    throw new ToolError(
      "INVALID_SKILL",
      `The SKILL.md is not valid; fix every problem and propose again: ${parsed.problems.map(formatProblem).join("; ")}`,
    );
  const { skill } = parsed;
  const { db } = library.deps;
  const run = await db.run.findUnique({ where: { id: runId }, select: { teamId: true } });
  if (!run) throw new ToolError("NO_RUN", `Run ${runId} does not exist`);
  // The improver writes for its own run's team only, and never over another team's skill.
  const teams = skill.scope.teams;
  if (run.teamId ? teams.length !== 1 || teams[0] !== run.teamId : teams.length > 0) {
    throw new ToolError(
      "INVALID_SKILL",
      run.teamId ? `scope.teams must be [${run.teamId}]: your run's team` : "scope.teams must be empty: your run has no team",
    );
  }
  const latest = await db.improvement.findFirst({
    where: { kind: "skill", name: skill.name },
    orderBy: { version: "desc" },
    select: { scopeTeams: true },
  });
  // The name's owner is whoever the latest version was for: another team, or everyone (an admin's skill), keeps it.
  const owners = latest ? jsonList(latest.scopeTeams) : null;
  if (owners && (run.teamId ? owners.length !== 1 || owners[0] !== run.teamId : owners.length > 0))
    throw new ToolError("NAME_TAKEN", `The skill name "${skill.name}" is taken; choose another`);

  const row = await library.storeVersion(skill, text, { state: "proposed", authorRunId: runId, stateReason: "waiting for review" });
  const review = await reviewSkill(gate, { skill, source: text, authorModel: await authorModelOf(db, runId), teamId: run.teamId });
  const to = review.passed ? "active" : "rejected";
  const reason = review.passed
    ? `approved by ${review.reviewer?.label ?? "the reviewer"}`
    : review.reasons.join("; ") || "rejected by the reviewer";
  await library.decide(row.id, to, review, reason);
  return {
    name: row.name,
    version: row.version,
    state: to,
    reasons: review.reasons,
    triggers: review.triggers,
    reviewer: review.reviewer?.label ?? null,
  };
}

export function proposeSkillTool(library: SkillLibrary, gate: SkillGateDeps): ToolDefinition<{ skillMd: string }> {
  return {
    name: "propose_skill",
    description:
      "Proposes a skill: the whole text of a SKILL.md — front matter between --- lines with name (lower-case, hyphens), description (what it does and when to use it), " +
      "scope { agents, teams } (teams: your run's team), tags, and triggers { should: [sample goals it must match], shouldNot: [goals it must not] } — then the markdown instructions. " +
      "A reviewer model of another family reviews it and the trigger check runs; it becomes active only if both pass. The answer says why when it does not.",
    args: z.object({ skillMd: z.string().min(1, "skillMd is required") }).strict(),
    replayClass: "idempotent_with_key",
    idempotencyKey: (args) => args.skillMd,
    persistence: "external",
    timeoutMs: 120_000,
    execute: (args, ctx) => proposeSkill(library, gate, ctx.runId, args.skillMd),
  };
}
