// Attack suite: retention. A workspace an agent filled with links to the
// server's own files and folders it locked (mode 000) is removed without
// following a link or touching anything outside it; pinning another team's
// run, or pinning as a viewer, is refused and changes nothing; only admins see
// or change retention, start a pass or measure disk use.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { Pruner, Retention, saveRetentionSettings } from "@/server/retention";
import { callerFor } from "@/test/helpers/services";
import { SILENT_LOG, createTestKernel, type TestKernel } from "../helpers/kernel";
import { makeTempDir } from "../helpers/db";
import { trpcError } from "../helpers/trpc";

let tk: TestKernel;
let retention: Retention;
let outsider: Actor;
let runId: string;

const caller = (actor: Actor) => callerFor(tk, actor, { retention });
const pinnedAt = async (id: string) => (await tk.t.db.run.findUniqueOrThrow({ where: { id }, select: { pinnedAt: true } })).pinnedAt;

beforeAll(async () => {
  tk = await createTestKernel();
  retention = new Retention({ db: tk.t.db, dataDir: tk.t.dir, databaseUrl: tk.t.url, log: SILENT_LOG });
  const outsiderId = await createUser(tk.t.db, {
    email: "retention-outsider@rein.test",
    password: "password-123",
    role: "operator",
    teams: ["retention-elsewhere"],
  });
  outsider = (await loadActor(tk.t.db, outsiderId))!;
  runId = (
    await tk.t.db.run.create({
      data: {
        goal: "An old run",
        agentName: "demo-coder",
        agentVersion: 1,
        model: "scripted/demo-coder",
        status: "succeeded",
        endedAt: new Date(Date.now() - 400 * 86_400_000),
        createdById: tk.users.operator,
        teamId: tk.actors.operator.teamIds[0],
      },
      select: { id: true },
    })
  ).id;
});
afterAll(async () => tk?.cleanup());

describe("removing an old run's workspace", () => {
  it("follows no link out of it and removes what the agent locked", async () => {
    const outside = makeTempDir("rein-retention-outside-");
    fs.writeFileSync(path.join(outside, "keep.txt"), "the server's own file\n");
    const ws = path.join(tk.t.dir, "workspaces", runId);
    fs.mkdirSync(path.join(ws, "locked", "deeper"), { recursive: true });
    fs.writeFileSync(path.join(ws, "locked", "deeper", "f.txt"), "x");
    fs.symlinkSync(outside, path.join(ws, "to-outside"));
    fs.symlinkSync(path.join(outside, "keep.txt"), path.join(ws, "locked", "file-link"));
    fs.symlinkSync(tk.t.dir, path.join(ws, "to-data-dir"));
    fs.chmodSync(path.join(ws, "locked", "deeper"), 0o000);
    fs.chmodSync(path.join(ws, "locked"), 0o000);
    // The outputs folder itself a link to the outside: the link goes, not what it points at.
    fs.mkdirSync(path.join(tk.t.dir, "outputs"), { recursive: true });
    fs.symlinkSync(outside, path.join(tk.t.dir, "outputs", runId));
    const keepOnly = { events: null, terminal: null, checkpoints: null, snapshots: null, spanDetail: null, spans: null };
    await saveRetentionSettings(tk.t.db, { ...keepOnly, workspaces: 14 }, { id: tk.users.admin, name: "Admin" });

    const report = (await new Pruner({ db: tk.t.db, dataDir: tk.t.dir, databaseUrl: tk.t.url }).pass())!;
    expect(report.error).toBeNull();
    expect(report.runs).toEqual({ workspaces: 1 });
    expect(fs.existsSync(ws)).toBe(false);
    expect(fs.existsSync(path.join(tk.t.dir, "outputs", runId))).toBe(false);
    expect(fs.readFileSync(path.join(outside, "keep.txt"), "utf8")).toBe("the server's own file\n");
    expect(fs.existsSync(path.join(tk.t.dir, "workspaces"))).toBe(true);
    expect(fs.readdirSync(tk.t.dir).length).toBeGreaterThan(0);
  });
});

describe("pinning a run", () => {
  it("of another team is NOT_FOUND, as a viewer FORBIDDEN, and changes nothing", async () => {
    expect((await trpcError(caller(outsider).runs.setPinned({ id: runId, pinned: true }))).code).toBe("NOT_FOUND");
    const err = await trpcError(caller(tk.actors.viewer).runs.setPinned({ id: runId, pinned: true }));
    expect(err.code).toBe("FORBIDDEN");
    expect(err.message).toMatch(/needs the operator role/);
    expect(await pinnedAt(runId)).toBeNull();
    await caller(tk.actors.operator).runs.setPinned({ id: runId, pinned: true });
    expect(await pinnedAt(runId)).not.toBeNull();
    expect((await trpcError(caller(outsider).runs.setPinned({ id: runId, pinned: false }))).code).toBe("NOT_FOUND");
    expect(await pinnedAt(runId)).not.toBeNull();
  });
});

describe("retention settings", () => {
  it("are the admins': an operator can neither read nor change them, nor start a pass or a measurement", async () => {
    for (const call of [
      () => caller(tk.actors.operator).data.status(),
      () => caller(tk.actors.operator).data.save({ audit: 1 }),
      () => caller(tk.actors.operator).data.pruneNow(),
      () => caller(tk.actors.operator).data.measure(),
    ])
      expect((await trpcError(call())).code).toBe("FORBIDDEN");
    const audit = (await retention.status()).settings.audit;
    expect(audit).not.toBe(1);
  });

  it("refuse a kind that does not exist, a fraction, zero and a text, and keep what was there", async () => {
    const before = (await retention.status()).settings;
    for (const bad of [{ everything: 1 }, { events: 0.5 }, { events: 0 }, { events: "7" }, { audit: -1 }, { spans: 1e9 }])
      expect((await trpcError(caller(tk.actors.admin).data.save(bad as never))).code).toBe("BAD_REQUEST");
    expect((await retention.status()).settings).toEqual(before);
  });
});
