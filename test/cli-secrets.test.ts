// `rein secret …` and `rein run --secret` against a real server
// (docs/secrets.md): set (value from --value or standard input), list without values,
// delete; bad names, empty values, provider keys and missing secrets are
// clear errors; a run's command gets the value and its events never show it.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCliServer, type CliServer } from "./helpers/cli";

const VALUE = "cli-secret-Vx81-QQ-0042";

let s: CliServer;
const cli = (args: string[], input?: string) => s.cli(args, input);
const query = <T>(sql: string, ...args: unknown[]) => s.query<T>(sql, ...args);

beforeAll(async () => {
  s = await startCliServer("admin");
}, 60_000);

afterAll(async () => s?.stop());

describe("rein CLI: secrets", () => {
  it("sets from --value and from standard input, lists without values, deletes", async () => {
    const set = await cli(["secret", "set", "DEPLOY_TOKEN", "--value", VALUE]);
    expect(set, set.stderr).toMatchObject({
      code: 0,
      stdout: "Secret DEPLOY_TOKEN saved; tools see it as $DEPLOY_TOKEN; given to nobody yet (secret scope NAME --agents … --teams …)\n",
    });
    const scoped = await cli(["secret", "scope", "DEPLOY_TOKEN", "--agents", "demo-coder", "--teams", "*", "--caller-commands"]);
    expect(scoped, scoped.stderr).toMatchObject({
      code: 0,
      stdout: "Secret DEPLOY_TOKEN is given to agents demo-coder in teams *, scenarios too\n",
    });
    // Through the real process: the value on a pipe to its standard input.
    const piped = await s.binary(["secret", "set", "deploy/other"], `${VALUE}-piped\n`);
    expect(piped.code, piped.stderr).toBe(0);
    const list = await cli(["secret", "list"]);
    expect(list.stdout).toMatch(/^DEPLOY_TOKEN\s+\$DEPLOY_TOKEN\s+by .*for agents demo-coder in teams \*, scenarios too$/m);
    expect(list.stdout).toMatch(/^deploy\/other\s+\$DEPLOY_OTHER\s+.*last used never/m);
    expect(list.stdout).not.toContain(VALUE);
    const rows = query<{ name: string; ciphertext: string }>(`SELECT name, ciphertext FROM "Secret" ORDER BY name`);
    expect(rows.map((r) => r.name)).toEqual(["DEPLOY_TOKEN", "deploy/other"]);
    expect(JSON.stringify(rows)).not.toContain(VALUE);
    expect((await cli(["secret", "delete", "deploy/other"])).stdout).toBe("Secret deploy/other deleted\n");
    const audit = query<{ kind: string; channel: string }>(`SELECT kind, channel FROM "AuditEntry" WHERE kind LIKE 'secret.%' ORDER BY id`);
    expect(audit).toEqual([
      { kind: "secret.created", channel: "cli" },
      { kind: "secret.scope", channel: "cli" },
      { kind: "secret.created", channel: "cli" },
      { kind: "secret.deleted", channel: "cli" },
    ]);
  });

  it.each([
    [["secret", "set", "bad name", "--value", "v"], /400 INVALID_INPUT: A secret name starts with a letter/],
    [["secret", "set", "EMPTY_TOKEN", "--value", ""], /400 INVALID_INPUT: value: value is required/],
    [["secret", "set", "provider/openai/api-key", "--value", "v"], /400 INVALID_INPUT: .*Settings → Models/],
    [["secret", "set", "NO_VALUE"], /read no value from standard input/],
    [["secret", "set"], /needs a NAME/],
    [["secret", "delete", "NOPE"], /404 NOT_FOUND: No secret named "NOPE"/],
    [["run", "--goal", "g", "--secret", "NOPE"], /400 INVALID_INPUT: No secret named "NOPE"/],
  ])("%j fails with a clear error", async (args, message) => {
    const r = await cli(args);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
  });

  it("run --secret gives the run's command the value; its events show it redacted", async () => {
    const scenario = path.join(s.t.dir, "scenario.json");
    fs.writeFileSync(
      scenario,
      JSON.stringify([
        { toolCalls: [{ tool: "shell", args: { command: 'echo "$DEPLOY_TOKEN" | wc -c; echo token=$DEPLOY_TOKEN' } }] },
        { text: "Done." },
      ]),
    );
    const run = await cli(["run", "--goal", "Use the token", "--scenario", scenario, "--secret", "DEPLOY_TOKEN", "--wait", "--json"]);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const id = JSON.parse(run.stdout).id as string;
    const events = await cli(["events", "--run", id]);
    const result = query<{ payload: string }>(`SELECT payload FROM "RunEvent" WHERE runId = ? AND type = 'tool.result'`, id)[0];
    const output = JSON.parse(result.payload).output.output as string;
    expect(output).toBe(`${VALUE.length + 1}\ntoken=[secret:DEPLOY_TOKEN]\n`);
    expect(events.stdout + JSON.stringify(query(`SELECT * FROM "RunEvent" WHERE runId = ?`, id))).not.toContain(VALUE);
  });
});
