// `rein users …` and `rein teams …` against a real server (docs/people-and-teams.md):
// people by e-mail, teams by name; links printed once; changes audited as
// the CLI's; refusals are clear errors that change nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCliServer, type CliServer } from "./helpers/cli";

let s: CliServer;
const cli = (args: string[], input?: string) => s.cli(args, input);
const query = <T>(sql: string, ...args: unknown[]) => s.query<T>(sql, ...args);

beforeAll(async () => {
  s = await startCliServer("admin");
}, 60_000);

afterAll(async () => s?.stop());

describe("rein CLI: users and teams", () => {
  it("creates a team and people, changes roles, disables, and prints links once", async () => {
    expect(await cli(["teams", "create", "Data", "Science"])).toMatchObject({ code: 0, stdout: "Team Data Science created\n" });
    const created = await cli(
      ["users", "create", "--email", "Ann@Rein.Test", "--role", "operator", "--team", "data science", "--team-role", "admin"],
      "ann-password\n",
    );
    expect(created, created.stderr).toMatchObject({ code: 0, stdout: "User ann@rein.test created (operator)\n" });
    expect((await cli(["users", "role", "ann@rein.test", "--role", "approver"])).stdout).toBe("ann@rein.test is now approver\n");
    expect((await cli(["teams", "add", "Data Science", "--email", "admin@rein.test", "--role", "viewer"])).stdout).toBe(
      "admin@rein.test joined Data Science as viewer\n",
    );
    expect((await cli(["teams", "role", "Data Science", "--email", "admin@rein.test", "--role", "operator"])).stdout).toBe(
      "admin@rein.test is now operator in Data Science\n",
    );
    const show = await cli(["teams", "show", "Data Science"]);
    expect(show.stdout).toMatch(/^Data Science: 2 members, 0 runs, \$0\.00 spent this month\n/);
    expect(show.stdout).toMatch(/ann@rein\.test\s+admin\s+effective admin/);
    expect((await cli(["teams", "remove", "Data Science", "--email", "admin@rein.test"])).stdout).toBe(
      "admin@rein.test left Data Science\n",
    );
    expect((await cli(["teams", "rename", "Data Science", "--name", "Data"])).stdout).toBe("Team Data Science is now Data\n");
    expect((await cli(["teams", "archive", "data"])).stdout).toBe("Team Data is archived\n");
    expect((await cli(["teams", "list"])).stdout).toMatch(/^Data\s+1 members\s+you: admin .*0 runs \(0 active\)\s+archived$/m);
    expect((await cli(["teams", "unarchive", "Data"])).stdout).toBe("Team Data is active again\n");

    const invite = await cli(["users", "invite", "--email", "bo@rein.test", "--role", "viewer", "--team", "Data"]);
    expect(invite.stdout).toMatch(
      /^Invitation for bo@rein\.test, valid until .* UTC \(shown once\):\nhttp:\/\/127\.0\.0\.1:\d+\/invite\?token=[A-Za-z0-9_-]{43}\n$/,
    );
    const reset = await cli(["users", "reset", "ann@rein.test"]);
    expect(reset.stdout).toMatch(/\/reset\?token=[A-Za-z0-9_-]{43}\n$/);
    expect((await cli(["users", "disable", "ann@rein.test"])).stdout).toBe("ann@rein.test is disabled\n");
    expect((await cli(["users", "list"])).stdout).toMatch(/^ann@rein\.test\s+approver\s+disabled\s+last seen never\s+Data \(admin\)$/m);
    expect((await cli(["users", "enable", "ann@rein.test"])).stdout).toBe("ann@rein.test is enabled\n");

    const audit = query<{ kind: string; channel: string }>(
      `SELECT kind, channel FROM "AuditEntry" WHERE kind LIKE 'user.%' OR kind LIKE 'team.%' OR kind LIKE 'invitation.%' ORDER BY id`,
    );
    expect(audit.every((a) => a.channel === "cli")).toBe(true);
    expect(audit.map((a) => a.kind)).toEqual([
      "team.created",
      "user.created",
      "user.role_changed",
      "team.member_added",
      "team.member_role_changed",
      "team.member_removed",
      "team.renamed",
      "team.archived",
      "team.unarchived",
      "invitation.created",
      "user.password_reset_link",
      "user.disabled",
      "user.enabled",
    ]);
    const stored = JSON.stringify(query(`SELECT * FROM "AuditEntry"`)) + JSON.stringify(query(`SELECT * FROM "Invitation"`));
    expect(stored).not.toContain(invite.stdout.trim().split("token=")[1]);
    expect(stored).not.toContain("ann-password");
  });

  it.each([
    [["users", "disable", "admin@rein.test"], /400 INVALID_INPUT: You cannot disable yourself/],
    [["users", "role", "nobody@rein.test", "--role", "admin"], /No user nobody@rein.test/],
    [
      ["users", "invite", "--email", "admin@rein.test", "--role", "viewer"],
      /409 CONFLICT: A user with the email admin@rein.test already exists/,
    ],
    [
      ["users", "create", "--email", "x@rein.test", "--role", "viewer", "--password", "short"],
      /400 INVALID_INPUT: password: the password needs at least 8 characters/,
    ],
    [["teams", "create", "bad/name"], /400 INVALID_INPUT: A team name has only letters, digits, spaces and - _ \./],
    [["teams", "show", "Nope"], /No team Nope/],
    [
      ["teams", "add", "default", "--email", "nobody@rein.test", "--role", "viewer"],
      /404 NOT_FOUND: No user has the email nobody@rein.test/,
    ],
    [["users", "role", "admin@rein.test"], /needs --role/],
  ])("%j fails with a clear error", async (args, message) => {
    const r = await cli(args);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
  });
});
