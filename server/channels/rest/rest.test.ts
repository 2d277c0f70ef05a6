// REST API v1 (docs/api.md) on a real HTTP server, with the default
// kernel on a test database, called with fetch as a program would.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { waitFor } from "@/test/helpers/wait";
import { createApiToken, revokeApiToken } from "@/server/identity";
import { createRestHandler } from "./index";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let server: http.Server;
let base: string;
const tokens = {} as Record<"viewer" | "operator" | "admin" | "revoked", string>;

type Json = Record<string, any>;

async function api(
  method: string,
  path: string,
  opts: { token?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...opts.headers };
  const token = opts.token === undefined ? tokens.operator : opts.token;
  if (token) headers.authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  let json: Json = {};
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON; the test will say so */
  }
  return { status: res.status, json, text, headers: res.headers };
}

async function runCount() {
  await tk.kernel.pool.whenIdle();
  return tk.t.db.run.count();
}

async function launch(body: Json = { goal: "Write fizzbuzz", agent: "demo-coder" }) {
  const res = await api("POST", "/api/v1/runs", { body });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

async function untilFinished(id: string): Promise<Json> {
  return waitFor(async () => {
    const res = await api("GET", `/api/v1/runs/${id}`);
    expect(res.status).toBe(200);
    return ["succeeded", "failed", "canceled"].includes(res.json.status) ? res.json : null;
  }, `run ${id} to finish`);
}

beforeAll(async () => {
  tk = await createTestKernel();
  const db = tk.t.db;
  tokens.viewer = (await createApiToken(db, { userId: tk.users.viewer, name: "viewer" })).token;
  tokens.operator = (await createApiToken(db, { userId: tk.users.operator, name: "operator" })).token;
  tokens.admin = (await createApiToken(db, { userId: tk.users.admin, name: "admin" })).token;
  const revoked = await createApiToken(db, { userId: tk.users.operator, name: "revoked" });
  await revokeApiToken(db, tk.users.operator, revoked.id);
  tokens.revoked = revoked.token;
  const rest = createRestHandler(testServices(tk), { authSecret: "a-test-auth-secret-of-more-than-32-characters" });
  server = http.createServer((req, res) => void rest(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (server) {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
  await tk?.cleanup();
});

describe("REST v1 runs", () => {
  it("POST /api/v1/runs with a token answers 201 and the run reaches succeeded", async () => {
    const res = await api("POST", "/api/v1/runs", { body: { goal: "Write fizzbuzz", agent: "demo-coder" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.json).toMatchObject({ goal: "Write fizzbuzz", agentName: "demo-coder", scripted: true });
    expect(["queued", "running"]).toContain(res.json.status);
    const done = await untilFinished(res.json.id);
    expect(done).toMatchObject({ id: res.json.id, status: "succeeded", stepCount: 6 });
    expect(done.lastSeq).toBeGreaterThan(10);
  });

  it("GET events?after=N returns only later events and a cursor", async () => {
    const run = await launch({
      goal: "Say hi",
      agent: "demo-coder",
      scenario: [{ text: "hi", toolCalls: [{ tool: "list_files", args: {} }] }, { text: "bye" }],
    });
    await untilFinished(run.id);
    const all = await api("GET", `/api/v1/runs/${run.id}/events`);
    expect(all.status).toBe(200);
    const seqs = all.json.events.map((e: Json) => e.seq);
    expect(seqs).toEqual(seqs.map((_: number, i: number) => i + 1));
    expect(all.json.cursor).toBe(seqs.at(-1));

    const later = await api("GET", `/api/v1/runs/${run.id}/events?after=2&limit=2`);
    expect(later.status).toBe(200);
    expect(later.json.events.map((e: Json) => e.seq)).toEqual([3, 4]);
    expect(later.json.cursor).toBe(4);
    for (const e of later.json.events) expect(Object.keys(e).sort()).toEqual(["actor", "createdAt", "payload", "runId", "seq", "type"]);

    const none = await api("GET", `/api/v1/runs/${run.id}/events?after=${all.json.cursor}`);
    expect(none.json).toEqual({ events: [], cursor: all.json.cursor });
  });

  it("GET /api/v1/runs lists the caller's runs", async () => {
    const run = await launch({ goal: "Listed", agent: "demo-coder", scenario: [{ text: "hi" }] });
    await untilFinished(run.id);
    const res = await api("GET", "/api/v1/runs?status=succeeded&limit=200", { token: tokens.viewer });
    expect(res.status).toBe(200);
    expect(res.json.runs.map((r: Json) => r.id)).toContain(run.id);
    expect(res.json.runs.every((r: Json) => r.status === "succeeded")).toBe(true);
  });

  it("POST /api/v1/runs takes tags; GET /api/v1/runs filters by tag, sorts by cost and refuses a reversed date range", async () => {
    const tag = `rest-${Date.now().toString(36)}`;
    const a = await launch({ goal: "Tagged a", agent: "demo-coder", scenario: [{ text: "hi" }], tags: [tag.toUpperCase(), "other"] });
    const b = await launch({ goal: "Tagged b", agent: "demo-coder", scenario: [{ text: "hi" }], tags: [tag] });
    expect(a.tags).toEqual(["other", tag]);
    await untilFinished(a.id);
    await untilFinished(b.id);
    await tk.t.db.run.update({ where: { id: a.id }, data: { costUsd: 2 } });
    await tk.t.db.run.update({ where: { id: b.id }, data: { costUsd: 1 } });
    const asc = await api("GET", `/api/v1/runs?tag=${tag}&sort=cost&dir=asc`, { token: tokens.viewer });
    expect(asc.status, asc.text).toBe(200);
    expect(asc.json.runs.map((r: Json) => r.id)).toEqual([b.id, a.id]);
    const desc = await api("GET", `/api/v1/runs?tag=${tag}&sort=cost&dir=desc`, { token: tokens.viewer });
    expect(desc.json.runs.map((r: Json) => r.id)).toEqual([a.id, b.id]);
    const reversed = await api("GET", "/api/v1/runs?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", { token: tokens.viewer });
    expect(reversed.status).toBe(400);
    expect(reversed.json.error.message).toContain("after its end");
    const badTag = await api("POST", "/api/v1/runs", { body: { goal: "g", agent: "demo-coder", tags: ["no spaces allowed"] } });
    expect(badTag.status).toBe(400);
  });

  it("GET /api/v1/runs/:id/scenario returns the turns", async () => {
    const turns = [
      { text: "Listing.", toolCalls: [{ tool: "list_files", args: {} }] },
      { toolCalls: [{ tool: "read_file", args: { path: "nothing.txt" } }] },
      { text: "Done." },
    ];
    const run = await launch({ goal: "Replay me", agent: "demo-coder", scenario: turns });
    await untilFinished(run.id);
    const res = await api("GET", `/api/v1/runs/${run.id}/scenario`, { token: tokens.viewer });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ turns });
  });

  it("POST /cancel on a finished run is 409 with a clear message", async () => {
    const run = await launch({ goal: "Quick", agent: "demo-coder", scenario: [{ text: "hi" }] });
    await untilFinished(run.id);
    const before = (await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } })).lastSeq;
    const res = await api("POST", `/api/v1/runs/${run.id}/cancel`);
    expect(res.status).toBe(409);
    expect(res.json.error).toEqual({ code: "CONFLICT", message: "A succeeded run cannot be canceled" });
    expect((await api("POST", `/api/v1/runs/${run.id}/pause`)).status).toBe(409);
    expect((await api("POST", `/api/v1/runs/${run.id}/resume`)).status).toBe(409);
    expect((await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } })).lastSeq).toBe(before);
  });

  it("POST /messages continues a finished run; /retry refuses it; /rerun makes a new run; /lineage links them", async () => {
    const run = await launch({
      goal: "Quick",
      agent: "demo-coder",
      scenario: { turns: [{ text: "hi" }], onMessage: [{ text: "Got it." }] },
    });
    await untilFinished(run.id);
    const bad = await api("POST", `/api/v1/runs/${run.id}/messages`, { body: { text: "" } });
    expect(bad.status).toBe(400);
    const typo = await api("POST", `/api/v1/runs/${run.id}/messages`, { body: { text: "hi", interupt: true } });
    expect(typo.status).toBe(400);
    expect(JSON.stringify(typo.json)).toContain("interupt");
    expect((await api("POST", `/api/v1/runs/${run.id}/messages`, { token: tokens.viewer, body: { text: "hi" } })).status).toBe(403);
    const sent = await api("POST", `/api/v1/runs/${run.id}/messages`, { body: { text: "One more thing." } });
    expect(sent.status).toBe(202);
    expect(sent.json).toMatchObject({ delivery: "continued", from: "succeeded" });
    await waitFor(async () => (await tk.t.db.runEvent.count({ where: { runId: run.id, type: "model.turn" } })) === 2, "the reply");
    await untilFinished(run.id);
    const retry = await api("POST", `/api/v1/runs/${run.id}/retry`, { body: {} });
    expect(retry.status).toBe(409);
    expect(retry.json.error.message).toMatch(/Only a failed or canceled run can be retried; this one is succeeded/);
    const rerun = await api("POST", `/api/v1/runs/${run.id}/rerun`, { body: { goal: "Quick again" } });
    expect(rerun.status).toBe(201);
    expect(rerun.json).toMatchObject({ goal: "Quick again", parentRunId: run.id, lineage: "rerun" });
    const lineage = await api("GET", `/api/v1/runs/${run.id}/lineage`, { token: tokens.viewer });
    expect(lineage.json.children.map((c: Json) => c.id)).toEqual([rerun.json.id]);
    await untilFinished(rerun.json.id);
  });

  it("GET /api/v1/agents lists the agent specs", async () => {
    const res = await api("GET", "/api/v1/agents", { token: tokens.viewer });
    expect(res.status).toBe(200);
    expect(res.json.agents.map((a: Json) => a.name).sort()).toEqual([
      "demo-browser",
      "demo-coder",
      "demo-coder-lean",
      "demo-csv",
      "demo-deploy",
      "demo-fix",
      "demo-hosted",
      "demo-long",
      "demo-mcp",
      "demo-release",
      "demo-specialist",
      "demo-team",
      "improver",
    ]);
  });
});

