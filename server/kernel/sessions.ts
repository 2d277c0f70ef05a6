// Long runs across fresh sessions
// (docs/steering.md#long-runs-and-fresh-sessions). A run's conversation is not
// compacted: when it reaches the session budget (a share of the model's context
// window, 90% unless the agent spec says otherwise), or the provider refuses a
// prompt for its length, the kernel ends the session and starts a fresh one
// seeded only from durable state: the goal, the task list with what is done and
// what failed, the agent's progress notes, the workspace's recent commits and
// the errors still open, under a "get your bearings" prelude. The agent's
// instructions stay in the system prompt. The boundary is one checkpointed
// step: a crash before it is written redoes it, after it the new session goes
// on.
import { countPromptTokens, sessionSeedHeader, type Message, type ToolSpec } from "@/server/models";
import { recentCommits, type Workspace } from "@/server/tools";
import type { CheckpointState, SessionInfo } from "./checkpoint";
import type { AgentSpec } from "./specs";

/** Bumped when the seed's wording or contents change; recorded on session.started. */
export const SESSION_PRELUDE_VERSION = 1;
export const DEFAULT_SESSION_BUDGET = 0.9;

/** What goes into a seed, at most. */
const SEED_LIMITS = { commits: 15, errors: 3, errorChars: 400, notesChars: 4_000, goalChars: 4_000 };

export type SessionReason = "budget" | "context_refused";

export const SESSION_REASON_TEXT: Record<SessionReason, (budget: number) => string> = {
  budget: (b) => `the context reached ${Math.round(b * 100)}% of the model's window`,
  context_refused: () => "the model refused a prompt that long",
};

/** The share of the context window a session may fill, from the agent spec. */
export function sessionBudgetShare(spec: AgentSpec): number {
  const v = spec.guardrails.sessionBudget;
  return typeof v === "number" && v > 0 && v <= 1 ? v : DEFAULT_SESSION_BUDGET;
}

/** Tokens of conversation messages, counted as the prompt counts them. */
export function messageTokens(messages: Message[]): number {
  return countPromptTokens(messages);
}

/** Tokens of the tool definitions offered (each spec counted once: server/models countPromptTokens). */
export function toolTokens(tools: ToolSpec[]): number {
  return countPromptTokens([], tools);
}

/** The session a state is in (runs from before sessions existed: session 1, its tokens counted once). */
export function sessionOf(state: CheckpointState): SessionInfo {
  return (
    state.session ?? {
      number: 1,
      startedStep: 0,
      reason: "start",
      tokens: messageTokens(state.messages),
      usageAtStart: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
    }
  );
}

/** The state with messages appended to the conversation, its session's token count kept current. */
export function withMessages(state: CheckpointState, added: Message[]): CheckpointState {
  const session = sessionOf(state);
  return { ...state, messages: [...state.messages, ...added], session: { ...session, tokens: session.tokens + messageTokens(added) } };
}

/** What a fresh session was seeded with (on session.started; the seed text itself is in the checkpoint). */
export interface SeedSummary {
  tasks: number;
  tasksDone: number;
  tasksFailed: number;
  notes: number;
  commits: number;
  openErrors: number;
  tokens: number;
  preludeVersion: number;
}

interface ToolFailure {
  tool: string;
  text: string;
}

/** Failed tool calls of the conversation that no later call of the same tool made good, the latest last. */
export function openErrors(messages: Message[]): ToolFailure[] {
  const open = new Map<string, ToolFailure>();
  for (const m of messages) {
    if (m.role !== "tool") continue;
    for (const part of m.content) {
      if (part.type !== "tool-result") continue;
      const failure = failureOf(part.toolName, part.output, part.isError === true);
      if (failure) {
        open.delete(part.toolName);
        open.set(part.toolName, failure);
      } else open.delete(part.toolName);
    }
  }
  return [...open.values()].slice(-SEED_LIMITS.errors);
}

function failureOf(tool: string, output: unknown, isError: boolean): ToolFailure | null {
  const cut = (s: string) => (s.length > SEED_LIMITS.errorChars ? `…${s.slice(-SEED_LIMITS.errorChars)}` : s);
  if (isError) {
    const err = (output as { error?: { code?: string; message?: string } } | null)?.error;
    return { tool, text: cut(`${err?.code ?? "ERROR"}: ${err?.message ?? JSON.stringify(output)}`) };
  }
  const shell = output as { exitCode?: unknown; output?: unknown } | null;
  if (tool === "shell" && typeof shell?.exitCode === "number" && shell.exitCode !== 0) {
    return { tool, text: cut(`exit ${shell.exitCode}: ${typeof shell.output === "string" ? shell.output.trim() : ""}`) };
  }
  return null;
}

/**
 * The seed of session `number`: the only user turn of a fresh conversation.
 * Built from durable state alone (the checkpoint's tasks and notes, the
 * workspace's git log, the last session's open errors), never from a summary
 * of the conversation it replaces.
 */
export async function buildSeed(input: {
  number: number;
  turnsBefore: number;
  reason: SessionReason;
  budgetShare: number;
  goal: string;
  state: CheckpointState;
  workspace: Workspace;
}): Promise<{ text: string; summary: SeedSummary }> {
  const { state } = input;
  const commits = await recentCommits(input.workspace, SEED_LIMITS.commits).catch(() => [] as string[]);
  const errors = openErrors(state.messages);
  const notes = state.notes.join("\n");
  const goal = input.goal.length > SEED_LIMITS.goalChars ? `${input.goal.slice(0, SEED_LIMITS.goalChars)}…` : input.goal;
  const lastTools = [...state.messages].reverse().find((m) => m.role === "tool" || m.role === "assistant");
  const lastStepFailed = lastTools?.role === "tool" && openErrors([lastTools]).length > 0;
  const sections = [
    `${sessionSeedHeader(input.number, input.turnsBefore, lastStepFailed)}This is session ${input.number} of this run. The previous session ended because ${SESSION_REASON_TEXT[input.reason](input.budgetShare)}. You do not see its conversation: what lasts is below, and in the workspace.`,
    `Goal:\n${goal}`,
    state.tasks.length
      ? `Task list (${state.tasks.filter((t) => t.status === "done").length} of ${state.tasks.length} done):\n${state.tasks.map((t) => `- [${t.status}] ${t.title}`).join("\n")}`
      : "Task list: none yet. Start one with update_tasks.",
    notes
      ? `Your progress notes, oldest first:\n${notes.length > SEED_LIMITS.notesChars ? `…${notes.slice(-SEED_LIMITS.notesChars)}` : notes}`
      : "Progress notes: none yet.",
    commits.length
      ? `Recent commits in the workspace (git log, newest first):\n${commits.join("\n")}`
      : "Recent commits in the workspace: none.",
    errors.length
      ? `Errors still open from the last session:\n${errors.map((e) => `- ${e.tool}: ${e.text}`).join("\n")}`
      : "Errors still open: none.",
    "Get your bearings before you act: look at the workspace (list the files, read the ones the task list names, check the git log), then go on with the first task that is not done. Keep the task list and your notes current with update_tasks: they are what the next session starts from.",
  ];
  const text = sections.join("\n\n");
  return {
    text,
    summary: {
      tasks: state.tasks.length,
      tasksDone: state.tasks.filter((t) => t.status === "done").length,
      tasksFailed: state.tasks.filter((t) => t.status === "failed").length,
      notes: state.notes.length,
      commits: commits.length,
      openErrors: errors.length,
      tokens: messageTokens([{ role: "user", content: text }]),
      preludeVersion: SESSION_PRELUDE_VERSION,
    },
  };
}
