// files.* through createCaller on a real SQLite database with the default
// kernel: roles, run visibility, conflicts, refusals and the workspace.edit event.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { callerFor } from "@/test/helpers/services";
import { trpcError } from "@/test/helpers/trpc";

let tk: TestKernel;
let runId: string;
let otherTeamRunId: string;
let notStartedRunId: string;

const caller = (actor: Actor | null) => callerFor(tk, actor);
const workspace = (id: string) => tk.kernel.deps.workspaceFor(id).root;

async function editEvents(id: string) {
  const events = await tk.kernel.store.listEvents(id, 0, 10_000);
  return events.filter((e) => e.type === "workspace.edit");
}

beforeAll(async () => {
  tk = await createTestKernel();
  const otherId = await createUser(tk.t.db, {
    email: "files-other@test.local",
    password: "test-password-1",
    role: "operator",
    teams: ["other"],
  });
  const other = (await loadActor(tk.t.db, otherId))!;
  const run = await createRun(tk.kernel, { goal: "Write fizzbuzz", agent: "demo-coder" }, tk.actors.operator);
  const hidden = await createRun(
    tk.kernel,
    { goal: "Secret", agent: "demo-coder", scenario: [{ toolCalls: [{ tool: "write_file", args: { path: "s.txt", content: "s" } }] }] },
    other,
  );
  expect(await tk.settle(run.id)).toBe("succeeded");
  expect(await tk.settle(hidden.id)).toBe("succeeded");
  runId = run.id;
  otherTeamRunId = hidden.id;
  // A run that was never handed to the pool: no workspace yet.
  notStartedRunId = (
    await tk.t.db.run.create({
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
});

afterAll(async () => {
  await tk?.cleanup();
});

describe("files", () => {
  it("tree, read and diff are for viewers; save needs operator", async () => {
    const viewer = caller(tk.actors.viewer);
    const tree = await viewer.files.tree({ runId });
    expect(tree).toMatchObject({ exists: true, truncated: false });
    expect(tree.entries.map((e) => `${e.type}:${e.path}`)).toEqual(["dir:src", "dir:test"]);
    const file = await viewer.files.read({ runId, path: "src/fizzbuzz.mjs" });
    expect(file.content).toContain("export function fizzbuzz(n)");
    expect(file.hash).toMatch(/^[0-9a-f]{64}$/);
    const diff = await viewer.files.diff({ runId });
    expect(diff.files.map((f) => `${f.status} ${f.path}`)).toEqual(["A src/fizzbuzz.mjs", "A test/fizzbuzz.test.mjs"]);

    const refused = await trpcError(viewer.files.save({ runId, path: "src/fizzbuzz.mjs", content: "x", expectedHash: file.hash }));
    expect(refused.code).toBe("FORBIDDEN");
    expect(refused.message).toBe("This needs the operator role; you are viewer");
    expect((await trpcError(caller(null).files.tree({ runId }))).code).toBe("UNAUTHORIZED");
  });

  it("save writes the file and records workspace.edit by the person who saved", async () => {
    const operator = caller(tk.actors.operator);
    const before = await operator.files.read({ runId, path: "src/fizzbuzz.mjs" });
    const content = before.content.replace("export function fizzbuzz", "// Edited by a person\nexport function fizzbuzz");
    const saved = await operator.files.save({ runId, path: "src/fizzbuzz.mjs", content, expectedHash: before.hash });
    expect(saved).toMatchObject({ path: "src/fizzbuzz.mjs", bytes: Buffer.byteLength(content), created: false });
    expect(fs.readFileSync(path.join(workspace(runId), "src/fizzbuzz.mjs"), "utf8")).toBe(content);

    const [edit] = (await editEvents(runId)).slice(-1);
    expect(edit.actor).toBe(tk.users.operator);
    expect(edit.payload).toEqual({
      path: "src/fizzbuzz.mjs",
      bytes: saved.bytes,
      by: tk.users.operator,
      byName: tk.actors.operator.name || tk.actors.operator.email,
      created: false,
    });

    const diff = await operator.files.diff({ runId });
    const change = diff.files.find((f) => f.path === "src/fizzbuzz.mjs")!;
    expect(change).toMatchObject({ status: "A", original: null, current: content });

    const created = await operator.files.save({ runId, path: "docs/notes.md", content: "# Notes\n", expectedHash: null });
    expect(created.created).toBe(true);
    expect((await editEvents(runId)).at(-1)!.payload).toMatchObject({ path: "docs/notes.md", created: true, bytes: 8 });
  });

  it("a stale hash is CONFLICT with a clear message; nothing is written or logged", async () => {
    const operator = caller(tk.actors.operator);
    const loaded = await operator.files.read({ runId, path: "test/fizzbuzz.test.mjs" });
    fs.appendFileSync(path.join(workspace(runId), "test/fizzbuzz.test.mjs"), "// the agent again\n");
    const edits = (await editEvents(runId)).length;
    const err = await trpcError(operator.files.save({ runId, path: "test/fizzbuzz.test.mjs", content: "mine", expectedHash: loaded.hash }));
    expect(err.code).toBe("CONFLICT");
    expect(err.message).toBe(
      "test/fizzbuzz.test.mjs changed since you opened it (the agent or someone else saved it); reload to see the current version, then make your edit again",
    );
    expect(fs.readFileSync(path.join(workspace(runId), "test/fizzbuzz.test.mjs"), "utf8")).toContain("// the agent again");
    expect((await editEvents(runId)).length).toBe(edits);
  });

  it("paths outside the workspace are BAD_REQUEST with the reason; nothing is written or logged", async () => {
    const operator = caller(tk.actors.operator);
    const edits = (await editEvents(runId)).length;
    for (const [p, message] of [
      ["../escape.txt", 'Path "../escape.txt" is outside the workspace'],
      [".git/config", '".git/config" is inside .git, which git manages; it cannot be opened or saved here'],
    ]) {
      const save = await trpcError(operator.files.save({ runId, path: p, content: "x" }));
      expect(save.code, p).toBe("BAD_REQUEST");
      expect(save.message).toBe(message);
      expect((await trpcError(operator.files.read({ runId, path: p }))).code).toBe("BAD_REQUEST");
    }
    expect(fs.existsSync(path.join(workspace(runId), "..", "escape.txt"))).toBe(false);
    expect((await editEvents(runId)).length).toBe(edits);
    const invalid = await trpcError(operator.files.save({ runId, path: "a.txt", content: "x", expectedHash: "abc" }));
    expect(invalid.code).toBe("BAD_REQUEST");
    expect(invalid.message).toContain("expectedHash");
  });

  it("a missing file is NOT_FOUND and a binary one is refused with a message", async () => {
    const viewer = caller(tk.actors.viewer);
    const missing = await trpcError(viewer.files.read({ runId, path: "nope.txt" }));
    expect(missing).toMatchObject({ code: "NOT_FOUND", message: "nope.txt does not exist in the workspace" });
    fs.writeFileSync(path.join(workspace(runId), "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    const binary = await trpcError(viewer.files.read({ runId, path: "logo.png" }));
    expect(binary.code).toBe("UNPROCESSABLE_CONTENT");
    expect(binary.message).toBe("logo.png is a binary file; only text files open here. Download the workspace to see it.");
  });

  it("another team's run is NOT_FOUND for every procedure, and its files are left alone", async () => {
    for (const role of ["viewer", "operator", "approver"] as const) {
      const c = caller(tk.actors[role]);
      for (const call of [
        c.files.tree({ runId: otherTeamRunId }),
        c.files.read({ runId: otherTeamRunId, path: "s.txt" }),
        c.files.diff({ runId: otherTeamRunId }),
      ]) {
        const err = await trpcError(call);
        expect(err.code).toBe("NOT_FOUND");
        expect(err.message).toBe(`Run ${otherTeamRunId} was not found`);
      }
    }
    expect((await trpcError(caller(tk.actors.operator).files.save({ runId: otherTeamRunId, path: "s.txt", content: "mine" }))).code).toBe(
      "NOT_FOUND",
    );
    expect(fs.readFileSync(path.join(workspace(otherTeamRunId), "s.txt"), "utf8")).toBe("s");
    expect(await editEvents(otherTeamRunId)).toEqual([]);
    expect((await caller(tk.actors.admin).files.read({ runId: otherTeamRunId, path: "s.txt" })).content).toBe("s");
  });

  it("a run that has not started has no workspace: the tree and diff say so, read and save refuse clearly", async () => {
    const operator = caller(tk.actors.operator);
    expect(await operator.files.tree({ runId: notStartedRunId })).toMatchObject({ exists: false, entries: [] });
    expect(await operator.files.diff({ runId: notStartedRunId })).toMatchObject({ exists: false, files: [] });
    for (const call of [
      operator.files.read({ runId: notStartedRunId, path: "a.txt" }),
      operator.files.save({ runId: notStartedRunId, path: "a.txt", content: "x" }),
    ]) {
      const err = await trpcError(call);
      expect(err.code).toBe("PRECONDITION_FAILED");
      expect(err.message).toBe("The run has not started; its workspace does not exist yet");
    }
    expect(fs.existsSync(workspace(notStartedRunId))).toBe(false);
    expect(await editEvents(notStartedRunId)).toEqual([]);
  });

  it("an unknown run is NOT_FOUND", async () => {
    expect((await trpcError(caller(tk.actors.admin).files.tree({ runId: "no-such-run" }))).code).toBe("NOT_FOUND");
  });
});
