// `rein eval …` against a real server: list the datasets, show the built-in
// one, export it, import the file into a dataset of one's own, and a bad
// file is refused with its problems by line.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCliServer, type CliServer } from "./helpers/cli";

let s: CliServer;
const cli = (args: string[], input?: string) => s.cli(args, input);

beforeAll(async () => {
  s = await startCliServer("admin");
}, 60_000);

afterAll(async () => s?.stop());

describe("rein CLI: eval datasets", () => {
  it("lists, shows, exports and imports", async () => {
    const list = await cli(["eval", "datasets"]);
    expect(list.code, list.stderr).toBe(0);
    const demo = list.stdout.match(/^(\S+) +demo-coding +(\d+) items +everyone .*\(built-in\)$/m);
    expect(demo, list.stdout).not.toBeNull();
    const show = await cli(["eval", "dataset", "show", demo![1]]);
    expect(show.stdout).toMatch(
      /^demo-coding: .*\nteam everyone · \d+ items · pass threshold 0\.75\nscorers: outcome, tools_used, calls_at_most\n/,
    );
    expect(show.stdout).toMatch(/^ {2}fizzbuzz +v1 +demo-coder +Write a fizzbuzz function/m);
    const exported = await cli(["eval", "dataset", "export", demo![1]]);
    expect(exported.stdout.trim().split("\n")).toHaveLength(Number(demo![2]));
    expect(s.query<{ id: string }>(`SELECT id FROM "Dataset" WHERE name = 'demo-coding'`)).toEqual([{ id: demo![1] }]);
  });

  it("imports a file into a dataset, and refuses a bad file with each problem by line", async () => {
    // A dataset of one's own, made over the API the CLI uses.
    const res = await fetch(`${s.server.url}/api/v1/datasets`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "cli-set", teamId: null, scoring: { scorers: [{ kind: "outcome" }] } }),
    });
    const { id } = (await res.json()) as { id: string };
    const file = path.join(s.t.dir, "items.jsonl");
    fs.writeFileSync(file, '{"key":"a","goal":"Write fizzbuzz","agent":"demo-coder"}\n{"goal":"Write a note"}\n');
    expect((await cli(["eval", "dataset", "import", id, file])).stdout).toBe("Imported: 2 added, 0 edited, 0 unchanged\n");
    expect((await cli(["eval", "dataset", "import", id, "-"], '{"key":"a","goal":"Write fizzbuzz","agent":"demo-coder"}\n')).stdout).toBe(
      "Imported: 0 added, 0 edited, 1 unchanged\n",
    );
    const bad = await cli(["eval", "dataset", "import", id, "-"], '{"goal":"ok"}\n{"agent":"demo-coder"}\n');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("400 INVALID_INPUT: The file has a problem: line 2: goal is required");
    expect((await cli(["eval", "dataset", "export", id])).stdout).toBe(
      '{"key":"a","goal":"Write fizzbuzz","agent":"demo-coder","expected":{}}\n{"key":"item-2","goal":"Write a note","expected":{}}\n',
    );
    const audit = s.query<{ kind: string; channel: string }>(
      `SELECT kind, channel FROM "AuditEntry" WHERE subject = 'cli-set' ORDER BY id`,
    );
    expect(audit).toEqual([
      { kind: "dataset.created", channel: "api" },
      { kind: "dataset.imported", channel: "cli" },
      { kind: "dataset.imported", channel: "cli" },
    ]);
  });
});

