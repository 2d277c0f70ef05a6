// REST v1 model configuration on a real HTTP server: change and delete
// providers, keys only ever masked, model ids with slashes, routing documents
// validated, admins only.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { createApiToken } from "@/server/identity";
import { startFakeOpenAI, type FakeServer } from "@/server/models";
import { createRestHandler } from "./index";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let server: http.Server;
let base: string;
let fake: FakeServer;
const tokens = {} as Record<"admin" | "operator", string>;
const KEY = "sk-rest-first-key-000111";
const NEW_KEY = "sk-rest-second-key-222333";

async function api(method: string, path: string, body?: unknown, as: "admin" | "operator" = "admin", headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${tokens[as]}`, ...(body ? { "content-type": "application/json" } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) };
}

beforeAll(async () => {
  tk = await createTestKernel({ models: true });
  fake = await startFakeOpenAI({ apiKey: NEW_KEY, models: ["meta-llama/llama-3.3-70b"] });
  for (const role of ["admin", "operator"] as const)
    tokens[role] = (await createApiToken(tk.t.db, { userId: tk.users[role], name: "rest" })).token;
  const handler = createRestHandler(testServices(tk), { authSecret: "test-secret" });
  server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await fake.close();
  await tk.cleanup();
});

describe("REST v1 providers, models and routing", () => {
  it("replaces a provider's key (the test then works), returns it only masked, and deletes the provider with its models and key", async () => {
    const created = await api("POST", "/api/v1/providers", {
      name: "router",
      kind: "openai-compatible",
      baseUrl: fake.baseUrl,
      apiKey: KEY,
    });
    expect(created.status).toBe(201);
    expect(created.json.apiKeyMasked).toBe("sk-…0111");
    const refused = await api("POST", "/api/v1/providers/router/test");
    expect(refused.json).toMatchObject({ ok: false, error: { kind: "auth", status: 401 } });
    expect(refused.text).not.toContain(KEY);

    const patched = await api("PATCH", "/api/v1/providers/router", { apiKey: NEW_KEY, selfHosted: true });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ apiKeyMasked: "sk-…2333", selfHosted: true });
    expect(patched.text).not.toContain(NEW_KEY);
    const works = await api("POST", "/api/v1/providers/router/test");
    expect(works.json).toMatchObject({ ok: true, models: ["meta-llama/llama-3.3-70b"] });

    const unknownField = await api("PATCH", "/api/v1/providers/router", { name: "renamed" });
    expect(unknownField.status).toBe(400);

    const model = await api("POST", "/api/v1/models", {
      provider: "router",
      modelId: "meta-llama/llama-3.3-70b",
      family: "llama",
      prices: { inputPerMTok: 0.5, outputPerMTok: 0.8 },
    });
    expect(model.status).toBe(201);
    expect(model.json.ref).toBe("router/meta-llama/llama-3.3-70b");
    const listed = await api("GET", "/api/v1/models");
    expect(listed.json.models).toEqual([
      expect.objectContaining({ ref: "router/meta-llama/llama-3.3-70b", prices: expect.objectContaining({ inputPerMTok: 0.5 }) }),
    ]);
    const everything = await api("GET", "/api/v1/providers");
    expect(everything.text).not.toContain(NEW_KEY);

    expect((await api("DELETE", "/api/v1/models/router/meta-llama/llama-3.3-70b")).status).toBe(200);
    expect((await api("DELETE", "/api/v1/models/router/meta-llama/llama-3.3-70b")).status).toBe(404);
    expect((await api("DELETE", "/api/v1/providers/router")).status).toBe(200);
    expect((await api("GET", "/api/v1/providers/router")).status).toBe(404);
    expect(await tk.t.db.secret.count({ where: { name: { startsWith: "provider/router/" } } })).toBe(0);
  });

  it("saves routing rules and pools, and refuses a document that names a pool nobody defined", async () => {
    const bad = await api("PUT", "/api/v1/routing", { teamPools: { someTeam: "missing" } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toContain('no pool is named "missing"');
    const saved = await api("PUT", "/api/v1/routing", {
      rules: { code: { strategy: "cheapest", candidates: ["a/b"] } },
      pools: [{ name: "on-prem", selfHosted: true }],
    });
    expect(saved.status).toBe(200);
    // The CLI's changes are audited as the CLI's, others as the API's.
    const fromCli = await api("PUT", "/api/v1/routing", { rules: {}, pools: [{ name: "on-prem", selfHosted: true }] }, "admin", {
      "x-rein-channel": "cli",
    });
    expect(fromCli.status).toBe(200);
    const audit = await tk.t.db.auditEntry.findMany({ where: { kind: "routing.updated" }, orderBy: { id: "asc" } });
    expect(audit.slice(-2).map((a) => a.channel)).toEqual(["api", "cli"]);
    await api("PUT", "/api/v1/routing", {
      rules: { code: { strategy: "cheapest", candidates: ["a/b"] } },
      pools: [{ name: "on-prem", selfHosted: true }],
    });
    expect((await api("GET", "/api/v1/routing")).json).toMatchObject({
      rules: { code: { strategy: "cheapest", candidates: ["a/b"] } },
      pools: [{ name: "on-prem", selfHosted: true, models: [] }],
    });
  });

  it("refuses run options it cannot honour with a clear 400, and launches nothing", async () => {
    const before = await tk.t.db.run.count();
    const both = await api(
      "POST",
      "/api/v1/runs",
      { goal: "g", agent: "demo-coder", model: "router/x", scenario: [{ text: "hi" }] },
      "operator",
    );
    expect(both.status).toBe(400);
    expect(both.json.error.message).toContain("give either model or scenario, not both");
    const unknown = await api("POST", "/api/v1/runs", { goal: "g", agent: "demo-coder", model: "nobody/nothing" }, "operator");
    expect(unknown.json.error).toMatchObject({ code: "UNKNOWN_MODEL", message: expect.stringContaining('Unknown model "nobody/nothing"') });
    const hard = await api("POST", "/api/v1/runs", { goal: "g", agent: "demo-coder", complexity: 1.5 }, "operator");
    expect(hard.status).toBe(400);
    expect(hard.json.error.message).toContain("complexity is between 0 and 1");
    const auto = await api("POST", "/api/v1/runs", { goal: "g", agent: "demo-coder", model: "auto" }, "operator");
    expect(auto.json.error).toMatchObject({ code: "UNKNOWN_MODEL", message: expect.stringContaining("Add one in Settings → Models") });
    expect(await tk.t.db.run.count()).toBe(before);
  });

  it("is for admins only", async () => {
    for (const [method, path] of [
      ["GET", "/api/v1/providers"],
      ["POST", "/api/v1/providers"],
      ["GET", "/api/v1/models"],
      ["PUT", "/api/v1/routing"],
      ["DELETE", "/api/v1/providers/x"],
    ] as const) {
      expect(
        (await api(method, path, method === "GET" || method === "DELETE" ? undefined : {}, "operator")).status,
        `${method} ${path}`,
      ).toBe(403);
    }
  });
});
