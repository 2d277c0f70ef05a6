// `rein agents …` against a real server (docs/agents.md): copy a built-in,
// export it to a file, change the file, import it as version 2, see the
// versions and the diff, archive it; a broken file is a clear error.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCliServer, type CliServer } from "./helpers/cli";

let s: CliServer;
const cli = (args: string[], input?: string) => s.cli(args, input);

beforeAll(async () => {
  s = await startCliServer("operator");
}, 60_000);

afterAll(async () => s?.stop());

describe("rein CLI: agents", () => {
  it("copies, exports, imports a changed file as a new version, diffs and archives", async () => {
    const copy = await cli(["agents", "copy", "demo-coder", "--name", "my-coder"]);
    expect(copy, copy.stderr).toMatchObject({ code: 0, stdout: "Agent my-coder created from demo-coder (team default)\n" });
    const exported = await cli(["agents", "export", "my-coder"]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/^# Rein agent spec: my-coder, version 1\./);
    const file = path.join(s.t.dir, "my-coder.agent.yaml");
    fs.writeFileSync(file, exported.stdout.replace("taskClass: code", "taskClass: plan"));
    const imported = await cli(["agents", "import", file, "--note", "Plans first"]);
    expect(imported, imported.stderr).toMatchObject({ code: 0, stdout: "Agent my-coder saved as version 2\n" });
    const versions = await cli(["agents", "versions", "my-coder"]);
    expect(versions.stdout).toMatch(/^v2 .* Plans first$/m);
    expect(versions.stdout).toMatch(/^v1 .* Copied from demo-coder version 1$/m);
    expect((await cli(["agents", "diff", "my-coder", "--from", "1", "--to", "2"])).stdout).toBe("Task class: code → plan\n");
    expect((await cli(["agents", "show", "my-coder"])).stdout).toMatch(
      /^my-coder v2: .*\nmodel scripted\/demo-coder · task class plan · tier T1 · team default\n/,
    );
    // Standard input works as the file.
    expect((await cli(["agents", "import", "-"], exported.stdout)).stdout).toBe("Agent my-coder saved as version 3\n");
    expect((await cli(["agents", "archive", "my-coder"])).stdout).toBe("Agent my-coder archived\n");
    expect((await cli(["agents", "list"])).stdout).not.toMatch(/^my-coder /m);
    expect((await cli(["agents", "list", "--include-archived"])).stdout).toMatch(/^my-coder +v3 .*\(archived\)$/m);
    const audit = s.query<{ kind: string; channel: string }>(
      `SELECT kind, channel FROM "AuditEntry" WHERE subject = 'my-coder' ORDER BY id`,
    );
    expect(audit).toEqual([
      { kind: "agent.copied", channel: "cli" },
      { kind: "agent.imported", channel: "cli" },
      { kind: "agent.imported", channel: "cli" },
      { kind: "agent.archived", channel: "cli" },
    ]);
  });

  it.each([
    [["agents", "import", "/no/such/file.yaml"], /Cannot read \/no\/such\/file.yaml/],
    [["agents", "import", "-"], /400 INVALID_INPUT: The YAML cannot be read: it is empty/, ""],
    [
      ["agents", "import", "-"],
      /400 INVALID_INPUT: The agent spec has 2 problems: .*The tool "foo" does not exist/,
      "name: x-bot\nmodel: scripted/demo-coder\ninstructions: hi\ntools: [foo]\n",
    ],
    [["agents", "show", "no-such-agent"], /404 NOT_FOUND: There is no agent named no-such-agent/],
    [["agents", "diff", "demo-coder", "--from", "1"], /needs --from A and --to B/],
    [["agents", "save"], /agents needs list, show, versions, diff, export, import, archive, unarchive or copy/],
  ])("%j fails with a clear error", async (args, message, input?: string) => {
    const r = await cli(args as string[], input);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
  });
});
