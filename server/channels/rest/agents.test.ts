// REST v1 agents on a real HTTP server (docs/agents.md, docs/api.md): create,
// save with a base version, versions, diff, rollback, archive, copy, YAML
// export and import; bad input is a clear 4xx that changes nothing; the audit
// log names the channel.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { agentPeople, specFor, type AgentPeople } from "@/test/helpers/agents";
import { createApiToken, type Actor } from "@/server/identity";
import { startRestServer, type RestTestServer } from "@/test/helpers/rest";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let p: AgentPeople;
let rest: RestTestServer;
const tokens = new Map<Actor, string>();

const api = (as: Actor, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  rest.call(tokens.get(as)!, method, path, body, headers);

const counts = async () => ({
  agents: await tk.t.db.agent.count(),
  specs: await tk.t.db.agentSpec.count(),
  audit: await tk.t.db.auditEntry.count(),
});

beforeAll(async () => {
  tk = await createTestKernel();
  p = await agentPeople(tk);
  for (const actor of [p.alphaOperator, p.alphaViewer, p.betaOperator, p.admin])
    tokens.set(actor, (await createApiToken(tk.t.db, { userId: actor.userId, name: "rest" })).token);
  rest = await startRestServer(testServices(tk));
}, 60_000);

afterAll(async () => {
  await rest?.close();
  await tk.cleanup();
});

describe("REST v1 agents", () => {
  it("creates, saves, lists versions, diffs and rolls back; the audit log says api", async () => {
    const created = await api(p.alphaOperator, "POST", "/api/v1/agents", {
      spec: specFor(p.alphaId, { name: "rest-bot" }),
      changeNote: "First",
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: "rest-bot", version: 1, team: { id: p.alphaId, name: "alpha" }, changeNote: "First" });
    const saved = await api(p.alphaOperator, "PUT", "/api/v1/agents/rest-bot", {
      spec: specFor(p.alphaId, { name: "rest-bot", instructions: "Second way." }),
      changeNote: "Second",
      baseVersion: 1,
    });
    expect(saved.status).toBe(200);
    expect(saved.json.version).toBe(2);
    const stale = await api(p.alphaOperator, "PUT", "/api/v1/agents/rest-bot", {
      spec: specFor(p.alphaId, { name: "rest-bot" }),
      baseVersion: 1,
    });
    expect(stale.status).toBe(409);
    expect(stale.json.error.message).toMatch(/has changed since version 1/);
    expect(
      (await api(p.alphaViewer, "GET", "/api/v1/agents/rest-bot/versions")).json.versions.map((v: { version: number }) => v.version),
    ).toEqual([2, 1]);
    expect((await api(p.alphaViewer, "GET", "/api/v1/agents/rest-bot/versions/1")).json.instructions).toBe("Help with the task.");
    expect((await api(p.alphaViewer, "GET", "/api/v1/agents/rest-bot?version=1")).json.version).toBe(1);
    const diff = await api(p.alphaViewer, "GET", "/api/v1/agents/rest-bot/diff?from=1&to=2");
    expect(diff.json.instructions).toEqual([
      { kind: "del", text: "Help with the task." },
      { kind: "add", text: "Second way." },
    ]);
    const back = await api(p.alphaOperator, "POST", "/api/v1/agents/rest-bot/rollback", { version: 1 });
    expect(back.json).toMatchObject({ version: 3, instructions: "Help with the task.", changeNote: "Rolled back to version 1" });
    const audit = await tk.t.db.auditEntry.findMany({ where: { subject: "rest-bot" }, orderBy: { id: "asc" } });
    expect(audit.map((a) => `${a.kind} ${a.channel}`)).toEqual(["agent.created api", "agent.version_saved api", "agent.rolled_back api"]);
  });

  it("archives and unarchives; the list hides archived agents unless asked", async () => {
    await api(p.alphaOperator, "POST", "/api/v1/agents", { spec: specFor(p.alphaId, { name: "rest-old" }) });
    expect((await api(p.alphaOperator, "POST", "/api/v1/agents/rest-old/archive")).json).toEqual({ ok: true });
    const names = async (q = "") =>
      (await api(p.alphaViewer, "GET", `/api/v1/agents${q}`)).json.agents.map((a: { name: string }) => a.name);
    expect(await names()).not.toContain("rest-old");
    expect(await names("?includeArchived=true")).toContain("rest-old");
    const run = await api(p.alphaOperator, "POST", "/api/v1/runs", { goal: "g", agent: "rest-old" });
    expect(run.status).toBe(400);
    expect(run.json.error).toEqual({ code: "INVALID_INPUT", message: "The agent rest-old is archived; unarchive it to run it" });
    await api(p.alphaOperator, "POST", "/api/v1/agents/rest-old/unarchive");
    expect(await names()).toContain("rest-old");
  });

  it("copies a built-in and refuses to save one", async () => {
    const copy = await api(p.alphaOperator, "POST", "/api/v1/agents/demo-team/copy", { name: "rest-team" });
    expect(copy.status).toBe(201);
    expect(copy.json).toMatchObject({
      name: "rest-team",
      version: 1,
      builtIn: false,
      team: { id: p.alphaId },
      handoffs: ["demo-specialist"],
    });
    const save = await api(p.admin, "PUT", "/api/v1/agents/demo-team", { spec: { ...copy.json, name: "demo-team" } });
    expect(save.status).toBe(400);
    expect(save.json.error.message).toBe("Built-in agents can't be changed; copy it to make your own");
  });

  it("exports YAML as a file and imports it back; the CLI's header marks the channel", async () => {
    const exported = await api(p.alphaViewer, "GET", "/api/v1/agents/rest-bot/export");
    expect(exported.status).toBe(200);
    expect(exported.type).toBe("text/yaml; charset=utf-8");
    expect(exported.disposition).toBe('attachment; filename="rest-bot.agent.yaml"');
    expect(exported.text).toContain("name: rest-bot\n");
    const imported = await api(
      p.alphaOperator,
      "POST",
      "/api/v1/agents/import",
      { yaml: exported.text.replace("Help with the task.", "Imported way."), changeNote: "From git" },
      { "x-rein-channel": "cli" },
    );
    expect(imported.status).toBe(200);
    expect(imported.json).toMatchObject({ name: "rest-bot", version: 4, instructions: "Imported way.", changeNote: "From git" });
    expect((await tk.t.db.auditEntry.findFirstOrThrow({ where: { subject: "rest-bot", kind: "agent.imported" } })).channel).toBe("cli");
    const old = await api(p.alphaViewer, "GET", "/api/v1/agents/rest-bot/export?version=2");
    expect(old.text).toContain("instructions: Second way.");
  });

  it.each([
    ["a spec with problems", "POST", "/api/v1/agents", { spec: { name: "x", model: "nope", instructions: "" } }, 400, "INVALID_INPUT"],
    ["no spec", "POST", "/api/v1/agents", { changeNote: "n" }, 400, "INVALID_INPUT"],
    ["a spec that is a string", "POST", "/api/v1/agents", { spec: "name: x" }, 400, "INVALID_INPUT"],
    ["malformed YAML", "POST", "/api/v1/agents/import", { yaml: "name: [" }, 400, "INVALID_INPUT"],
    [
      "an oversized YAML file",
      "POST",
      "/api/v1/agents/import",
      { yaml: `name: big\ninstructions: ${"x".repeat(300_000)}\n` },
      400,
      "INVALID_INPUT",
    ],
    ["a version that is not a number", "GET", "/api/v1/agents/demo-coder/versions/latest", undefined, 400, "INVALID_INPUT"],
    ["a diff without versions", "GET", "/api/v1/agents/demo-coder/diff", undefined, 400, "INVALID_INPUT"],
    ["an agent that does not exist", "GET", "/api/v1/agents/no-such-agent", undefined, 404, "NOT_FOUND"],
    ["a version that does not exist", "GET", "/api/v1/agents/demo-coder/versions/99", undefined, 404, "NOT_FOUND"],
    ["a copy under a bad name", "POST", "/api/v1/agents/demo-coder/copy", { name: "Bad Name" }, 400, "INVALID_INPUT"],
  ])("refuses %s with %s, changing nothing", async (_what, method, path, body, status, code) => {
    const before = await counts();
    const res = await api(p.alphaOperator, method, path, body);
    expect(res.status).toBe(status);
    expect(res.json.error.code).toBe(code);
    expect(await counts()).toEqual(before);
  });

  it("a spec's problems come back by field, in words", async () => {
    const res = await api(p.alphaOperator, "POST", "/api/v1/agents", {
      spec: specFor(p.alphaId, { name: "fine-name", tools: ["foo"], guardrails: { callCap: 90 } }),
    });
    expect(res.json.error.issues).toEqual([
      { path: "tools.0", message: 'The tool "foo" does not exist' },
      { path: "guardrails.callCap", message: "The call cap over 50 needs a cost ceiling" },
    ]);
  });

  it("viewers read but cannot change; the old GET /api/v1/agents still lists name, version, model and description", async () => {
    const list = await api(p.alphaViewer, "GET", "/api/v1/agents");
    expect(list.json.agents.find((a: { name: string }) => a.name === "demo-coder")).toMatchObject({
      name: "demo-coder",
      version: 1,
      model: "scripted/demo-coder",
      description: expect.any(String),
    });
    const before = await counts();
    for (const [method, path, body] of [
      ["POST", "/api/v1/agents", { spec: specFor(p.alphaId, { name: "viewer-bot" }) }],
      ["PUT", "/api/v1/agents/rest-bot", { spec: specFor(p.alphaId, { name: "rest-bot" }) }],
      ["POST", "/api/v1/agents/rest-bot/archive", undefined],
      ["POST", "/api/v1/agents/import", { yaml: "name: viewer-bot\n" }],
    ] as const) {
      expect((await api(p.alphaViewer, method, path, body)).status, `${method} ${path}`).toBe(403);
    }
    expect(await counts()).toEqual(before);
  });
});
