// Rein's MCP server (docs/mcp-server.md) through the SDK's own client on a real
// HTTP server: the tools a model sees, and a run that asks a person for
// approval followed from start to end, in two protocol revisions.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { LATEST_PROTOCOL_VERSION, type Progress } from "@modelcontextprotocol/sdk/types.js";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { waitFor } from "@/test/helpers/wait";
import { createApiToken } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { connectClient, startMcpServer, type McpTestServer } from "./testing";
import { testServices } from "@/test/helpers/services";

type Json = Record<string, any>;

let tk: TestKernel;
let mcp: McpTestServer;
const tokens = {} as Record<"viewer" | "operator" | "approver", string>;
const clients: Client[] = [];

async function connect(role: keyof typeof tokens, version?: string) {
  const { client, transport } = await connectClient(mcp.url, tokens[role], version);
  clients.push(client);
  return { client, transport };
}

interface Answer {
  isError: boolean;
  text: string;
  json: Json;
}

async function call(client: Client, name: string, args: Json = {}, onprogress?: (p: Progress) => void): Promise<Answer> {
  const res = await client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress } : undefined);
  const text = (res.content as Array<{ type: string; text: string }>).map((c) => c.text).join("\n");
  return { isError: res.isError === true, text, json: (res.structuredContent ?? {}) as Json };
}

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  for (const role of ["viewer", "operator", "approver"] as const)
    tokens[role] = (await createApiToken(tk.t.db, { userId: tk.users[role], name: role })).token;
  mcp = await startMcpServer(testServices(tk), { publicUrl: "http://rein.test" });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await mcp?.close();
  await tk?.cleanup();
});

