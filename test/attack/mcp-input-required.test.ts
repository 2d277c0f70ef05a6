// Answers that come back to /mcp on 2026-07-28 (docs/mcp-server.md#human-requests):
// wait_for_run seals which requests it asked, of whom and for which run, in the
// requestState. A client that alters it, hands it to another person, or points
// its answers at a request it was not asked decides nothing. Runs as tasks
// (docs/mcp-server.md#runs-as-tasks): another team's run is no task to read,
// answer or cancel, and a viewer's answers decide nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { createApiToken, createUser } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { serveMcp, type McpHttpServer } from "@/test/helpers/mcp-server";
import { testServices } from "@/test/helpers/services";
import { waitFor } from "@/test/helpers/wait";

let tk: TestKernel;
let server: McpHttpServer;
let url: string;
const tokens = {} as Record<"approver" | "admin" | "viewer" | "outsider", string>;
const clients: Client[] = [];

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  for (const role of ["approver", "admin", "viewer"] as const)
    tokens[role] = (await createApiToken(tk.t.db, { userId: tk.users[role], name: role })).token;
  // An approver and operator of another team.
  const outsider = await createUser(tk.t.db, {
    email: "approver@other.team",
    password: "password-123",
    role: "approver",
    teams: ["other-team"],
  });
  tokens.outsider = (await createApiToken(tk.t.db, { userId: outsider, name: "outsider" })).token;
  server = await serveMcp(testServices(tk));
  url = server.url;
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await server?.close();
  await tk?.cleanup();
});

/** A 2026-07-28 client that gets input_required back instead of answering it, to send what it likes. */
async function manualClient(role: keyof typeof tokens) {
  const client = new Client(
    { name: "rein-attack", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" }, inputRequired: { autoFulfill: false }, capabilities: { elicitation: { form: {} } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${tokens[role]}` } } }),
  );
  expect(client.getProtocolEra()).toBe("modern");
  clients.push(client);
  return client;
}

type Asked = { resultType: string; inputRequests: Record<string, unknown>; requestState: string };

async function asked(client: Client, runId: string): Promise<Asked> {
  const res = (await client.callTool({ name: "wait_for_run", arguments: { runId, timeoutSec: 30 } }, {
    allowInputRequired: true,
    timeout: 40_000,
  } as never)) as unknown as Asked;
  expect(res.resultType).toBe("input_required");
  return res;
}

async function answer(client: Client, runId: string, inputResponses: Record<string, unknown>, requestState: string) {
  return client.callTool(
    { name: "wait_for_run", arguments: { runId, timeoutSec: 1 }, inputResponses, requestState } as never,
    { allowInputRequired: true, timeout: 40_000 } as never,
  ) as Promise<{ isError?: boolean; content?: Array<{ text?: string }>; resultType?: string }>;
}

const approve = { action: "accept", content: { decision: "approve" } };
const deployRun = async () => (await createRun(tk.kernel, { goal: "Ship it", agent: "demo-deploy" }, tk.actors.operator)).id;
const stateOf = async (runId: string) => (await tk.t.db.humanRequest.findFirstOrThrow({ where: { runId } })).state;
const stop = async (runId: string) => {
  await tk.kernel.pool.cancel(runId, { id: tk.users.admin, name: "admin" });
  await tk.settle(runId);
};

describe("wait_for_run's requestState", () => {
  it("altered by the client is refused, and the request stays open", async () => {
    const runId = await deployRun();
    const client = await manualClient("approver");
    const first = await asked(client, runId);
    const [requestId] = Object.keys(first.inputRequests);
    const s = first.requestState;
    const altered = s.slice(0, 10) + (s[10] === "A" ? "B" : "A") + s.slice(11);
    const res = await answer(client, runId, { [requestId]: approve }, altered);
    expect(res.isError).toBe(true);
    expect(res.content?.[0]?.text).toMatch(/^INVALID_INPUT: The requestState is not one Rein gave/);
    expect(await stateOf(runId)).toBe("PENDING");
    await stop(runId);
  });

  it("answers without it are refused", async () => {
    const runId = await deployRun();
    const client = await manualClient("approver");
    const [requestId] = Object.keys((await asked(client, runId)).inputRequests);
    const res = await client.callTool(
      { name: "wait_for_run", arguments: { runId, timeoutSec: 1 }, inputResponses: { [requestId]: approve } } as never,
      { allowInputRequired: true } as never,
    );
    expect(res.isError).toBe(true);
    expect(await stateOf(runId)).toBe("PENDING");
    await stop(runId);
  });

  it("given to one person is refused from another, even one who may decide the request", async () => {
    const runId = await deployRun();
    const theirs = await asked(await manualClient("approver"), runId);
    const [requestId] = Object.keys(theirs.inputRequests);
    const res = await answer(await manualClient("admin"), runId, { [requestId]: approve }, theirs.requestState);
    expect(res.isError).toBe(true);
    expect(res.content?.[0]?.text).toMatch(/given for another run or to another person/);
    expect(await stateOf(runId)).toBe("PENDING");
    await stop(runId);
  });

  it("for one run does not answer another run's request", async () => {
    const [one, two] = [await deployRun(), await deployRun()];
    const client = await manualClient("approver");
    const ofOne = await asked(client, one);
    const [requestOfTwo] = Object.keys((await asked(client, two)).inputRequests);
    // The state of run one, sent for run two: refused.
    const crossed = await answer(client, two, { [requestOfTwo]: approve }, ofOne.requestState);
    expect(crossed.isError).toBe(true);
    // The state of run one, with an answer to run two's request: run one's call decides nothing of run two.
    await answer(client, one, { [requestOfTwo]: approve }, ofOne.requestState);
    expect(await stateOf(two)).toBe("PENDING");
    expect(await stateOf(one)).toBe("PENDING");
    await stop(one);
    await stop(two);
  });
});

/** One raw 2026-07-28 request of the tasks extension, as `role`; the JSON-RPC answer. */
async function taskCall(role: keyof typeof tokens, method: string, params: Record<string, unknown>) {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${tokens[role]}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      "mcp-name": String(params.taskId),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "rein-attack", version: "1.0.0" },
          "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } },
        },
      },
    }),
  });
  return (await res.json()) as { result?: Record<string, any>; error?: { code: number; message: string } };
}

