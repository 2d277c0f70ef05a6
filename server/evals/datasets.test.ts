// Datasets and their items on a real SQLite database: versioning, history,
// visibility by team, roles, scoring checked in words, JSONL round trips and
// refusals, items from finished runs, and the built-in demo-coding dataset.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun } from "@/server/kernel";
import type { Actor } from "@/server/identity";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { agentPeople, type AgentPeople } from "@/test/helpers/agents";
import {
  DEMO_DATASET,
  DatasetError,
  MAX_JSONL_LINES,
  addItem,
  addItemFromRun,
  createDataset,
  editItem,
  exportJsonl,
  getDataset,
  importJsonl,
  itemHistory,
  listDatasets,
  listItems,
  loadScoringInput,
  parseScoring,
  removeItem,
  scoreItem,
  seedBuiltinDatasets,
  setDatasetArchived,
  updateDataset,
} from ".";

let tk: TestKernel;
let p: AgentPeople;
const as = (actor: Actor) => ({ actor, channel: "admin" });
const SCORING = { scorers: [{ kind: "outcome" }], threshold: 1 };
let seq = 0;

async function refusal(promise: Promise<unknown>): Promise<DatasetError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(DatasetError);
    return err as DatasetError;
  }
  throw new Error("expected a refusal");
}

const alphaDataset = async (extra: Record<string, unknown> = {}) =>
  createDataset(tk.t.db, as(p.alphaOperator), { name: `alpha-set-${++seq}`, teamId: p.alphaId, scoring: SCORING, ...extra });
const auditKinds = async (datasetId: string) =>
  (await tk.t.db.auditEntry.findMany({ orderBy: { id: "asc" } })).filter((a) => a.detail.includes(datasetId)).map((a) => a.kind);

beforeAll(async () => {
  tk = await createTestKernel();
  p = await agentPeople(tk);
}, 60_000);

afterAll(async () => tk?.cleanup());

