// REST v1 for reviewed changes, as a program uses it: repositories listed and
// registered (with field errors), a change started from a scenario, its
// checks' logs, the CLI's filters, and reject with a comment.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeSandbox } from "@/server/compute";
import { createApiToken } from "@/server/identity";
import { Improve, seedDemoRepository, type RepositoryView } from "@/server/improve";
import { createTestKernel, SILENT_LOG, type TestKernel } from "@/test/helpers/kernel";
import { startRestServer, type RestTestServer } from "@/test/helpers/rest";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let improve: Improve;
let rest: RestTestServer;
let demo: RepositoryView;
const tokens: Record<string, string> = {};

const FIX = {
  turns: [
    { toolCalls: [{ tool: "edit_file", args: { path: "src/price.mjs", oldString: "Math.floor(", newString: "Math.round(" } }] },
    {
      toolCalls: [
        {
          tool: "propose_change",
          args: { title: "Round discounts", hypothesis: "Math.round rounds to the nearest cent as the test expects." },
        },
      ],
    },
    { text: "done" },
  ],
};

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  demo = await seedDemoRepository(tk.t.db, tk.t.dir);
  improve = new Improve({
    db: tk.t.db,
    kernel: tk.kernel,
    log: SILENT_LOG,
    changes: { broker: tk.hitl!.broker, dataDir: tk.t.dir, checks: { allowUnsandboxed: !probeSandbox().ok } },
  });
  await improve.start({ sweepMs: 60_000 });
  for (const role of ["admin", "approver", "operator"] as const)
    tokens[role] = (await createApiToken(tk.t.db, { userId: tk.users[role], name: role })).token;
  rest = await startRestServer(testServices(tk, { improve }));
}, 60_000);

afterAll(async () => {
  await rest?.close();
  await improve?.stop();
  await tk?.cleanup();
});

describe("/api/v1/repositories and /api/v1/change-requests", () => {
  it("lists the demo repository; registering a bad one names each field", async () => {
    const listed = await rest.call(tokens.operator, "GET", "/api/v1/repositories");
    expect(listed.status).toBe(200);
    expect(listed.json.repositories.map((r: { name: string }) => r.name)).toEqual(["demo-service"]);
    const bad = await rest.call(tokens.admin, "POST", "/api/v1/repositories", { name: "Bad Name", source: "/no/such/folder" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.issues.map((i: { path: string }) => i.path).sort()).toEqual(["name", "testCommand"]);
    expect(
      (await rest.call(tokens.operator, "POST", "/api/v1/repositories", { name: "x", source: demo.source, testCommand: "true" })).status,
    ).toBe(403);
  });

  it("starts a change, shows its checks with their logs, filters by state, and rejects it with a comment", async () => {
    const started = await rest.call(tokens.operator, "POST", "/api/v1/change-requests", {
      repositoryId: demo.id,
      goal: "Fix the failing test",
      scenario: FIX,
    });
    expect(started.status).toBe(201);
    const id = started.json.id as string;
    await tk.settle(id);
    await improve.changes!.idle();
    const checks = await rest.call(tokens.operator, "GET", `/api/v1/change-requests/${id}/checks`);
    expect(checks.status).toBe(200);
    expect(checks.json.checks).toHaveLength(1);
    expect(checks.json.checks[0]).toMatchObject({ kind: "tests", state: "passed", exitCode: 0 });
    expect(checks.json.checks[0].log).toMatch(/pass 3/);
    const waiting = await rest.call(tokens.operator, "GET", "/api/v1/change-requests?state=awaiting_review,checks_failed");
    expect(waiting.json.changeRequests.map((c: { id: string }) => c.id)).toEqual([id]);
    expect((await rest.call(tokens.operator, "GET", "/api/v1/change-requests?state=merged")).json.changeRequests).toEqual([]);
    expect((await rest.call(tokens.operator, "GET", "/api/v1/change-requests?state=nonsense")).status).toBe(400);
    const rejected = await rest.call(tokens.approver, "POST", `/api/v1/change-requests/${id}/reject`, { comment: "Not this week" });
    expect(rejected.status).toBe(200);
    expect(rejected.json).toMatchObject({ state: "rejected", stateReason: expect.stringMatching(/Not this week$/) });
    expect((await rest.call(tokens.approver, "POST", `/api/v1/change-requests/${id}/revert`)).status).toBe(409);
  }, 60_000);
});
