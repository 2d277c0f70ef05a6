// Retention through the real kernel (docs/operations.md#retention): an ended
// run past its retention keeps its summary and loses its heavy parts, and says
// so; a kept run (pinned, in a dataset, the parent of a fork, the author of a
// change) stays whole and still forks; what needs a dropped part (fork,
// continue, retry) is refused in words, a re-run still works; a pass stopped
// half-way goes on from where it was. The same cases on SQLite and PostgreSQL.
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { keyWorkflowId } from "@/server/gateway";
import { createRun, forkRun, getRun, rerunRun, retryRun, sendMessage, type RunState } from "@/server/kernel";
import { DomainError } from "@/server/errors";
import { Pruner, Retention, saveRetentionSettings, DEFAULT_RETENTION, STATE_KEY, type PrunerState } from "@/server/retention";
import type { Scenario } from "@/server/models";
import { SILENT_LOG, createTestKernel, type TestKernel } from "./helpers/kernel";

const DATABASES = [
  { name: "SQLite", database: "sqlite" as const },
  { name: "PostgreSQL", database: "postgres" as const },
];

const SCRIPT: Scenario = {
  turns: [
    { text: "A file.", toolCalls: [{ tool: "write_file", args: { path: "a.txt", content: "A\n" } }] },
    { text: "Another.", toolCalls: [{ tool: "shell", args: { command: "echo two > b.txt" } }] },
    { text: "Done." },
  ],
  onMessage: [{ text: "Going on, as asked." }],
};

const DAY = 86_400_000;