describe("datasets", () => {
  it("creates a dataset of a team, audited with who did it", async () => {
    const d = await alphaDataset({ description: "Checks" });
    expect(d).toMatchObject({
      description: "Checks",
      teamId: p.alphaId,
      team: { id: p.alphaId, name: "alpha" },
      scoring: SCORING,
      builtIn: false,
      archived: false,
      itemCount: 0,
    });
    const entry = await tk.t.db.auditEntry.findFirst({ where: { kind: "dataset.created", subject: d.name } });
    expect(entry).toMatchObject({ actorId: p.alphaOperator.userId, channel: "admin" });
  });

  it("reports every problem of a dataset by field, in words, and creates nothing", async () => {
    const before = await tk.t.db.dataset.count();
    const err = await refusal(
      createDataset(tk.t.db, as(p.alphaOperator), {
        name: "X",
        teamId: p.alphaId,
        scoring: { scorers: [{ kind: "outcome" }] },
        color: "red",
      }),
    );
    expect(err.code).toBe("INVALID_INPUT");
    expect(err.problems.map((x) => x.field)).toEqual(expect.arrayContaining(["name", "input"]));
    expect(err.message).toContain("name is 2 to 64 characters");
    expect(err.message).toContain('"color"');
    const scoring = await refusal(
      createDataset(tk.t.db, as(p.alphaOperator), {
        name: "bad-scoring",
        teamId: p.alphaId,
        scoring: { scorers: [{ kind: "nope" }, { kind: "calls_at_most" }], threshold: 2 },
      }),
    );
    expect(scoring.problems.every((x) => x.field === "scoring")).toBe(true);
    expect(scoring.message).toContain("the pass threshold is a number from 0 to 1");
    expect(scoring.message).toContain('scorer 1 (nope): there is no scorer kind "nope"');
    expect(scoring.message).toContain("scorer 2 (calls_at_most)");
    expect(
      (await refusal(createDataset(tk.t.db, as(p.alphaOperator), { name: "no-scorers", teamId: p.alphaId, scoring: { scorers: [] } })))
        .message,
    ).toContain("a dataset needs at least one scorer");
    expect(await tk.t.db.dataset.count()).toBe(before);
  });

  it("refuses a taken name, a team-less dataset to a non-admin and a team the person does not operate in", async () => {
    const d = await alphaDataset();
    expect((await refusal(createDataset(tk.t.db, as(p.alphaOperator), { name: d.name, teamId: p.alphaId, scoring: SCORING }))).code).toBe(
      "CONFLICT",
    );
    expect((await refusal(createDataset(tk.t.db, as(p.alphaOperator), { name: "for-all", teamId: null, scoring: SCORING }))).code).toBe(
      "FORBIDDEN",
    );
    expect(
      (await refusal(createDataset(tk.t.db, as(p.alphaViewer), { name: "viewer-set", teamId: p.alphaId, scoring: SCORING }))).code,
    ).toBe("FORBIDDEN");
    expect(
      (await refusal(createDataset(tk.t.db, as(p.betaOperator), { name: "beta-in-alpha", teamId: p.alphaId, scoring: SCORING }))).code,
    ).toBe("FORBIDDEN");
    expect((await createDataset(tk.t.db, as(p.admin), { name: `for-all-${++seq}`, teamId: null, scoring: SCORING })).teamId).toBeNull();
  });

  it("is seen by its team and admins only; team-less ones by everyone", async () => {
    const d = await alphaDataset();
    expect((await listDatasets(tk.t.db, p.alphaViewer)).map((x) => x.id)).toContain(d.id);
    expect((await listDatasets(tk.t.db, p.admin)).map((x) => x.id)).toContain(d.id);
    expect((await listDatasets(tk.t.db, p.betaOperator)).map((x) => x.id)).not.toContain(d.id);
    expect((await listDatasets(tk.t.db, p.betaOperator)).map((x) => x.name)).toContain(DEMO_DATASET);
    for (const read of [
      getDataset(tk.t.db, p.betaOperator, d.id),
      listItems(tk.t.db, p.betaOperator, d.id),
      exportJsonl(tk.t.db, p.betaOperator, d.id),
    ]) {
      const err = await refusal(read);
      expect(err.code).toBe("NOT_FOUND");
      expect(err.message).toBe(`There is no dataset ${d.id}`);
    }
  });

  it("updates what changed, audited; viewers cannot; admins archive and unarchive", async () => {
    const d = await alphaDataset();
    const renamed = await updateDataset(tk.t.db, as(p.alphaOperator), d.id, {
      name: `${d.name}-b`,
      scoring: { scorers: [{ kind: "outcome" }, { kind: "calls_at_most", calls: 5 }], threshold: 0.5 },
    });
    expect(renamed).toMatchObject({ name: `${d.name}-b`, scoring: { threshold: 0.5 } });
    expect((await refusal(updateDataset(tk.t.db, as(p.alphaViewer), d.id, { description: "x" }))).code).toBe("FORBIDDEN");
    expect(
      (await refusal(updateDataset(tk.t.db, as(p.alphaOperator), d.id, { scoring: { scorers: [{ kind: "file_exists" }] } }))).problems[0]
        .field,
    ).toBe("scoring");
    expect((await refusal(setDatasetArchived(tk.t.db, as(p.alphaOperator), d.id, true))).code).toBe("FORBIDDEN");
    await setDatasetArchived(tk.t.db, as(p.admin), d.id, true);
    expect((await listDatasets(tk.t.db, p.alphaOperator)).map((x) => x.id)).not.toContain(d.id);
    expect((await listDatasets(tk.t.db, p.alphaOperator, { includeArchived: true })).find((x) => x.id === d.id)?.archived).toBe(true);
    await setDatasetArchived(tk.t.db, as(p.admin), d.id, false);
    expect(await auditKinds(d.id)).toEqual(["dataset.created", "dataset.updated", "dataset.archived", "dataset.unarchived"]);
  });
});

