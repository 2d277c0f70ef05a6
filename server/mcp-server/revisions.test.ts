// Rein's /mcp with the official v2 client (@modelcontextprotocol/client) in
// both revisions it serves (docs/mcp-server.md#revisions): 2026-07-28 with no
// session, where wait_for_run asks the client's user with input_required, and
// 2025-11-25 over the initialize handshake. A v1 client is covered by
// mcp-server.test.ts and elicitation.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, StreamableHTTPClientTransport, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient, type TaskExecutionEvent } from "@modelcontextprotocol/ext-tasks/client";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { createApiToken } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { startMcpServer, type McpTestServer } from "./testing";
import { testServices } from "@/test/helpers/services";

type Json = Record<string, any>;

let tk: TestKernel;
let mcp: McpTestServer;
const tokens = {} as Record<"operator" | "approver", string>;
const clients: Client[] = [];

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  for (const role of ["operator", "approver"] as const)
    tokens[role] = (await createApiToken(tk.t.db, { userId: tk.users[role], name: role })).token;
  mcp = await startMcpServer(testServices(tk));
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await mcp?.close();
  await tk?.cleanup();
});

/** The v2 client as the holder of `role`'s token: "auto" negotiates (2026-07-28 here), "legacy" sends initialize. */
async function connect(role: keyof typeof tokens, mode: "auto" | "legacy", reply?: ElicitResult) {
  const asked: ElicitRequest["params"][] = [];
  const client = new Client(
    { name: "rein-test", version: "1.0.0" },
    { versionNegotiation: { mode }, capabilities: reply ? { elicitation: { form: {} } } : {} },
  );
  if (reply) {
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params);
      return reply;
    });
  }
  const transport = new StreamableHTTPClientTransport(new URL(mcp.url), {
    requestInit: { headers: { Authorization: `Bearer ${tokens[role]}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return { client, transport, asked };
}

const structured = (res: Awaited<ReturnType<Client["callTool"]>>): Json => {
  expect(res.isError, JSON.stringify(res.content)).toBeFalsy();
  return res.structuredContent as Json;
};

describe.each([
  { mode: "auto" as const, era: "modern", version: "2026-07-28" },
  { mode: "legacy" as const, era: "legacy", version: "2025-11-25" },
])("the v2 client, $version", ({ mode, era, version }) => {
  it("connects, starts a run, sees its progress while it waits, and the run ends", async () => {
    const { client, transport } = await connect("operator", mode);
    expect(client.getProtocolEra()).toBe(era);
    expect(client.getNegotiatedProtocolVersion()).toBe(version);
    expect(transport.sessionId).toBeUndefined();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["start_run", "wait_for_run", "cancel_run", "answer_human_request"]));

    const started = structured(
      await client.callTool({
        name: "start_run",
        arguments: { agent: "demo-coder", goal: "Count to three", team: tk.actors.operator.teamIds[0] },
      }),
    );
    const progress: number[] = [];
    const waited = structured(
      await client.callTool(
        { name: "wait_for_run", arguments: { runId: started.runId, timeoutSec: 60 } },
        { onprogress: (p) => void progress.push(p.progress), timeout: 70_000 },
      ),
    );
    expect(waited).toMatchObject({ outcome: "ended", run: { state: "succeeded" } });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it("cancels a run", async () => {
    const { client } = await connect("operator", mode);
    const run = await createRun(tk.kernel, { goal: "Ship it", agent: "demo-deploy" }, tk.actors.operator);
    const cancelled = structured(await client.callTool({ name: "cancel_run", arguments: { runId: run.id } }));
    expect(cancelled.runId).toBe(run.id);
    expect(await tk.settle(run.id)).toBe("canceled");
  });
});

describe("a human request answered over input_required (2026-07-28)", () => {
  it("the approver's client is asked in the call's answer, approves, and the call made again goes on to the run's end", async () => {
    const run = await createRun(tk.kernel, { goal: "Ship it", agent: "demo-deploy" }, tk.actors.operator);
    const { client, asked } = await connect("approver", "auto", {
      action: "accept",
      content: { decision: "approve", comment: "from my editor" },
    });
    expect(client.getProtocolEra()).toBe("modern");
    const waited = structured(
      await client.callTool({ name: "wait_for_run", arguments: { runId: run.id, timeoutSec: 60 } }, { timeout: 70_000 }),
    );
    expect(waited).toMatchObject({ outcome: "ended", answeredByYou: 1, run: { state: "succeeded" } });
    expect(asked).toHaveLength(1);
    expect(asked[0].message).toContain("./deploy.sh production");
    const [request] = await tk.t.db.humanRequest.findMany({ where: { runId: run.id } });
    expect(request).toMatchObject({ state: "APPROVED", channel: "mcp", decidedById: tk.users.approver });
    expect(JSON.parse(request.decision!)).toMatchObject({ decision: "approve", comment: "from my editor" });
  });

  it("a client that cannot ask its user is told the run waits for a person, and the request stays for the Inbox", async () => {
    const run = await createRun(tk.kernel, { goal: "Ship it", agent: "demo-deploy" }, tk.actors.operator);
    const { client } = await connect("approver", "auto");
    const waited = structured(
      await client.callTool({ name: "wait_for_run", arguments: { runId: run.id, timeoutSec: 60 } }, { timeout: 70_000 }),
    );
    expect(waited).toMatchObject({ outcome: "waiting_human", run: { state: "waiting_human" } });
    expect((await tk.t.db.humanRequest.findFirstOrThrow({ where: { runId: run.id } })).state).toBe("PENDING");
    await tk.kernel.pool.cancel(run.id, { id: tk.users.admin, name: "admin" });
    await tk.settle(run.id);
  });
});

/**
 * The tasks extension's own client (@modelcontextprotocol/ext-tasks) over the
 * v2 client: its raw requests go out as a 2026-07-28 client sends them, with
 * the revision, method and name headers.
 */
function taskSession(client: Client, role: keyof typeof tokens, answer?: ElicitResult) {
  const asked: unknown[] = [];
  const nameOf = (method: string, params: Record<string, unknown>) =>
    method === "tools/call" || method === "prompts/get" ? params.name : method.startsWith("tasks/") ? params.taskId : params.uri;
  let nextId = 0;
  // The package hands over the request (method and params) and wants back the JSON-RPC answer as a result or an error.
  const rawDispatch = async (framed: any) => {
    const request = { jsonrpc: "2.0", id: `raw-${++nextId}`, ...framed };
    const name = nameOf(String(request.method), request.params ?? {});
    const res = await fetch(mcp.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tokens[role]}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": String(request.method),
        ...(typeof name === "string" ? { "mcp-name": name } : {}),
      },
      body: JSON.stringify(request),
    });
    const text = await res.text();
    const answer = (res.headers.get("content-type") ?? "").includes("text/event-stream")
      ? text
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => JSON.parse(line.slice(5)))
          .find((m) => m.id === request.id)
      : JSON.parse(text);
    return answer.error ? { kind: "error" as const, error: answer.error } : { kind: "result" as const, result: answer.result };
  };
  const session = createTaskSessionFromClient(client, {
    endpointId: "rein-under-test",
    rawDispatch,
    v2RequestFraming: {
      protocolVersion: "2026-07-28",
      clientInfo: { name: "rein-test", version: "1.0.0" },
      clientCapabilities: { elicitation: { form: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } },
    },
    ...(answer
      ? {
          onInputRequest: async (request: any) => {
            asked.push(request);
            return answer as never;
          },
        }
      : {}),
  });
  return { session, asked };
}

describe("runs as tasks (2026-07-28, io.modelcontextprotocol/tasks)", () => {
  it("start_run returns the run as a task; polling shows its steps, a person's answer goes in with tasks/update, and it completes", async () => {
    const { client } = await connect("approver", "auto");
    expect(JSON.stringify(client.getServerCapabilities())).toContain("io.modelcontextprotocol/tasks");
    const { session, asked } = taskSession(client, "approver", {
      action: "accept",
      content: { decision: "approve", comment: "as a task" },
    });
    try {
      const execution = await session.callTool("start_run", { agent: "demo-deploy", goal: "Ship it", team: tk.actors.approver.teamIds[0] });
      expect(execution.kind).toBe("task");
      const runId = execution.handle!.taskId;
      const seen: TaskExecutionEvent<unknown>[] = [];
      const { outcome } = await execution.settle({ onEvent: (e) => void seen.push(e) });
      expect(outcome.status, JSON.stringify(outcome)).toBe("completed");
      expect(asked).toHaveLength(1);
      const tasks = seen.flatMap((e) => (e.type === "task" ? [e.task] : []));
      expect(tasks.map((t) => t.status)).toContain("input_required");
      // Progress is the run's steps, in the task's status message.
      expect(tasks.some((t) => /step \d+ of at most \d+/.test(t.statusMessage ?? ""))).toBe(true);
      const request = await tk.t.db.humanRequest.findFirstOrThrow({ where: { runId } });
      expect(request).toMatchObject({ state: "APPROVED", channel: "mcp", decidedById: tk.users.approver });
      expect((await tk.t.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("succeeded");
    } finally {
      await session.close();
    }
  });

  it("tasks/cancel cancels the run", async () => {
    const { client } = await connect("operator", "auto");
    const { session } = taskSession(client, "operator");
    try {
      const execution = await session.callTool("start_run", { agent: "demo-deploy", goal: "Ship it", team: tk.actors.operator.teamIds[0] });
      expect(execution.kind).toBe("task");
      const runId = execution.handle!.taskId;
      await execution.cancel();
      expect(await tk.settle(runId)).toBe("canceled");
    } finally {
      await session.close();
    }
  });

  it("a client that does not take tasks gets start_run's answer at once, as before", async () => {
    const { client } = await connect("operator", "auto");
    const started = structured(
      await client.callTool({ name: "start_run", arguments: { agent: "demo-coder", goal: "Count", team: tk.actors.operator.teamIds[0] } }),
    );
    expect(started).toMatchObject({ runId: expect.any(String) });
    await tk.settle(started.runId);
  });
});
