// users.*, invitations.*, teams.* and identity.me through createCaller on a
// real SQLite database (docs/people-and-teams.md). The people procedures are
// for admins; a team is managed by admins and by that team's own admins, and
// people outside a team do not learn it exists.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { authenticateRequest, createUser, loadActor, verifyCredentials, type Actor, type Role } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { encode } from "next-auth/jwt";
import { callerFor } from "@/test/helpers/services";
import { trpcError } from "@/test/helpers/trpc";

let tk: TestKernel;
let teamA: string;
let teamB: string;
/** viewer everywhere, admin of team A */
let adminOfA: Actor;
/** viewer everywhere, admin of team B */
let adminOfB: Actor;
/** operator, a plain member of team A */
let memberOfA: Actor;
let target: string;
let seq = 0;

const caller = (actor: Actor | null, linkBase = "https://rein.example") => callerFor(tk, actor, { linkBase });
const code = (p: Promise<unknown>) =>
  p.then(
    () => "OK",
    (err: { code?: string }) => err.code,
  );
const fresh = async (actor: Actor) => (await loadActor(tk.t.db, actor.userId))!;

async function person(email: string, role: Role, teams: Array<[string, Role]>): Promise<Actor> {
  const id = await createUser(tk.t.db, { email, password: "password-123", role, teams: [] });
  for (const [teamId, teamRole] of teams) await tk.t.db.teamMember.create({ data: { teamId, userId: id, role: teamRole } });
  return (await loadActor(tk.t.db, id))!;
}

beforeAll(async () => {
  tk = await createTestKernel();
  const admin = caller(tk.actors.admin);
  teamA = (await admin.teams.create({ name: "Alpha" })).id;
  teamB = (await admin.teams.create({ name: "Beta" })).id;
  adminOfA = await person("lead-a@test.local", "viewer", [[teamA, "admin"]]);
  adminOfB = await person("lead-b@test.local", "viewer", [[teamB, "admin"]]);
  memberOfA = await person("member-a@test.local", "operator", [[teamA, "operator"]]);
  target = (await person("target@test.local", "viewer", [])).userId;
}, 60_000);
afterAll(async () => {
  await tk?.cleanup();
});

