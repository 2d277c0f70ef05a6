// A client that can ask its user (elicitation) gets a run's human requests
// while wait_for_run waits, and its user's answer moves the run on.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { createApiToken } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { ClientCapabilities, PendingElicitations } from "./elicitation";
import { connectClient, startMcpServer, type McpTestServer } from "./testing";
import { testServices } from "@/test/helpers/services";

type Json = Record<string, any>;

let tk: TestKernel;
let mcp: McpTestServer;
const tokens = {} as Record<"viewer" | "approver", string>;
const clients: Client[] = [];

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  for (const role of ["viewer", "approver"] as const)
    tokens[role] = (await createApiToken(tk.t.db, { userId: tk.users[role], name: role })).token;
  mcp = await startMcpServer(testServices(tk));
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await mcp?.close();
  await tk?.cleanup();
});

/** A client of `role` that can elicit, answering every elicitation with `reply`; the elicitations it got. */
async function elicitingClient(role: keyof typeof tokens, reply: ElicitResult, version?: string) {
  const asked: ElicitRequest["params"][] = [];
  const { client } = await connectClient(mcp.url, tokens[role], version, { capabilities: { elicitation: {} } });
  clients.push(client);
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    return reply;
  });
  return { client, asked };
}

async function waitForRun(client: Client, runId: string): Promise<Json> {
  const res = await client.callTool({ name: "wait_for_run", arguments: { runId, timeoutSec: 20 } });
  expect(res.isError, JSON.stringify(res.content)).toBeFalsy();
  return res.structuredContent as Json;
}

const launch = async () => (await createRun(tk.kernel, { goal: "Ship it", agent: "demo-deploy" }, tk.actors.operator)).id;
const requestsOf = (runId: string) => tk.t.db.humanRequest.findMany({ where: { runId }, orderBy: { createdAt: "asc" } });

describe("human requests as elicitations", () => {
  it("an approver's client is asked, approves, and wait_for_run goes on until the run ends", async () => {
    const runId = await launch();
    const { client, asked } = await elicitingClient("approver", {
      action: "accept",
      content: { decision: "approve", comment: "from my editor" },
    });
    const answer = await waitForRun(client, runId);
    expect(answer).toMatchObject({ outcome: "ended", answeredByYou: 1, run: { state: "succeeded" } });
    expect(asked).toHaveLength(1);
    expect(asked[0].message).toContain("./deploy.sh production");
    expect((asked[0] as { requestedSchema: Json }).requestedSchema.properties.decision.enum).toEqual(["approve", "reject"]);
    const [request] = await requestsOf(runId);
    expect(request).toMatchObject({ state: "APPROVED", channel: "mcp", decidedById: tk.users.approver });
    expect(JSON.parse(request.decision!)).toMatchObject({ decision: "approve", comment: "from my editor" });
  });

  it("a user who declines leaves the request open, and wait_for_run says the run waits for a person", async () => {
    const runId = await launch();
    const { client, asked } = await elicitingClient("approver", { action: "decline" });
    expect(await waitForRun(client, runId)).toMatchObject({ outcome: "waiting_human", run: { state: "waiting_human" } });
    expect(asked).toHaveLength(1);
    expect((await requestsOf(runId))[0].state).toBe("PENDING");
    await tk.kernel.pool.cancel(runId, { id: tk.users.admin, name: "admin" });
    await tk.settle(runId);
  });

  it("nobody is asked what they may not decide, nor by a client of a revision before elicitation", async () => {
    const runId = await launch();
    const viewer = await elicitingClient("viewer", { action: "accept", content: { decision: "approve" } });
    expect(await waitForRun(viewer.client, runId)).toMatchObject({ outcome: "waiting_human" });
    expect(viewer.asked).toEqual([]);
    const old = await elicitingClient("approver", { action: "accept", content: { decision: "approve" } }, "2025-03-26");
    expect(await waitForRun(old.client, runId)).toMatchObject({ outcome: "waiting_human" });
    expect(old.asked).toEqual([]);
    expect((await requestsOf(runId))[0].state).toBe("PENDING");
    await tk.kernel.pool.cancel(runId, { id: tk.users.admin, name: "admin" });
    await tk.settle(runId);
  });
});

describe("PendingElicitations", () => {
  it("takes an answer only from the person asked, for the id Rein sent, once", () => {
    const pending = new PendingElicitations();
    const answers: unknown[] = [];
    pending.expect("user-a", "rein-elicit-1", (a) => answers.push(a.result));
    expect(pending.answer("user-b", { id: "rein-elicit-1", result: { action: "accept" } })).toBe(false);
    expect(pending.answer("user-a", { id: 1, result: { action: "accept" } })).toBe(false);
    expect(pending.answer("user-a", { id: "rein-elicit-1", result: { action: "decline" } })).toBe(true);
    expect(pending.answer("user-a", { id: "rein-elicit-1", result: { action: "accept" } })).toBe(false);
    expect(answers).toEqual([{ action: "decline" }]);
  });
});

describe("ClientCapabilities", () => {
  it("lets a client elicit only when it said so and speaks 2025-06-18 or later", () => {
    const clients = new ClientCapabilities();
    clients.remember("a", true);
    clients.remember("b", false);
    expect(clients.canElicit("a", "2025-11-25")).toBe(true);
    expect(clients.canElicit("a", "2025-06-18")).toBe(true);
    expect(clients.canElicit("a", "2025-03-26")).toBe(false);
    expect(clients.canElicit("a", undefined)).toBe(false);
    expect(clients.canElicit("b", "2025-11-25")).toBe(false);
    expect(clients.canElicit("c", "2025-11-25")).toBe(false);
  });
});
