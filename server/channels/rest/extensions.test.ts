// REST v1 extensions on a real HTTP server: proposing the demo package (an
// admin only), the list and one extension with its test results, switching
// it off and on by role, removing it, and bad input as a clear 4xx that
// installs nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, SILENT_LOG, type TestKernel } from "@/test/helpers/kernel";
import { createApiToken, type Role } from "@/server/identity";
import { CSV_TOOLS_EXTENSION, Improve, closeSandboxWorkers, saveImproveSettings } from "@/server/improve";
import { startRestServer, type RestTestServer } from "@/test/helpers/rest";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let rest: RestTestServer;
let improve: Improve;
const tokens = new Map<Role, string>();

const api = (as: Role, method: string, path: string, body?: unknown) =>
  rest.call(tokens.get(as)!, method, path, body, { "x-rein-channel": "cli" });

beforeAll(async () => {
  tk = await createTestKernel();
  for (const role of ["viewer", "operator", "approver", "admin"] as const)
    tokens.set(role, (await createApiToken(tk.t.db, { userId: tk.actors[role].userId, name: "rest" })).token);
  improve = new Improve({ db: tk.t.db, kernel: tk.kernel, log: SILENT_LOG });
  await improve.start({ sweepMs: 60_000 });
  await saveImproveSettings(tk.t.db, { extensionsRequireApproval: false }, { id: tk.actors.admin.userId, name: tk.actors.admin.name });
  rest = await startRestServer(testServices(tk, { improve }));
}, 60_000);

afterAll(async () => {
  await rest?.close();
  await improve?.stop();
  await tk?.cleanup();
  await closeSandboxWorkers();
});

describe("REST v1 extensions", () => {
  it("refuses a proposal from anyone but an admin, and a package that is not valid with every problem", async () => {
    expect((await api("approver", "POST", "/api/v1/extensions", CSV_TOOLS_EXTENSION)).status).toBe(403);
    const bad = await api("admin", "POST", "/api/v1/extensions", { manifest: { name: "x" }, files: {} });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.json.error.message).toMatch(/index\.js/);
    const extra = await api("admin", "POST", "/api/v1/extensions", { ...CSV_TOOLS_EXTENSION, extra: 1 });
    expect(extra.status).toBe(400);
    expect(await tk.t.db.extension.count()).toBe(0);
  });

  it("installs the demo package, lists it and shows its test results", async () => {
    const res = await api("admin", "POST", "/api/v1/extensions", CSV_TOOLS_EXTENSION);
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({
      name: "csv-tools",
      version: "1.0.0",
      state: "installed",
      tools: ["csv_column_sum"],
      tests: { ok: true, passed: 3, failed: 0 },
    });
    expect(res.json.testResults.results.map((r: { name: string; ok: boolean }) => `${r.ok ? "ok" : "FAIL"} ${r.name}`)).toEqual([
      "ok sums a column",
      "ok quoted fields keep their commas",
      "ok an unknown column is an error",
    ]);
    const list = await api("viewer", "GET", "/api/v1/extensions");
    expect(list.json.extensions.map((e: { name: string; state: string }) => `${e.name} ${e.state}`)).toEqual(["csv-tools installed"]);
    expect(list.json.extensions[0].files).toBeUndefined();
    const one = await api("viewer", "GET", `/api/v1/extensions/${res.json.id}`);
    expect(Object.keys(one.json.files).sort()).toEqual(["index.js", "lib/csv.js", "skills/csv-sums/SKILL.md", "test/csv.test.js"]);
    expect((await api("viewer", "GET", "/api/v1/extensions?state=bogus")).status).toBe(400);
    expect((await api("viewer", "GET", "/api/v1/extensions/nope")).status).toBe(404);
  });

  it("switches it off and on by role, removes it as an admin, each audited on the cli channel", async () => {
    const { id } = (await api("viewer", "GET", "/api/v1/extensions")).json.extensions[0];
    expect((await api("operator", "POST", `/api/v1/extensions/${id}/disable`, {})).status).toBe(403);
    const off = await api("approver", "POST", `/api/v1/extensions/${id}/disable`, { reason: "checking" });
    expect(off.status, off.text).toBe(200);
    expect(off.json).toMatchObject({ state: "disabled", stateReason: "Disabled: checking" });
    expect(tk.kernel.deps.registry.get("csv_column_sum")).toBeUndefined();
    expect((await api("approver", "POST", `/api/v1/extensions/${id}/disable`, {})).status).toBe(409);
    expect((await api("approver", "POST", `/api/v1/extensions/${id}/enable`, {})).json.state).toBe("installed");
    expect(tk.kernel.deps.registry.get("csv_column_sum")).toBeDefined();
    expect((await api("approver", "DELETE", `/api/v1/extensions/${id}`)).status).toBe(403);
    const gone = await api("admin", "DELETE", `/api/v1/extensions/${id}`);
    expect(gone.json.state).toBe("removed");
    expect(tk.kernel.deps.registry.get("csv_column_sum")).toBeUndefined();
    expect((await api("viewer", "GET", "/api/v1/extensions")).json.extensions).toEqual([]);
    const channels = await tk.t.db.auditEntry.findMany({
      where: { kind: "extension.transition", toState: { in: ["disabled", "removed"] } },
      select: { channel: true },
    });
    expect(channels.map((c) => c.channel)).toEqual(["cli", "cli"]);
  });
});
