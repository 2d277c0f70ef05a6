// The extension registry on a real SQLite database: a package goes through
// its gate and is installed (at once, or after an admin other than its
// proposer approves), a failing one never is, a newer version supersedes the
// older, people switch one off and on by role, and every move is audited.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { rejection } from "@/test/helpers/rejects";
import { createTestKernel, SILENT_LOG, type TestKernel } from "@/test/helpers/kernel";
import { saveImproveSettings } from "../settings";
import { Improve } from "../service";
import { closeSandboxWorkers } from "../sandbox";
import { CSV_TOOLS_EXTENSION } from "./demo";
import { ExtensionError } from "./registry";
import { canExtensionGo, compareVersions, EXTENSION_STATES } from "./states";
import type { ExtensionPackage } from "./package";

let tk: TestKernel;
let improve: Improve;
let otherAdmin: Actor;

const reg = () => improve.extensionRegistry;
const stateOf = async (id: string) => (await tk.t.db.extension.findUniqueOrThrow({ where: { id } })).state;
const admin = () => tk.actors.admin;
const by = (a: Actor) => ({ by: { id: a.userId, name: a.name }, createdById: a.userId, channel: "admin" });
const setApproval = (on: boolean) =>
  saveImproveSettings(tk.t.db, { extensionsRequireApproval: on }, { id: admin().userId, name: admin().name });

/** csv-tools at another version (the exported name and version follow the manifest). */
function csvTools(version: string, edit: (files: Record<string, string>) => void = () => {}): ExtensionPackage {
  const files = {
    ...CSV_TOOLS_EXTENSION.files,
    "index.js": CSV_TOOLS_EXTENSION.files["index.js"].replace('version: "1.0.0"', `version: "${version}"`),
  };
  edit(files);
  return { manifest: { ...CSV_TOOLS_EXTENSION.manifest, version }, files };
}

const refusal = (p: Promise<unknown>) => rejection(p, ExtensionError);

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  improve = new Improve({ db: tk.t.db, kernel: tk.kernel, log: SILENT_LOG });
  await improve.start({ sweepMs: 60_000 });
  otherAdmin = (await loadActor(
    tk.t.db,
    await createUser(tk.t.db, { email: "second-admin@test.local", password: "test-password-1", role: "admin" }),
  ))!;
}, 60_000);

afterAll(async () => {
  await improve?.stop();
  await tk?.cleanup();
  await closeSandboxWorkers();
});

describe("the state table", () => {
  it("allows exactly the documented moves", () => {
    const allowed = EXTENSION_STATES.flatMap((from) =>
      EXTENSION_STATES.filter((to) => canExtensionGo(from, to)).map((to) => `${from}->${to}`),
    );
    expect(allowed.sort()).toEqual(
      [
        "proposed->testing",
        "proposed->removed",
        "testing->failed",
        "testing->awaiting_approval",
        "testing->installed",
        "testing->removed",
        "failed->removed",
        "awaiting_approval->installed",
        "awaiting_approval->rejected",
        "awaiting_approval->removed",
        "rejected->removed",
        "installed->disabled",
        "installed->superseded",
        "installed->removed",
        "disabled->installed",
        "disabled->superseded",
        "disabled->removed",
        "superseded->removed",
      ].sort(),
    );
    for (const s of EXTENSION_STATES) expect(canExtensionGo("removed", s)).toBe(false);
  });

  it.each([
    ["1.0.0", "1.0.1", -1],
    ["1.10.0", "1.9.9", 1],
    ["2.0.0-rc.1", "2.0.0", -1],
    ["2.0.0-alpha", "2.0.0-alpha.1", -1],
    ["2.0.0-alpha.2", "2.0.0-alpha.10", -1],
    ["2.0.0-1", "2.0.0-beta", -1],
    ["1.0.0+build", "1.0.0", 0],
  ] as const)("orders %s against %s", (a, b, sign) => {
    expect(Math.sign(compareVersions(a, b))).toBe(sign);
    expect(Math.sign(compareVersions(b, a))).toBe(-sign || 0);
  });
});