describe("users and invitations are for admins", () => {
  it.each(["viewer", "operator", "approver"] as const)("a global %s is FORBIDDEN every one, and nothing changes", async (role) => {
    const c = caller(tk.actors[role]);
    const calls = [
      c.users.list(),
      c.users.create({ email: `x${++seq}@test.local`, password: "password-123", role: "admin" }),
      c.users.setRole({ id: target, role: "admin" }),
      c.users.disable({ id: target }),
      c.users.enable({ id: target }),
      c.users.resetLink({ id: target }),
      c.invitations.list(),
      c.invitations.create({ email: `y${++seq}@test.local`, role: "admin" }),
      c.invitations.revoke({ id: "any" }),
    ];
    for (const call of calls) expect(await code(call)).toBe("FORBIDDEN");
    expect(await tk.t.db.user.findUniqueOrThrow({ where: { id: target } })).toMatchObject({ role: "viewer", disabledAt: null });
    expect(await tk.t.db.invitation.count({ where: { createdById: tk.users[role] } })).toBe(0);
  });

  it("a team's admin is not a global admin: users.* and invitations.* are FORBIDDEN", async () => {
    expect(await code(caller(adminOfA).users.setRole({ id: memberOfA.userId, role: "admin" }))).toBe("FORBIDDEN");
    expect(await code(caller(adminOfA).invitations.create({ email: "z@test.local", role: "viewer", teamId: teamA }))).toBe("FORBIDDEN");
  });

  it("an admin creates, lists, changes, disables and enables people; each change is audited as admin", async () => {
    const admin = caller(tk.actors.admin);
    const { id } = await admin.users.create({
      email: "Carol@Test.Local",
      name: "Carol",
      password: "password-123",
      role: "operator",
      teamId: teamB,
      teamRole: "approver",
    });
    expect(await admin.users.setRole({ id, role: "approver" })).toEqual({ ok: true });
    expect(await admin.users.disable({ id })).toEqual({ ok: true });
    const listed = (await admin.users.list()).find((u) => u.id === id)!;
    expect(listed).toMatchObject({
      email: "carol@test.local",
      name: "Carol",
      role: "approver",
      status: "disabled",
      teams: [{ id: teamB, name: "Beta", role: "approver", effectiveRole: "approver" }],
    });
    expect(Object.keys(listed)).not.toContain("passwordHash");
    expect(await admin.users.enable({ id })).toEqual({ ok: true });
    expect((await admin.users.list()).find((u) => u.id === id)?.status).toBe("active");
    const audit = await tk.t.db.auditEntry.findMany({ where: { subject: "carol@test.local" }, orderBy: { id: "asc" } });
    expect(audit.map((a) => `${a.kind} ${a.actorId} ${a.channel}`)).toEqual(
      ["user.created", "user.role_changed", "user.disabled", "user.enabled"].map((k) => `${k} ${tk.users.admin} admin`),
    );
    expect((await trpcError(admin.users.create({ email: "carol@test.local", password: "password-123", role: "viewer" }))).code).toBe(
      "CONFLICT",
    );
    expect((await trpcError(admin.users.disable({ id: tk.users.admin }))).message).toBe("You cannot disable yourself");
    expect((await trpcError(admin.users.disable({ id: "no-such-user" }))).code).toBe("NOT_FOUND");
  });

  it("an invitation is created with a link on the server's public address, inspected and accepted without a login, once", async () => {
    const admin = caller(tk.actors.admin, "https://people.example");
    const invited = await admin.invitations.create({
      email: "dora@test.local",
      name: "Dora",
      role: "approver",
      teamId: teamA,
      teamRole: "operator",
    });
    expect(invited.url).toMatch(/^https:\/\/people\.example\/invite\?token=/);
    const token = new URL(invited.url).searchParams.get("token")!;
    const anonymous = caller(null);
    expect(await anonymous.invitations.inspect({ token })).toMatchObject({
      kind: "invite",
      email: "dora@test.local",
      name: "Dora",
      role: "approver",
      teamName: "Alpha",
      invitedBy: "admin",
    });
    expect((await admin.invitations.list()).find((i) => i.id === invited.id)).toMatchObject({
      state: "pending",
      team: { id: teamA, name: "Alpha" },
      teamRole: "operator",
      createdBy: { id: tk.users.admin },
    });
    expect((await trpcError(anonymous.invitations.accept({ token, password: "short" }))).code).toBe("BAD_REQUEST");
    expect(await anonymous.invitations.accept({ token, password: "dora-password" })).toEqual({ email: "dora@test.local" });
    const used = await trpcError(anonymous.invitations.accept({ token, password: "dora-password" }));
    expect(used).toMatchObject({ code: "CONFLICT", message: expect.stringContaining("already been used") });
    expect((await trpcError(anonymous.invitations.inspect({ token: "tampered" }))).code).toBe("NOT_FOUND");
    expect((await admin.invitations.list()).find((i) => i.id === invited.id)?.state).toBe("used");
    expect((await trpcError(admin.invitations.revoke({ id: invited.id }))).code).toBe("CONFLICT");
    expect((await trpcError(admin.invitations.create({ email: "dora@test.local", role: "viewer" }))).code).toBe("CONFLICT");
  });

  it("a reset link sets the password and ends the person's sessions", async () => {
    const id = await createUser(tk.t.db, { email: "eve@test.local", password: "old-password", role: "viewer" });
    const secret = "router-test-secret-long-enough-000000";
    const cookie = { cookie: `next-auth.session-token=${await encode({ token: { sub: id, sv: 0 }, secret })}` };
    expect(await authenticateRequest(tk.t.db, { headers: cookie }, secret)).not.toBeNull();
    const { url, expiresAt } = await caller(tk.actors.admin).users.resetLink({ id });
    expect(url).toMatch(/\/reset\?token=/);
    expect(expiresAt.getTime()).toBeGreaterThan(Date.now());
    const token = new URL(url).searchParams.get("token")!;
    expect(await caller(null).invitations.inspect({ token })).toMatchObject({ kind: "reset", email: "eve@test.local" });
    await caller(null).invitations.accept({ token, password: "new-password" });
    expect(await verifyCredentials(tk.t.db, "eve@test.local", "new-password")).toBe(id);
    expect(await authenticateRequest(tk.t.db, { headers: cookie }, secret)).toBeNull();
  });
});

