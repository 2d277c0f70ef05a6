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
  for (const role of ["admin", "approver", "operator", "viewer"] as const)
    tokens[role] = (await createApiToken(tk.t.db, { userId: tk.users[role], name: role })).token;
  rest = await startRestServer(testServices(tk, { improve }));
}, 60_000);

afterAll(async () => {
  await rest?.close();
  await improve?.stop();
  await tk?.cleanup();
});

describe("/api/v1/repositories and /api/v1/change-requests", () => {
  const as = (role: keyof typeof tokens) => rest.client(tokens[role]);

  it("lists the demo repository; registering a bad one names each field", async () => {
    const listed = await as("operator").GET("/api/v1/repositories");
    expect(listed.response.status).toBe(200);
    expect(listed.data!.repositories.map((r) => r.name)).toEqual(["demo-service"]);
    // A body the contract forbids (no testCommand) goes raw: the typed client would not send it.
    const bad = await rest.call(tokens.admin, "POST", "/api/v1/repositories", { name: "Bad Name", source: "/no/such/folder" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.issues.map((i: { path: string }) => i.path).sort()).toEqual(["name", "testCommand"]);
    const refused = await as("operator").POST("/api/v1/repositories", { body: { name: "x", source: demo.source, testCommand: "true" } });
    expect(refused.response.status).toBe(403);
  });

  it("starts a change, shows its checks with their logs, filters by state, and rejects it with a comment", async () => {
    const started = await as("operator").POST("/api/v1/change-requests", {
      body: { repositoryId: demo.id, goal: "Fix the failing test", scenario: FIX },
    });
    expect(started.response.status).toBe(201);
    const id = started.data!.id;
    await tk.settle(id);
    await improve.changes!.idle();
    const checks = await as("operator").GET("/api/v1/change-requests/{id}/checks", { params: { path: { id } } });
    expect(checks.response.status).toBe(200);
    expect(checks.data!.checks).toHaveLength(1);
    expect(checks.data!.checks[0]).toMatchObject({ kind: "tests", state: "passed", exitCode: 0 });
    expect(checks.data!.checks[0].log).toMatch(/pass 3/);
    const list = (state: string) => as("operator").GET("/api/v1/change-requests", { params: { query: { state } } });
    expect((await list("awaiting_review,checks_failed")).data!.changeRequests.map((c) => c.id)).toEqual([id]);
    expect((await list("merged")).data!.changeRequests).toEqual([]);
    expect((await list("nonsense")).response.status).toBe(400);
    const change = { params: { path: { id } } };
    const rejected = await as("approver").POST("/api/v1/change-requests/{id}/reject", { ...change, body: { comment: "Not this week" } });
    expect(rejected.response.status).toBe(200);
    expect(rejected.data).toMatchObject({ state: "rejected", stateReason: expect.stringMatching(/Not this week$/) });
    expect(
      (await as("approver").POST("/api/v1/change-requests/{id}/revert", { ...change, body: { reason: "too soon" } })).response.status,
    ).toBe(409);
    expect((await as("approver").POST("/api/v1/change-requests/{id}/revert", { ...change, body: { reason: "" } })).response.status).toBe(
      400,
    );
    const commented = await as("operator").POST("/api/v1/change-requests/{id}/comments", { ...change, body: { comment: "Seen" } });
    expect(commented.response.status).toBe(201);
    expect(commented.data!.activity.at(-1)).toMatchObject({ kind: "comment", who: expect.any(String), comment: "Seen" });
    expect(
      (await as("viewer").POST("/api/v1/change-requests/{id}/comments", { ...change, body: { comment: "Seen" } })).response.status,
    ).toBe(403);
  }, 60_000);
});
