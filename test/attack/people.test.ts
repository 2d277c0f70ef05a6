// Attack suite: people, teams and their links (docs/security.md#the-attack-suite).
// A team's admin manages that team only: not another team's members, not
// anybody's global role, not their own way into another team. Only admins
// invite. An invitation or reset link works once and not after it expires;
// nothing sent with it (another person's id or e-mail, a role) reaches
// anybody but the person it was made for. A disabled person's API token
// and session are refused at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encode } from "next-auth/jwt";
import { callerFor } from "@/test/helpers/services";
import { authenticateRequest, createApiToken, createUser, loadActor, verifyCredentials, type Actor } from "@/server/identity";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { trpcError } from "../helpers/trpc";

const SECRET = "attack-test-secret-that-is-long-enough-000";

let tk: TestKernel;
let teamA: string;
let teamB: string;
let leadOfA: Actor;
let memberOfB: string;

const caller = (actor: Actor | null) => callerFor(tk, actor, { linkBase: "https://rein.example" });
const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;
const admin = () => caller(tk.actors.admin);

beforeAll(async () => {
  tk = await createTestKernel();
  teamA = (await admin().teams.create({ name: "Team A" })).id;
  teamB = (await admin().teams.create({ name: "Team B" })).id;
  const leadId = await createUser(tk.t.db, { email: "lead@a.test", password: "password-123", role: "viewer", teams: [] });
  await tk.t.db.teamMember.create({ data: { teamId: teamA, userId: leadId, role: "admin" } });
  leadOfA = (await loadActor(tk.t.db, leadId))!;
  memberOfB = await createUser(tk.t.db, { email: "member@b.test", password: "password-123", role: "viewer", teams: [] });
  await tk.t.db.teamMember.create({ data: { teamId: teamB, userId: memberOfB, role: "viewer" } });
}, 60_000);

afterAll(async () => tk?.cleanup());

describe("a team's admin", () => {
  it("cannot add members to another team, change their roles there, remove them or rename it", async () => {
    const lead = caller(leadOfA);
    const before = await tk.t.db.teamMember.findMany({ where: { teamId: teamB }, orderBy: { userId: "asc" } });
    for (const attempt of [
      lead.teams.addMember({ teamId: teamB, email: "lead@a.test", role: "admin" }),
      lead.teams.addMember({ teamId: teamB, email: "operator@test.local", role: "operator" }),
      lead.teams.setMemberRole({ teamId: teamB, userId: memberOfB, role: "admin" }),
      lead.teams.removeMember({ teamId: teamB, userId: memberOfB }),
      lead.teams.rename({ id: teamB, name: "Owned" }),
    ]) {
      expect((await trpcError(attempt)).code).toBe("NOT_FOUND");
    }
    expect(await tk.t.db.teamMember.findMany({ where: { teamId: teamB }, orderBy: { userId: "asc" } })).toEqual(before);
    expect((await tk.t.db.team.findUniqueOrThrow({ where: { id: teamB } })).name).toBe("Team B");
  });

  it("cannot change anybody's global role, their own included, nor archive a team", async () => {
    const lead = caller(leadOfA);
    expect((await trpcError(lead.users.setRole({ id: leadOfA.userId, role: "admin" }))).code).toBe("FORBIDDEN");
    expect((await trpcError(lead.users.setRole({ id: memberOfB, role: "admin" }))).code).toBe("FORBIDDEN");
    expect((await trpcError(lead.users.disable({ id: memberOfB }))).code).toBe("FORBIDDEN");
    expect((await trpcError(lead.teams.archive({ id: teamA }))).code).toBe("FORBIDDEN");
    expect((await tk.t.db.user.findUniqueOrThrow({ where: { id: leadOfA.userId } })).role).toBe("viewer");
    expect((await tk.t.db.user.findUniqueOrThrow({ where: { id: memberOfB } })).role).toBe("viewer");
  });
});

