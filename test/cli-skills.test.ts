// `rein skills …` against a real server (docs/skills.md): save a
// SKILL.md, save a changed file as version 2, list, show, disable and enable;
// a broken file is a clear error that stores nothing.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCliServer, type CliServer } from "./helpers/cli";

let s: CliServer;
const cli = (args: string[], input?: string) => s.cli(args, input);

const skillMd = (name: string, body: string) => `---
name: ${name}
description: Read CSV files whose fields hold quoted commas; use it when a column sum comes out wrong.
tags: [csv]
---
${body}
`;

beforeAll(async () => {
  s = await startCliServer("admin");
}, 60_000);

afterAll(async () => s?.stop());

describe("rein CLI: skills", () => {
  it("saves, lists, shows, disables and enables a skill", async () => {
    expect((await cli(["skills"])).stdout).toMatch(/^No skills yet/);
    const file = path.join(s.t.dir, "quoted-csv.md");
    fs.writeFileSync(file, skillMd("quoted-csv", "Split on commas outside quotes."));
    expect(await cli(["skills", "save", file])).toMatchObject({ code: 0, stdout: "Skill quoted-csv saved as version 1\n" });
    expect((await cli(["skills", "save", "-"], skillMd("quoted-csv", "Use a CSV parser."))).stdout).toBe(
      "Skill quoted-csv saved as version 2\n",
    );
    expect((await cli(["skills"])).stdout).toMatch(/^quoted-csv v2 +active +0 loads +loaded — \(0 runs\) vs not — \(0 runs\)$/m);
    const show = await cli(["skills", "show", "quoted-csv"]);
    expect(show.stdout).toMatch(/^quoted-csv v2: active — written by /);
    expect(show.stdout).toMatch(/^ {2}v1 +superseded /m);
    expect(show.stdout).toContain("Use a CSV parser.");
    expect((await cli(["skills", "disable", "quoted-csv", "--comment", "checking"])).stdout).toBe("quoted-csv v2: disabled\n");
    expect((await cli(["skills", "enable", "quoted-csv"])).stdout).toBe("quoted-csv v2: active\n");
  });

  it.each([
    [["skills", "save", "/no/such/file.md"], /Cannot read \/no\/such\/file.md/],
    [["skills", "save", "-"], /has no name: line in its front matter/, "just text\n"],
    [["skills", "save", "-"], /400 INVALID_INPUT: .*line 2: name "Bad_Name" is not valid/, skillMd("Bad_Name", "x")],
    [["skills", "show", "no-such-skill"], /404 NOT_FOUND: There is no skill "no-such-skill"/],
    [["skills", "show"], /skills show needs the skill's NAME/],
    [["skills", "remove", "x"], /skills takes show, save, disable or enable, not "remove"/],
  ])("%j fails with a clear error", async (args, message, input?: string) => {
    const r = await cli(args as string[], input);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
  });
});
