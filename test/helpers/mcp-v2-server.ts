// An MCP server on the official SDK v2 (@modelcontextprotocol/server), served
// over Streamable HTTP on a loopback port for tests: it speaks 2026-07-28 (no
// session; `server/discover`; a tool that asks for input answers
// `input_required`; a tool that reports progress; a tool that runs as a task
// of the tasks extension for a client that takes tasks) and, on the same URL,
// 2025-11-25 to a client that sends `initialize` (the SDK's stateless legacy
// leg; its tasks, which the SDK does not serve, are answered here). A real
// peer, not a mock.
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  CLIENT_CAPABILITIES_META_KEY,
  McpServer,
  ProtocolError,
  acceptedContent,
  createMcpHandler,
  inputRequired,
  type McpHttpHandler,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { z } from "zod";

export interface V2McpServer {
  url: string;
  /** Every JSON-RPC method the server was sent, in order (a batch counts each). */
  methods: string[];
  /** The tasks the server ran, by id (a tool called as a task). */
  tasks: Map<string, FixtureTask>;
  close(): Promise<void>;
}

export interface V2McpServerOptions {
  /** Offer tasks (default false): the extension on 2026-07-28, the `tasks` capability on 2025-11-25; without them, `report` answers in full. */
  tasks?: boolean;
  /** Answer `server/discover` with "method not found", so a client falls back to `initialize` (2025-11-25). */
  legacyOnly?: boolean;
}

const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

export interface FixtureTask {
  taskId: string;
  /** How often the client is asked to poll. */
  pollIntervalMs: number;
  hostile?: "long-status" | "long-id" | "other-id";
  status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  statusMessage: string;
  createdAt: string;
  lastUpdatedAt: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
  inputRequests?: Record<string, unknown>;
  timer?: NodeJS.Timeout;
}

const REPORT = z.object({
  steps: z.number().int().min(1).max(100),
  everyMs: z.number().min(0).max(10_000).default(50),
  /** Fail after the last step, with these words. */
  fail: z.string().optional(),
  /** Ask a person for something after the first step. */
  ask: z.boolean().default(false),
  /** How often the server asks to be polled. */
  pollIntervalMs: z.number().int().min(0).max(60_000).default(100),
  /** A hostile server's move: a status message of 100,000 characters, a task id of 1,000, or tasks/get answering about another task. */
  hostile: z.enum(["long-status", "long-id", "other-id"]).optional(),
});

const CONFIRM = z.object({ confirm: z.boolean() });
const COUNT = z.object({ n: z.number().int().min(1).max(1000), everyMs: z.number().min(0).max(10_000).default(0) });

/** Whether the client said, with this request, that it takes tasks. */
function takesTasks(ctx: ServerContext): boolean {
  const capabilities = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
    { extensions?: Record<string, unknown> } | undefined;
  return !!capabilities?.extensions && TASKS_EXTENSION in capabilities.extensions;
}

function touch(task: FixtureTask, changes: Partial<FixtureTask>) {
  Object.assign(task, changes, { lastUpdatedAt: new Date().toISOString() });
}

/** The wire shape of a task, as tools/call (with resultType "task") and tasks/get answer it. */
function taskView(task: FixtureTask, method: "tools/call" | "tasks/get"): Record<string, unknown> {
  const { timer: _timer, hostile, ...view } = task;
  return {
    ...view,
    ttlMs: null,
    ...(hostile === "long-status" ? { statusMessage: "s".repeat(100_000) } : {}),
    ...(hostile === "long-id" ? { taskId: "t".repeat(1000) } : {}),
    ...(hostile === "other-id" && method === "tasks/get" ? { taskId: "someone-elses-task" } : {}),
  };
}

/** Runs `report` in the background: a step every everyMs, then a result (or a failure, or a question). */
function runReport(task: FixtureTask, args: z.infer<typeof REPORT>) {
  let step = 0;
  const next = () => {
    if (task.status !== "working") return;
    step++;
    touch(task, { statusMessage: `step ${step} of ${args.steps}` });
    if (args.ask && step === 1) {
      touch(task, {
        status: "input_required",
        inputRequests: { go: { method: "elicitation/create", params: { mode: "form", message: "Go on?", requestedSchema: {} } } },
      });
      return;
    }
    if (step < args.steps) {
      task.timer = setTimeout(next, args.everyMs);
      return;
    }
    if (args.fail) touch(task, { status: "failed", error: { code: -32_603, message: args.fail } });
    else touch(task, { status: "completed", result: { content: [{ type: "text", text: `report of ${args.steps} steps` }] } });
  };
  task.timer = setTimeout(next, args.everyMs);
}

let taskCount = 0;

/** A new task for `report`, running. */
function startReport(tasks: Map<string, FixtureTask>, args: z.infer<typeof REPORT>): FixtureTask {
  const now = new Date().toISOString();
  const task: FixtureTask = {
    taskId: `task-${++taskCount}`,
    pollIntervalMs: args.pollIntervalMs,
    status: "working",
    statusMessage: "starting",
    createdAt: now,
    lastUpdatedAt: now,
    ...(args.hostile ? { hostile: args.hostile } : {}),
  };
  tasks.set(task.taskId, task);
  runReport(task, args);
  return task;
}

