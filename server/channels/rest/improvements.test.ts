// REST v1 improvements and friction on a real HTTP server: the list with
// filters, one improvement, switching it off, on and promoting it by role
// (the same rules as the Improvements pages), and bad input as a clear 4xx
// that changes nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { createApiToken, type Role } from "@/server/identity";
import { startRestServer, type RestTestServer } from "@/test/helpers/rest";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let rest: RestTestServer;
let toolId: string;
let skillId: string;
const tokens = new Map<Role, string>();
const runtime = { unloaded: [] as string[], reloaded: [] as string[], promoted: [] as string[] };

/** The typed client as the CLI, with this role's token. */
const as = (role: Role) => rest.client(tokens.get(role)!, "cli");
/** A raw request, for what the contract forbids. */
const api = (role: Role, method: string, path: string, body?: unknown) =>
  rest.call(tokens.get(role)!, method, path, body, { "x-rein-channel": "cli" });
const improvement = (id: string) => ({ params: { path: { id } } });
const states = async () =>
  (await tk.t.db.improvement.findMany({ select: { id: true, state: true, promoted: true }, orderBy: { id: "asc" } })).map(
    (r) => `${r.id}:${r.state}:${r.promoted}`,
  );

beforeAll(async () => {
  tk = await createTestKernel();
  for (const role of ["viewer", "operator", "approver", "admin"] as const)
    tokens.set(role, (await createApiToken(tk.t.db, { userId: tk.actors[role].userId, name: "rest" })).token);
  const friction = await tk.t.db.friction.create({
    data: {
      kind: "repeated_failure",
      signature: "repeated_failure|shell|awk",
      agentName: "demo-csv",
      title: "shell failed 3 times the same way",
      tool: "shell",
      occurrences: 3,
      runCount: 1,
    },
  });
  const tool = await tk.t.db.improvement.create({
    data: {
      tier: 1,
      kind: "runtime_tool",
      name: "csv_column_sum",
      version: 1,
      state: "active",
      source: "export default () => 1",
      argsSchema: JSON.stringify({ type: "object" }),
      scopeAgents: JSON.stringify(["demo-csv"]),
      frictionId: friction.id,
      uses: 2,
      successes: 2,
      expiresAt: new Date(Date.now() + 86_400_000),
      caseResults: JSON.stringify({ passed: 3, failed: 0, results: [], summary: "All 3 trigger cases pass." }),
    },
  });
  const skill = await tk.t.db.improvement.create({
    data: { tier: 3, kind: "skill", name: "quoted-csv", version: 1, state: "active", source: "---\nname: quoted-csv\n---\n" },
  });
  toolId = tool.id;
  skillId = skill.id;
  rest = await startRestServer(
    testServices(tk, {
      improve: {
        live: { unload: (name) => void runtime.unloaded.push(name) },
        reload: async (id) => void runtime.reloaded.push(id),
        promote: async (id) => {
          runtime.promoted.push(id);
          await tk.t.db.improvement.update({ where: { id }, data: { promoted: true, expiresAt: null } });
          return true;
        },
      },
    }),
  );
}, 60_000);

afterAll(async () => {
  await rest?.close();
  await tk?.cleanup();
});

