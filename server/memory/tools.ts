// The remember and recall tools. remember is idempotent by the call: a
// replayed call (a crash, a resumed run) finds the memory its first attempt
// saved (key remember:<run>:<call>) and saves nothing twice. recall only
// reads (uses are counted, which a replay may count again: harmless).
import crypto from "node:crypto";
import { z } from "zod";
import type { Db } from "@/server/db";
import type { RequestChange, TtlLadder } from "@/server/hitl";
import type { AgentSpec, NewRunEvent } from "@/server/kernel";
import { ToolError, type ToolContext, type ToolDefinition } from "@/server/tools";
import { askToKeep } from "./confirm";
import { SCENARIO_ORIGIN_NOTE } from "./prompt";
import type { MemoryStore } from "./store";
import { MAX_MEMORY_TEXT, MAX_MEMORY_TITLE, MEMORY_SCOPES, type MemoryKind, type MemoryScope } from "./types";

/** Kinds an agent saves itself; episodes are written by Rein at the end of each run. */
const AGENT_KINDS = ["fact", "procedure", "preference"] as const;

const RememberArgs = z
  .object({
    text: z
      .string()
      .trim()
      .min(1, "text is what to remember: at least one character")
      .max(MAX_MEMORY_TEXT, `a memory is at most ${MAX_MEMORY_TEXT} characters; split it or keep the lesson`),
    title: z.string().trim().min(1).max(MAX_MEMORY_TITLE).optional(),
    kind: z.enum(AGENT_KINDS, { error: "kind is fact, procedure or preference" }),
    scope: z.enum(MEMORY_SCOPES, { error: "scope is agent (only you) or team (every agent of your team)" }),
  })
  .strict();
type RememberArgs = z.infer<typeof RememberArgs>;

const RecallArgs = z
  .object({ query: z.string().trim().min(1, "query is what to look for").max(1000), limit: z.number().int().min(1).max(20).optional() })
  .strict();
type RecallArgs = z.infer<typeof RecallArgs>;

export interface MemoryToolOptions {
  db: Db;
  /** The agent spec in force (its guardrails.memoryConfirm); absent: saved memories count at once. */
  specs?: { get(name: string): Promise<Pick<AgentSpec, "guardrails"> | null> };
  /** Replaces secrets' values in what is saved (server/secrets ToolSecrets: prepareAll() then text()). */
  redactor?: { prepareAll?(): Promise<void>; text(text: string): string };
  /** The run's timeline: human.requested when a memory waits for a person. */
  appendEvents?: (runId: string, events: NewRunEvent[]) => Promise<unknown>;
  onRequestCreated?: (change: RequestChange) => void;
  ladder?: TtlLadder;
  now?: () => Date;
}

export const REMEMBER_TOOL = "remember";
export const RECALL_TOOL = "recall";
export const MEMORY_TOOL_NAMES = [REMEMBER_TOOL, RECALL_TOOL] as const;

async function runOf(db: Db, ctx: ToolContext) {
  const run = await db.run.findUnique({ where: { id: ctx.runId }, select: { id: true, teamId: true, createdById: true, scenario: true } });
  if (!run) throw new ToolError("NO_RUN", `The run ${ctx.runId} is not in the database`);
  return run;
}

export function memoryTools(store: MemoryStore, opts: MemoryToolOptions): ToolDefinition[] {
  const remember: ToolDefinition<RememberArgs> = {
    name: REMEMBER_TOOL,
    description:
      "Keep a fact, procedure or preference for later runs (kind). scope=agent: only your own runs load it; scope=team: every agent of your team. " +
      "Keep it short and general (a lesson, not a log): at most 2,000 characters. Secrets are never kept. Returns the memory's id and whether it waits for a person's confirmation.",
    args: RememberArgs,
    replayClass: "idempotent_with_key",
    persistence: "external",
    idempotencyKey: (args) =>
      crypto
        .createHash("sha256")
        .update(JSON.stringify([args.kind, args.scope, args.title ?? "", args.text]))
        .digest("hex")
        .slice(0, 32),
    async execute(args, ctx) {
      const run = await runOf(opts.db, ctx);
      await opts.redactor?.prepareAll?.();
      const redact = (s: string) => (opts.redactor ? opts.redactor.text(s) : s);
      const text = redact(args.text);
      const title = args.title ? redact(args.title) : "";
      const spec = await opts.specs?.get(ctx.agent.name);
      const confirm = spec?.guardrails?.memoryConfirm === true;
      const callKey = ctx.toolCallId ?? crypto.createHash("sha256").update(JSON.stringify(args)).digest("hex").slice(0, 24);
      const { memory, created } = await store.create({
        scope: args.scope as MemoryScope,
        kind: args.kind as MemoryKind,
        title,
        text,
        agentName: ctx.agent.name,
        teamId: run.teamId,
        ownerId: run.teamId ? null : run.createdById,
        state: confirm ? "pending" : "active",
        sourceRunId: run.id,
        createdBy: `agent:${ctx.agent.name}`,
        // A run playing its launcher's script saves a person's words, not the agent's (docs/memory.md#scenario-memories).
        origin: run.scenario !== null ? "scenario" : "agent",
        key: `remember:${run.id}:${callKey}`,
      });
      let requestId = memory.requestId;
      if (memory.state === "pending" && !requestId) {
        requestId = await askToKeep(
          {
            db: opts.db,
            store,
            appendEvents: opts.appendEvents,
            onRequestCreated: opts.onRequestCreated,
            ladder: opts.ladder,
            now: opts.now,
          },
          memory,
          run,
        );
      }
      return {
        id: memory.id,
        title: memory.title,
        kind: memory.kind,
        scope: memory.scope,
        state: memory.state,
        ...(memory.state === "pending"
          ? { requestId, note: "Saved; it counts once a person keeps it (you need not wait)." }
          : { note: created ? "Saved." : "Already saved by this call." }),
        ...(text !== args.text || title !== (args.title ?? "") ? { redacted: true } : {}),
      };
    },
  };

  const recall: ToolDefinition<RecallArgs> = {
    name: RECALL_TOOL,
    description:
      "Search the memories you and your team kept (facts, procedures, preferences, episodes of earlier runs) by words; best matches first.",
    args: RecallArgs,
    replayClass: "pure",
    persistence: "none",
    async execute(args, ctx) {
      const run = await runOf(opts.db, ctx);
      const found = await store.recall(
        args.query,
        { agentName: ctx.agent.name, teamId: run.teamId, ownerId: run.createdById, runId: run.id },
        args.limit ?? 5,
      );
      return {
        memories: found.map((m) => ({
          id: m.id,
          title: m.title,
          kind: m.kind,
          scope: m.scope,
          ...(m.origin === "scenario" ? { origin: SCENARIO_ORIGIN_NOTE } : {}),
          text: m.text,
          savedAt: m.createdAt.toISOString(),
        })),
        ...(found.length ? {} : { note: "No memory matches; try other words." }),
      };
    },
  };
  return [remember, recall] as ToolDefinition[];
}
