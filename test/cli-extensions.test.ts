// `rein extensions …` against a real server (docs/extensions.md): propose
// the demo package from a file, list and show it with its test results; the
// proposer cannot approve it (approval is on by default); reject it; bad
// files and unknown verbs are clear errors that store nothing.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CSV_TOOLS_EXTENSION } from "@/server/improve";
import { startCliServer, type CliServer } from "./helpers/cli";

let s: CliServer;
const cli = (args: string[], input?: string) => s.cli(args, input);
const rows = () =>
  s.query<{ name: string; version: string; state: string }>("SELECT name, version, state FROM Extension ORDER BY createdAt");

beforeAll(async () => {
  s = await startCliServer("admin");
}, 60_000);

afterAll(async () => s?.stop());

describe("rein CLI: extensions", () => {
  it("proposes, lists and shows an extension; its proposer cannot approve it; a rejection ends it", async () => {
    expect((await cli(["extensions"])).stdout).toMatch(/^No extensions yet/);
    const file = path.join(s.t.dir, "csv-tools.json");
    fs.writeFileSync(file, JSON.stringify(CSV_TOOLS_EXTENSION));
    const proposed = await cli(["extensions", "propose", file]);
    expect(proposed.stdout).toMatch(
      /^csv-tools v1\.0\.0: awaiting_approval — The gate passed: All 3 tests pass\. .* \(3 passed, 0 failed\)$/m,
    );
    const id = proposed.stdout.trim().split("\n").pop()!;
    expect((await cli(["extensions"])).stdout).toMatch(
      new RegExp(`^${id} +csv-tools v1\\.0\\.0 +awaiting_approval +tools csv_column_sum +capabilities none +3 passed, 0 failed$`, "m"),
    );
    const show = await cli(["extensions", "show", id]);
    expect(show.stdout).toMatch(/^ {2}pass {2}test\/csv\.test\.js › sums a column$/m);
    expect(show.stdout).toMatch(/^ {2}lib\/csv\.js$/m);
    const approve = await cli(["extensions", "approve", id]);
    expect(approve.code).not.toBe(0);
    expect(approve.stderr).toMatch(/403 FORBIDDEN: You proposed this extension/);
    expect((await cli(["extensions", "reject", id, "--comment", "not now"])).stdout).toBe(
      "csv-tools v1.0.0: rejected — Rejected: not now\n",
    );
    expect(rows()).toEqual([{ name: "csv-tools", version: "1.0.0", state: "rejected" }]);
  }, 60_000);

  it.each([
    [["extensions", "propose", "/no/such/file.json"], /Cannot read \/no\/such\/file.json/],
    [["extensions", "propose", "-"], /- is not JSON/, "not json"],
    [["extensions", "propose", "-"], /400 INVALID_INPUT: .*manifest/, JSON.stringify({ manifest: {}, files: {} })],
    [["extensions", "show", "no-such-extension"], /404 NOT_FOUND: There is no extension no-such-extension/],
    [["extensions", "show"], /extensions show needs the extension's ID/],
    [["extensions", "install", "x"], /extensions takes show, propose, disable, enable, approve, reject or remove, not "install"/],
  ])("%j fails with a clear error", async (args, message, input?: string) => {
    const r = await cli(args as string[], input);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(message);
    expect(rows()).toHaveLength(1);
  });
});