describe.each(DATABASES)("on $name", ({ database }) => {
  // One kernel for the cases: each ends by putting the default retention back and pruning every run
  // nothing keeps, ten years on, so the next one starts with only its own runs past the cursors.
  let tk: TestKernel;
  beforeAll(async () => {
    tk = await createTestKernel({ telemetry: true, database });
  });
  afterEach(async () => {
    await saveRetentionSettings(tk.t.db, DEFAULT_RETENTION, admin());
    const flush = await pruner(3650).pass();
    expect(flush?.error).toBeNull();
  });
  afterAll(async () => {
    await tk?.cleanup();
  });

  const admin = () => ({ id: tk.actors.admin.userId, name: "Admin" });
  const pruner = (daysLater: number, batch?: { runs?: number; rows?: number }) =>
    new Pruner({ db: tk.t.db, dataDir: tk.t.dir, databaseUrl: tk.t.url, now: () => new Date(Date.now() + daysLater * DAY), batch });
  const folder = (kind: string, runId: string) => path.join(tk.t.dir, kind, runId);

  async function finishedRun(status: RunState = "succeeded") {
    const run = await createRun(tk.kernel, { goal: "Write two files", agent: "demo-coder", scenario: SCRIPT }, tk.actors.operator);
    expect(await tk.settle(run.id)).toBe("succeeded");
    await tk.telemetry!.settle();
    // A failed run (for retry): what its record says is all retry reads.
    if (status !== "succeeded") await tk.t.db.run.update({ where: { id: run.id }, data: { status } });
    return run.id;
  }

  async function counts(runId: string) {
    const db = tk.t.db;
    return {
      events: await db.runEvent.count({ where: { runId } }),
      checkpoints: await db.checkpoint.count({ where: { runId } }),
      replay: await db.toolCallResult.count({ where: { runId } }),
      spans: await db.span.count({ where: { runId } }),
      detail: await db.span.count({ where: { runId, detail: { not: null } } }),
      workspace: fs.existsSync(folder("workspaces", runId)),
      snapshots: fs.existsSync(folder("snapshots", runId)),
    };
  }

  it("drops an old run's heavy parts, keeps its summary, and says what went and when", async () => {
    const runId = await finishedRun();
    const before = await counts(runId);
    expect(before).toMatchObject({ workspace: true, snapshots: true });
    expect(before.events * before.checkpoints * before.replay * before.spans * before.detail).toBeGreaterThan(0);
    const summary = await tk.t.db.run.findUniqueOrThrow({ where: { id: runId } });

    // Within every retention: nothing goes.
    expect((await pruner(1).pass())!.runs).toEqual({});
    expect(await counts(runId)).toEqual(before);

    // Past the workspaces' 14 days, not the checkpoints' 30.
    const early = (await pruner(DEFAULT_RETENTION.workspaces! + 1).pass())!;
    expect(early.runs).toEqual({ snapshots: 1, workspaces: 1 });
    expect(await counts(runId)).toEqual({ ...before, workspace: false, snapshots: false });

    const late = (await pruner(365).pass())!;
    expect(late.error).toBeNull();
    expect(late.runs).toEqual({ events: 1, terminal: 1, checkpoints: 1, spanDetail: 1, spans: 1 });
    expect(late.dropped.events).toBe(before.events);
    expect(await counts(runId)).toEqual({
      events: 0,
      checkpoints: 0,
      replay: 0,
      spans: 0,
      detail: 0,
      workspace: false,
      snapshots: false,
    });

    const after = await tk.t.db.run.findUniqueOrThrow({ where: { id: runId } });
    // The summary stays.
    for (const k of ["goal", "status", "costUsd", "teamId", "stepCount", "inputTokens", "outputTokens", "endedAt"] as const)
      expect(after[k]).toEqual(summary[k]);
    const view = await getRun(tk.t.db, runId, tk.actors.operator);
    expect(view.pruned.map((p) => p.part).sort()).toEqual(
      ["checkpoints", "events", "snapshots", "spanDetail", "spans", "terminal", "workspaces"].sort(),
    );
    // Cost totals come from the rollups, which stay.
    expect(await tk.t.db.costRollup.count()).toBeGreaterThan(0);

    // What needs a dropped part is refused in words; a re-run starts from the goal.
    await expect(forkRun(tk.kernel, runId, tk.actors.operator, { step: 1 })).rejects.toThrow(
      /Forking a run needs run .* which retention dropped on/,
    );
    await expect(sendMessage(tk.kernel, runId, tk.actors.operator, { text: "Go on" })).rejects.toThrow(
      /Continuing a run needs run .*(event log|checkpoints|workspace).*, which retention dropped on/,
    );
    const rerun = await rerunRun(tk.kernel, runId, tk.actors.operator, {});
    expect(await tk.settle(rerun.id)).toBe("succeeded");
  });

  it("keeps whole a run that is pinned, in a dataset, forked from, or the author of a change; unpinned, it goes", async () => {
    const pinned = await finishedRun();
    const inDataset = await finishedRun();
    const forked = await finishedRun();
    const author = await finishedRun();
    const plain = await finishedRun();
    const retention = new Retention({ db: tk.t.db, dataDir: tk.t.dir, databaseUrl: tk.t.url, log: SILENT_LOG });
    await retention.setPinned(pinned, true, tk.actors.operator);
    const dataset = await tk.t.db.dataset.create({ data: { name: `kept-${database}`, createdById: tk.users.admin } });
    await tk.t.db.datasetItem.create({ data: { datasetId: dataset.id, key: "one", version: 1, goal: "g", sourceRunId: inDataset } });
    const fork = await forkRun(tk.kernel, forked, tk.actors.operator, { step: 1 });
    await tk.settle(fork.id);
    await tk.t.db.improvement.create({
      data: { tier: 1, kind: "skill", name: `kept-${author}`, version: 1, source: "x", authorRunId: author },
    });
    const kept = [pinned, inDataset, forked, author];
    const before = await Promise.all(kept.map(counts));

    const report = (await pruner(365).pass())!;
    // The fork itself ended too, and nothing keeps it.
    expect(report.runs.events).toBe(2);
    expect(report.kept).toBeGreaterThanOrEqual(kept.length);
    expect(await Promise.all(kept.map(counts))).toEqual(before);
    expect((await counts(plain)).events).toBe(0);

    // A kept run still forks, as before.
    const again = await forkRun(tk.kernel, pinned, tk.actors.operator, { step: 1 });
    expect(await tk.settle(again.id)).toBe("succeeded");

    // Unpinned while a pass is under way, which saves its cursor past the run as it goes: the next pass
    // still finds it.
    await tk.t.db.run.deleteMany({ where: { parentRunId: pinned } });
    await finishedRun();
    await finishedRun();
    let unpinning: Promise<unknown> | null = null;
    const during = new Pruner({
      db: tk.t.db,
      dataDir: tk.t.dir,
      databaseUrl: tk.t.url,
      now: () => new Date(Date.now() + 365 * DAY),
      batch: { runs: 1 },
      onBatch: () => void (unpinning ??= retention.setPinned(pinned, false, tk.actors.operator)),
    });
    await during.pass();
    await unpinning;
    expect((await counts(pinned)).events).toBeGreaterThan(0);
    await pruner(365).pass();
    expect((await counts(pinned)).events).toBe(0);
  });

  it("a pass stopped half-way goes on from its cursor; a part half-dropped is dropped again", async () => {
    const runs = [await finishedRun(), await finishedRun(), await finishedRun()];
    await saveRetentionSettings(
      tk.t.db,
      { terminal: null, checkpoints: null, snapshots: null, workspaces: null, spanDetail: null, spans: null },
      admin(),
    );
    const stateNow = async () => JSON.parse((await tk.t.db.setting.findUniqueOrThrow({ where: { key: STATE_KEY } })).value) as PrunerState;
    const cursorBefore = (await stateNow()).cursors.events;
    // Stopped after its first batch of rows: the first run is marked and half-dropped, as a crash leaves it.
    const first = new Pruner({
      db: tk.t.db,
      dataDir: tk.t.dir,
      databaseUrl: tk.t.url,
      now: () => new Date(Date.now() + 365 * DAY),
      batch: { runs: 1, rows: 2 },
      onBatch: () => void first.stop(),
    });
    const stopped = (await first.pass())!;
    expect(stopped.runs).toEqual({ events: 1 });
    const half = await counts(runs[0]);
    expect(half.events).toBeGreaterThan(0);
    const state = await stateNow();
    expect(state.current).toBeNull();
    // The cursor stays before the batch it stopped in.
    expect(state.cursors.events).toEqual(cursorBefore);
    for (const id of runs.slice(1)) expect((await counts(id)).events).toBeGreaterThan(0);
    await pruner(365).pass();
    for (const id of runs) expect((await counts(id)).events).toBe(0);
    // Nothing counts twice: every run lost its events once.
    const marks = await tk.t.db.run.findMany({ where: { id: { in: runs } }, select: { pruned: true } });
    for (const m of marks) expect(Object.keys(JSON.parse(m.pruned!))).toEqual(["events"]);
  });

  it("a retry, or a message to an ended run, is refused once retention marked it, even after the run was read", async () => {
    const failed = await finishedRun("failed");
    const ended = await finishedRun();
    // The mark a pass writes first, as if it came between the read and the reopen.
    for (const id of [failed, ended])
      await tk.t.db.run.update({ where: { id }, data: { pruned: JSON.stringify({ checkpoints: new Date().toISOString() }) } });
    expect(await tk.kernel.store.transition(ended, ["succeeded"], "queued", { reason: "continue" })).toBe(false);
    await expect(retryRun(tk.kernel, failed, tk.actors.operator, {})).rejects.toThrow(DomainError);
    await expect(sendMessage(tk.kernel, ended, tk.actors.operator, { text: "Go on" })).rejects.toThrow(/retention dropped/);
    expect((await tk.t.db.run.findUniqueOrThrow({ where: { id: ended } })).status).toBe("succeeded");
    // A part a continue does not need (the trace) leaves it free to go on.
    await tk.t.db.run.update({ where: { id: ended }, data: { pruned: JSON.stringify({ spans: new Date().toISOString() }) } });
    await sendMessage(tk.kernel, ended, tk.actors.operator, { text: "Go on" });
    expect(await tk.settle(ended)).toBe("succeeded");
  });

  it("drops old deliveries and audit rows by age, in batches; a delivery still being retried stays", async () => {
    const db = tk.t.db;
    const endpoint = await db.webhookEndpoint.create({
      data: { url: "https://example.com/hook", secret: "sealed", createdById: tk.users.admin },
    });
    const old = new Date(Date.now() - 40 * DAY);
    for (let i = 0; i < 5; i++)
      await db.webhookDelivery.create({
        data: {
          endpointId: endpoint.id,
          messageId: `m${i}`,
          type: "run.state_changed",
          body: "{}",
          state: i === 0 ? "pending" : "succeeded",
          createdAt: old,
        },
      });
    await db.auditEntry.createMany({
      data: Array.from({ length: 7 }, (_, i) => ({ kind: "test.old", at: new Date(Date.now() - (800 + i) * DAY) })),
    });
    // A look-again row that does not read as a time is dropped, and the pass goes on.
    await db.setting.create({ data: { key: "data.retention.rewind.damaged", value: "not json" } });
    const report = (await pruner(0, { rows: 2 }).pass())!;
    expect(report.error).toBeNull();
    expect(await db.setting.count({ where: { key: "data.retention.rewind.damaged" } })).toBe(0);
    expect(report.dropped.deliveries).toBe(4);
    expect(report.dropped.audit).toBe(7);
    expect(await db.webhookDelivery.count()).toBe(1);
    expect(await db.auditEntry.count({ where: { kind: "test.old" } })).toBe(0);
  });

  it("drops the spans of team gateway keys' calls past the spans' retention, in batches; the cost rollups stay", async () => {
    const db = tk.t.db;
    const teamId = tk.actors.operator.teamIds[0];
    const key = (name: string) =>
      db.gatewayKey.create({
        data: { teamId, name, prefix: "rein_gk_abcdef", tokenHash: `retention-${name}`, createdById: tk.users.admin },
        select: { id: true },
      });
    // Two keys a batch: a and b in the first (their spans share an id), c in the next.
    const [a, b, c] = [await key("nightly"), await key("ide"), await key("notebook")];
    const span = (keyId: string, i: number, daysAgo: number) => ({
      spanId: `key-span-${i}`,
      traceId: `trace-${keyId}-${i}`,
      runId: keyWorkflowId(keyId),
      kind: "chat",
      name: "chat openai/gpt-4.1",
      startTime: new Date(Date.now() - daysAgo * DAY),
      endTime: new Date(Date.now() - daysAgo * DAY),
      teamId,
      workflowId: keyWorkflowId(keyId),
      model: "openai/gpt-4.1",
      costUsd: 0.01,
      attributes: "{}",
    });
    // Past the default 180 days: 5 of key a (one sharing its id with a newer span of key b), 2 of key b, 1 of key c.
    await db.span.createMany({
      data: [
        ...[0, 1, 2, 3, 4].map((i) => span(a.id, i, 200 + i)),
        span(b.id, 0, 1),
        span(b.id, 10, 181),
        span(b.id, 11, 400),
        span(a.id, 20, 179),
        span(c.id, 30, 300),
      ],
    });
    await db.costRollup.create({
      data: { day: "2020-01-01", teamId, workflowId: keyWorkflowId(a.id), model: "openai/gpt-4.1", calls: 5, costUsd: 0.05 },
    });
    const left = async () =>
      (
        await db.span.findMany({
          where: { runId: { in: [a, b, c].map((k) => keyWorkflowId(k.id)) } },
          select: { runId: true, spanId: true },
        })
      )
        .map((r) => `${["a", "b", "c"][[a, b, c].findIndex((k) => keyWorkflowId(k.id) === r.runId)]}/${r.spanId}`)
        .sort();

    // Spans kept forever: a key's spans stay too.
    await saveRetentionSettings(db, { spans: null }, admin());
    expect((await pruner(0).pass())?.error).toBeNull();
    expect(await left()).toHaveLength(10);

    await saveRetentionSettings(db, DEFAULT_RETENTION, admin());
    const report = (await pruner(0, { runs: 2, rows: 2 }).pass())!;
    expect(report.error).toBeNull();
    expect(report.dropped.spans).toBeGreaterThanOrEqual(8);
    expect(await left()).toEqual(["a/key-span-20", "b/key-span-0"]);
    expect(await db.costRollup.count({ where: { workflowId: keyWorkflowId(a.id) } })).toBe(1);
  });

  it("measures disk use by kind and by team", async () => {
    const runId = await finishedRun();
    const retention = new Retention({ db: tk.t.db, dataDir: tk.t.dir, databaseUrl: tk.t.url, log: SILENT_LOG });
    expect(retention.measureNow()).toBe(true);
    const usage = (await retention.measured())!;
    expect(usage.database.totalBytes).toBeGreaterThan(0);
    expect(usage.database.byKind.events).toBeGreaterThan(0);
    expect(usage.files.byKind.workspaces).toBeGreaterThan(0);
    const run = await tk.t.db.run.findUniqueOrThrow({ where: { id: runId } });
    const team = usage.byTeam.find((t) => t.teamId === run.teamId)!;
    expect(team.runs).toBeGreaterThanOrEqual(1);
    expect(team.databaseBytes).toBeGreaterThan(0);
    expect(team.fileBytes).toBeGreaterThan(0);
    expect((await retention.status()).usage?.measuredAt).toBe(usage.measuredAt);
  });

  it("refuses a retention that is not a whole number of days, and keeps a kind forever when told", async () => {
    await expect(saveRetentionSettings(tk.t.db, { events: 0.5 }, admin())).rejects.toThrow("whole number");
    await expect(saveRetentionSettings(tk.t.db, { nope: 3 } as never, admin())).rejects.toThrow();
    const audited = () => tk.t.db.auditEntry.count({ where: { kind: "settings.updated", subject: "data.retention" } });
    const before = await audited();
    const saved = await saveRetentionSettings(tk.t.db, { events: null, audit: 3650 }, admin());
    expect(saved).toMatchObject({ events: null, audit: 3650, workspaces: DEFAULT_RETENTION.workspaces });
    expect(await audited()).toBe(before + 1);
  });
});
