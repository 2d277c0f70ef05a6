// REST v1 for the Improvements pages
// (docs/improvements.md#states-trust-and-promotion): friction, the list of
// improvements and one of them, and switching one off, on or promoting it. The
// same services and role checks as the tRPC router.
import { z } from "zod";
import {
  CaseRun,
  IMPROVEMENT_KINDS,
  IMPROVEMENT_STATES,
  actOnImprovement,
  getImprovement,
  listFriction,
  decideFriction,
  listImprovements,
  type ImprovementAction,
} from "@/server/improve";
import { DomainError } from "@/server/errors";
import { defineRoute, type Route } from "./contract";
import { Instant, JsonValue } from "./schemas";

const Limit = z.coerce
  .number({ error: "limit is a number" })
  .int("limit is a whole number")
  .min(1, "limit is 1 or more")
  .max(200, "limit is at most 200")
  .default(50);
const ListQuery = z
  .object({
    kind: z.enum(IMPROVEMENT_KINDS, { error: `kind is one of ${IMPROVEMENT_KINDS.join(", ")}` }).optional(),
    tier: z.coerce.number({ error: "tier is a number" }).int().min(1, "tier is 1 to 4").max(4, "tier is 1 to 4").optional(),
    state: z.enum(IMPROVEMENT_STATES, { error: `state is one of ${IMPROVEMENT_STATES.join(", ")}` }).optional(),
    agent: z.string().max(100, "agent is at most 100 characters").optional().describe("Only those scoped to this agent"),
    q: z.string().max(200, "q is at most 200 characters").optional().describe("Text in the name or description"),
    limit: Limit,
    cursor: z.string().max(64, "cursor is at most 64 characters").optional(),
  })
  .strict();
const FrictionQuery = z
  .object({
    agent: z.string().max(100, "agent is at most 100 characters").optional(),
    kind: z.string().max(40, "kind is at most 40 characters").optional().describe("e.g. repeated_failure, unknown_tool, doom_loop"),
    state: z.string().max(20, "state is at most 20 characters").optional(),
    q: z.string().trim().max(200, "q is at most 200 characters").optional().describe("Words of the title or the tool"),
    role: z
      .enum(["cycles", "signals"], { error: "role is cycles or signals" })
      .optional()
      .describe("cycles: only friction the improver may answer; signals: only a person's choices, kept as signals"),
    limit: Limit,
  })
  .strict();
const FrictionDecisionBody = z
  .object({
    action: z.enum(["dismiss", "reopen"], { error: "action is dismiss or reopen" }),
    reason: z.string().trim().max(2000, "reason is at most 2,000 characters").optional().describe("Required to dismiss"),
  })
  .strict();
const ActionBody = z.object({ reason: z.string().trim().max(500, "reason is at most 500 characters").optional() }).strict();

/** A friction's latest occurrences in runs you can see. */
const FrictionItem = z.object({
  runId: z.string(),
  count: z.number().int().describe("How many times it happened in that run"),
  createdAt: Instant,
  evidence: z.array(JsonValue).describe("Where it happened: run, seq, tool call, span, step, excerpt"),
});

const FrictionCore = z.object({
  id: z.string(),
  kind: z.string().describe("repeated_failure, doom_loop, human_rejected, human_edited, human_takeover, unknown_tool or budget_stop"),
  signature: z.string().describe("Stable across runs for the same problem"),
  agentName: z.string(),
  teamId: z.string().nullable().describe("The team of the run that first showed it"),
  title: z.string(),
  tool: z.string().nullable(),
  state: z.string().describe("open, improving, addressed or dismissed"),
  occurrences: z.number().int(),
  runCount: z.number().int(),
  firstSeenAt: Instant,
  lastSeenAt: Instant,
  items: z.array(FrictionItem),
});

