// CLI commands for people and teams (docs/people-and-teams.md#from-programs),
// over REST v1: users list|create|invite|role|disable|enable|reset and teams
// list|show|create|rename|archive|unarchive|add|remove|role, as entries of the
// CLI's command table (./cli-commands.ts). A person is named by e-mail (or id),
// a team by name (or id). Without --password, users create reads the password
// from standard input, so it stays out of the shell's history.
import type { Role } from "@/server/identity";
import type { RestClient } from "../lib/rest-client";
import { CliError, ok } from "./cli-error";
import { given, stdin } from "./cli-input";
import type { CliCommand } from "./cli-commands";

export const PEOPLE_OPTIONS = {
  role: { type: "string" },
  password: { type: "string" },
  team: { type: "string" },
  "team-role": { type: "string" },
} as const;

type PeopleValues = {
  email?: string;
  name?: string;
  json?: boolean;
  role?: string;
  password?: string;
  team?: string;
  "team-role"?: string;
};

const when = (iso: string | null) => (iso ? iso.replace("T", " ").slice(0, 16) : "never");

function passwordFrom(values: PeopleValues): string {
  if (values.password !== undefined && values.password !== "-") return values.password;
  if (values.password === undefined && stdin.isTTY())
    throw new CliError("users create needs --password P, or the password on standard input");
  const read = stdin.read().replace(/\r?\n$/, "");
  if (!read) throw new CliError("users create read no password from standard input");
  return read;
}

/** The person an e-mail or id names (admins list people). */
async function findUser(api: RestClient, who: string | undefined, command: string) {
  if (!who) throw new CliError(`${command} needs a person: their e-mail (or id)`);
  const { users } = await ok(api.GET("/api/v1/users"));
  const match = users.find((u) => u.id === who || u.email === who.trim().toLowerCase());
  if (!match) throw new CliError(`No user ${who}`);
  return match;
}

/** The team a name (any case) or id names, among the teams the caller sees. */
async function findTeam(api: RestClient, which: string | undefined, command: string) {
  if (!which) throw new CliError(`${command} needs a TEAM: its name (or id)`);
  const { teams } = await ok(api.GET("/api/v1/teams"));
  const match = teams.find((t) => t.id === which) ?? teams.find((t) => t.name.toLowerCase() === which.trim().toLowerCase());
  if (!match) throw new CliError(`No team ${which} (or you are not in it)`);
  return match;
}

/** A member of the team, by e-mail or id (team admins cannot list everybody). */
async function findMember(api: RestClient, teamId: string, who: string | undefined, command: string) {
  if (!who) throw new CliError(`${command} needs --email E`);
  const { members } = await ok(api.GET("/api/v1/teams/{id}/members", { params: { path: { id: teamId } } }));
  const match = members.find((m) => m.userId === who || m.email === who.trim().toLowerCase());
  if (!match) throw new CliError(`${who} is not a member of that team`);
  return match;
}

function needRole(values: PeopleValues, command: string): Role {
  if (!values.role) throw new CliError(`${command} needs --role viewer|operator|approver|admin`);
  return given(values.role);
}

const teamPart = async (api: RestClient, values: PeopleValues, command: string) =>
  values.team
    ? {
        teamId: (await findTeam(api, values.team, command)).id,
        ...(values["team-role"] ? { teamRole: given<Role>(values["team-role"]) } : {}),
      }
    : {};