describe("proposing", () => {
  it("refuses a package that is not valid with every problem, storing nothing", async () => {
    const err = await refusal(reg().propose({ manifest: { name: "Bad Name", version: "x" }, files: {} }, by(admin())));
    expect(err.code).toBe("INVALID_INPUT");
    expect(err.problems.length).toBeGreaterThan(2);
    expect(err.message).toMatch(/version is a semantic version/);
    expect(await tk.t.db.extension.count()).toBe(0);
  });

  it("never installs a package whose test fails: failed, with the gate's reason and results", async () => {
    await setApproval(false);
    const broken = csvTools("0.9.0", (f) => (f["test/csv.test.js"] = f["test/csv.test.js"].replace(".total, 6);", ".total, 7);")));
    const out = await reg().propose(broken, by(admin()));
    expect(out.state).toBe("failed");
    expect(out.reason).toMatch(/sums a column/);
    const row = await tk.t.db.extension.findUniqueOrThrow({ where: { id: out.id } });
    expect(row.stateReason).toMatch(/The gate failed/);
    const results = JSON.parse(row.testsResult!) as { ok: boolean; results: Array<{ name: string; ok: boolean }> };
    expect(results.ok).toBe(false);
    expect(results.results.find((r) => r.name === "sums a column")?.ok).toBe(false);
    expect(reg().toolNames()).not.toContain("csv_column_sum");
    expect(tk.kernel.deps.registry.get("csv_column_sum")).toBeUndefined();
    const audit = await tk.t.db.auditEntry.findMany({ where: { subject: "csv-tools v0.9.0" }, orderBy: { at: "asc" } });
    expect(audit.map((a) => `${a.fromState ?? ""}->${a.toState}`)).toEqual(["->proposed", "proposed->testing", "testing->failed"]);
  });

  it("installs a passing package at once when approval is off, and offers its tools to every agent", async () => {
    await setApproval(false);
    const out = await reg().propose(csvTools("1.0.0"), by(admin()));
    expect(out).toMatchObject({ state: "installed", reason: null });
    expect(tk.kernel.deps.registry.get("csv_column_sum")?.policyAlias).toBe("extension_tool");
    const run = { teamId: null } as never;
    expect(improve.extensions().toolsFor(run, { name: "demo-coder" } as never)).toContain("csv_column_sum");
    expect(improve.extensions().toolsFor(run, { name: "anyone-else" } as never)).toContain("csv_column_sum");
    const row = await tk.t.db.extension.findUniqueOrThrow({ where: { id: out.id } });
    expect(JSON.parse(row.testsResult!)).toMatchObject({ ok: true, passed: 3, failed: 0 });
  });

  it("refuses the same version twice, an older version, and a tool name a built-in tool holds", async () => {
    expect((await refusal(reg().propose(csvTools("1.0.0"), by(admin())))).code).toBe("CONFLICT");
    expect((await refusal(reg().propose(csvTools("0.5.0"), by(admin())))).message).toMatch(
      /v1\.0\.0 is installed; propose a version newer/,
    );
    const shadow = csvTools(
      "0.1.0",
      (f) => (f["index.js"] = f["index.js"].replace('"csv-tools"', '"shadow-shell"').replace(/csv_column_sum/g, "shell")),
    );
    shadow.manifest = { ...shadow.manifest, name: "shadow-shell", tools: ["shell"], replay: { shell: "pure" } };
    shadow.files["test/csv.test.js"] = shadow.files["test/csv.test.js"].replace(/csv_column_sum/g, "shell");
    expect((await refusal(reg().propose(shadow, by(admin())))).message).toMatch(/shell is taken/);
  });
});

