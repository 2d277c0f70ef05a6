// A run as an A2A task (docs/a2a.md#tasks-are-runs): its state mapped from the
// run's, the question of an open human request as an input-required status,
// and, once it succeeded, what it produced as artifacts: its final text and
// the files it wrote. Everything comes from the run's events, which the
// kernel stores redacted, and passes the redactor once more on its way out.
import { Role, TaskState, type Artifact, type Message, type Part, type Task } from "@a2a-js/sdk";
import type { Db } from "@/server/db";
import { OPEN_STATES } from "@/server/hitl";
import type { RunEventRecord, RunState, RunStore } from "@/server/kernel";

/** Every run state and the task state it is (docs/a2a.md#states). */
export const TASK_STATE_OF: Record<RunState, TaskState> = {
  queued: TaskState.TASK_STATE_SUBMITTED,
  running: TaskState.TASK_STATE_WORKING,
  // Paused by a person or for a full disk: Rein resumes it, the caller has nothing to do.
  paused: TaskState.TASK_STATE_WORKING,
  // Input-required only while a request is open (see taskStateOf).
  waiting_human: TaskState.TASK_STATE_INPUT_REQUIRED,
  succeeded: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  canceled: TaskState.TASK_STATE_CANCELED,
};

/** A run waiting on a request answered a moment ago is about to go on: working, not input-required. */
export function taskStateOf(state: RunState, openRequests: number): TaskState {
  if (state === "waiting_human" && openRequests === 0) return TaskState.TASK_STATE_WORKING;
  return TASK_STATE_OF[state];
}

export const FINAL_TASK_STATES: readonly TaskState[] = [
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
];

/** What an artifact carries at most: a run's last text and the files it wrote, cut to size. */
export const MAX_ARTIFACT_FILES = 20;
export const MAX_ARTIFACT_TEXT = 64 * 1024;
const MAX_EVENTS_READ = 5_000;
const FILE_TOOLS = new Set(["write_file", "edit_file"]);

export interface RunForTask {
  id: string;
  status: string;
  statusReason: string | null;
  goal: string;
  errorCode: string | null;
  errorMessage: string | null;
  lastSeq: number;
}

export interface TaskViewDeps {
  db: Db;
  store: RunStore;
  /** Hides secrets' values in text (the kernel's redactor). */
  redact(text: string): string;
}

export interface OpenRequest {
  id: string;
  kind: string;
  title: string;
  detail: string;
  options: Array<{ id: string; label: string }> | null;
}

const cut = (text: string, max = MAX_ARTIFACT_TEXT) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const textPart = (text: string, extra: Partial<Part> = {}): Part => ({
  content: { $case: "text", value: text },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
  ...extra,
});
const dataPart = (value: unknown): Part => ({
  content: { $case: "data", value },
  metadata: undefined,
  filename: "",
  mediaType: "application/json",
});

