// REST v1 for human requests (docs/api.md): the same roles, checks and
// audit as the inbox, with channel "api".
import { z } from "zod";
import {
  DecisionInput,
  REQUEST_KINDS,
  REQUEST_STATES,
  deciderOf,
  forActor,
  getForActor,
  listForActor,
  type RequestSlot,
} from "@/server/hitl";
import { ROLES } from "@/server/identity";
import { defineRoute, type Route } from "./contract";
import { Instant, JsonValue } from "./schemas";

const ListQuery = z.object({
  state: z.string().optional().describe("Comma-separated: PENDING, APPROVED, REJECTED, EXPIRED, ESCALATED, CANCELED"),
  runId: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().optional().describe("nextCursor of the page before"),
});

/** What asked (docs/human-requests-and-policy.md#kinds). */
const REQUEST_SLOTS = [
  "policy",
  "ask_human",
  "replay",
  "loop",
  "consent",
  "promote",
  "change",
  "extension",
  "elicitation",
  "memory",
] as const satisfies readonly RequestSlot[];

const Person = z.object({ id: z.string(), name: z.string() });

const HumanRequest = z
  .object({
    id: z.string(),
    runId: z.string(),
    nodeId: z.string(),
    slot: z.enum(REQUEST_SLOTS).describe("What asked: the policy, the agent's ask_human tool, replay, the loop guard, a consent rule, …"),
    kind: z.enum(REQUEST_KINDS),
    state: z.enum(REQUEST_STATES),
    title: z.string(),
    detail: z.string(),
    payload: z
      .object({
        tool: z.string().optional(),
        args: JsonValue.optional(),
        options: z
          .array(z.object({ id: z.string(), label: z.string(), detail: z.string().optional() }))
          .optional()
          .describe("choose: the options to pick from"),
        schema: z.record(z.string(), JsonValue).optional().describe("provide: the JSON schema the value must match"),
        rule: z.string().optional().describe("The policy rule that asked, in words"),
        tier: z.string().optional().describe("The tier the call was asked about in (a policy's question)"),
        allowEditedArguments: z.boolean().optional().describe("The person may retry the call with new arguments"),
        notByRequester: z.boolean().optional().describe("The person who launched the run may not decide it"),
      })
      .describe("The request's subject"),
    requiredRole: z.enum(ROLES).describe("The least role that may decide it"),
    level: z.number().int().describe("Its escalation level"),
    expiresAt: Instant,
    hardExpiresAt: Instant,
    createdAt: Instant,
    teamId: z.string().nullable(),
    teamName: z.string().nullable().describe("The team's name as it is now; the team is teamId"),
    requestedBy: Person.nullable(),
    decision: DecisionInput.nullable(),
    decidedBy: Person.nullable(),
    decidedAt: Instant.nullable(),
    channel: z.string().nullable().describe("Where it was decided"),
    run: z.object({ goal: z.string(), agentName: z.string(), status: z.string() }).nullable(),
    you: z
      .object({
        mayDecide: z.boolean().describe("You may decide it now: it is open and your role in its team is enough"),
        whyNot: z.string().nullable().describe("Why you may see it but not decide it (null when you may, or when it is closed)"),
      })
      .describe("The request as the caller stands to it"),
  })
  .meta({ id: "HumanRequest" });

export const HUMAN_REQUEST_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/human-requests",
    minRole: "viewer",
    summary: "Human requests of runs you can see, newest first",
    query: ListQuery,
    response: z.object({ requests: z.array(HumanRequest), nextCursor: z.string().nullable() }),
    async handle({ query, actor, hitl }) {
      const states = query.state
        ? query.state
            .split(",")
            .filter(Boolean)
            .map((s) => s.toUpperCase())
        : undefined;
      const state = states ? z.array(z.enum(REQUEST_STATES)).parse(states) : undefined;
      const page = await listForActor(hitl.broker, actor, { state, runId: query.runId, limit: query.limit, cursor: query.cursor });
      return { requests: page.items, nextCursor: page.nextCursor };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/human-requests/{id}",
    minRole: "viewer",
    summary: "A human request",
    response: HumanRequest,
    handle: ({ params, actor, hitl }) => getForActor(hitl.broker, actor, params.id),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/human-requests/{id}/decision",
    minRole: "operator",
    summary: "Decide a human request (its own required role applies too)",
    body: DecisionInput.extend({
      optionId: DecisionInput.shape.optionId.describe("choose: the option picked"),
      value: DecisionInput.shape.value.describe("provide: a value matching the request's JSON schema"),
      editedArguments: DecisionInput.shape.editedArguments.describe("approve: run the tool with these arguments instead"),
    }),
    response: HumanRequest,
    responseDescription: "The decided request",
    errors: { 409: "Already decided" },
    async handle({ params, body, actor, hitl, channel }) {
      const { broker } = hitl;
      await getForActor(broker, actor, params.id);
      return forActor(await broker.decide(params.id, deciderOf(actor), body, channel), actor);
    },
  }),
];
