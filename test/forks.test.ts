// Fork and Compare: a fork starts after a step with the parent's workspace as
// it was then (the same tree, files the agent deleted later included); the
// side effects of the parent's calls before the fork point happen once; the
// parent never sees the fork's writes; Compare lines the two runs up and
// finds where they part.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  compareRuns,
  createRun,
  forkPoint,
  forkRun,
  RunNotFoundError,
  SteeringConflictError,
  TeamAccessError,
  type RunEventRecord,
} from "@/server/kernel";
import { createTeam, createUser, loadActor } from "@/server/identity";
import { snapshotWorkspace } from "@/server/tools";
import type { Scenario } from "@/server/models";
import { createTestKernel, type TestKernel } from "./helpers/kernel";

let tk: TestKernel;

beforeAll(async () => {
  tk = await createTestKernel();
}, 60_000);
afterAll(async () => tk?.cleanup());

const SCRIPT: Scenario = {
  stopOnError: true,
  turns: [
    {
      text: "First file.",
      toolCalls: [
        { tool: "write_file", args: { path: "a.txt", content: "A1\n" } },
        { tool: "shell", args: { command: "echo one >> effects.log" } },
      ],
    },
    {
      text: "Second file.",
      toolCalls: [
        { tool: "write_file", args: { path: "notes/b.txt", content: "B1\n" } },
        { tool: "shell", args: { command: "echo two >> effects.log" } },
      ],
    },
    { text: "Removing the first.", toolCalls: [{ tool: "shell", args: { command: "rm a.txt && echo three >> effects.log" } }] },
    { text: "Done." },
  ],
  onMessage: [{ text: "Going another way, as asked." }],
};

const workspaceOf = (runId: string) => path.join(tk.t.dir, "workspaces", runId);
const read = (runId: string, file: string) =>
  fs.existsSync(path.join(workspaceOf(runId), file)) ? fs.readFileSync(path.join(workspaceOf(runId), file), "utf8") : null;
const events = (runId: string): Promise<RunEventRecord[]> => tk.kernel.store.listEvents(runId, 0, 10_000);

async function finishedParent() {
  const run = await createRun(
    tk.kernel,
    { goal: "Write two files, then remove the first", agent: "demo-coder", scenario: SCRIPT },
    tk.actors.operator,
  );
  expect(await tk.settle(run.id)).toBe("succeeded");
  return run;
}

