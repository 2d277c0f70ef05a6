// Rein's /mcp with the official v2 client (@modelcontextprotocol/client) in
// both revisions it serves (docs/mcp-server.md#revisions): 2026-07-28 with no
// session, where wait_for_run asks the client's user with input_required, and
// 2025-11-25 over the initialize handshake. A v1 client is covered by
// mcp-server.test.ts and elicitation.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, StreamableHTTPClientTransport, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/client";
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
