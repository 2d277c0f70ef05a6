// GET /api/v1/spans on a real HTTP server: the Traces search for programs,
// with query-string numbers, cursor paging, team visibility and clear 400s.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { createApiToken, createUser } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { createRestHandler } from "./index";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let server: http.Server;
let base: string;
let runId: string;
const tokens = {} as Record<"viewer" | "otherTeam", string>;

type Json = Record<string, any>;

async function get(path: string, token: string | null = tokens.viewer): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${base}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, json: (await res.json()) as Json };
}

beforeAll(async () => {
  tk = await createTestKernel({ telemetry: true });
  const db = tk.t.db;
  const run = await createRun(tk.kernel, { goal: "Write fizzbuzz", agent: "demo-coder" }, tk.actors.operator);
  expect(await tk.settle(run.id)).toBe("succeeded");
  runId = run.id;
  await tk.telemetry!.settle();
  tokens.viewer = (await createApiToken(db, { userId: tk.users.viewer, name: "viewer" })).token;
  const other = await createUser(db, {
    email: "spans-other@test.local",
    password: "test-password-1",
    role: "operator",
    teams: ["elsewhere"],
  });
  tokens.otherTeam = (await createApiToken(db, { userId: other, name: "other" })).token;
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

describe("GET /api/v1/spans", () => {
  it("finds the run's shell spans with the run's goal; empty parameters mean no filter", async () => {
    const shell = await tk.t.db.span.count({ where: { runId, tool: "shell" } });
    expect(shell).toBeGreaterThan(0);
    const res = await get("/api/v1/spans?tool=shell&kind=&q=");
    expect(res.status).toBe(200);
    expect(res.json.spans).toHaveLength(shell);
    for (const s of res.json.spans) expect(s).toMatchObject({ runId, runGoal: "Write fizzbuzz", kind: "execute_tool", tool: "shell" });
    expect(res.json.nextCursor).toBeNull();
  });

  it("takes numbers from the query string and pages with the cursor", async () => {
    const all = await tk.t.db.span.count({ where: { runId } });
    const seen = new Set<string>();
    let cursor = "";
    for (let page = 0; page < all; page++) {
      const res = await get(`/api/v1/spans?limit=3&minDurationMs=0&minCostUsd=0${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(res.status).toBe(200);
      for (const s of res.json.spans) {
        expect(seen.has(s.spanId)).toBe(false);
        seen.add(s.spanId);
      }
      if (!res.json.nextCursor) break;
      cursor = res.json.nextCursor;
    }
    expect(seen.size).toBe(all);
  });

  it("shows a user of another team nothing of a run not theirs", async () => {
    const res = await get("/api/v1/spans", tokens.otherTeam);
    expect(res.status).toBe(200);
    expect(res.json.spans).toEqual([]);
  });

  it.each([
    ["minDurationMs=-1", "minDurationMs: must not be negative"],
    ["minDurationMs=slow", "minDurationMs"],
    ["from=2026-03-10T00:00:00Z&to=2026-03-01T00:00:00Z", "from: must not be after to"],
    ["status=failed", "status: must be one of ok, error, unset, open"],
    ["tools=shell", "tools"],
    ["cursor=nonsense", "cursor: is not a cursor from an earlier page"],
  ])("?%s is 400 INVALID_INPUT: %s", async (query, message) => {
    const res = await get(`/api/v1/spans?${query}`);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("INVALID_INPUT");
    expect(res.json.error.message).toContain(message);
  });

  it("needs a token", async () => {
    expect((await get("/api/v1/spans", null)).status).toBe(401);
  });
});