describe("the tools a client sees", () => {
  it("lists every tool with a description, an input schema and its hints", async () => {
    const { client } = await connect("viewer");
    const { tools } = await client.listTools();
    const hints = Object.fromEntries(
      tools.map((t) => [
        t.name,
        [t.annotations?.readOnlyHint, t.annotations?.destructiveHint, t.annotations?.idempotentHint, t.annotations?.openWorldHint],
      ]),
    );
    // [readOnly, destructive, idempotent, openWorld]
    expect(hints).toEqual({
      list_agents: [true, false, true, false],
      start_run: [false, false, false, false],
      get_run: [true, false, true, false],
      wait_for_run: [true, false, true, false],
      cancel_run: [false, true, true, false],
      list_human_requests: [true, false, true, false],
      answer_human_request: [false, true, false, false],
    });
    for (const t of tools) {
      expect(t.description!.length, t.name).toBeGreaterThan(40);
      expect(t.inputSchema.type).toBe("object");
    }
    expect(tools.find((t) => t.name === "start_run")!.inputSchema.required?.sort()).toEqual(["agent", "goal"]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual([
      "rein://runs/{runId}/events",
      "rein://runs/{runId}/files",
      "rein://runs/{runId}/files/{+path}",
    ]);
  });

  it("list_agents lists the built-in agents", async () => {
    const { client } = await connect("viewer");
    const res = await call(client, "list_agents");
    expect(res.isError).toBe(false);
    expect(res.json.agents.map((a: Json) => a.name)).toEqual(expect.arrayContaining(["demo-coder", "demo-deploy"]));
  });

  it("a viewer cannot start a run: a tool error naming the role, and no run", async () => {
    const { client } = await connect("viewer");
    const before = await tk.t.db.run.count();
    const res = await call(client, "start_run", { agent: "demo-coder", goal: "Write fizzbuzz" });
    expect(res).toMatchObject({ isError: true });
    expect(res.text).toMatch(/^FORBIDDEN: .*operator/);
    expect(await tk.t.db.run.count()).toBe(before);
  });

  it("bad arguments and unknown runs are tool errors, not crashes", async () => {
    const { client } = await connect("operator");
    const unknown = await call(client, "start_run", { agent: "nobody", goal: "x" });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toMatch(/^UNKNOWN_AGENT: .*demo-deploy/);
    const missing = await call(client, "get_run", { runId: "no-such-run" });
    expect(missing).toMatchObject({ isError: true, text: "NOT_FOUND: Run no-such-run was not found" });
    const tooLong = await call(client, "wait_for_run", { runId: "no-such-run", timeoutSec: 121 });
    expect(tooLong.isError).toBe(true);
    expect(tooLong.text).toMatch(/timeoutSec/);
  });
});

describe.each([LATEST_PROTOCOL_VERSION, "2025-03-26"])("a run that asks for approval, protocol %s", (version) => {
  let runId: string;
  let requestId: string;

  it("negotiates the revision", async () => {
    const { transport } = await connect("operator", version === LATEST_PROTOCOL_VERSION ? undefined : version);
    expect(transport.protocolVersion).toBe(version);
  });

  it("start_run returns at once with the run's id, state and page", async () => {
    const { client } = await connect("operator", version);
    const res = await call(client, "start_run", { agent: "demo-deploy", goal: "Ship it" });
    expect(res.isError, res.text).toBe(false);
    runId = res.json.runId;
    expect(["queued", "running"]).toContain(res.json.state);
    expect(res.json.url).toBe(`http://rein.test/runs/${runId}`);
  });

  it("wait_for_run returns when the run waits for a person, with the request, after progress notifications", async () => {
    const { client } = await connect("viewer", version);
    const progress: Progress[] = [];
    const res = await call(client, "wait_for_run", { runId, timeoutSec: 20 }, (p) => progress.push(p));
    expect(res.isError, res.text).toBe(false);
    expect(res.json.outcome).toBe("waiting_human");
    expect(res.json.run.state).toBe("waiting_human");
    expect(res.text).toMatch(/answer_human_request/);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((p) => typeof p.progress === "number")).toBe(true);
    const [request] = res.json.run.openRequests;
    expect(request).toMatchObject({
      kind: "approve",
      state: "PENDING",
      requiredRole: "approver",
      url: `http://rein.test/inbox?id=${request.id}`,
    });
    expect(request.title).toContain("./deploy.sh production");
    requestId = request.id;
  });

  it("list_human_requests shows the open request", async () => {
    const { client } = await connect("viewer", version);
    const res = await call(client, "list_human_requests", { runId });
    expect(res.json.requests.map((r: Json) => r.id)).toEqual([requestId]);
    const all = await call(client, "list_human_requests", { state: "all" });
    expect(all.json.requests.map((r: Json) => r.id)).toContain(requestId);
  });

  it("answer_human_request is refused to a viewer and an operator, and the request stays open", async () => {
    const viewer = await call((await connect("viewer", version)).client, "answer_human_request", { requestId, decision: "approve" });
    expect(viewer.isError).toBe(true);
    expect(viewer.text).toMatch(/^FORBIDDEN: .*operator role; you are viewer/);
    const operator = await call((await connect("operator", version)).client, "answer_human_request", { requestId, decision: "approve" });
    expect(operator.isError).toBe(true);
    expect(operator.text).toMatch(/^FORBIDDEN: .*approver/);
    expect((await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: requestId } })).state).toBe("PENDING");
  });

  it("an approver's answer is taken, audited on the mcp channel, and the run succeeds", async () => {
    const { client } = await connect("approver", version);
    const res = await call(client, "answer_human_request", { requestId, decision: "approve", comment: "go" });
    expect(res.isError, res.text).toBe(false);
    expect(res.json.request).toMatchObject({ id: requestId, state: "APPROVED", channel: "mcp" });
    const transition = await tk.t.db.auditEntry.findFirst({ where: { requestId, toState: "APPROVED" } });
    expect(transition).toMatchObject({ channel: "mcp", actorId: tk.users.approver });

    const done = await call(client, "wait_for_run", { runId, timeoutSec: 20 });
    expect(done.json).toMatchObject({ outcome: "ended", run: { state: "succeeded", openRequests: [] } });
    expect(done.json.run.stepCount).toBeGreaterThan(0);
    expect(done.json.run.recentEvents.at(-1)).toMatchObject({ type: "run.state", summary: expect.stringContaining("succeeded") });
  });

  it("the run's events read as a resource", async () => {
    const { client } = await connect("viewer", version);
    const res = await client.readResource({ uri: `rein://runs/${runId}/events` });
    const body = JSON.parse(String((res.contents[0] as { text: string }).text));
    expect(body.runId).toBe(runId);
    expect(body.events.map((e: Json) => e.type)).toEqual(expect.arrayContaining(["run.created", "human.requested", "human.decided"]));
    await expect(client.readResource({ uri: "rein://runs/no-such-run/events" })).rejects.toThrow(/was not found/);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`rein://runs/${runId}/events`);
    const completed = await client.complete({
      ref: { type: "ref/resource", uri: "rein://runs/{runId}/events" },
      argument: { name: "runId", value: runId.slice(0, 6) },
    });
    expect(completed.completion.values).toContain(runId);
  });
});

