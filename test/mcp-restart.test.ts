// A 2026-07-28 MCP server's question across a restart of Rein
// (docs/mcp.md#a-server-asking-a-person-elicitation): the server answers a
// run's call with input_required, the question waits in the Inbox, Rein is
// SIGKILLed and started again, the resumed run makes the call again and finds
// the same open question (asked once), and the person's answer, given after
// the restart, goes back to the server with the call.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApiToken, createUser } from "@/server/identity";
import { createTestDb, type TestDb } from "./helpers/db";
import { startV2McpServer, type V2McpServer } from "./helpers/mcp-v2-server";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";
import { waitFor } from "./helpers/wait";

describe("an MCP server's question across a restart of Rein", () => {
  let t: TestDb;
  let v2: V2McpServer;
  let servers: ServerProcess[] = [];
  let admin = "";

  beforeEach(async () => {
    t = await createTestDb();
    const adminId = await createUser(t.db, { email: "root@rein.test", name: "Root", password: "password-123", role: "admin" });
    admin = (await createApiToken(t.db, { userId: adminId, name: "admin" })).token;
    await t.db.$disconnect();
    v2 = await startV2McpServer();
  });

  afterEach(async () => {
    await Promise.all(servers.map((s) => s.kill()));
    servers = [];
    await v2?.close();
    await t.cleanup();
  });

  async function start() {
    const s = spawnServer({
      REIN_DATA_DIR: t.dir,
      PORT: String(await freePort()),
      REIN_UI: "off",
      REIN_SCRIPTED_DELAY_MS: "1",
      REIN_WORKERS: "1",
      REIN_POD_POOL_SIZE: "0",
    });
    servers.push(s);
    await s.ready;
    return s;
  }

  async function api<T = any>(s: ServerProcess, method: string, p: string, body?: unknown): Promise<T> {
    const res = await fetch(s.url + p, {
      method,
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
    return json as T;
  }

  const questions = async (s: ServerProcess, runId: string) =>
    (await api<{ requests: Array<{ id: string; state: string; title: string }> }>(s, "GET", `/api/v1/human-requests?runId=${runId}`))
      .requests;

  it("is asked once, answered after the restart, and the run goes on with the answer", async () => {
    let server = await start();
    const added = await api(server, "POST", "/api/v1/mcp-servers", { name: "modern", transport: "http", http: { url: v2.url } });
    expect(added).toMatchObject({ health: "ready", info: { protocolVersion: "2026-07-28", era: "modern" } });
    await api(server, "PATCH", "/api/v1/mcp-servers/modern/tools/confirm", { enabled: true });

    const scenario = {
      stopOnError: true,
      turns: [{ toolCalls: [{ tool: "modern__confirm", args: { what: "the release" } }] }, { text: "Confirmed." }],
    };
    const run = await api<{ id: string }>(server, "POST", "/api/v1/runs", { goal: "Confirm the release", agent: "demo-mcp", scenario });
    const [asked] = await waitFor(
      async () => {
        const open = (await questions(server, run.id)).filter((r) => r.state === "PENDING");
        return open.length ? open : null;
      },
      "the server's question to reach the Inbox",
      { limitMs: 30_000 },
    );
    expect(asked.title).toBe("modern asks: Go ahead with the release?");

    await server.kill("SIGKILL");
    const calledBefore = v2.methods.filter((m) => m === "tools/call").length;
    server = await start();
    // The resumed run makes the call again (the tool is idempotent), and its question finds the one already asked.
    await waitFor(() => v2.methods.filter((m) => m === "tools/call").length > calledBefore || null, "the call made again", {
      limitMs: 30_000,
    });
    const after = await questions(server, run.id);
    expect(after.map((r) => ({ id: r.id, state: r.state }))).toEqual([{ id: asked.id, state: "PENDING" }]);

    await api(server, "POST", `/api/v1/human-requests/${asked.id}/decision`, { decision: "provide", value: { confirm: true } });
    const state = await waitFor(
      async () => {
        const r = await api<{ status: string }>(server, "GET", `/api/v1/runs/${run.id}`);
        return ["succeeded", "failed", "canceled"].includes(r.status) ? r.status : null;
      },
      "the run to end",
      { limitMs: 30_000 },
    );
    expect(state).toBe("succeeded");
    const events = await api<{ events: Array<{ type: string; payload: any }> }>(server, "GET", `/api/v1/runs/${run.id}/events`);
    const result = events.events.find((e) => e.type === "tool.result" && e.payload.tool === "modern__confirm");
    expect(JSON.stringify(result?.payload.output)).toContain("went ahead with the release");
  }, 120_000);
});