describe("rein CLI: eval run, show, compare and the gate", () => {
  async function rest(method: string, p: string, body?: unknown) {
    const res = await fetch(`${s.server.url}${p}`, {
      method,
      headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as any;
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }

  it("runs an experiment, passes the gate against itself and fails it against a version that regresses, naming the items", async () => {
    const spec = {
      name: "cli-gate-coder",
      instructions: "Write small modules with tests.",
      model: "scripted/demo-coder",
      tools: ["read_file", "write_file", "list_files", "shell", "update_tasks"],
      teamId: null,
    };
    await rest("POST", "/api/v1/agents", { spec });
    // Version 2 lowers the call cap below what the work takes: every run stops at the limit.
    await rest("PUT", "/api/v1/agents/cli-gate-coder", { spec: { ...spec, guardrails: { callCap: 3 } }, changeNote: "Cheaper" });
    const set = await rest("POST", "/api/v1/datasets", {
      name: "cli-gate-set",
      teamId: null,
      scoring: { scorers: [{ kind: "outcome", required: true }], threshold: 1 },
    });
    for (const key of ["a", "b", "c", "d", "e", "f"])
      await rest("POST", `/api/v1/datasets/${set.id}/items`, { key, goal: `Write fizzbuzz with tests (${key})` });

    const base = await cli([
      "eval",
      "run",
      "--dataset",
      "cli-gate-set",
      "--agent",
      "cli-gate-coder",
      "--version",
      "1",
      "--concurrency",
      "3",
    ]);
    expect(base.code, base.stderr + base.stdout).toBe(0);
    const baseId = base.stdout.match(/^Experiment (\S+) started/m)![1];
    expect(base.stdout).toMatch(/^succeeded: 6\/6 finished \(6 passed, 0 could not run\)/m);
    expect(base.stdout).toMatch(/^score 1\.000 \(95% interval 1\.000 to 1\.000\) · pass rate 100% · threshold 1$/m);
    expect(base.stdout).toMatch(/^ {2}PASS a +\+ +1\.000/m);

    const same = await cli([
      "eval",
      "run",
      "--dataset",
      "cli-gate-set",
      "--agent",
      "cli-gate-coder",
      "--version",
      "1",
      "--concurrency",
      "3",
      "--baseline",
      baseId,
      "--gate",
    ]);
    expect(same.code, same.stderr + same.stdout).toBe(0);
    expect(same.stdout).toContain("Gate: passed");
    expect(same.stdout).not.toContain("Regressed items");

    const worse = await cli([
      "eval",
      "run",
      "--dataset",
      set.id,
      "--agent",
      "cli-gate-coder",
      "--version",
      "2",
      "--concurrency",
      "3",
      "--baseline",
      baseId,
      "--gate",
    ]);
    expect(worse.code, worse.stderr + worse.stdout).toBe(1);
    expect(worse.stdout).toContain("Gate: FAILED");
    expect(worse.stdout).toContain("6 items regressed against 0 improved (McNemar p = 0.0313 < 0.05)");
    for (const key of ["a", "b", "c", "d", "e", "f"])
      expect(worse.stdout).toMatch(new RegExp(`^ {2}${key} +1\\.000 -> 0\\.000 +Write fizzbuzz`, "m"));
    // Only what regressed: no table of every item.
    expect(worse.stdout).not.toMatch(/^ {2}FAIL /m);
    const worseId = worse.stdout.match(/^Experiment (\S+) started/m)![1];

    // Without --baseline, the older experiment is the baseline; one verdict on the scores, then the pass/fail counts.
    const compare = await cli(["eval", "compare", worseId, baseId]);
    expect(compare.stdout).toContain(`Baseline: v1 (${baseId}), the oldest`);
    expect(compare.stdout).toMatch(
      new RegExp(
        `^${worseId} against ${baseId}: v2 scores 0\\.00 against 1\\.00 for v1 \\(−1\\.00, 95% interval −1\\.00 to −1\\.00\\): significantly worse with 6 items$`,
        "m",
      ),
    );
    expect(compare.stdout).toMatch(/^ {2}pass\/fail: 6 regressed, 0 improved, 0 unchanged$/m);
    const show = await cli(["eval", "show", worseId]);
    expect(show.stdout).toMatch(/^ {2}FAIL a +x +0\.000/m);
    expect((await cli(["eval", "experiments", "--dataset", "cli-gate-set"])).stdout.trim().split("\n")).toHaveLength(3);
    const bad = await cli(["eval", "run", "--dataset", "cli-gate-set", "--gate"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--gate needs --baseline EXP");
  }, 240_000);
});