describe("items", () => {
  it("adds with generated keys, edits as new versions, ignores an edit equal to the latest, removes keeping history", async () => {
    const d = await alphaDataset();
    const who = as(p.alphaOperator);
    const a = await addItem(tk.t.db, who, d.id, { goal: "Write fizzbuzz", agent: "demo-coder", expected: { outcome: "succeeded" } });
    const b = await addItem(tk.t.db, who, d.id, { goal: "Write slugify" });
    expect([a.key, a.version, b.key]).toEqual(["item-1", 1, "item-2"]);
    expect((await refusal(addItem(tk.t.db, who, d.id, { key: "item-1", goal: "again" }))).code).toBe("CONFLICT");
    const edited = await editItem(tk.t.db, who, d.id, "item-1", { goal: "Write fizzbuzz with tests" });
    expect(edited).toMatchObject({
      key: "item-1",
      version: 2,
      goal: "Write fizzbuzz with tests",
      agent: "demo-coder",
      expected: { outcome: "succeeded" },
    });
    const same = await editItem(tk.t.db, who, d.id, "item-1", { goal: "Write fizzbuzz with tests", agent: "demo-coder" });
    expect(same.version).toBe(2);
    expect(await tk.t.db.datasetItem.count({ where: { datasetId: d.id, key: "item-1" } })).toBe(2);
    await removeItem(tk.t.db, who, d.id, "item-2");
    expect((await listItems(tk.t.db, p.alphaViewer, d.id)).map((i) => [i.key, i.version])).toEqual([["item-1", 2]]);
    expect((await itemHistory(tk.t.db, p.alphaViewer, d.id, "item-1")).map((i) => i.version)).toEqual([2, 1]);
    expect((await itemHistory(tk.t.db, p.alphaViewer, d.id, "item-2")).map((i) => [i.version, i.deleted])).toEqual([[1, true]]);
    expect((await refusal(editItem(tk.t.db, who, d.id, "item-2", { goal: "x" }))).code).toBe("NOT_FOUND");
    // A removed key comes back as its next version; new keys skip taken ones.
    expect((await addItem(tk.t.db, who, d.id, { key: "item-2", goal: "Back" })).version).toBe(2);
    expect((await addItem(tk.t.db, who, d.id, { goal: "Third" })).key).toBe("item-3");
    expect((await getDataset(tk.t.db, p.alphaViewer, d.id)).itemCount).toBe(3);
    expect(await auditKinds(d.id)).toEqual([
      "dataset.created",
      "dataset.item_added",
      "dataset.item_added",
      "dataset.item_edited",
      "dataset.item_removed",
      "dataset.item_added",
      "dataset.item_added",
    ]);
  });

  it("reports an item's problems by field in words: goal, key, scenario, expected.scorers", async () => {
    const d = await alphaDataset();
    const who = as(p.alphaOperator);
    expect((await refusal(addItem(tk.t.db, who, d.id, { agent: "demo-coder" }))).message).toContain("goal is required");
    expect((await refusal(addItem(tk.t.db, who, d.id, { goal: "g", key: "bad key!" }))).problems[0].field).toBe("key");
    const scenario = await refusal(addItem(tk.t.db, who, d.id, { goal: "g", scenario: [] }));
    expect(scenario.message).toContain("a scenario needs at least one turn");
    const scorers = await refusal(
      addItem(tk.t.db, who, d.id, { goal: "g", expected: { scorers: [{ kind: "file_exists", path: "/etc/passwd" }] } }),
    );
    expect(scorers.message).toContain("expected.scorers 1:");
    expect(scorers.message).toContain("is absolute");
    expect(await tk.t.db.datasetItem.count({ where: { datasetId: d.id } })).toBe(0);
  });

  it("lets viewers read but not change, and another team neither", async () => {
    const d = await alphaDataset();
    await addItem(tk.t.db, as(p.alphaOperator), d.id, { key: "one", goal: "Write fizzbuzz" });
    expect((await refusal(addItem(tk.t.db, as(p.alphaViewer), d.id, { goal: "x" }))).code).toBe("FORBIDDEN");
    expect((await refusal(editItem(tk.t.db, as(p.alphaViewer), d.id, "one", { goal: "x" }))).code).toBe("FORBIDDEN");
    expect((await refusal(removeItem(tk.t.db, as(p.alphaViewer), d.id, "one"))).code).toBe("FORBIDDEN");
    for (const change of [
      addItem(tk.t.db, as(p.betaOperator), d.id, { goal: "x" }),
      removeItem(tk.t.db, as(p.betaOperator), d.id, "one"),
      importJsonl(tk.t.db, as(p.betaOperator), d.id, '{"goal":"x"}'),
    ]) {
      expect((await refusal(change)).code).toBe("NOT_FOUND");
    }
    expect((await listItems(tk.t.db, p.alphaViewer, d.id)).map((i) => i.goal)).toEqual(["Write fizzbuzz"]);
  });
});