export function agentMessage(taskId: string, messageId: string, parts: Part[]): Message {
  return { messageId, contextId: taskId, taskId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

export async function openRequestsOf(db: Db, runId: string): Promise<OpenRequest[]> {
  const rows = await db.humanRequest.findMany({
    where: { runId, state: { in: [...OPEN_STATES] } },
    select: { id: true, kind: true, title: true, detail: true, payload: true },
    orderBy: { createdAt: "asc" },
    take: 20,
  });
  return rows.map((r) => {
    let options: OpenRequest["options"] = null;
    try {
      const payload = JSON.parse(r.payload) as { options?: Array<{ id: string; label?: string }> };
      if (Array.isArray(payload.options)) options = payload.options.map((o) => ({ id: String(o.id), label: String(o.label ?? o.id) }));
    } catch {
      /* a payload Rein did not write: no options */
    }
    return { id: r.id, kind: r.kind, title: r.title, detail: r.detail, options };
  });
}

/** How to answer a request: a message on the task whose text is the decision (docs/a2a.md#answering-a-request). */
function answerHint(r: OpenRequest): string {
  switch (r.kind) {
    case "approve":
      return 'Reply on this task with "approve" or "reject".';
    case "veto":
      return 'Reply on this task with "veto", or "approve" to let it go ahead now.';
    case "choose":
      return `Reply on this task with one of: ${(r.options ?? []).map((o) => o.id).join(", ")}.`;
    default:
      return 'Reply on this task with a data part { "decision": "provide", "value": … }.';
  }
}

function statusMessage(deps: TaskViewDeps, run: RunForTask, state: TaskState, open: OpenRequest[]): Message | undefined {
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED && open.length) {
    const r = open[0];
    const text = [r.title, r.detail, answerHint(r)].filter(Boolean).join("\n\n");
    return agentMessage(run.id, `${run.id}:request:${r.id}`, [
      textPart(deps.redact(text)),
      dataPart({ requestId: r.id, kind: r.kind, options: r.options }),
    ]);
  }
  if (state === TaskState.TASK_STATE_FAILED || state === TaskState.TASK_STATE_CANCELED) {
    const why = run.errorMessage ?? run.statusReason;
    if (why) return agentMessage(run.id, `${run.id}:status:${run.lastSeq}`, [textPart(deps.redact(cut(why, 4_000)))]);
  }
  return undefined;
}

/** The artifacts of a run that succeeded: its final text, and the files it wrote with their last content. */
export function artifactsOf(events: Pick<RunEventRecord, "type" | "payload">[], redact: (text: string) => string): Artifact[] {
  let finalText = "";
  const files = new Map<string, string | null>();
  for (const e of events) {
    const p = (e.payload ?? {}) as Record<string, unknown>;
    if (e.type === "model.turn" && typeof p.text === "string" && p.text.trim()) finalText = p.text;
    if (e.type === "tool.call" && typeof p.tool === "string" && FILE_TOOLS.has(p.tool)) {
      const args = (p.args ?? {}) as { path?: unknown; content?: unknown };
      if (typeof args.path !== "string") continue;
      files.delete(args.path);
      // edit_file gives a change, not the content: the file is listed without it.
      files.set(args.path, p.tool === "write_file" && typeof args.content === "string" ? args.content : null);
    }
  }
  const written = [...files.entries()].slice(-MAX_ARTIFACT_FILES);
  const result: Artifact = {
    artifactId: "result",
    name: "result",
    description: "What the run said last, and the files it wrote",
    parts: [
      textPart(redact(cut(finalText || "The run ended without a final message."))),
      dataPart({ files: written.map(([path]) => path) }),
    ],
    metadata: undefined,
    extensions: [],
  };
  const withContent = written.filter((f): f is [string, string] => f[1] !== null);
  if (!withContent.length) return [result];
  const filesArtifact: Artifact = {
    artifactId: "files",
    name: "files",
    description: "The content of the files the run wrote",
    parts: withContent.map(([path, content]) => textPart(redact(cut(content)), { filename: path })),
    metadata: undefined,
    extensions: [],
  };
  return [result, filesArtifact];
}

async function eventsOf(store: RunStore, runId: string): Promise<RunEventRecord[]> {
  return store.listEvents(runId, 0, MAX_EVENTS_READ);
}

/** The run as a task; the caller has checked that it may see the run. */
export async function taskOf(deps: TaskViewDeps, run: RunForTask, opts: { agentCardId: string }): Promise<Task> {
  const open = run.status === "waiting_human" ? await openRequestsOf(deps.db, run.id) : [];
  const state = taskStateOf(run.status as RunState, open.length);
  const artifacts = state === TaskState.TASK_STATE_COMPLETED ? artifactsOf(await eventsOf(deps.store, run.id), deps.redact) : [];
  const goal: Message = {
    messageId: `${run.id}:goal`,
    contextId: run.id,
    taskId: run.id,
    role: Role.ROLE_USER,
    parts: [textPart(cut(run.goal, 20_000))],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return {
    id: run.id,
    contextId: run.id,
    status: { state, message: statusMessage(deps, run, state, open), timestamp: new Date().toISOString() },
    artifacts,
    history: [goal],
    metadata: { reinRunId: run.id, reinAgent: opts.agentCardId },
  };
}