/** Stops a task that has not ended. */
function cancelFixtureTask(task: FixtureTask | undefined) {
  if (!task || (task.status !== "working" && task.status !== "input_required")) return;
  clearTimeout(task.timer);
  touch(task, { status: "cancelled", statusMessage: "cancelled by the client" });
}

function registerTaskTools(server: McpServer, tasks: Map<string, FixtureTask>, offered: boolean) {
  const report = server.registerTool(
    "report",
    { description: "Writes a report in steps; run as a task for a client that takes tasks", inputSchema: REPORT },
    async (args, ctx) => {
      if (!offered || !takesTasks(ctx)) return { content: [{ type: "text", text: `report of ${args.steps} steps` }] };
      return { resultType: "task", ...taskView(startReport(tasks, args), "tools/call") } as never;
    },
  );
  const taskOnly = server.registerTool("task_only", { description: "Runs only as a task", inputSchema: z.object({}) }, async () => ({
    content: [{ type: "text", text: "ran without a task" }],
  }));
  // registerTool takes no `execution`; a 2025-11-25 tools/list shows what is set here (2026-07-28 leaves it out).
  report.execution = { taskSupport: "optional" };
  taskOnly.execution = { taskSupport: "required" };
  if (!offered) return;
  const TaskIdParams = z.object({ taskId: z.string() }).passthrough();
  const Result = z.object({}).passthrough();
  const find = (taskId: string) => {
    const task = tasks.get(taskId);
    if (!task) throw new ProtocolError(-32_602, `No task ${taskId}`);
    return task;
  };
  server.server.setRequestHandler(
    "tasks/get" as never,
    { params: TaskIdParams, result: Result } as never,
    (async (params: z.infer<typeof TaskIdParams>) => taskView(find(params.taskId), "tasks/get")) as never,
  );
  server.server.setRequestHandler(
    "tasks/cancel" as never,
    { params: TaskIdParams, result: Result } as never,
    (async (params: z.infer<typeof TaskIdParams>) => {
      cancelFixtureTask(tasks.get(params.taskId));
      return {};
    }) as never,
  );
}

/** 2025-11-25's tasks capability (2026-07-28 leaves it out of what server/discover returns). */
const LEGACY_TASKS_CAPABILITY = { requests: { tools: { call: {} } }, cancel: {} };