describe("JSONL", () => {
  it("round-trips: export, import into another dataset, export again gives the same file", async () => {
    const a = await alphaDataset();
    const who = as(p.alphaOperator);
    await addItem(tk.t.db, who, a.id, {
      key: "fizz",
      goal: "Write fizzbuzz",
      agent: "demo-coder",
      expected: { outcome: "succeeded", text: "Done" },
    });
    await addItem(tk.t.db, who, a.id, { key: "note", goal: "Write a note", scenario: [{ text: "done" }], expected: {} });
    const out = await exportJsonl(tk.t.db, p.alphaViewer, a.id);
    expect(out.filename).toBe(`${a.name}.jsonl`);
    expect(out.jsonl.trim().split("\n")).toHaveLength(2);
    const b = await alphaDataset();
    expect(await importJsonl(tk.t.db, who, b.id, out.jsonl)).toEqual({ added: 2, edited: 0, unchanged: 0 });
    expect((await exportJsonl(tk.t.db, p.alphaViewer, b.id)).jsonl).toBe(out.jsonl);
    // Again: nothing changes; one line changed: its next version.
    expect(await importJsonl(tk.t.db, who, b.id, out.jsonl)).toEqual({ added: 0, edited: 0, unchanged: 2 });
    const changed = out.jsonl.replace("Write a note", "Write two notes") + '{"goal":"Without a key"}\n';
    expect(await importJsonl(tk.t.db, who, b.id, changed)).toEqual({ added: 1, edited: 1, unchanged: 1 });
    expect((await listItems(tk.t.db, p.alphaViewer, b.id)).map((i) => [i.key, i.version])).toEqual([
      ["fizz", 1],
      ["item-3", 1],
      ["note", 2],
    ]);
    expect((await auditKinds(b.id)).filter((k) => k === "dataset.imported")).toHaveLength(3);
  });

  it("reports every bad line by its number and imports nothing", async () => {
    const d = await alphaDataset();
    const file = [
      '{"goal":"fine"}',
      "",
      '{"agent":"demo-coder"}',
      "not json",
      '{"goal":"x","key":"k"}',
      '{"goal":"y","key":"k"}',
      '{"goal":"z","extra":1}',
    ].join("\n");
    const err = await refusal(importJsonl(tk.t.db, as(p.alphaOperator), d.id, file));
    expect(err.code).toBe("INVALID_INPUT");
    expect(err.problems.map((x) => x.message)).toEqual([
      "line 3: goal is required",
      expect.stringMatching(/^line 4: not valid JSON/),
      "line 6: key k is on line 5 too",
      'line 7: an item has no field "extra"',
    ]);
    expect(err.message).toMatch(/^The file has 4 problems: line 3: goal is required;/);
    expect(await tk.t.db.datasetItem.count({ where: { datasetId: d.id } })).toBe(0);
    expect(await auditKinds(d.id)).toEqual(["dataset.created"]);
  });

  it("refuses files over the limits: too many lines, too large, a huge line, deep nesting, no items", async () => {
    const d = await alphaDataset();
    const who = as(p.alphaOperator);
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `{"goal":"g${i}"}`).join("\n");
    expect((await refusal(importJsonl(tk.t.db, who, d.id, lines(MAX_JSONL_LINES + 1)))).message).toContain("more than 10,000 lines");
    expect((await refusal(importJsonl(tk.t.db, who, d.id, "x".repeat(5 * 1024 * 1024 + 1)))).code).toBe("PAYLOAD_TOO_LARGE");
    expect((await refusal(importJsonl(tk.t.db, who, d.id, `{"goal":"${"a".repeat(300_000)}"}`))).message).toContain(
      "line 1: the line is longer than 256 KiB",
    );
    expect(
      (await refusal(importJsonl(tk.t.db, who, d.id, `{"goal":"g","expected":{"a":${"[".repeat(100)}${"]".repeat(100)}}}`))).message,
    ).toContain("line 1: the JSON is nested deeper than 32 levels");
    expect((await refusal(importJsonl(tk.t.db, who, d.id, "\n\n"))).message).toContain("the file has no items");
    // Exactly the limit, with a trailing newline, is fine.
    expect((await importJsonl(tk.t.db, who, d.id, `${lines(MAX_JSONL_LINES)}\n`)).added).toBe(MAX_JSONL_LINES);
  }, 60_000);
});

