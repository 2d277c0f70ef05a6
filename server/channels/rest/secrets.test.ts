// REST v1 secrets on a real HTTP server (docs/secrets.md, docs/api.md): admins add,
// list, replace and delete; the value never comes back; names with slashes;
// bad names, empty values, provider keys and missing secrets are clear
// errors that change nothing; a run launched over REST names its secrets.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { createApiToken } from "@/server/identity";
import { getSecretValue, putSecret } from "@/server/secrets";
import { createRestHandler } from "./index";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let server: http.Server;
let base: string;
const tokens = {} as Record<"admin" | "operator", string>;
const VALUE = "glpat-0123456789abcdefSECRET";

async function api(method: string, path: string, body?: unknown, as: "admin" | "operator" = "admin") {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${tokens[as]}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) };
}

beforeAll(async () => {
  tk = await createTestKernel({ secrets: true });
  for (const role of ["admin", "operator"] as const)
    tokens[role] = (await createApiToken(tk.t.db, { userId: tk.users[role], name: "rest" })).token;
  await putSecret(tk.t.db, tk.keyring!, { name: "provider/openai/api-key", value: "sk-provider-0123456789", actor: null });
  const handler = createRestHandler(testServices(tk), { authSecret: "test-secret" });
  server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await tk.cleanup();
});

describe("REST v1 secrets", () => {
  it("adds, lists, replaces and deletes (a name with a slash too); the value is never returned", async () => {
    const created = await api("POST", "/api/v1/secrets", { name: "deploy/token", value: VALUE });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ name: "deploy/token", env: "DEPLOY_TOKEN", createdBy: { id: tk.users.admin } });
    expect(created.text).not.toContain(VALUE);
    expect((await api("POST", "/api/v1/secrets", { name: "deploy/token", value: `${VALUE}2` })).status).toBe(200);
    expect(await getSecretValue(tk.t.db, tk.keyring!, "deploy/token", { touch: false })).toBe(`${VALUE}2`);
    const listed = await api("GET", "/api/v1/secrets");
    expect(listed.json.secrets.map((s: { name: string }) => s.name)).toEqual(["deploy/token"]);
    expect(listed.text).not.toContain(VALUE);
    expect((await api("DELETE", "/api/v1/secrets/deploy/token")).json).toEqual({ ok: true });
    await api("POST", "/api/v1/secrets", { name: "a/b", value: VALUE });
    expect((await api("DELETE", "/api/v1/secrets/a%2Fb")).status).toBe(200);
    expect((await api("GET", "/api/v1/secrets")).json.secrets).toEqual([]);
    const audit = await tk.t.db.auditEntry.findMany({ where: { kind: { startsWith: "secret." } }, orderBy: { id: "asc" } });
    expect(audit.map((a) => `${a.kind} ${a.subject} ${a.channel}`)).toEqual([
      "secret.created deploy/token api",
      "secret.updated deploy/token api",
      "secret.deleted deploy/token api",
      "secret.created a/b api",
      "secret.deleted a/b api",
    ]);
  });

  it.each([
    ["a bad name", { name: "bad name", value: "v" }, /A secret name starts with a letter/],
    ["no value", { name: "OK_TOKEN" }, /value/],
    ["an empty value", { name: "OK_TOKEN", value: "" }, /value is required/],
    ["a provider key", { name: "provider/openai/api-key", value: "v" }, /Settings → Models/],
  ])("refuses %s with 400, storing nothing", async (_what, body, message) => {
    const before = await tk.t.db.secret.findMany({ orderBy: { name: "asc" } });
    const res = await api("POST", "/api/v1/secrets", body);
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(message);
    expect(await tk.t.db.secret.findMany({ orderBy: { name: "asc" } })).toEqual(before);
  });

  it("deleting a missing secret is 404, a provider key 400; operators are 403", async () => {
    expect((await api("DELETE", "/api/v1/secrets/NOPE")).status).toBe(404);
    expect((await api("DELETE", "/api/v1/secrets/provider/openai/api-key")).status).toBe(400);
    expect((await api("GET", "/api/v1/secrets", undefined, "operator")).status).toBe(403);
    expect((await api("POST", "/api/v1/secrets", { name: "X_TOKEN", value: "v" }, "operator")).status).toBe(403);
    expect(await tk.t.db.secret.count()).toBe(1);
  });

  it("POST /api/v1/runs takes secrets by name and refuses an unknown one with 400", async () => {
    await api("POST", "/api/v1/secrets", { name: "DEPLOY_TOKEN", value: VALUE, scope: { agents: ["demo-coder"], teams: ["default"] } });
    // Scoped to demo-coder in team default, but not to runs that play their launcher's scenario.
    const unscoped = await api(
      "POST",
      "/api/v1/runs",
      { goal: "g", agent: "demo-coder", scenario: [{ text: "hi" }], secrets: ["DEPLOY_TOKEN"] },
      "operator",
    );
    expect(unscoped.status).toBe(400);
    expect(unscoped.json.error.message).toMatch(/commands come from their launcher/);
    const scope = await api("PUT", "/api/v1/secrets/DEPLOY_TOKEN/scope", {
      agents: ["demo-coder"],
      teams: ["default"],
      callerCommands: true,
    });
    expect(scope.status).toBe(200);
    // A team's name is taken at input and kept as its id; the answer shows the name beside it.
    const team = await tk.t.db.team.findUniqueOrThrow({ where: { name: "default" }, select: { id: true } });
    expect(scope.json.scope).toEqual({ agents: ["demo-coder"], teams: [team.id], callerCommands: true });
    expect(scope.json.teams).toEqual([{ id: team.id, name: "default" }]);
    const bad = await api(
      "POST",
      "/api/v1/runs",
      { goal: "g", agent: "demo-coder", scenario: [{ text: "hi" }], secrets: ["NOPE"] },
      "operator",
    );
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toContain('No secret named "NOPE"');
    const run = await api(
      "POST",
      "/api/v1/runs",
      { goal: "g", agent: "demo-coder", scenario: [{ text: "hi" }], secrets: ["DEPLOY_TOKEN"] },
      "operator",
    );
    expect(run.status).toBe(201);
    expect(await tk.settle(run.json.id)).toBe("succeeded");
  });
});