describe("invitations", () => {
  it("only admins invite: team admins, approvers and operators are refused and no link exists", async () => {
    for (const actor of [leadOfA, tk.actors.approver, tk.actors.operator, tk.actors.viewer]) {
      const err = await trpcError(caller(actor).invitations.create({ email: "sneaky@evil.test", role: "admin", teamId: teamA }));
      expect(err.code).toBe("FORBIDDEN");
    }
    expect(await tk.t.db.invitation.count({ where: { email: "sneaky@evil.test" } })).toBe(0);
  });

  it("an invitation works once and not after it expires; the role comes from the invitation, not the request", async () => {
    const once = await admin().invitations.create({ email: "once@test.local", role: "viewer" });
    const anonymous = caller(null);
    const accept = (token: string, extra: Record<string, unknown> = {}) =>
      anonymous.invitations.accept({ token, password: "password-123", ...extra } as never);
    await accept(tokenOf(once.url), { role: "admin", teamId: teamB, teamRole: "admin", email: "admin@test.local" });
    const user = await tk.t.db.user.findUniqueOrThrow({ where: { email: "once@test.local" }, include: { memberships: true } });
    expect(user.role).toBe("viewer");
    expect(user.memberships).toEqual([]);
    expect((await trpcError(accept(tokenOf(once.url)))).code).toBe("CONFLICT");

    const late = await admin().invitations.create({ email: "late@test.local", role: "viewer" });
    await tk.t.db.invitation.update({ where: { id: late.id }, data: { expiresAt: new Date(Date.now() - 1) } });
    expect((await trpcError(accept(tokenOf(late.url)))).message).toMatch(/expired/);
    expect(await tk.t.db.user.count({ where: { email: "late@test.local" } })).toBe(0);
  });
});

describe("reset links", () => {
  it("set only the password of the person they were made for, whatever else is sent or altered", async () => {
    const x = await createUser(tk.t.db, { email: "x@test.local", password: "x-old-password", role: "viewer" });
    const y = await createUser(tk.t.db, { email: "y@test.local", password: "y-old-password", role: "admin" });
    const { url } = await admin().users.resetLink({ id: x });
    const token = tokenOf(url);
    const anonymous = caller(null);
    // An altered token is no token at all.
    const altered = token.slice(0, -2) + (token.endsWith("AA") ? "BB" : "AA");
    expect((await trpcError(anonymous.invitations.accept({ token: altered, password: "attacker-password" }))).code).toBe("NOT_FOUND");
    // Another person's id or e-mail sent beside the token changes nothing about whose password it sets.
    await anonymous.invitations.accept({ token, password: "attacker-password", userId: y, email: "y@test.local", id: y } as never);
    expect(await verifyCredentials(tk.t.db, "y@test.local", "y-old-password")).toBe(y);
    expect(await verifyCredentials(tk.t.db, "y@test.local", "attacker-password")).toBeNull();
    expect(await verifyCredentials(tk.t.db, "x@test.local", "attacker-password")).toBe(x);
    expect((await tk.t.db.user.findUniqueOrThrow({ where: { id: y } })).sessionVersion).toBe(0);
    // And it works once.
    expect((await trpcError(anonymous.invitations.accept({ token, password: "second-password" }))).code).toBe("CONFLICT");
    expect(await verifyCredentials(tk.t.db, "x@test.local", "second-password")).toBeNull();
  });

  it("a reset link cannot be turned into an invitation: it creates nobody and grants no role", async () => {
    const z = await createUser(tk.t.db, { email: "z@test.local", password: "z-old-password", role: "viewer" });
    const { url } = await admin().users.resetLink({ id: z });
    await tk.t.db.user.delete({ where: { id: z } });
    const err = await trpcError(caller(null).invitations.accept({ token: tokenOf(url), password: "new-password" }));
    expect(err.code).toBe("CONFLICT");
    expect(await tk.t.db.user.count({ where: { email: "z@test.local" } })).toBe(0);
  });
});

describe("a disabled person", () => {
  it("is refused with their API token and their session cookie on the very next request", async () => {
    const id = await createUser(tk.t.db, { email: "fired@test.local", password: "password-123", role: "admin" });
    const token = (await createApiToken(tk.t.db, { userId: id, name: "laptop" })).token;
    const cookie = `next-auth.session-token=${await encode({ token: { sub: id, sv: 0 }, secret: SECRET })}`;
    expect(await authenticateRequest(tk.t.db, { headers: { authorization: `Bearer ${token}` } }, SECRET)).not.toBeNull();
    await admin().users.disable({ id });
    expect(await authenticateRequest(tk.t.db, { headers: { authorization: `Bearer ${token}` } }, SECRET)).toBeNull();
    expect(await authenticateRequest(tk.t.db, { headers: { cookie } }, SECRET)).toBeNull();
    // Enabling does not revive the old session: its version is spent.
    await admin().users.enable({ id });
    expect(await authenticateRequest(tk.t.db, { headers: { cookie } }, SECRET)).toBeNull();
  });
});