describe("REST v1 bad requests: a clear error, and nothing created", () => {
  const BAD_POSTS: Array<{
    what: string;
    opts: Parameters<typeof api>[2];
    token?: "viewer" | "revoked";
    status: number;
    code: string;
    mention: string;
  }> = [
    {
      what: "malformed JSON",
      opts: { raw: '{"goal": "x", agent: }', headers: { "content-type": "application/json" } },
      status: 400,
      code: "INVALID_JSON",
      mention: "not valid JSON",
    },
    { what: "a missing goal", opts: { body: { agent: "demo-coder" } }, status: 400, code: "INVALID_INPUT", mention: "goal" },
    { what: "an empty goal", opts: { body: { goal: "", agent: "demo-coder" } }, status: 400, code: "INVALID_INPUT", mention: "goal" },
    {
      what: "a malformed scenario",
      opts: { body: { goal: "g", agent: "demo-coder", scenario: [{}] } },
      status: 400,
      code: "INVALID_INPUT",
      mention: "scenario",
    },
    { what: "an unknown agent", opts: { body: { goal: "g", agent: "nobody" } }, status: 400, code: "UNKNOWN_AGENT", mention: "demo-coder" },
    {
      what: "no token",
      opts: { token: null, body: { goal: "g", agent: "demo-coder" } },
      status: 401,
      code: "UNAUTHORIZED",
      mention: "Bearer",
    },
    {
      what: "a forged token",
      opts: { token: "rein_xxx", body: { goal: "g", agent: "demo-coder" } },
      status: 401,
      code: "UNAUTHORIZED",
      mention: "token",
    },
    {
      what: "a token that is not a Rein token",
      opts: { token: "abc.def.ghi", body: { goal: "g", agent: "demo-coder" } },
      status: 401,
      code: "UNAUTHORIZED",
      mention: "token",
    },
    {
      what: "a revoked token",
      token: "revoked",
      opts: { body: { goal: "g", agent: "demo-coder" } },
      status: 401,
      code: "UNAUTHORIZED",
      mention: "token",
    },
    {
      what: "a viewer's token",
      token: "viewer",
      opts: { body: { goal: "g", agent: "demo-coder" } },
      status: 403,
      code: "FORBIDDEN",
      mention: "operator",
    },
  ];

  it.each(BAD_POSTS)("POST /api/v1/runs with $what is $status $code", async ({ opts, token, status, code, mention }) => {
    const before = await runCount();
    const res = await api("POST", "/api/v1/runs", token ? { ...opts, token: tokens[token] } : opts);
    expect(res.status, res.text).toBe(status);
    expect(res.json.error?.code).toBe(code);
    expect(res.json.error.message).toContain(mention);
    expect(await runCount()).toBe(before);
  });

  it("an unknown run is 404, for every route with a run id", async () => {
    for (const [method, path] of [
      ["GET", "/api/v1/runs/no-such-run"],
      ["GET", "/api/v1/runs/no-such-run/events"],
      ["GET", "/api/v1/runs/no-such-run/scenario"],
      ["POST", "/api/v1/runs/no-such-run/cancel"],
    ]) {
      const res = await api(method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json.error).toEqual({ code: "NOT_FOUND", message: "Run no-such-run was not found" });
    }
    expect((await api("GET", "/api/v1/nothing-here")).status).toBe(404);
  });

  it("a wrong method is 405", async () => {
    const res = await api("DELETE", "/api/v1/runs");
    expect(res.status).toBe(405);
    expect(res.json.error).toEqual({ code: "METHOD_NOT_ALLOWED", message: "DELETE is not allowed on /api/v1/runs" });
    expect((await api("PUT", "/api/v1/runs/some-id")).status).toBe(405);
    expect((await api("GET", "/api/v1/runs/some-id/cancel")).status).toBe(405);
  });

  it.each(["-1", "1.5", "abc"])("events?after=%s is 400 naming after", async (after) => {
    const run = await launch({ goal: "hi", agent: "demo-coder", scenario: [{ text: "hi" }] });
    const res = await api("GET", `/api/v1/runs/${run.id}/events?after=${after}`);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("INVALID_INPUT");
    expect(res.json.error.message).toContain("after");
  });

  it("every read needs a token too", async () => {
    expect((await api("GET", "/api/v1/runs", { token: null })).status).toBe(401);
    expect((await api("GET", "/api/v1/agents", { token: "rein_xxx" })).status).toBe(401);
  });
});