describe("waiting, cancelling and the audit log", () => {
  /** A run nobody picks up: it stays queued, so waiting on it can only time out or be cancelled. */
  async function queuedRun() {
    const run = await createRun({ ...tk.kernel, enqueue: () => {} }, { agent: "demo-coder", goal: "Stay queued" }, tk.actors.operator);
    return run.id;
  }

  it("wait_for_run says the run is still going when the time is up", async () => {
    const runId = await queuedRun();
    const { client } = await connect("viewer");
    const progress: Progress[] = [];
    const res = await call(client, "wait_for_run", { runId, timeoutSec: 1 }, (p) => progress.push(p));
    expect(res.json.outcome).toBe("timeout");
    expect(res.text).toMatch(/still queued; call wait_for_run again/);
    expect(progress).toEqual([expect.objectContaining({ progress: 0, total: 50 })]);
  });

  it("a client that cancels wait_for_run stops the wait on the server", async () => {
    const runId = await queuedRun();
    const { client } = await connect("viewer");
    const abort = new AbortController();
    const waiting = client.callTool({ name: "wait_for_run", arguments: { runId, timeoutSec: 60 } }, undefined, {
      signal: abort.signal,
      onprogress: () => abort.abort("enough"),
    });
    await expect(waiting).rejects.toThrow();
    const row = await waitFor(
      () => tk.t.db.auditEntry.findFirst({ where: { channel: "mcp", subject: "wait_for_run", runId, detail: { contains: "cancelled" } } }),
      "the cancelled wait's audit row",
    );
    expect(JSON.parse(row.detail)).toEqual({ ok: true, outcome: "cancelled" });
  });

  it("a notifications/cancelled sent with a later request stops the wait (the transport keeps no session)", async () => {
    const runId = await queuedRun();
    const headers = {
      authorization: `Bearer ${tokens.viewer}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
    };
    const wait = {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "wait_for_run", arguments: { runId, timeoutSec: 15 }, _meta: { progressToken: "p" } },
    };
    const res = await fetch(mcp.url, { method: "POST", headers, body: JSON.stringify(wait) });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let stream = "";
    const readUntil = async (done: (text: string) => boolean) => {
      while (!done(stream)) {
        const chunk = await reader.read();
        if (chunk.done) return;
        stream += decoder.decode(chunk.value, { stream: true });
      }
    };
    await readUntil((text) => text.includes("notifications/progress"));
    const cancel = await fetch(mcp.url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7, reason: "enough" } }),
    });
    expect(cancel.status).toBe(202);
    await readUntil(() => false);
    expect(stream).toContain("Stopped waiting (cancelled)");
  });

  it("cancel_run is refused to a viewer and cancels for an operator; every call is audited", async () => {
    const runId = await queuedRun();
    const viewer = await call((await connect("viewer")).client, "cancel_run", { runId });
    expect(viewer.isError).toBe(true);
    const operator = await call((await connect("operator")).client, "cancel_run", { runId, reason: "not needed" });
    expect(operator.isError, operator.text).toBe(false);
    expect(await tk.settle(runId)).toBe("canceled");
    const again = await call((await connect("operator")).client, "cancel_run", { runId });
    expect(again.text).toMatch(/^CONFLICT: A canceled run cannot be canceled/);

    const rows = await tk.t.db.auditEntry.findMany({
      where: { channel: "mcp", kind: "mcp.tool_call", subject: "cancel_run", runId },
      orderBy: { id: "asc" },
    });
    expect(rows.map((r) => [r.actorId, JSON.parse(r.detail)])).toEqual([
      [tk.users.viewer, { ok: false, error: "FORBIDDEN" }],
      [tk.users.operator, { ok: true, reason: "not needed" }],
      [tk.users.operator, { ok: false, error: "CONFLICT" }],
    ]);
  });
});
