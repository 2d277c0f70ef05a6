// A full disk loses nothing (docs/operations.md#a-full-disk), on a real small
// file system: the data directory and its SQLite database on a 48 MB tmpfs.
// A run that finds less room than the reserve pauses with the reason "Disk
// full" before it writes; a run whose write fails because the disk filled up
// mid-step keeps only whole steps (the step rolled back: no half-written
// event or checkpoint); both resume by themselves when space is freed and
// finish as they would have.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb, type Db } from "@/server/db";
import { DISK_FULL, createKernel, createRun, diskSpace, type Kernel } from "@/server/kernel";
import type { Scenario } from "@/server/models";
import { bootstrapAdmin, loadActor, type Actor } from "@/server/identity";
import { SILENT_LOG } from "./helpers/kernel";
import { makeTempDir, templatePath } from "./helpers/db";
import { waitFor } from "./helpers/wait";

const RESERVE = 8 * 1024 * 1024;
let dir: string;
let db: Db;
let kernel: Kernel;
/** The same database with no reserve: runs go on until a write fails for want of space. */
let noReserve: Kernel;
const logged: string[] = [];
let actor: Actor;

const SCRIPT: Scenario = {
  turns: [
    { text: "First file.", toolCalls: [{ tool: "write_file", args: { path: "a.txt", content: "A\n" } }] },
    { text: "Second file.", toolCalls: [{ tool: "write_file", args: { path: "b.txt", content: "B\n" } }] },
    { text: "Third file.", toolCalls: [{ tool: "write_file", args: { path: "c.txt", content: "C\n" } }] },
    { text: "Done." },
  ],
};

/** Fills the file system until only `leave` bytes are free (0: until a write fails); returns the filler's path. */
function fill(leave: number): string {
  const file = path.join(dir, `filler-${Date.now()}`);
  const fd = fs.openSync(file, "w");
  try {
    for (const chunk of [1024 * 1024, 64 * 1024, 4096, 512]) {
      const buf = Buffer.alloc(chunk, 1);
      for (;;) {
        const free = fs.statfsSync(dir).bavail * fs.statfsSync(dir).bsize;
        if (leave > 0 && free - chunk < leave) break;
        try {
          fs.writeSync(fd, buf);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === "ENOSPC") break;
          throw err;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return file;
}

const runOf = (id: string) => db.run.findUniqueOrThrow({ where: { id } });

/** Every event and checkpoint the run has is whole: events numbered 1..lastSeq without a gap, each checkpoint readable. */
async function whole(runId: string) {
  const run = await runOf(runId);
  const seqs = (await db.runEvent.findMany({ where: { runId }, select: { seq: true, payload: true }, orderBy: { seq: "asc" } })).map(
    (e) => {
      JSON.parse(e.payload);
      return e.seq;
    },
  );
  expect(seqs).toEqual(Array.from({ length: run.lastSeq }, (_, i) => i + 1));
  for (const cp of await db.checkpoint.findMany({ where: { runId } })) expect(() => JSON.parse(cp.state)).not.toThrow();
  return run;
}

beforeAll(async () => {
  dir = makeTempDir("rein-test-full-disk-");
  // A small file system of its own (the tests run as root, as Rein's sandbox does).
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=48m", "tmpfs", dir]);
  fs.copyFileSync(templatePath(), path.join(dir, "rein.db"));
  const url = `file:${path.join(dir, "rein.db")}`;
  db = await openDb(url);
  kernel = await createKernel({
    db,
    databaseUrl: url,
    dataDir: dir,
    workers: 2,
    scriptedDelayMs: 0,
    log: SILENT_LOG,
    diskReserveBytes: RESERVE,
    diskPollMs: 100,
  });
  noReserve = await createKernel({
    db,
    databaseUrl: url,
    dataDir: dir,
    workers: 1,
    scriptedDelayMs: 0,
    log: { info() {}, error: (m) => void logged.push(m) },
    diskReserveBytes: 0,
    diskPollMs: 100,
  });
  await bootstrapAdmin(db, { email: "disk@rein.test", password: "disk-password-1" });
  actor = (await loadActor(db, (await db.user.findUniqueOrThrow({ where: { email: "disk@rein.test" } })).id))!;
}, 60_000);

afterAll(async () => {
  for (const k of [kernel, noReserve]) {
    await k?.pool.stop();
    k?.close();
  }
  await db?.$disconnect();
  if (dir) {
    try {
      execFileSync("umount", ["-l", dir]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
});

describe("a full disk", () => {
  it("pauses a run that finds less room than the reserve, says why, and resumes it when space is freed", async () => {
    const filler = fill(RESERVE / 2);
    expect((await diskSpace(dir)).free).toBeLessThan(RESERVE);
    const run = await createRun(kernel, { goal: "Write three files", agent: "demo-coder", scenario: SCRIPT }, actor);
    await waitFor(async () => (await runOf(run.id)).status === "paused", "the run to pause");
    const paused = await whole(run.id);
    expect(paused.statusReason).toMatch(new RegExp(`^${DISK_FULL}: \\d+ MB free where Rein keeps its data, under the 8 MB a step needs`));
    // Nothing was taken while there was no room.
    expect(paused.stepCount).toBe(0);

    fs.rmSync(filler);
    await waitFor(async () => (await runOf(run.id)).status === "succeeded", "the run to succeed", { limitMs: 30_000, intervalMs: 50 });
    const done = await whole(run.id);
    expect(done.stepCount).toBe(4);
    for (const f of ["a.txt", "b.txt", "c.txt"]) expect(fs.existsSync(path.join(dir, "workspaces", run.id, f))).toBe(true);
  });

  it("keeps only whole steps when a write fails mid-run, and the run goes on from there once space is back", async () => {
    const run = await createRun(noReserve, { goal: "Write three files", agent: "demo-coder", scenario: SCRIPT }, actor);
    // Full to the last byte after its first step: the next commit fails for want of space.
    await waitFor(async () => (await runOf(run.id)).stepCount >= 1, "its first step");
    const filler = fill(0);
    const stuck = await waitFor(async () => {
      const r = await runOf(run.id);
      return r.status === "paused" || (r.status === "running" && !noReserve.pool.isActive(run.id)) ? r : null;
    }, "the run to stop for want of space");
    expect(["paused", "running"]).toContain(stuck.status);
    // It was the write that failed, not the check ahead (there is no reserve).
    expect(logged.some((m) => m.startsWith(`run ${run.id}: ${DISK_FULL}: a write failed for want of space`))).toBe(true);
    await whole(run.id);

    fs.rmSync(filler);
    await waitFor(async () => (await runOf(run.id)).status === "succeeded", "the run to succeed", { limitMs: 30_000, intervalMs: 50 });
    const done = await whole(run.id);
    expect(done.errorCode).toBeNull();
    for (const f of ["a.txt", "b.txt", "c.txt"])
      expect(fs.readFileSync(path.join(dir, "workspaces", run.id, f), "utf8")).toMatch(/^[ABC]\n$/);
  });
});