const Friction = FrictionCore.extend({
  stateReason: z.string().describe("Why a person dismissed or reopened it; empty otherwise"),
  stateBy: z.string().nullable().describe("Who dismissed or reopened it"),
  stateAt: Instant.nullable(),
  signalOnly: z
    .string()
    .nullable()
    .describe("null: the improver may start a hack cycle for it; otherwise why it is only a signal (a person's choice)"),
  cycles: z
    .array(
      z.object({
        id: z.string(),
        state: z.string().describe("DETECT … DEPLOY, or ABANDONED"),
        reason: z.string().nullable().describe("What it deployed, or why it was abandoned"),
        improvementId: z.string().nullable(),
        improvement: z.object({ id: z.string(), name: z.string(), version: z.number().int(), state: z.string() }).nullable(),
        createdAt: Instant,
        endedAt: Instant.nullable(),
      }),
    )
    .describe("The hack cycles it started, newest first"),
  changes: z.array(z.object({ id: z.string(), title: z.string(), state: z.string() })).describe("Change requests it motivated"),
});

const ImprovementSummary = z.object({
  id: z.string(),
  tier: z.number().int(),
  kind: z.string().describe(IMPROVEMENT_KINDS.join(" or ")),
  name: z.string(),
  version: z.number().int(),
  state: z.string().describe(IMPROVEMENT_STATES.join(", ")),
  stateReason: z.string().nullable(),
  description: z.string(),
  scopeAgents: z.array(z.string()).describe("Agent names it is for; none with no teams: everyone"),
  scopeTeams: z.array(z.string()).describe("Team ids it is for"),
  tags: z.array(z.string()),
  frictionId: z.string().nullable().describe("The friction it answers"),
  cycleId: z.string().nullable().describe("The hack cycle that made it"),
  authorRunId: z.string().nullable().describe("The run that wrote it"),
  createdById: z.string().nullable().describe("The person who wrote it, when a person did"),
  costUsd: z.number(),
  uses: z.number().int(),
  successes: z.number().int(),
  trust: z.number().describe("Successful uses / (uses + 1)"),
  promoted: z.boolean().describe("A runtime tool kept for good: it does not expire"),
  promotionAskedAt: Instant.nullable(),
  expiresAt: Instant.nullable(),
  createdAt: Instant,
  updatedAt: Instant,
  replayClass: z.string().nullable().describe("pure, idempotent_with_key or unsafe_on_replay"),
  capabilities: z.array(z.string()).describe("What the tool declared (workspace:read)"),
});

const Improvement = ImprovementSummary.extend({
  source: z.string().describe("The JavaScript of a runtime tool, the SKILL.md of a skill"),
  argsSchema: JsonValue.describe("The JSON schema of a runtime tool's arguments; null for none"),
  cases: z.array(JsonValue).describe("Its trigger cases"),
  caseResults: CaseRun.nullable().describe("The last results of its trigger cases; null before any"),
  review: JsonValue.describe("A skill's reviewer verdict; null for none"),
  previous: z.object({ id: z.string(), version: z.number().int(), source: z.string() }).nullable().describe("The version before"),
  versions: z.array(z.object({ id: z.string(), version: z.number().int(), state: z.string(), createdAt: Instant })),
  useCount: z.number().int().describe("How many times it was used"),
  uses: z
    .array(
      z.object({
        id: z.string(),
        runId: z.string(),
        toolCallId: z.string().nullable(),
        ok: z.boolean(),
        error: z.string().nullable(),
        durationMs: z.number().nullable(),
        createdAt: Instant,
      }),
    )
    .describe("Its recent uses in runs you can see"),
  friction: FrictionCore.omit({ signature: true, agentName: true, teamId: true }).nullable().describe("The friction it answers"),
  cycle: z
    .object({
      id: z.string(),
      state: z.string(),
      attempts: z.number().int(),
      reason: z.string().nullable(),
      improverRunId: z.string().nullable(),
      sessionRunId: z.string(),
      createdAt: Instant,
      endedAt: Instant.nullable(),
      deadlineAt: Instant,
    })
    .nullable()
    .describe("The hack cycle that made it"),
}).meta({ id: "Improvement" });

