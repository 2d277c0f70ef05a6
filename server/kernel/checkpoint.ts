// Checkpointer (I2) format: what a run needs to resume. Versioned; a format
// bump adds a migration from the previous version to CHECKPOINT_MIGRATIONS.
import { z } from "zod";
import type { Message } from "@/server/models";

export const CHECKPOINT_VERSION = 1;

export interface Task {
  title: string;
  status: "todo" | "doing" | "done" | "failed";
}

/** Where a hosted agent's run stands: its ACP session, and whether a turn was in flight. */
export interface HostedState {
  sessionId?: string;
  /** The agent said it can reload a session (session/load). */
  canLoad?: boolean;
  /** The goal was sent. */
  prompted?: boolean;
  /** A prompt turn was in flight when this was written. */
  turnOpen?: boolean;
  /** A person was told of a restart the agent could not reload from; the next resume starts it again. */
  restartSeen?: boolean;
  /** Timeline events the agent's updates made so far (they are capped per run). */
  recorded?: number;
}

/** The session a run is in (long runs start fresh sessions; server/kernel/sessions.ts). */
export interface SessionInfo {
  /** 1 for the run's first session. */
  number: number;
  /** Model turns taken before this session started. */
  startedStep: number;
  /** Why it started: "start", "budget" or "context_refused". */
  reason: string;
  /** Tokens of this session's conversation (the system prompt and tools not included), kept as messages are appended. */
  tokens: number;
  /** The run's usage when the session started, so the session's own use is the difference. */
  usageAtStart: { inputTokens: number; outputTokens: number; cachedInputTokens: number };
}

export interface PendingToolCall {
  toolCallId: string;
  toolName: string;
  args: unknown;
}

export interface CheckpointState {
  version: typeof CHECKPOINT_VERSION;
  /** The agent spec currently in control (changes on handoff). */
  agent: string;
  /** Conversation so far, without the system prompt (built from the spec each turn). */
  messages: Message[];
  /** Tool calls of the last model turn that have no recorded result yet, in order. */
  pending: PendingToolCall[];
  /** Model turns taken. */
  step: number;
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number };
  handoffs: Array<{ from: string; to: string; step: number }>;
  tasks: Task[];
  notes: string[];
  /** Messages from people for the agent, added to the conversation before the next model call. */
  inbox?: string[];
  /** The seq of the last `user.message` event the conversation holds; later ones join it before the next model call. */
  messageCursor?: number;
  /** The session the conversation belongs to; absent in runs from before sessions (session 1). */
  session?: SessionInfo;
  /** The memories section of the system prompt, loaded once per session (server/memory). */
  memories?: { session: number; text: string | null };
  /** The workspace's files at this checkpoint, as a tree in the run's snapshot repository (what a fork starts from); absent before the first snapshot. */
  workspaceTree?: string;
  /** A hosted agent's session (server/hosted; docs/hosted-agents.md#runs). */
  hosted?: HostedState;
  /** Set when the model finished; resume only records the ending. */
  done?: {
    outcome: "succeeded" | "failed" | "canceled";
    reason?: string;
    /** A person rejected the call the agent stopped on (server/kernel/reviewer-stop.ts). */ byReviewer?: boolean;
  };
}

const Part = z.looseObject({ type: z.string() });
const MessageSchema = z.union([
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.string() }),
  z.object({ role: z.literal("assistant"), content: z.array(Part) }),
  z.object({ role: z.literal("tool"), content: z.array(Part) }),
]);

const StateV1 = z.object({
  version: z.literal(1),
  agent: z.string().min(1),
  messages: z.array(MessageSchema),
  pending: z.array(z.object({ toolCallId: z.string(), toolName: z.string(), args: z.unknown() })),
  step: z.number().int().min(0),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number(), cachedInputTokens: z.number() }),
  handoffs: z.array(z.object({ from: z.string(), to: z.string(), step: z.number() })),
  tasks: z.array(z.object({ title: z.string(), status: z.enum(["todo", "doing", "done", "failed"]) })),
  notes: z.array(z.string()),
  done: z
    .object({ outcome: z.enum(["succeeded", "failed", "canceled"]), reason: z.string().optional(), byReviewer: z.boolean().optional() })
    .optional(),
  inbox: z.array(z.string()).optional(),
  messageCursor: z.number().int().min(0).optional(),
  session: z
    .object({
      number: z.number().int().min(1),
      startedStep: z.number().int().min(0),
      reason: z.string(),
      tokens: z.number().min(0),
      usageAtStart: z.object({ inputTokens: z.number(), outputTokens: z.number(), cachedInputTokens: z.number() }),
    })
    .optional(),
  workspaceTree: z
    .string()
    .regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/)
    .optional(),
  memories: z.object({ session: z.number().int().min(1), text: z.string().nullable() }).optional(),
  hosted: z
    .object({
      sessionId: z.string().max(1000).optional(),
      canLoad: z.boolean().optional(),
      prompted: z.boolean().optional(),
      turnOpen: z.boolean().optional(),
      restartSeen: z.boolean().optional(),
      recorded: z.number().int().min(0).optional(),
    })
    .optional(),
});

/** version n -> version n+1. Empty while only version 1 exists. */
export const CHECKPOINT_MIGRATIONS: Record<number, (old: any) => unknown> = {};

export class CheckpointFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CheckpointFormatError";
  }
}

export function initialState(agent: string, goal: string): CheckpointState {
  return {
    version: CHECKPOINT_VERSION,
    agent,
    messages: [{ role: "user", content: goal }],
    pending: [],
    step: 0,
    usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
    handoffs: [],
    tasks: [],
    notes: [],
  };
}

export function serializeCheckpoint(state: CheckpointState): string {
  return JSON.stringify(state);
}

/** Parses a stored checkpoint, migrating older versions; refuses unknown ones. */
export function parseCheckpoint(json: string): CheckpointState {
  let value: any;
  try {
    value = JSON.parse(json);
  } catch {
    throw new CheckpointFormatError("Checkpoint is not valid JSON");
  }
  let version = value?.version;
  if (typeof version !== "number") throw new CheckpointFormatError("Checkpoint has no version");
  if (version > CHECKPOINT_VERSION) {
    throw new CheckpointFormatError(`Checkpoint version ${version} is newer than this Rein understands (${CHECKPOINT_VERSION})`);
  }
  while (version < CHECKPOINT_VERSION) {
    const migrate = CHECKPOINT_MIGRATIONS[version];
    if (!migrate) throw new CheckpointFormatError(`No migration from checkpoint version ${version}`);
    value = migrate(value);
    version += 1;
  }
  const parsed = StateV1.safeParse(value);
  if (!parsed.success) {
    throw new CheckpointFormatError(
      `Checkpoint is malformed: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  return parsed.data as CheckpointState;
}