describe("items from runs", () => {
  it("adds a finished scripted run: its goal, agent, a replayable scenario and the expected outcome prefilled", async () => {
    const d = await alphaDataset();
    const run = await createRun(tk.kernel, { goal: "Write fizzbuzz", agent: "demo-coder" }, p.alphaOperator);
    expect(await tk.settle(run.id)).toBe("succeeded");
    const item = await addItemFromRun(tk.kernel, as(p.alphaOperator), { datasetId: d.id, runId: run.id });
    expect(item).toMatchObject({ key: "item-1", version: 1, goal: "Write fizzbuzz", agent: "demo-coder", sourceRunId: run.id });
    expect(item.expected).toEqual({
      outcome: "succeeded",
      text: "Done: `src/fizzbuzz.mjs` is written, its 5 tests pass, and the work is committed.",
    });
    expect(item.scenario?.turns.length).toBe(6);
    expect(item.scenario?.turns[1].toolCalls?.[0]).toMatchObject({ tool: "write_file", args: { path: "src/fizzbuzz.mjs" } });
    const audit = await tk.t.db.auditEntry.findFirst({ where: { kind: "dataset.item_added", subject: d.name } });
    expect(JSON.parse(audit!.detail)).toMatchObject({ runId: run.id, key: "item-1" });
  }, 60_000);

  it("keeps a run's own scenario", async () => {
    const d = await alphaDataset();
    const run = await createRun(tk.kernel, { goal: "Say hi", agent: "demo-coder", scenario: [{ text: "hi there" }] }, p.alphaOperator);
    await tk.settle(run.id);
    const item = await addItemFromRun(tk.kernel, as(p.alphaOperator), { datasetId: d.id, runId: run.id });
    expect(item.scenario).toEqual({ turns: [{ text: "hi there" }] });
    expect(item.expected).toEqual({ outcome: "succeeded", text: "hi there" });
  });

  it("refuses a run that has not finished and a run the person cannot see, adding nothing", async () => {
    const d = await alphaDataset();
    const queued = await tk.t.db.run.create({
      data: {
        goal: "Later",
        agentName: "demo-coder",
        agentVersion: 1,
        model: "scripted/demo-coder",
        tier: "T1",
        maxSteps: 5,
        createdById: p.alphaOperator.userId,
        teamId: p.alphaId,
      },
    });
    const unfinished = await refusal(addItemFromRun(tk.kernel, as(p.alphaOperator), { datasetId: d.id, runId: queued.id }));
    expect(unfinished.message).toBe(`Run ${queued.id} has not finished (it is queued); add it once it has`);
    const theirs = await createRun(
      tk.kernel,
      { goal: "Beta secrets", agent: "demo-coder", scenario: [{ text: "beta only" }] },
      p.betaOperator,
    );
    await tk.settle(theirs.id);
    await expect(addItemFromRun(tk.kernel, as(p.alphaOperator), { datasetId: d.id, runId: theirs.id })).rejects.toThrow(
      `Run ${theirs.id} was not found`,
    );
    expect(await tk.t.db.datasetItem.count({ where: { datasetId: d.id } })).toBe(0);
  });
});

