// GET /api/v1/runs/:id/workspace.tar.gz on a real HTTP server: a streamed
// gzip download of the run's workspace, with clear JSON errors otherwise.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { execFileSync } from "node:child_process";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { makeTempDir } from "@/test/helpers/db";
import { createApiToken, createUser } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { createRestHandler } from "./index";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let server: http.Server;
let base: string;
let viewerToken: string;
let runId: string;
let otherTeamRunId: string;
let notStartedRunId: string;
let tmp: string;

const get = (p: string, token: string | null = viewerToken, method = "GET") =>
  fetch(`${base}${p}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });

beforeAll(async () => {
  tk = await createTestKernel();
  tmp = makeTempDir("rein-test-archive-");
  const db = tk.t.db;
  viewerToken = (await createApiToken(db, { userId: tk.users.viewer, name: "viewer" })).token;
  const run = await createRun(tk.kernel, { goal: "Write fizzbuzz", agent: "demo-coder" }, tk.actors.operator);
  const otherId = await createUser(db, {
    email: "archive-other@test.local",
    password: "test-password-1",
    role: "operator",
    teams: ["other"],
  });
  const other = await createRun(
    tk.kernel,
    { goal: "Secret", agent: "demo-coder", scenario: [{ text: "hi" }] },
    { ...tk.actors.operator, userId: otherId, teamIds: [] },
  );
  expect(await tk.settle(run.id)).toBe("succeeded");
  expect(await tk.settle(other.id)).toBe("succeeded");
  runId = run.id;
  otherTeamRunId = other.id;
  notStartedRunId = (
    await db.run.create({
      data: {
        goal: "Later",
        agentName: "demo-coder",
        agentVersion: 1,
        model: "scripted/demo-coder",
        createdById: tk.users.operator,
        teamId: tk.actors.operator.teamIds[0],
      },
      select: { id: true },
    })
  ).id;
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
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe("GET /api/v1/runs/:id/workspace.tar.gz", () => {
  it("streams the workspace as a gzipped tar, without .git, as an attachment named after the run", async () => {
    const res = await get(`/api/v1/runs/${runId}/workspace.tar.gz`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/gzip");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="rein-${runId}.tar.gz"`);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = Buffer.from(await res.arrayBuffer());
    expect([...body.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    const file = path.join(tmp, "ws.tar.gz");
    fs.writeFileSync(file, body);
    const names = execFileSync("tar", ["-tzf", file], { encoding: "utf8" }).trim().split("\n");
    expect(names).toEqual(expect.arrayContaining(["./src/fizzbuzz.mjs", "./test/fizzbuzz.test.mjs"]));
    expect(names.filter((n) => n.includes(".git"))).toEqual([]);
  });

  it("an unknown run and another team's run are 404", async () => {
    for (const id of ["no-such-run", otherTeamRunId]) {
      const res = await get(`/api/v1/runs/${id}/workspace.tar.gz`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { code: "NOT_FOUND", message: `Run ${id} was not found` } });
    }
  });

  it("a run that has not started is 409 with a clear message", async () => {
    const res = await get(`/api/v1/runs/${notStartedRunId}/workspace.tar.gz`);
    expect(res.status).toBe(409);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({
      error: { code: "NO_WORKSPACE", message: "The run has not started; its workspace does not exist yet" },
    });
  });

  it("refuses anonymous callers and other methods", async () => {
    expect((await get(`/api/v1/runs/${runId}/workspace.tar.gz`, null)).status).toBe(401);
    expect((await get(`/api/v1/runs/${runId}/workspace.tar.gz`, viewerToken, "POST")).status).toBe(405);
  });
});