describe("REST v1 improvements", () => {
  it("lists improvements with filters and friction, and shows one", async () => {
    const list = (query: { kind?: "runtime_tool" | "skill"; state?: "active"; agent?: string; tier?: number } = {}) =>
      as("viewer").GET("/api/v1/improvements", { params: { query } });
    const all = await list();
    expect(all.response.status, JSON.stringify(all.error)).toBe(200);
    expect(all.data!.improvements.map((i) => i.name).sort()).toEqual(["csv_column_sum", "quoted-csv"]);
    expect(all.data!.nextCursor).toBeNull();
    const tools = (await list({ kind: "runtime_tool", state: "active", agent: "demo-csv" })).data!;
    expect(tools.improvements).toHaveLength(1);
    expect(tools.improvements[0]).toMatchObject({ name: "csv_column_sum", tier: 1, scopeAgents: ["demo-csv"], uses: 2, trust: 2 / 3 });
    expect((await list({ tier: 3 })).data!.improvements.map((i) => i.name)).toEqual(["quoted-csv"]);

    const one = await as("viewer").GET("/api/v1/improvements/{id}", improvement(toolId));
    expect(one.response.status).toBe(200);
    expect(one.data).toMatchObject({
      name: "csv_column_sum",
      useCount: 2,
      uses: [],
      argsSchema: { type: "object" },
      caseResults: { passed: 3, failed: 0, results: [], summary: "All 3 trigger cases pass." },
      friction: { title: "shell failed 3 times the same way" },
    });

    const friction = await as("viewer").GET("/api/v1/friction", { params: { query: { agent: "demo-csv" } } });
    expect(friction.response.status).toBe(200);
    expect(friction.data!.friction).toEqual([expect.objectContaining({ kind: "repeated_failure", tool: "shell", occurrences: 3 })]);
    expect((await as("viewer").GET("/api/v1/friction", { params: { query: { agent: "someone-else" } } })).data!.friction).toEqual([]);
    // The agent's own struggle: the improver may answer it, and its cycles and changes are listed.
    expect(friction.data!.friction[0]).toMatchObject({ signalOnly: null, cycles: [], changes: [], state: "open" });
  });

  it("dismisses friction with a reason (approvers), lists it by state and role, and reopens it", async () => {
    const f = (await as("viewer").GET("/api/v1/friction", { params: { query: { agent: "demo-csv" } } })).data!.friction[0];
    const path = { params: { path: { id: f.id } } };
    const byViewer = await as("viewer").POST("/api/v1/friction/{id}/decision", { ...path, body: { action: "dismiss", reason: "known" } });
    expect(byViewer.response.status).toBe(403);
    const noReason = await as("approver").POST("/api/v1/friction/{id}/decision", { ...path, body: { action: "dismiss" } });
    expect(noReason.response.status).toBe(400);
    expect((await tk.t.db.friction.findUniqueOrThrow({ where: { id: f.id } })).state).toBe("open");
    const dismissed = await as("approver").POST("/api/v1/friction/{id}/decision", {
      ...path,
      body: { action: "dismiss", reason: "The CSV export is being rewritten" },
    });
    expect(dismissed.response.status).toBe(200);
    expect(dismissed.data!.friction).toMatchObject({
      state: "dismissed",
      stateReason: "The CSV export is being rewritten",
      stateBy: "approver",
    });
    expect(await tk.t.db.auditEntry.count({ where: { kind: "friction.dismissed", actorId: tk.actors.approver.userId } })).toBe(1);
    const listed = (state: string) => as("viewer").GET("/api/v1/friction", { params: { query: { state } } });
    expect((await listed("dismissed")).data!.friction.map((x) => x.id)).toEqual([f.id]);
    expect((await listed("open")).data!.friction).toEqual([]);
    const again = await as("approver").POST("/api/v1/friction/{id}/decision", { ...path, body: { action: "dismiss", reason: "twice" } });
    expect(again.response.status).toBe(409);
    const reopened = await as("approver").POST("/api/v1/friction/{id}/decision", { ...path, body: { action: "reopen" } });
    expect(reopened.data!.friction).toMatchObject({ state: "open" });
    // A person's choice is listed as a signal, apart from the agent's struggles.
    await tk.t.db.friction.create({
      data: { kind: "human_rejected", signature: "human_rejected|shell|rule 1", agentName: "demo-csv", title: "A person rejected shell" },
    });
    const signals = await as("viewer").GET("/api/v1/friction", { params: { query: { role: "signals" } } });
    expect(signals.data!.friction.map((x) => x.kind)).toEqual(["human_rejected"]);
    expect(signals.data!.friction[0].signalOnly).toMatch(/a person rejected the call/);
    const struggles = await as("viewer").GET("/api/v1/friction", { params: { query: { role: "cycles" } } });
    expect(struggles.data!.friction.map((x) => x.id)).toEqual([f.id]);
    expect((await api("viewer", "GET", "/api/v1/friction?role=everyone")).status).toBe(400);
  });

  it("refuses bad input with a clear 4xx that names the problem", async () => {
    const before = await states();
    const badState = await api("viewer", "GET", "/api/v1/improvements?state=sleeping");
    expect(badState.status).toBe(400);
    expect(badState.text).toContain("state is one of proposed");
    expect((await api("viewer", "GET", "/api/v1/improvements?limit=0")).text).toContain("limit is 1 or more");
    expect((await api("viewer", "GET", "/api/v1/improvements?colour=red")).status).toBe(400);
    expect((await api("viewer", "GET", "/api/v1/friction?limit=x")).text).toContain("limit is a number");
    const missing = await api("viewer", "GET", "/api/v1/improvements/no-such-improvement");
    expect(missing.status).toBe(404);
    expect(missing.json.error.message).toContain("There is no improvement no-such-improvement");
    expect((await api("operator", "POST", `/api/v1/improvements/${toolId}/disable`, { reason: "x".repeat(501) })).status).toBe(400);
    expect((await api("operator", "POST", `/api/v1/improvements/${toolId}/disable`, { why: "typo" })).status).toBe(400);
    const promoteSkill = await api("approver", "POST", `/api/v1/improvements/${skillId}/promote`);
    expect(promoteSkill.status).toBe(400);
    expect(promoteSkill.json.error.message).toContain("Only runtime tools are promoted");
    expect((await api("approver", "POST", `/api/v1/improvements/${toolId}/enable`)).status).toBe(409); // already active
    expect(await states()).toEqual(before);
  });

  it("switches a tool off (operator), back on and promotes it (approver), by role", async () => {
    const tool = improvement(toolId);
    expect((await as("viewer").POST("/api/v1/improvements/{id}/disable", tool)).response.status).toBe(403);
    const off = await as("operator").POST("/api/v1/improvements/{id}/disable", { ...tool, body: { reason: "checking" } });
    expect(off.response.status, JSON.stringify(off.error)).toBe(200);
    expect(off.data).toMatchObject({ state: "disabled", stateReason: "checking" });
    expect(runtime.unloaded).toEqual(["csv_column_sum"]);

    expect((await as("operator").POST("/api/v1/improvements/{id}/enable", tool)).response.status).toBe(403);
    const on = await as("approver").POST("/api/v1/improvements/{id}/enable", tool);
    expect(on.response.status, JSON.stringify(on.error)).toBe(200);
    expect(on.data!.state).toBe("active");
    expect(runtime.reloaded).toEqual([toolId]);

    expect((await as("operator").POST("/api/v1/improvements/{id}/promote", tool)).response.status).toBe(403);
    const promoted = await as("approver").POST("/api/v1/improvements/{id}/promote", tool);
    expect(promoted.response.status, JSON.stringify(promoted.error)).toBe(200);
    expect(promoted.data).toMatchObject({ promoted: true, expiresAt: null });
    expect((await as("approver").POST("/api/v1/improvements/{id}/promote", tool)).response.status).toBe(409);

    const audit = await tk.t.db.auditEntry.findMany({
      where: { kind: { startsWith: "improvement." } },
      select: { kind: true, channel: true },
    });
    expect(audit).toEqual(
      expect.arrayContaining([
        { kind: "improvement.disabled", channel: "cli" },
        { kind: "improvement.enabled", channel: "cli" },
      ]),
    );
  });

  it("every call needs a token", async () => {
    expect((await rest.call("", "GET", "/api/v1/improvements")).status).toBe(401);
    expect((await rest.call("", "GET", "/api/v1/friction")).status).toBe(401);
  });
});
