// A hostile 2026-07-28 MCP server's input_required with thousands of
// questions (docs/mcp.md#a-server-asking-a-person-elicitation): at most a
// few reach the Inbox at once; the rest are declined, and the call ends.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { McpElicitations, McpServers, MAX_OPEN_QUESTIONS } from "@/server/mcp-client";
import type { ToolContext } from "@/server/tools";
import { createRun } from "@/server/kernel";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { startV2McpServer, type V2McpServer } from "@/test/helpers/mcp-v2-server";
import { waitFor } from "@/test/helpers/wait";

const SILENT_LOG = { info() {}, error() {} };

let tk: TestKernel;
let mcp: McpServers;
let v2: V2McpServer;

beforeEach(async () => {
  tk = await createTestKernel({ hitl: true, secrets: true });
  mcp = new McpServers({
    db: tk.t.db,
    registry: tk.kernel.deps.registry,
    dataDir: tk.t.dir,
    keyring: tk.keyring,
    secrets: tk.kernel.secrets?.redactor,
    log: SILENT_LOG,
    connectTimeoutMs: 5_000,
    elicitations: new McpElicitations({
      db: tk.t.db,
      appendEvents: (runId, events) => tk.kernel.store.appendEvents(runId, events),
      cancel: (id, reason) => tk.hitl!.broker.cancel(id, reason),
    }),
  });
  tk.kernel.deps.mcp = mcp;
  await mcp.start();
  v2 = await startV2McpServer();
});
afterEach(async () => {
  await mcp.stop();
  await v2.close();
  await tk.cleanup();
});

describe("a server that asks a flood of questions in one answer", () => {
  it(`puts at most ${MAX_OPEN_QUESTIONS} in the Inbox; the others are declined and the call ends`, async () => {
    await mcp.add(tk.actors.admin, { name: "hostile", transport: "http", http: { url: v2.url } });
    await mcp.setTool(tk.actors.admin, "hostile", "flood", { enabled: true });
    const run = await createRun(
      tk.kernel,
      { goal: "Hold", agent: "demo-mcp", scenario: { turns: [{ text: "waiting" }] } },
      tk.actors.operator,
    );
    await tk.settle(run.id);
    const ctx: ToolContext = {
      runId: run.id,
      workspace: null as never,
      agent: { name: "demo-mcp", handoffs: [] },
      actorId: tk.users.operator,
      teamId: null,
      toolCallId: "call-flood",
      signal: new AbortController().signal,
    } as ToolContext;
    const call = tk.kernel.deps.registry.get("hostile__flood")!.execute({ n: 500 }, ctx);
    const asked = await waitFor(async () => {
      const open = await tk.t.db.humanRequest.findMany({ where: { runId: run.id, slot: "elicitation", state: "PENDING" } });
      return open.length >= MAX_OPEN_QUESTIONS ? open : null;
    }, "the first questions");
    const operator = { id: tk.users.operator, name: "operator", role: "operator" as const };
    for (const r of asked) await tk.hitl!.broker.decide(r.id, operator, { decision: "provide", value: { confirm: true } }, "inbox");
    expect(await call).toBe(`accepted ${MAX_OPEN_QUESTIONS} of 500`);
    expect(await tk.t.db.humanRequest.count({ where: { runId: run.id } })).toBe(MAX_OPEN_QUESTIONS);
  });
});