describe("fork", () => {
  it("starts after the step with the workspace exactly as it was, does nothing twice, and leaves the parent alone", async () => {
    const parent = await finishedParent();
    expect(read(parent.id, "a.txt")).toBeNull();
    expect(read(parent.id, "effects.log")).toBe("one\ntwo\nthree\n");
    const point = await forkPoint(tk.kernel, parent.id, 2);
    expect(point?.state.step).toBe(2);
    expect(point?.state.workspaceTree).toMatch(/^[0-9a-f]{40}$/);

    const fork = await forkRun(tk.kernel, parent.id, tk.actors.operator, { step: 2 });
    expect(fork).toMatchObject({ parentRunId: parent.id, lineage: "fork", goal: parent.goal, agentVersion: parent.agentVersion });
    // Before it runs a step of its own (it may already be running): the restored tree is the parent's, checked on the way in.
    expect(await tk.settle(fork.id)).toBe("succeeded");
    // Step 3 ran again in the fork, on the fork's own files: one, two from the parent's past, three from the fork.
    expect(read(fork.id, "effects.log")).toBe("one\ntwo\nthree\n");
    expect(read(fork.id, "notes/b.txt")).toBe("B1\n");
    expect(read(fork.id, "a.txt")).toBeNull();
    // The parent: unchanged.
    expect(read(parent.id, "effects.log")).toBe("one\ntwo\nthree\n");
    const turns = (await events(fork.id)).filter((e) => e.type === "model.turn").map((e) => (e.payload as { step: number }).step);
    expect(turns).toEqual([3, 4]);
    const created = (await events(fork.id)).find((e) => e.type === "run.created")!.payload as { parent: unknown };
    expect(created.parent).toEqual({ runId: parent.id, kind: "fork", seq: point!.seq, step: 2 });
  });

  it("restores files the agent deleted later, to the same tree hash", async () => {
    const parent = await finishedParent();
    const point = (await forkPoint(tk.kernel, parent.id, 2))!;
    // Held: forked with a message, so it does not simply end; read it before its first step runs.
    const fork = await forkRun(tk.kernel, parent.id, tk.actors.operator, { step: 2, message: "Keep a.txt this time." });
    expect(await tk.settle(fork.id)).toBe("succeeded");
    // The fork's first checkpoint holds the parent's tree at step 2 (checked against the restored workspace when it was prepared).
    const first = (await tk.t.db.checkpoint.findUniqueOrThrow({ where: { runId_seq: { runId: fork.id, seq: 1 } } })).state;
    expect(JSON.parse(first).workspaceTree).toBe(point.state.workspaceTree);
    expect(JSON.parse(first).step).toBe(2);
    // a.txt existed after step 2 and the parent's step 3 deleted it: the fork had it back, or its own `rm a.txt` would have failed.
    const restored = (await events(fork.id)).find((e) => e.type === "tool.result")!.payload as {
      ok: boolean;
      output: { exitCode: number };
    };
    expect(restored).toMatchObject({ ok: true, output: { exitCode: 0 } });
    expect(read(fork.id, "a.txt")).toBeNull();
  });

  it("with an edited goal and a message: the model reads both; Compare finds where the runs part", async () => {
    const parent = await finishedParent();
    const fork = await forkRun(tk.kernel, parent.id, tk.actors.operator, {
      step: 2,
      goal: "Write two files and keep them",
      message: "Do not remove a.txt.",
    });
    expect(await tk.settle(fork.id)).toBe("succeeded");
    const cp = (await tk.kernel.store.latestCheckpoint(fork.id))!.state;
    expect(cp.messages[0]).toEqual({ role: "user", content: "Write two files and keep them" });
    expect(JSON.stringify(cp.messages)).toContain("Do not remove a.txt.");
    const turn3 = (await events(fork.id)).find((e) => e.type === "model.turn")!.payload as {
      step: number;
      text: string;
      messages?: number[];
    };
    expect(turn3.step).toBe(3);
    expect(turn3.text).toMatch(/^Going another way, as asked\./);
    expect(turn3.messages).toHaveLength(1);

    const compared = await compareRuns(tk.kernel, tk.actors.viewer, { a: parent.id, b: fork.id });
    expect(compared.rows.map((r) => r.step)).toEqual([1, 2, 3, 4]);
    expect(compared.rows.slice(0, 2).every((r) => r.same)).toBe(true);
    // The fork's first two steps are its parent's.
    expect(compared.rows[0].b?.runId).toBe(parent.id);
    expect(compared.firstDivergence).toBe(3);
    expect(compared.a).toMatchObject({ id: parent.id, status: "succeeded", steps: 4 });
    expect(compared.b).toMatchObject({ id: fork.id, status: "succeeded", lineage: "fork", parentRunId: parent.id });
    // A run compared with itself does not part.
    expect((await compareRuns(tk.kernel, tk.actors.viewer, { a: parent.id, b: parent.id })).firstDivergence).toBeNull();
  });

  it("a fork of demo-coder after step 3 finishes its work: the restored files are there, not committed, so its own commit works", async () => {
    const parent = await createRun(
      tk.kernel,
      { goal: "Write a small FizzBuzz program and run its tests", agent: "demo-coder" },
      tk.actors.operator,
    );
    expect(await tk.settle(parent.id)).toBe("succeeded");
    const fork = await forkRun(tk.kernel, parent.id, tk.actors.operator, { step: 3, message: "Also keep the tests short." });
    expect(await tk.settle(fork.id)).toBe("succeeded");
    const results = (await events(fork.id))
      .filter((e) => e.type === "tool.result")
      .map((e) => e.payload as { tool: string; ok: boolean; output?: { exitCode?: number } });
    expect(results.filter((r) => r.tool === "shell").every((r) => r.output?.exitCode === 0)).toBe(true);
    // A shell command that exits non-zero is a failed step for Compare, not the same step.
    const compared = await compareRuns(tk.kernel, tk.actors.viewer, { a: parent.id, b: fork.id });
    expect(compared.rows.slice(0, 3).every((r) => r.same)).toBe(true);
    expect(compared.rows.flatMap((r) => [...(r.a?.toolCalls ?? []), ...(r.b?.toolCalls ?? [])]).every((c) => c.ok === true)).toBe(true);
  });

  it("refuses a step the run has not taken, a viewer, and anyone outside the run's team", async () => {
    const parent = await finishedParent();
    const runs = await tk.t.db.run.count();
    await expect(forkRun(tk.kernel, parent.id, tk.actors.operator, { step: 9 })).rejects.toThrow(SteeringConflictError);
    await expect(forkRun(tk.kernel, parent.id, tk.actors.operator, { step: 9 })).rejects.toThrow(
      "The run has 4 steps; there is no step 9 to fork from",
    );
    await expect(forkRun(tk.kernel, parent.id, tk.actors.operator, { step: 0 })).rejects.toThrow(/step is at least 1/);
    await expect(forkRun(tk.kernel, parent.id, tk.actors.viewer, { step: 1 })).rejects.toThrow(TeamAccessError);
    const team = await createTeam(tk.t.db, { actor: tk.actors.admin, channel: "test" }, `Forks elsewhere ${Date.now()}`);
    const outsider = (await loadActor(
      tk.t.db,
      await createUser(tk.t.db, {
        email: `fork-out-${Date.now()}@test.local`,
        password: "test-password-1",
        role: "operator",
        teams: [team.id],
      }),
    ))!;
    await expect(forkRun(tk.kernel, parent.id, outsider, { step: 1 })).rejects.toThrow(RunNotFoundError);
    await expect(compareRuns(tk.kernel, outsider, { a: parent.id, b: parent.id })).rejects.toThrow(RunNotFoundError);
    expect(await tk.t.db.run.count()).toBe(runs);
  });

  it("snapshots only after calls that may change files, and a snapshot is the workspace as it is", async () => {
    const parent = await finishedParent();
    const states = (await tk.t.db.checkpoint.findMany({ where: { runId: parent.id }, orderBy: { seq: "asc" } })).map(
      (c) => JSON.parse(c.state) as { workspaceTree?: string; step: number },
    );
    const trees = [...new Set(states.map((s) => s.workspaceTree).filter(Boolean))];
    // After each of the five calls that wrote (write_file, shell ×2, write_file, shell, shell): a new tree each time the files changed.
    expect(trees.length).toBeGreaterThanOrEqual(4);
    const now = await snapshotWorkspace(tk.kernel.deps.workspaceFor(parent.id));
    expect(now).toBe(states.at(-1)!.workspaceTree);
  });
});