describe("a run as a task", () => {
  it("of another team cannot be read, answered or cancelled, and says nothing of itself", async () => {
    const runId = await deployRun();
    await waitFor(async () => (await stateOf(runId).catch(() => null)) === "PENDING" || null, "the request");
    const got = await taskCall("outsider", "tasks/get", { taskId: runId });
    expect(got.result).toBeUndefined();
    expect(got.error).toEqual({ code: -32602, message: `No task ${runId}` });
    const [requestId] = Object.keys((await taskCall("approver", "tasks/get", { taskId: runId })).result!.inputRequests);
    expect(await taskCall("outsider", "tasks/update", { taskId: runId, inputResponses: { [requestId]: approve } })).toMatchObject({
      result: {},
    });
    expect(await taskCall("outsider", "tasks/cancel", { taskId: runId })).toMatchObject({ result: {} });
    expect(await stateOf(runId)).toBe("PENDING");
    expect((await tk.t.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("waiting_human");
    await stop(runId);
  });

  it("answered by a viewer, or cancelled by one, is neither", async () => {
    const runId = await deployRun();
    await waitFor(async () => (await stateOf(runId).catch(() => null)) === "PENDING" || null, "the request");
    const request = await tk.t.db.humanRequest.findFirstOrThrow({ where: { runId } });
    expect((await taskCall("viewer", "tasks/get", { taskId: runId })).result).toMatchObject({ status: "working" });
    await taskCall("viewer", "tasks/update", { taskId: runId, inputResponses: { [request.id]: approve } });
    await taskCall("viewer", "tasks/cancel", { taskId: runId });
    expect(await stateOf(runId)).toBe("PENDING");
    expect((await tk.t.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("waiting_human");
    await stop(runId);
  });

  it("does not take an answer to another run's request", async () => {
    const [one, two] = [await deployRun(), await deployRun()];
    for (const id of [one, two]) await waitFor(async () => (await stateOf(id).catch(() => null)) === "PENDING" || null, "the request");
    const requestOfTwo = await tk.t.db.humanRequest.findFirstOrThrow({ where: { runId: two } });
    await taskCall("approver", "tasks/update", { taskId: one, inputResponses: { [requestOfTwo.id]: approve } });
    expect(await stateOf(two)).toBe("PENDING");
    expect(await stateOf(one)).toBe("PENDING");
    await stop(one);
    await stop(two);
  });
});

describe("a 2026-07-28 call whose client goes away", () => {
  it("ends: wait_for_run stops waiting at once instead of at its timeout", async () => {
    const scenario = { turns: [{ toolCalls: [{ tool: "shell", args: { command: "sleep 30" } }] }, { text: "Done." }] };
    const runId = (await createRun(tk.kernel, { goal: "Take a while", agent: "demo-coder", scenario }, tk.actors.operator)).id;
    const gone = new AbortController();
    const call = fetch(url, {
      method: "POST",
      signal: gone.signal,
      headers: {
        authorization: `Bearer ${tokens.viewer}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "wait_for_run",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: {
          name: "wait_for_run",
          arguments: { runId, timeoutSec: 120 },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { name: "rein-attack", version: "1.0.0" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    }).catch(() => null);
    // The run takes half a minute: the call waits until the client leaves.
    await new Promise((r) => setTimeout(r, 300));
    gone.abort();
    await call;
    const ended = await waitFor(
      () =>
        tk.t.db.auditEntry.findFirst({
          where: { kind: "mcp.tool_call", subject: "wait_for_run", runId, actorId: tk.users.viewer },
        }),
      "the wait to end",
      { limitMs: 15_000 },
    );
    expect(JSON.parse(ended.detail ?? "{}")).toMatchObject({ outcome: "cancelled" });
    await stop(runId);
  });

  it("subscriptions/listen is refused: no stream is held open", async () => {
    const res = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tokens.viewer}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "subscriptions/listen",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 8,
        method: "subscriptions/listen",
        params: {
          notifications: { toolsListChanged: true },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { name: "rein-attack", version: "1.0.0" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    expect(res.status).toBe(405);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/subscriptions\/listen is not served/);
  });
});