describe("the built-in demo-coding dataset", () => {
  it("is seeded once, for everyone, with at least six items and valid scoring; seeding again changes nothing", async () => {
    const rows = await tk.t.db.dataset.findMany({ where: { name: DEMO_DATASET } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ builtIn: true, teamId: null });
    const items = await listItems(tk.t.db, p.betaOperator, rows[0].id);
    expect(items.length).toBeGreaterThanOrEqual(6);
    const view = await getDataset(tk.t.db, p.alphaViewer, rows[0].id);
    expect(parseScoring(view.scoring).ok).toBe(true);
    const kinds = view.scoring.scorers.map((s) => s.kind);
    expect(kinds).toEqual(expect.arrayContaining(["outcome", "tools_used", "calls_at_most"]));
    // Every item is valid input; agents are the demos that need no person; one fails on purpose.
    for (const i of items) {
      expect(["demo-coder", "demo-team", "demo-specialist"]).toContain(i.agent);
      const scorers = (i.expected.scorers ?? []) as unknown[];
      expect(parseScoring({ scorers: scorers.length ? scorers : [{ kind: "outcome" }] }).ok, i.key).toBe(true);
    }
    expect(items.filter((i) => i.scenario).length).toBeGreaterThanOrEqual(2);
    expect(items.some((i) => String(i.expected.notes).includes("Fails on purpose"))).toBe(true);
    const count = await tk.t.db.datasetItem.count();
    await seedBuiltinDatasets(tk.t.db);
    await seedBuiltinDatasets(tk.t.db);
    expect(await tk.t.db.datasetItem.count()).toBe(count);
    expect(await tk.t.db.dataset.count({ where: { name: DEMO_DATASET } })).toBe(1);
  });

  it("plays on the scripted model: every item's run scores as meant, and only fizzbuzz-readme fails", async () => {
    const demo = (await listDatasets(tk.t.db, p.admin)).find((x) => x.name === DEMO_DATASET)!;
    const verdicts: Record<string, boolean> = {};
    for (const item of await listItems(tk.t.db, p.admin, demo.id)) {
      const run = await createRun(
        tk.kernel,
        { goal: item.goal, agent: item.agent!, ...(item.scenario ? { scenario: item.scenario } : {}) },
        p.admin,
      );
      await tk.settle(run.id);
      const scoring = parseScoring({
        scorers: [...demo.scoring.scorers, ...((item.expected.scorers ?? []) as unknown[])],
        threshold: demo.scoring.threshold,
      });
      if (!scoring.ok) throw new Error(scoring.problems.join("; "));
      const { input, release } = await loadScoringInput({ ...tk.kernel, workspaceFor: tk.kernel.deps.workspaceFor }, run.id);
      try {
        verdicts[item.key] = (await scoreItem(input, scoring.scoring)).passed;
      } finally {
        release();
      }
    }
    expect(verdicts).toEqual({
      fizzbuzz: true,
      "fizzbuzz-export": true,
      "slugify-team": true,
      "greet-specialist": true,
      "note-scenario": true,
      "fizzbuzz-readme": false,
    });
  }, 60_000);

  it("cannot be changed, even by an admin", async () => {
    const demo = (await listDatasets(tk.t.db, p.admin)).find((x) => x.name === DEMO_DATASET)!;
    expect((await refusal(addItem(tk.t.db, as(p.admin), demo.id, { goal: "x" }))).message).toContain("Built-in datasets can't be changed");
    expect((await refusal(updateDataset(tk.t.db, as(p.admin), demo.id, { description: "x" }))).code).toBe("INVALID_INPUT");
  });
});

describe("the regression demo agent", () => {
  it("comes with two versions, the second lowering the call cap, and seeding again adds nothing", async () => {
    const { REGRESSION_DEMO_AGENT, seedRegressionDemo } = await import("./index");
    await seedRegressionDemo(tk.t.db);
    const versions = await tk.t.db.agentSpec.findMany({
      where: { name: REGRESSION_DEMO_AGENT },
      orderBy: { version: "asc" },
      select: { version: true, guardrails: true, model: true, changeNote: true },
    });
    expect(versions.map((v) => v.version)).toEqual([1, 2]);
    expect(JSON.parse(versions[0].guardrails)).toEqual({});
    expect(JSON.parse(versions[1].guardrails)).toEqual({ callCap: 3 });
    expect(versions.every((v) => v.model === "scripted/demo-coder")).toBe(true);
    expect(versions[1].changeNote).toContain("call cap");
    expect((await tk.kernel.specs.get(REGRESSION_DEMO_AGENT))?.version).toBe(2);
  });
});