describe("REST v1 OpenAPI", () => {
  it("GET /api/v1/openapi.json lists the paths", async () => {
    const res = await api("GET", "/api/v1/openapi.json", { token: null });
    expect(res.status).toBe(200);
    expect(res.json.openapi).toMatch(/^3\./);
    expect(Object.keys(res.json.paths).sort()).toEqual(
      [
        "/api/v1/a2a/agents",
        "/api/v1/a2a/agents/{name}",
        "/api/v1/a2a/remotes",
        "/api/v1/a2a/remotes/{name}",
        "/api/v1/ag-ui",
        "/api/v1/agents",
        "/api/v1/agents/import",
        "/api/v1/agents/{name}",
        "/api/v1/agents/{name}/archive",
        "/api/v1/agents/{name}/copy",
        "/api/v1/agents/{name}/diff",
        "/api/v1/agents/{name}/export",
        "/api/v1/agents/{name}/rollback",
        "/api/v1/agents/{name}/unarchive",
        "/api/v1/agents/{name}/versions",
        "/api/v1/agents/{name}/versions/{version}",
        "/api/v1/costs",
        "/api/v1/datasets",
        "/api/v1/datasets/{id}",
        "/api/v1/datasets/{id}/items",
        "/api/v1/datasets/{id}/items/{key}",
        "/api/v1/experiments",
        "/api/v1/experiments/compare",
        "/api/v1/experiments/{id}",
        "/api/v1/experiments/{id}/cancel",
        "/api/v1/experiments/{id}/gate",
        "/api/v1/experiments/{id}/results",
        "/api/v1/friction",
        "/api/v1/friction/{id}/decision",
        "/api/v1/improvements",
        "/api/v1/improvements/{id}",
        "/api/v1/improvements/{id}/disable",
        "/api/v1/improvements/{id}/enable",
        "/api/v1/improvements/{id}/promote",
        "/api/v1/skills",
        "/api/v1/skills/{name}",
        "/api/v1/skills/{name}/disable",
        "/api/v1/skills/{name}/enable",
        "/api/v1/repositories",
        "/api/v1/repositories/{id}",
        "/api/v1/repositories/{id}/archive",
        "/api/v1/change-requests",
        "/api/v1/change-requests/{id}",
        "/api/v1/change-requests/{id}/checks",
        "/api/v1/change-requests/{id}/comments",
        "/api/v1/change-requests/{id}/merge",
        "/api/v1/change-requests/{id}/reject",
        "/api/v1/change-requests/{id}/revert",
        "/api/v1/extensions",
        "/api/v1/extensions/{id}",
        "/api/v1/extensions/{id}/disable",
        "/api/v1/extensions/{id}/enable",
        "/api/v1/extensions/{id}/approve",
        "/api/v1/extensions/{id}/reject",
        "/api/v1/memories",
        "/api/v1/memories/{id}",
        "/api/v1/memories/{id}/pin",
        "/api/v1/mcp-servers",
        "/api/v1/mcp-servers/demo",
        "/api/v1/mcp-servers/token-budget",
        "/api/v1/mcp-servers/{name}",
        "/api/v1/mcp-servers/{name}/authorization",
        "/api/v1/mcp-servers/{name}/test",
        "/api/v1/mcp-servers/{name}/tools",
        "/api/v1/mcp-servers/{name}/tools/{tool}",
        "/api/v1/mcp-servers/{name}/tools/{tool}/review",
        "/api/v1/hosted-programs",
        "/api/v1/hosted-programs/{id}/install",
        "/api/v1/hosted-programs/{id}/test",
        "/api/v1/gateway-keys",
        "/api/v1/gateway-keys/{id}",
        "/api/v1/devices",
        "/api/v1/devices/pairings",
        "/api/v1/devices/{id}",
        "/api/v1/devices/{id}/auto-consent",
        "/api/v1/machines",
        "/api/v1/machines/{id}",
        "/api/v1/machines/{id}/contact",
        "/api/v1/machines/{id}/confirm-key",
        "/api/v1/machines/{id}/test",
        "/api/v1/datasets/{id}/export",
        "/api/v1/datasets/{id}/import",
        "/api/v1/human-requests",
        "/api/v1/human-requests/{id}",
        "/api/v1/human-requests/{id}/decision",
        "/api/v1/models",
        "/api/v1/models/{provider}/{modelId}",
        "/api/v1/providers",
        "/api/v1/providers/{name}",
        "/api/v1/providers/{name}/test",
        "/api/v1/routing",
        "/api/v1/retention",
        "/api/v1/retention/measure",
        "/api/v1/retention/prune",
        "/api/v1/runs",
        "/api/v1/runs/compare",
        "/api/v1/secrets",
        "/api/v1/secrets/{name}",
        "/api/v1/secrets/{name}/scope",
        "/api/v1/openapi.json",
        "/api/v1/runs/{id}",
        "/api/v1/runs/{id}/ag-ui",
        "/api/v1/runs/{id}/cancel",
        "/api/v1/runs/{id}/events",
        "/api/v1/runs/{id}/fork",
        "/api/v1/runs/{id}/lineage",
        "/api/v1/runs/{id}/messages",
        "/api/v1/runs/{id}/pause",
        "/api/v1/runs/{id}/pin",
        "/api/v1/runs/{id}/rerun",
        "/api/v1/runs/{id}/resume",
        "/api/v1/runs/{id}/retry",
        "/api/v1/runs/{id}/scenario",
        "/api/v1/runs/{id}/spans",
        "/api/v1/runs/{id}/workspace.tar.gz",
        "/api/v1/spans",
        "/api/v1/users",
        "/api/v1/users/{id}",
        "/api/v1/webhooks",
        "/api/v1/webhooks/allowed-hosts",
        "/api/v1/webhooks/deliveries/{id}",
        "/api/v1/webhooks/deliveries/{id}/resend",
        "/api/v1/webhooks/{id}",
        "/api/v1/webhooks/{id}/deliveries",
        "/api/v1/webhooks/{id}/test",
        "/api/v1/webhooks/{id}/rotate",
        "/api/v1/webhooks/{id}/recover",
        "/api/v1/users/{id}/disable",
        "/api/v1/users/{id}/enable",
        "/api/v1/users/{id}/reset-link",
        "/api/v1/invitations",
        "/api/v1/invitations/{id}",
        "/api/v1/teams",
        "/api/v1/teams/{id}",
        "/api/v1/teams/{id}/members",
        "/api/v1/teams/{id}/members/{userId}",
      ].sort(),
    );
    expect(Object.keys(res.json.paths["/api/v1/runs"]).sort()).toEqual(["get", "post"]);
  });
});

// Last in the file: it is about what the connection does after the refusal.
describe("REST v1 body limit", () => {
  it("a body of 3 MB is 413 and creates nothing", async () => {
    const before = await runCount();
    const res = await api("POST", "/api/v1/runs", {
      raw: JSON.stringify({ goal: "x".repeat(3_000_000), agent: "demo-coder" }),
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(413);
    expect(res.json.error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(res.json.error.message).toContain("2000000 bytes");
    expect(await runCount()).toBe(before);
  });

  it("after a 413 the client's next requests still get answers (the refused connection is not left half-read)", async () => {
    const res = await api("POST", "/api/v1/runs", {
      raw: JSON.stringify({ goal: "x".repeat(3_000_000), agent: "demo-coder" }),
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(413);
    for (let i = 0; i < 4; i++) {
      const next = await api("GET", "/api/v1/agents", { token: tokens.viewer }).catch((err: Error) => ({
        status: `fetch failed: ${(err.cause as { code?: string })?.code ?? err.message}`,
      }));
      expect(next.status, `request ${i + 1} after the 413`).toBe(200);
    }
  });
});
