// GET /api/v1/costs on a real HTTP server: the same figures as the runs, the
// same team visibility as the Costs page, and a clear 400 for bad input.
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
let runCost = 0;
const tokens = {} as Record<"viewer" | "admin" | "otherTeam", string>;

type Json = Record<string, any>;

async function get(path: string, token: string | null = tokens.viewer): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${base}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, json: (await res.json()) as Json };
}

beforeAll(async () => {
  tk = await createTestKernel({ telemetry: true });
  const db = tk.t.db;
  await db.modelPrice.create({ data: { model: "scripted/demo-coder", inputPerMTok: 1000, outputPerMTok: 3000, cacheReadPerMTok: 100 } });
  await tk.telemetry!.telemetry.loadPrices();
  const run = await createRun(tk.kernel, { goal: "Write fizzbuzz", agent: "demo-coder" }, tk.actors.operator);
  expect(await tk.settle(run.id)).toBe("succeeded");
  await tk.telemetry!.settle();
  runCost = (await db.run.findUniqueOrThrow({ where: { id: run.id } })).costUsd;

  tokens.viewer = (await createApiToken(db, { userId: tk.users.viewer, name: "viewer" })).token;
  tokens.admin = (await createApiToken(db, { userId: tk.users.admin, name: "admin" })).token;
  const other = await createUser(db, {
    email: "costs-other@test.local",
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

const today = () => new Date().toISOString().slice(0, 10);

describe("GET /api/v1/costs", () => {
  it("returns the run's cost, grouped as asked, for the default range", async () => {
    expect(runCost).toBeGreaterThan(0.01);
    const res = await get("/api/v1/costs?groupBy=workflow");
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ to: today(), groupBy: "workflow", scope: "teams" });
    expect(Math.round(res.json.totals.costUsd * 100)).toBe(Math.round(runCost * 100));
    expect(res.json.totals.runs).toBe(1);
    expect(res.json.groups).toEqual([expect.objectContaining({ key: "demo-coder", label: "demo-coder" })]);
    expect(res.json.series.days).toHaveLength(30);
    expect(res.json.runsByOutcome).toEqual([{ status: "succeeded", count: 1 }]);
  });

  it("takes from and to as ISO dates or date-times; empty ones mean the default", async () => {
    const res = await get(`/api/v1/costs?groupBy=model&from=${today()}T00:00:00Z&to=${today()}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ from: today(), to: today() });
    expect(res.json.groups.map((g: Json) => g.key)).toEqual(["scripted/demo-coder"]);
    const defaults = await get("/api/v1/costs?from=&to=");
    expect(defaults.status).toBe(200);
    expect(defaults.json).toMatchObject({ to: today(), groupBy: "model" });
  });

  it("admins see every team; a user of another team sees nothing of it", async () => {
    const admin = await get("/api/v1/costs?groupBy=team", tokens.admin);
    expect(admin.json.scope).toBe("all");
    expect(admin.json.groups).toEqual([expect.objectContaining({ label: "default" })]);
    const other = await get("/api/v1/costs?groupBy=team", tokens.otherTeam);
    expect(other.status).toBe(200);
    expect(other.json.groups).toEqual([]);
    expect(other.json.totals).toMatchObject({ costUsd: 0, calls: 0, runs: 0 });
  });

  it.each([
    ["groupBy=user", "groupBy: must be one of team, workflow, model"],
    ["from=last-week", "from: must be an ISO date"],
    ["from=2026-02-30", "from: must be an ISO date"],
    ["from=2026-03-10&to=2026-03-01", "from: must not be after to"],
    ["from=2020-01-01&to=2026-01-01", "from: the range is at most 366 days"],
    ["group_by=team", "group_by"],
  ])("?%s is 400 INVALID_INPUT: %s", async (query, message) => {
    const res = await get(`/api/v1/costs?${query}`);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("INVALID_INPUT");
    expect(res.json.error.message).toContain(message);
  });

  it("needs a token", async () => {
    const res = await get("/api/v1/costs", null);
    expect(res.status).toBe(401);
  });
});
