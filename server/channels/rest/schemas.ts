// Response schemas several REST routes share (docs/api.md#contract). Each with
// an id is one component of the OpenAPI document; a route's own shapes stay
// in its file.
import { z } from "zod";
import { RUN_STATES } from "@/server/kernel";
import { SPAN_KINDS } from "@/server/telemetry";

/** A moment: a Date where a service returns one, ISO 8601 text on the wire. */
export const Instant = z.date();

/** The answer of an action that has nothing else to say. */
export const Ok = z.object({ ok: z.boolean() }).meta({ id: "Ok" });

/** A team as the answers name it: its id, and its name to show. */
export const TeamRef = z.object({ id: z.string(), name: z.string() }).meta({ id: "TeamRef" });

/** A person as the answers name them. */
export const PersonRef = z.object({ id: z.string(), email: z.string(), name: z.string().nullable() }).meta({ id: "PersonRef" });

/** Any JSON value: what a person or an agent wrote (arguments, payloads, scenarios). */
export const JsonValue = z.unknown();

export const RunState = z.enum(RUN_STATES);

export const Run = z
  .object({
    id: z.string(),
    goal: z.string(),
    agentName: z.string(),
    agentVersion: z.number().int().describe("The agent spec's version; negative for an unsaved draft tried with Try it"),
    status: RunState,
    statusReason: z.string().nullable(),
    model: z.string(),
    tier: z.string(),
    stepCount: z.number().int(),
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    costUsd: z.number().describe("USD of the run's model calls, from the price table"),
    lastSeq: z.number().int(),
    errorCode: z.string().nullable(),
    errorMessage: z.string().nullable(),
    createdAt: Instant,
    startedAt: Instant.nullable(),
    endedAt: Instant.nullable(),
    teamId: z.string().nullable(),
    team: TeamRef.nullable(),
    createdBy: PersonRef,
    maxSteps: z.number().int().describe("The run's step limit (model calls)"),
    budgetUsd: z.number().nullable().describe("The run's cost ceiling"),
    parentRunId: z.string().nullable().describe("The run this one re-runs or forks"),
    parentSeq: z.number().int().nullable().describe("A fork: the parent's checkpoint it starts from"),
    lineage: z.string().nullable().describe("rerun or fork, with parentRunId"),
    experimentId: z.string().nullable().describe("The experiment this run is a trial of"),
    tags: z.array(z.string()),
    scripted: z.boolean().describe("The run plays the scripted demo model, not a real one"),
    scenarioGiven: z.boolean(),
    durationMs: z.number().nullable(),
    agentDraft: z.boolean(),
  })
  .meta({ id: "Run" });

export const RunEvent = z
  .object({
    runId: z.string(),
    seq: z.number().int(),
    type: z.string(),
    actor: z.string().nullable(),
    payload: JsonValue,
    createdAt: Instant,
  })
  .meta({ id: "Event" });

export const Span = z
  .object({
    spanId: z.string(),
    parentSpanId: z.string().nullable(),
    kind: z.enum(SPAN_KINDS),
    name: z.string(),
    startTime: Instant,
    endTime: Instant.nullable(),
    status: z.string(),
    model: z.string().nullable(),
    tool: z.string().nullable(),
    inputTokens: z.number(),
    outputTokens: z.number(),
    cachedInputTokens: z.number(),
    costUsd: z.number(),
    attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  })
  .meta({ id: "Span" });
