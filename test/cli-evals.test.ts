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
    expect(show.stdout).toMatch(/^demo-coding: .*\nteam everyone · \d+ items · pass threshold 0\.75\nscorers: outcome, tools_used, calls_at_most\n/);
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
    expect((await cli(["eval", "dataset", "import", id, "-"], '{"key":"a","goal":"Write fizzbuzz","agent":"demo-coder"}\n')).stdout).toBe("Imported: 0 added, 0 edited, 1 unchanged\n");
    const bad = await cli(["eval", "dataset", "import", id, "-"], '{"goal":"ok"}\n{"agent":"demo-coder"}\n');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("400 INVALID_INPUT: The file has a problem: line 2: goal is required");
    expect((await cli(["eval", "dataset", "export", id])).stdout).toBe('{"key":"a","goal":"Write fizzbuzz","agent":"demo-coder","expected":{}}\n{"key":"item-2","goal":"Write a note","expected":{}}\n');
    const audit = s.query<{ kind: string; channel: string }>(`SELECT kind, channel FROM "AuditEntry" WHERE subject = 'cli-set' ORDER BY id`);
    expect(audit).toEqual([
      { kind: "dataset.created", channel: "api" },
      { kind: "dataset.imported", channel: "cli" },
      { kind: "dataset.imported", channel: "cli" },
    ]);
  });
});