const USER_COMMANDS: CliCommand<PeopleValues>[] = [
  {
    command: "users",
    sub: "list",
    usage: "[--json]",
    description: "List people: role, status, teams and when each was last seen (admins).",
    async run({ api, values }) {
      const { users } = await ok(api.GET("/api/v1/users"));
      if (values.json) return console.log(JSON.stringify(users));
      for (const u of users) {
        const teams = u.teams.map((t) => `${t.name} (${t.effectiveRole})`).join(", ") || "no team";
        console.log(`${u.email.padEnd(32)} ${u.role.padEnd(9)} ${u.status.padEnd(9)} last seen ${when(u.lastSeenAt).padEnd(16)}  ${teams}`);
      }
    },
  },
  {
    command: "users",
    sub: "create",
    usage: "--email E --role R [--name N] [--password P] [--team TEAM [--team-role R]] [--json]",
    description: "Add a person with a password (admins); without --password, or with --password -, it is read from standard input.",
    async run({ api, values }) {
      if (!values.email) throw new CliError("users create needs --email E");
      const role = needRole(values, "users create");
      const body = {
        email: values.email,
        role,
        password: passwordFrom(values),
        ...(values.name ? { name: values.name } : {}),
        ...(await teamPart(api, values, "users create")),
      };
      const created = await ok(api.POST("/api/v1/users", { body }));
      console.log(values.json ? JSON.stringify(created) : `User ${values.email.toLowerCase()} created (${role})`);
    },
  },
  {
    command: "users",
    sub: "invite",
    usage: "--email E --role R [--name N] [--team TEAM [--team-role R]] [--json]",
    description: "Invite a person (admins): prints a single-use link, valid 7 days, shown only this once.",
    async run({ api, values }) {
      if (!values.email) throw new CliError("users invite needs --email E");
      const role = needRole(values, "users invite");
      const body = {
        email: values.email,
        role,
        ...(values.name ? { name: values.name } : {}),
        ...(await teamPart(api, values, "users invite")),
      };
      const created = await ok(api.POST("/api/v1/invitations", { body }));
      console.log(
        values.json
          ? JSON.stringify(created)
          : `Invitation for ${values.email.toLowerCase()}, valid until ${when(created.expiresAt)} UTC (shown once):\n${created.url}`,
      );
    },
  },
  {
    command: "users",
    sub: "role",
    usage: "EMAIL --role R",
    description: "Change a person's own role (admins); the last active admin cannot be demoted.",
    async run({ api, args, values }) {
      const user = await findUser(api, args[0] ?? values.email, "users role");
      const role = needRole(values, "users role");
      await ok(api.PATCH("/api/v1/users/{id}", { params: { path: { id: user.id } }, body: { role } }));
      console.log(`${user.email} is now ${role}`);
    },
  },
  {
    command: "users",
    sub: "disable",
    usage: "EMAIL",
    description: "Disable a person (admins): their sessions, API tokens and open connections stop working at once.",
    async run({ api, args, values }) {
      const user = await findUser(api, args[0] ?? values.email, "users disable");
      await ok(api.POST("/api/v1/users/{id}/disable", { params: { path: { id: user.id } } }));
      console.log(`${user.email} is disabled`);
    },
  },
  {
    command: "users",
    sub: "enable",
    usage: "EMAIL",
    description: "Enable a disabled person (admins).",
    async run({ api, args, values }) {
      const user = await findUser(api, args[0] ?? values.email, "users enable");
      await ok(api.POST("/api/v1/users/{id}/enable", { params: { path: { id: user.id } } }));
      console.log(`${user.email} is enabled`);
    },
  },
  {
    command: "users",
    sub: "reset",
    usage: "EMAIL [--json]",
    description:
      "A single-use password-reset link for a person (admins), valid 24 hours, shown only this once; using it ends their sessions.",
    async run({ api, args, values }) {
      const user = await findUser(api, args[0] ?? values.email, "users reset");
      const link = await ok(api.POST("/api/v1/users/{id}/reset-link", { params: { path: { id: user.id } } }));
      console.log(
        values.json
          ? JSON.stringify(link)
          : `Password reset link for ${user.email}, valid until ${when(link.expiresAt)} UTC (shown once):\n${link.url}`,
      );
    },
  },
];

const usd = (n: number) => `$${n.toFixed(2)}`;

