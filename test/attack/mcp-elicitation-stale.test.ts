// Attack suite: an answer given through an MCP client's question, after the
// person lost the right to give it. wait_for_run asks the client's user the
// run's open requests they may decide; the user may take up to two minutes to
// answer. A person demoted, or removed from the run's team, in the meantime
// must not decide the request with the role they had when they were asked.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createMcpHandler } from "@/server/mcp-server";
import { createApiToken, createUser, setUserRole } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let server: http.Server;
let url: string;
const clients: Client[] = [];

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  const handler = createMcpHandler(testServices(tk), { log: { error() {} } });
  server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await tk?.cleanup();
});

/** A client of this person that answers its question "approve", after `meanwhile` ran. */
async function answeringClient(token: string, meanwhile: () => Promise<void>) {
  const client = new Client({ name: "attacker", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  clients.push(client);
  let asked = 0;
  client.setRequestHandler(ElicitRequestSchema, async () => {
    asked++;
    await meanwhile();
    return { action: "accept", content: { decision: "approve", comment: "still mine" } };
  });
  return { client, asked: () => asked };
}

describe("an answer to wait_for_run's question", () => {
  it("is not taken from a person demoted while they were being asked; the request stays open", async () => {
    const id = await createUser(tk.t.db, { email: "leaving-approver@test.local", password: "test-password-1", role: "approver" });
    const { token } = await createApiToken(tk.t.db, { userId: id, name: "editor" });
    const runId = (await createRun(tk.kernel, { goal: "Ship it", agent: "demo-deploy" }, tk.actors.operator)).id;
    const { client, asked } = await answeringClient(token, () =>
      setUserRole(tk.t.db, { actor: tk.actors.admin, channel: "admin" }, id, "viewer"),
    );
    const res = await client.callTool({ name: "wait_for_run", arguments: { runId, timeoutSec: 20 } });
    expect(asked()).toBe(1);
    expect((res.structuredContent as { answeredByYou?: number }).answeredByYou).toBeUndefined();
    const [request] = await tk.t.db.humanRequest.findMany({ where: { runId } });
    expect(request.state).toBe("PENDING");
    expect(request.decidedById).toBeNull();
    await tk.kernel.pool.cancel(runId, { id: tk.users.admin, name: "admin" });
    await tk.settle(runId);
  });
});