describe("approval", () => {
  it("waits for an admin other than the proposer, then installs and supersedes the older version", async () => {
    await setApproval(true);
    const out = await reg().propose(csvTools("1.1.0"), by(admin()));
    expect(out.state).toBe("awaiting_approval");
    expect(tk.kernel.deps.registry.get("csv_column_sum")?.description).toMatch(/v1\.0\.0/);
    expect((await refusal(reg().approve(admin(), out.id, "admin"))).code).toBe("FORBIDDEN");
    expect((await refusal(reg().approve(tk.actors.approver, out.id, "admin"))).code).toBe("FORBIDDEN");
    await reg().approve(otherAdmin, out.id, "admin");
    expect(await stateOf(out.id)).toBe("installed");
    expect(await tk.t.db.extension.findUniqueOrThrow({ where: { name_version: { name: "csv-tools", version: "1.0.0" } } })).toMatchObject({
      state: "superseded",
      stateReason: "Superseded by v1.1.0",
    });
    expect(tk.kernel.deps.registry.get("csv_column_sum")?.description).toMatch(/v1\.1\.0/);
    expect(
      reg()
        .list()
        .map((x) => `${x.name}@${x.version}`),
    ).toEqual(["csv-tools@1.1.0"]);
  });

  it("never downgrades: of two versions waiting, the older one cannot be installed after the newer", async () => {
    const newer = await reg().propose(csvTools("1.1.2"), by(admin()));
    const older = await reg().propose(csvTools("1.1.1"), by(admin()));
    await reg().approve(otherAdmin, newer.id, "admin");
    const err = await refusal(reg().approve(otherAdmin, older.id, "admin"));
    expect(err).toMatchObject({ code: "CONFLICT" });
    expect(err.message).toMatch(/v1\.1\.2 is installed, which is not older than v1\.1\.1/);
    expect(await stateOf(older.id)).toBe("awaiting_approval");
    expect(tk.kernel.deps.registry.get("csv_column_sum")?.description).toMatch(/v1\.1\.2/);
    await reg().reject(otherAdmin, older.id, "admin", "older");
  });

  it("a package an agent proposed is approved in the inbox, never by the person who launched the run", async () => {
    const run = await createRun(tk.kernel, { goal: "Say hi", agent: "demo-coder", scenario: [{ text: "hi" }] }, tk.actors.operator);
    await tk.settle(run.id);
    const out = await reg().propose(csvTools("1.2.0"), { authorRunId: run.id, by: { id: "system", name: "Rein" }, channel: "agent" });
    expect(out.state).toBe("awaiting_approval");
    const request = await tk.t.db.humanRequest.findFirstOrThrow({ where: { slot: "extension", runId: run.id } });
    expect(request).toMatchObject({
      kind: "approve",
      requiredRole: "admin",
      teamId: null,
      requestedById: tk.actors.operator.userId,
      state: "PENDING",
    });
    expect(JSON.parse(request.payload)).toMatchObject({ notByRequester: true, args: { extensionId: out.id } });
    const broker = tk.hitl!.broker;
    // The run that asked has ended: its approval stays open all the same.
    expect(await broker.cancelForRun(run.id, "The run ended (succeeded)")).toBe(0);
    expect((await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: request.id } })).state).toBe("PENDING");
    const self = await broker
      .decide(request.id, { id: tk.actors.operator.userId, name: tk.actors.operator.name, role: "admin" }, { decision: "approve" }, "inbox")
      .catch((e: Error) => e);
    expect(String(self)).toMatch(/another person with the role must decide it/);
    const decided = await broker.decide(
      request.id,
      { id: otherAdmin.userId, name: otherAdmin.name, role: "admin" },
      { decision: "approve" },
      "inbox",
    );
    await improve.onRequestChange({ requestId: decided.id, runId: run.id, state: "APPROVED", teamId: null });
    expect(await stateOf(out.id)).toBe("installed");
  });

  it("a rejected request rejects the extension, which is never installed", async () => {
    const run = await createRun(tk.kernel, { goal: "Say hi", agent: "demo-coder", scenario: [{ text: "hi" }] }, tk.actors.operator);
    await tk.settle(run.id);
    const out = await reg().propose(csvTools("1.3.0"), { authorRunId: run.id, by: { id: "system", name: "Rein" }, channel: "agent" });
    const request = await tk.t.db.humanRequest.findFirstOrThrow({ where: { slot: "extension", runId: run.id } });
    await tk.hitl!.broker.decide(
      request.id,
      { id: otherAdmin.userId, name: otherAdmin.name, role: "admin" },
      { decision: "reject" },
      "inbox",
    );
    await improve.onRequestChange({ requestId: request.id, runId: run.id, state: "REJECTED", teamId: null });
    expect(await stateOf(out.id)).toBe("rejected");
    expect(tk.kernel.deps.registry.get("csv_column_sum")?.description).toMatch(/v1\.2\.0/);
  });
});

describe("people switching an extension", () => {
  it("disable and enable need an approver, remove an admin; each move leaves the registry in step", async () => {
    const installed = await tk.t.db.extension.findFirstOrThrow({ where: { name: "csv-tools", state: "installed" } });
    expect((await refusal(reg().disable(tk.actors.operator, installed.id, "admin"))).code).toBe("FORBIDDEN");
    await reg().disable(tk.actors.approver, installed.id, "admin", "too slow");
    expect(await stateOf(installed.id)).toBe("disabled");
    expect(tk.kernel.deps.registry.get("csv_column_sum")).toBeUndefined();
    expect(reg().toolNames()).toEqual([]);
    expect((await refusal(reg().disable(tk.actors.approver, installed.id, "admin"))).code).toBe("CONFLICT");
    await reg().enable(tk.actors.approver, installed.id, "admin");
    expect(tk.kernel.deps.registry.get("csv_column_sum")).toBeDefined();
    expect((await refusal(reg().remove(tk.actors.approver, installed.id, "admin"))).code).toBe("FORBIDDEN");
    await reg().remove(admin(), installed.id, "admin");
    expect(await stateOf(installed.id)).toBe("removed");
    expect(tk.kernel.deps.registry.get("csv_column_sum")).toBeUndefined();
    expect((await refusal(reg().enable(tk.actors.approver, installed.id, "admin"))).code).toBe("CONFLICT");
    const kinds = await tk.t.db.auditEntry.findMany({
      where: { subject: `csv-tools v${installed.version}`, kind: "extension.transition" },
      select: { toState: true, actorName: true },
    });
    expect(kinds.map((k) => k.toState)).toEqual(expect.arrayContaining(["disabled", "installed", "removed"]));
  });

  it("an unknown id is NOT_FOUND", async () => {
    expect((await refusal(reg().disable(admin(), "no-such-extension", "admin"))).code).toBe("NOT_FOUND");
  });

  it("a restarted service loads the installed extensions again", async () => {
    await setApproval(false);
    const out = await reg().propose(csvTools("2.0.0"), by(admin()));
    expect(out.state).toBe("installed");
    await improve.stop();
    expect(tk.kernel.deps.registry.get("csv_column_sum")).toBeUndefined();
    improve = new Improve({ db: tk.t.db, kernel: tk.kernel, log: SILENT_LOG });
    const started = await improve.start({ sweepMs: 60_000 });
    expect(started.extensions).toBe(1);
    expect(tk.kernel.deps.registry.get("csv_column_sum")?.description).toMatch(/v2\.0\.0/);
  });
});