const ACTIONS: Record<Exclude<ImprovementAction, "delete">, { minRole: Route["minRole"]; summary: string; description?: string }> = {
  disable: {
    minRole: "operator",
    summary: "Switch an active improvement off; a runtime tool leaves the live registry at once",
    description: "Needs the operator role in the improvement's team (or overall, for one made for everyone).",
  },
  enable: {
    minRole: "approver",
    summary: "Switch a disabled or expired improvement back on; a runtime tool that was not promoted gets a new 7-day lifetime",
  },
  promote: { minRole: "approver", summary: "Keep an active runtime tool for good: it no longer expires" },
};

function action(name: Exclude<ImprovementAction, "delete">): Route {
  return defineRoute({
    method: "POST",
    path: `/api/v1/improvements/{id}/${name}`,
    ...ACTIONS[name],
    // An empty body is fine (read as {}); a reason is optional.
    body: ActionBody,
    response: Improvement,
    responseDescription: "The improvement",
    errors: { 409: "The improvement is not in a state this applies to, or changed meanwhile" },
    async handle(ctx) {
      const svc = ctx.improve;
      const improvement = await actOnImprovement(
        { db: ctx.db, unload: (n) => svc.live.unload(n), load: (id) => svc.reload(id), promote: (id, by, ch) => svc.promote(id, by, ch) },
        ctx.actor,
        ctx.params.id,
        name,
        ctx.channel,
        ctx.body.reason,
      );
      // Only a deletion answers nothing, and it has no route here.
      if (!improvement) throw new DomainError("NOT_FOUND", `There is no improvement ${ctx.params.id}`);
      return improvement;
    },
  });
}

export const IMPROVEMENT_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/friction",
    minRole: "viewer",
    summary: "Friction Rein recorded from runs, most recently seen first, with its latest occurrences",
    description:
      "A friction is a way runs keep struggling: a tool failing the same way, an unknown tool, a doom-loop pause, a person rejecting or editing calls. Admins see all; others friction of runs without a team or of their teams.",
    query: FrictionQuery,
    response: z.object({ friction: z.array(Friction) }),
    handle: async ({ query, actor, db }) => ({ friction: await listFriction(db, actor, query) }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/friction/{id}/decision",
    minRole: "viewer",
    summary: "Dismiss a friction with a reason (it needs no improvement; it still counts but starts no cycle), or reopen it",
    description: "An approver of the friction's team, or an admin.",
    body: FrictionDecisionBody,
    response: z.object({ friction: Friction }),
    responseDescription: "The friction after the decision",
    errors: { 409: "It is dismissed already, or (reopen) it is not dismissed" },
    handle: async ({ body, params, actor, channel, db }) => {
      const f = await decideFriction(db, actor, { id: params.id, ...body }, channel);
      if (!f) throw new DomainError("NOT_FOUND", `There is no friction ${params.id}`);
      return { friction: f };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/improvements",
    minRole: "viewer",
    summary: "Improvements you can see (runtime tools, skills), newest first, one row per version",
    description:
      "Improvements made for everyone and for your teams (admins: all). Page with cursor = the nextCursor of the previous answer.",
    query: ListQuery,
    response: z.object({ improvements: z.array(ImprovementSummary), nextCursor: z.string().nullable() }),
    handle: ({ query, actor, db }) => listImprovements(db, actor, query),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/improvements/{id}",
    minRole: "viewer",
    summary:
      "One improvement: its source, argsSchema, trigger cases and their last results, versions, recent uses, origin friction and hack cycle",
    response: Improvement,
    handle: ({ params, actor, db }) => getImprovement(db, actor, params.id),
  }),
  action("disable"),
  action("enable"),
  action("promote"),
];