function fixture(tasks: Map<string, FixtureTask>, offered: boolean): McpServer {
  const server = new McpServer(
    { name: "rein-v2-fixture", version: "2.4.0" },
    offered ? { capabilities: { extensions: { [TASKS_EXTENSION]: {} }, tasks: LEGACY_TASKS_CAPABILITY } as never } : {},
  );
  registerTaskTools(server, tasks, offered);
  server.registerTool(
    "echo",
    { description: "Says back the text it is given", inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  server.registerTool(
    "confirm",
    {
      description: "Asks a person to confirm before it says it went ahead",
      inputSchema: z.object({ what: z.string() }),
      // Safe to call again with the same arguments: a run that resumes after a restart makes the call again.
      annotations: { idempotentHint: true },
    },
    async ({ what }, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, "confirm", CONFIRM);
      if (!answer) {
        return inputRequired({
          inputRequests: { confirm: inputRequired.elicit({ message: `Go ahead with ${what}?`, requestedSchema: CONFIRM }) },
        });
      }
      return { content: [{ type: "text", text: answer.confirm ? `went ahead with ${what}` : `did not go ahead with ${what}` }] };
    },
  );
  server.registerTool(
    "flood",
    {
      description: "Asks n questions in one answer (a hostile server's move)",
      inputSchema: z.object({ n: z.number().int().min(1).max(10_000) }),
    },
    async ({ n }, ctx) => {
      const responses = ctx.mcpReq.inputResponses;
      if (!responses) {
        const ask = (i: number) => inputRequired.elicit({ message: `Question ${i}?`, requestedSchema: CONFIRM });
        return inputRequired({ inputRequests: Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`, ask(i)])) });
      }
      const accepted = Array.from({ length: n }, (_, i) => acceptedContent(responses, `q${i}`, CONFIRM)).filter(Boolean).length;
      return { content: [{ type: "text", text: `accepted ${accepted} of ${n}` }] };
    },
  );
  server.registerTool(
    "count",
    { description: "Counts to n: a progress notification at once, then one every everyMs", inputSchema: COUNT },
    async ({ n, everyMs }, ctx) => {
      // A client asks for progress by sending a progressToken in the call's _meta (docs/mcp.md#time-limits-and-cancellation).
      const token = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= n; i++) {
        if (token !== undefined)
          await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: i, total: n } });
        if (everyMs && i < n) await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
      return { content: [{ type: "text", text: `counted to ${n}` }] };
    },
  );
  return server;
}

/** The fixture behind one fetch-shaped handler: 2026-07-28 and, for a client that sends `initialize`, 2025-11-25. */
export function createV2McpHandler(
  tasks = new Map<string, FixtureTask>(),
  { tasks: offered = false }: V2McpServerOptions = {},
): McpHttpHandler {
  return createMcpHandler(() => fixture(tasks, offered), { legacy: "stateless" });
}

/** Reads a node request's body whole. */
async function readWholeBody(req: http.IncomingMessage): Promise<Buffer<ArrayBuffer>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Adds the JSON-RPC methods a request body carries to `methods` (a batch counts each). */
function recordMethods(body: Buffer, methods: string[]): void {
  try {
    const sent: unknown = body.length ? JSON.parse(body.toString("utf8")) : null;
    for (const m of Array.isArray(sent) ? sent : [sent]) {
      if (m && typeof m === "object" && typeof (m as { method?: unknown }).method === "string")
        methods.push((m as { method: string }).method);
    }
  } catch {
    // not JSON: the handler answers it
  }
}

/**
 * Answers a node request with the handler. `body` is the request's body, already read (so a caller
 * can bound or inspect it first); a failure answers 500.
 */
export async function serveV2McpRequest(
  handler: McpHttpHandler,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: Buffer<ArrayBuffer>,
): Promise<void> {
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      ...(body.length && req.method !== "GET" && req.method !== "HEAD" ? { body } : {}),
    });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) {
      const reader = response.body.getReader();
      for (let part = await reader.read(); !part.done; part = await reader.read()) res.write(part.value);
    }
    res.end();
  } catch (err) {
    if (!res.headersSent) res.writeHead(500);
    res.end(String(err));
  }
}

/** The JSON-RPC request a body carries, if it is one (not a batch). */
function requestIn(body: Buffer): { id?: unknown; method?: unknown; params?: Record<string, unknown> } | null {
  try {
    const sent: unknown = JSON.parse(body.toString("utf8"));
    return sent && typeof sent === "object" && !Array.isArray(sent) ? (sent as { method?: unknown }) : null;
  } catch {
    return null;
  }
}

/** The 2025-11-25 shape of a task. */
function legacyTaskView(task: FixtureTask): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    statusMessage: task.statusMessage,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttl: null,
    pollInterval: task.pollIntervalMs,
  };
}

/** What a 2025-11-25 task request is answered (a result or an error), or null for a request that is not one. */
function legacyTaskAnswer(
  sent: { method?: unknown; params?: Record<string, unknown> },
  tasks: Map<string, FixtureTask>,
): { result: unknown } | { error: unknown } | null {
  const params = sent.params ?? {};
  if (sent.method === "tools/call" && params.name === "report" && params.task) {
    const args = REPORT.safeParse(params.arguments ?? {});
    if (!args.success) return { error: { code: -32_602, message: "bad arguments" } };
    return { result: { task: legacyTaskView(startReport(tasks, args.data)) } };
  }
  if (typeof sent.method !== "string" || !sent.method.startsWith("tasks/")) return null;
  const task = tasks.get(String(params.taskId));
  if (!task) return { error: { code: -32_602, message: `No task ${String(params.taskId)}` } };
  if (sent.method === "tasks/get") return { result: legacyTaskView(task) };
  if (sent.method === "tasks/cancel") {
    cancelFixtureTask(task);
    return { result: legacyTaskView(task) };
  }
  if (sent.method === "tasks/result" && task.status === "completed") return { result: task.result };
  if (sent.method === "tasks/result") return { error: task.error ?? { code: -32_602, message: `task ${task.taskId} is ${task.status}` } };
  return null;
}

/** Answers a 2025-11-25 request about tasks (no envelope: the legacy leg), which the SDK's server does not serve. */
function answerLegacyTask(body: Buffer, res: http.ServerResponse, tasks: Map<string, FixtureTask>): boolean {
  const sent = requestIn(body);
  if (!sent || (sent.params?._meta as Record<string, unknown> | undefined)?.["io.modelcontextprotocol/protocolVersion"]) return false;
  const answer = legacyTaskAnswer(sent, tasks);
  if (!answer) return false;
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", id: sent.id, ...answer }));
  return true;
}

/** "Method not found" for a `server/discover` request, as a server that knows only 2025-11-25 answers it. */
function refuseDiscover(body: Buffer, res: http.ServerResponse): boolean {
  const sent = requestIn(body);
  if (sent?.method !== "server/discover") return false;
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", id: sent.id, error: { code: -32_601, message: "Method not found" } }));
  return true;
}

/** Serves the fixture at http://127.0.0.1:<port>/mcp. */
export async function startV2McpServer(options: V2McpServerOptions = {}): Promise<V2McpServer> {
  const tasks = new Map<string, FixtureTask>();
  const handler = createV2McpHandler(tasks, options);
  const methods: string[] = [];
  const server = http.createServer((req, res) => {
    void (async () => {
      const body = await readWholeBody(req);
      recordMethods(body, methods);
      if (options.legacyOnly && refuseDiscover(body, res)) return;
      if (options.tasks && answerLegacyTask(body, res, tasks)) return;
      await serveV2McpRequest(handler, req, res, body);
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    methods,
    tasks,
    async close() {
      for (const task of tasks.values()) clearTimeout(task.timer);
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