const TEAM_COMMANDS: CliCommand<PeopleValues>[] = [
  {
    command: "teams",
    sub: "list",
    usage: "[--json]",
    description: "List teams (admins every team, others their own): members, your role, budget and spend this month, runs.",
    async run({ api, values }) {
      const { teams } = await ok(api.GET("/api/v1/teams"));
      if (values.json) return console.log(JSON.stringify(teams));
      if (teams.length === 0) return console.log("No teams.");
      for (const t of teams) {
        const budget = t.budgetUsd === null ? "no budget" : `${usd(t.spentThisMonthUsd)} of ${usd(t.budgetUsd)}`;
        console.log(
          `${t.name.padEnd(24)} ${String(t.memberCount).padStart(3)} members  you: ${(t.myRole ?? "-").padEnd(8)} ${budget.padEnd(22)} ${t.runCount} runs (${t.activeRunCount} active)${t.archivedAt ? "  archived" : ""}`,
        );
      }
    },
  },
  {
    command: "teams",
    sub: "show",
    usage: "TEAM [--json]",
    description: "A team's members with their roles, and its recent runs.",
    async run({ api, args, values }) {
      const team = await findTeam(api, args[0], "teams show");
      const t = await ok(api.GET("/api/v1/teams/{id}", { params: { path: { id: team.id } } }));
      if (values.json) return console.log(JSON.stringify(t));
      console.log(
        `${t.name}${t.archivedAt ? " (archived)" : ""}: ${t.members.length} members, ${t.runCount} runs, ${usd(t.spentThisMonthUsd)} spent this month${t.budgetUsd === null ? "" : ` of ${usd(t.budgetUsd)}`}`,
      );
      for (const m of t.members)
        console.log(`  ${m.email.padEnd(32)} ${m.role.padEnd(9)} effective ${m.effectiveRole}${m.disabled ? "  disabled" : ""}`);
    },
  },
  {
    command: "teams",
    sub: "create",
    usage: "NAME [--json]",
    description: "Create a team (admins).",
    async run({ api, args, values }) {
      const name = args.join(" ") || values.name;
      if (!name) throw new CliError("teams create needs a NAME");
      const created = await ok(api.POST("/api/v1/teams", { body: { name } }));
      console.log(values.json ? JSON.stringify(created) : `Team ${name} created`);
    },
  },
  {
    command: "teams",
    sub: "rename",
    usage: "TEAM --name NEW",
    description: "Rename a team (admins and the team's admins).",
    async run({ api, args, values }) {
      const team = await findTeam(api, args[0], "teams rename");
      if (!values.name) throw new CliError("teams rename needs --name NEW");
      await ok(api.PATCH("/api/v1/teams/{id}", { params: { path: { id: team.id } }, body: { name: values.name } }));
      console.log(`Team ${team.name} is now ${values.name}`);
    },
  },
  ...([true, false] as const).map((archived): CliCommand<PeopleValues> => ({
    command: "teams",
    sub: archived ? "archive" : "unarchive",
    usage: "TEAM",
    description: archived
      ? "Archive a team (admins): it takes no new members or runs; its history stays."
      : "Bring an archived team back (admins).",
    async run({ api, args }) {
      const team = await findTeam(api, args[0], archived ? "teams archive" : "teams unarchive");
      await ok(api.PATCH("/api/v1/teams/{id}", { params: { path: { id: team.id } }, body: { archived } }));
      console.log(`Team ${team.name} is ${archived ? "archived" : "active again"}`);
    },
  })),
  {
    command: "teams",
    sub: "add",
    usage: "TEAM --email E --role R",
    description: "Add an existing person to a team with a role in it (admins and the team's admins).",
    async run({ api, args, values }) {
      const team = await findTeam(api, args[0], "teams add");
      if (!values.email) throw new CliError("teams add needs --email E");
      const role = needRole(values, "teams add");
      await ok(api.POST("/api/v1/teams/{id}/members", { params: { path: { id: team.id } }, body: { email: values.email, role } }));
      console.log(`${values.email.toLowerCase()} joined ${team.name} as ${role}`);
    },
  },
  {
    command: "teams",
    sub: "remove",
    usage: "TEAM --email E",
    description: "Remove a member from a team (admins and the team's admins).",
    async run({ api, args, values }) {
      const team = await findTeam(api, args[0], "teams remove");
      const member = await findMember(api, team.id, values.email, "teams remove");
      await ok(api.DELETE("/api/v1/teams/{id}/members/{userId}", { params: { path: { id: team.id, userId: member.userId } } }));
      console.log(`${member.email} left ${team.name}`);
    },
  },
  {
    command: "teams",
    sub: "role",
    usage: "TEAM --email E --role R",
    description: "Change a member's role in a team (admins and the team's admins).",
    async run({ api, args, values }) {
      const team = await findTeam(api, args[0], "teams role");
      const member = await findMember(api, team.id, values.email, "teams role");
      const role = needRole(values, "teams role");
      await ok(
        api.PATCH("/api/v1/teams/{id}/members/{userId}", { params: { path: { id: team.id, userId: member.userId } }, body: { role } }),
      );
      console.log(`${member.email} is now ${role} in ${team.name}`);
    },
  },
];

export const PEOPLE_COMMANDS: CliCommand<PeopleValues>[] = [...USER_COMMANDS, ...TEAM_COMMANDS];