describe("teams", () => {
  it("list: admins see every team, others theirs, with their role, members, spend, runs and policy rules", async () => {
    const month = new Date().toISOString().slice(0, 7);
    await tk.t.db.costRollup.create({ data: { day: `${month}-01`, teamId: teamA, workflowId: "w", model: "m", costUsd: 1.25 } });
    await tk.t.db.team.update({ where: { id: teamA }, data: { budgetUsd: 10 } });
    await tk.t.db.policyDocument.create({
      data: {
        version: 100,
        source:
          'rules:\n  - { team: Alpha, tool: shell, decision: ask }\n  - { team: [Alpha, Beta], decision: allow }\n  - { team: "Al*", decision: deny }\n  - { tool: "*", decision: allow }\n',
      },
    });
    const run = await createRun(tk.kernel, { goal: "In Alpha", agent: "demo-coder", scenario: [{ text: "hi" }] }, await fresh(memberOfA));
    await tk.settle(run.id);
    await tk.t.db.run.update({ where: { id: run.id }, data: { teamId: teamA } });

    const mine = await caller(memberOfA).teams.list();
    expect(mine).toEqual([
      {
        id: teamA,
        name: "Alpha",
        archivedAt: null,
        memberCount: expect.any(Number),
        myRole: "operator",
        budgetUsd: 10,
        spentThisMonthUsd: 1.25,
        runCount: 1,
        activeRunCount: 0,
        policyRules: 2,
      },
    ]);
    const all = await caller(tk.actors.admin).teams.list();
    expect(all.map((t) => `${t.name} ${t.myRole} ${t.policyRules}`)).toEqual(["Alpha admin 2", "Beta admin 1", "default admin 0"]);
    expect((await caller(adminOfB).teams.list()).map((t) => `${t.name} ${t.myRole}`)).toEqual(["Beta admin"]);
  });

  it("get: members and admins see a team; others get NOT_FOUND", async () => {
    const team = await caller(adminOfA).teams.get({ id: teamA });
    expect(team).toMatchObject({ id: teamA, name: "Alpha", myRole: "admin", canManage: true });
    expect(team.members.find((m) => m.userId === memberOfA.userId)).toMatchObject({
      email: "member-a@test.local",
      role: "operator",
      ownRole: "operator",
      effectiveRole: "operator",
      disabled: false,
    });
    expect(team.members.find((m) => m.userId === adminOfA.userId)).toMatchObject({
      role: "admin",
      ownRole: "viewer",
      effectiveRole: "admin",
    });
    expect((await caller(memberOfA).teams.get({ id: teamA })).canManage).toBe(false);
    expect((await caller(tk.actors.admin).teams.get({ id: teamA })).canManage).toBe(true);
    expect((await trpcError(caller(adminOfB).teams.get({ id: teamA }))).code).toBe("NOT_FOUND");
    expect((await trpcError(caller(tk.actors.viewer).teams.get({ id: teamA }))).code).toBe("NOT_FOUND");
  });

  // Who may manage team A's members and name: admins and A's admins; B's admin gets NOT_FOUND, A's plain member FORBIDDEN.
  const MANAGERS: Array<[string, () => Actor, string]> = [
    ["the admin of team A", () => adminOfA, "OK"],
    ["the admin of team B", () => adminOfB, "NOT_FOUND"],
    ["the global admin", () => tk.actors.admin, "OK"],
    ["a plain member of team A", () => memberOfA, "FORBIDDEN"],
  ];

  it.each(MANAGERS)("%s managing team A's members: %s", async (_who, actorOf, expected) => {
    const c = caller(actorOf());
    const email = `joiner-${++seq}@test.local`;
    const joiner = await createUser(tk.t.db, { email, password: "password-123", role: "viewer", teams: [] });
    expect(await code(c.teams.addMember({ teamId: teamA, email, role: "approver" }))).toBe(expected);
    if (expected !== "OK") await tk.t.db.teamMember.create({ data: { teamId: teamA, userId: joiner, role: "approver" } });
    expect(await code(c.teams.setMemberRole({ teamId: teamA, userId: joiner, role: "viewer" }))).toBe(expected);
    expect(await code(c.teams.rename({ id: teamA, name: "Alpha" }))).toBe(expected);
    const left = await code(c.teams.removeMember({ teamId: teamA, userId: joiner }));
    expect(left).toBe(expected);
    const row = await tk.t.db.teamMember.findUnique({ where: { teamId_userId: { teamId: teamA, userId: joiner } } });
    if (expected === "OK") expect(row).toBeNull();
    else expect(row?.role).toBe("approver"); // refused calls changed nothing
    const audited = await tk.t.db.auditEntry.findMany({
      where: { kind: { startsWith: "team.member" }, detail: { contains: joiner } },
      orderBy: { id: "asc" },
    });
    expect(audited.map((a) => `${a.kind} ${a.actorId}`)).toEqual(
      expected === "OK"
        ? ["team.member_added", "team.member_role_changed", "team.member_removed"].map((k) => `${k} ${actorOf().userId}`)
        : [],
    );
  });

  it.each(MANAGERS)("%s: creating, archiving and unarchiving teams is for global admins only", async (_who, actorOf) => {
    const c = caller(actorOf());
    const global = actorOf().role === "admin";
    expect(await code(c.teams.create({ name: `Team ${++seq}` }))).toBe(global ? "OK" : "FORBIDDEN");
    expect(await code(c.teams.archive({ id: teamB }))).toBe(global ? "OK" : "FORBIDDEN");
    expect(await code(c.teams.unarchive({ id: teamB }))).toBe(global ? "OK" : "FORBIDDEN");
    expect((await tk.t.db.team.findUniqueOrThrow({ where: { id: teamB } })).archivedAt).toBeNull();
  });

  it("a team's admin renames it; names are checked and unique in any case", async () => {
    const c = caller(adminOfA);
    expect(await c.teams.rename({ id: teamA, name: "Alpha Squad" })).toEqual({ ok: true });
    expect((await tk.t.db.team.findUniqueOrThrow({ where: { id: teamA } })).name).toBe("Alpha Squad");
    expect(await tk.t.db.auditEntry.findFirst({ where: { kind: "team.renamed", actorId: adminOfA.userId } })).toMatchObject({
      detail: expect.stringContaining('"before":{"name":"Alpha"}'),
    });
    const taken = await trpcError(c.teams.rename({ id: teamA, name: "beta" }));
    expect(taken).toMatchObject({ code: "CONFLICT", message: "There is already a team named Beta" });
    expect((await trpcError(caller(tk.actors.admin).teams.create({ name: "ALPHA squad" }))).code).toBe("CONFLICT");
    expect((await trpcError(c.teams.rename({ id: teamA, name: "a/b" }))).message).toContain("letters, digits, spaces");
    expect((await trpcError(c.teams.rename({ id: teamA, name: "x".repeat(65) }))).code).toBe("BAD_REQUEST");
    expect((await trpcError(c.teams.rename({ id: teamA, name: "   " }))).code).toBe("BAD_REQUEST");
    await c.teams.rename({ id: teamA, name: "Alpha" });
  });

  it("an archived team takes no new members; adding a member twice or an unknown person is refused", async () => {
    const admin = caller(tk.actors.admin);
    const { id } = await admin.teams.create({ name: "Old team" });
    await admin.teams.addMember({ teamId: id, email: "target@test.local", role: "viewer" });
    expect((await trpcError(admin.teams.addMember({ teamId: id, email: "target@test.local", role: "viewer" }))).code).toBe("CONFLICT");
    expect((await trpcError(admin.teams.addMember({ teamId: id, email: "nobody@test.local", role: "viewer" }))).code).toBe("NOT_FOUND");
    await admin.teams.archive({ id });
    const archived = await trpcError(admin.teams.addMember({ teamId: id, email: "member-a@test.local", role: "viewer" }));
    expect(archived).toMatchObject({ code: "CONFLICT", message: "The team Old team is archived and takes no new members" });
    expect((await admin.teams.list()).find((t) => t.id === id)?.archivedAt).toBeInstanceOf(Date);
    expect(
      (await trpcError(admin.users.create({ email: "late@test.local", password: "password-123", role: "viewer", teamId: id }))).code,
    ).toBe("CONFLICT");
  });
});

describe("identity.me", () => {
  it("lists the caller's teams with the effective role in each, and the team New run offers first", async () => {
    await tk.t.db.user.update({ where: { id: memberOfA.userId }, data: { lastTeamId: teamA } });
    const me = await caller(await fresh(memberOfA)).identity.me();
    expect(me).toEqual({
      userId: memberOfA.userId,
      email: "member-a@test.local",
      name: "member-a",
      role: "operator",
      teamIds: [teamA],
      teams: [{ id: teamA, name: "Alpha", role: "operator", archived: false }],
      lastTeamId: teamA,
    });
    // A team the person left is not offered.
    await tk.t.db.user.update({ where: { id: adminOfB.userId }, data: { lastTeamId: teamA } });
    expect((await caller(await fresh(adminOfB)).identity.me()).lastTeamId).toBeNull();
    const adminTeams = (await caller(tk.actors.admin).identity.me()).teams;
    expect(adminTeams.every((t) => t.role === "admin")).toBe(true);
    expect(adminTeams.map((t) => t.id)).toEqual(expect.arrayContaining([teamA, teamB]));
  });
});
