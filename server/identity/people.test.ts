// Managing people on a real SQLite database (docs/people-and-teams.md): the last
// active admin can be neither demoted nor disabled; a disabled person's
// session cookie and API token are refused from the next request and their
// sockets are told to close; lastSeenAt moves at most once a minute.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encode } from "next-auth/jwt";
import { createTestDb, type TestDb } from "@/test/helpers/db";
import {
  addUser,
  authenticateRequest,
  createApiToken,
  createUser,
  disableUser,
  enableUser,
  listUsers,
  loadActor,
  onSessionsEnded,
  setUserRole,
  type Acting,
} from "./index";

const SECRET = "a-test-secret-that-is-long-enough-0123456789";

let t: TestDb;
let adminId: string;
let by: Acting;

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => "accepted",
    (err: { reason?: string }) => err.reason ?? String(err),
  );
const cookieFor = async (sub: string, sv = 0) => ({
  cookie: `next-auth.session-token=${await encode({ token: { sub, sv }, secret: SECRET })}`,
});

beforeEach(async () => {
  t = await createTestDb();
  adminId = await createUser(t.db, { email: "admin@rein.test", password: "password-123", role: "admin" });
  by = { actor: (await loadActor(t.db, adminId))!, channel: "admin" };
});
afterEach(() => t.cleanup());

describe("the last active admin", () => {
  it("cannot be demoted or disabled; can be once another admin exists", async () => {
    // Another admin's session: its actor is all the service needs; the count is of the database's admins.
    const someone: Acting = { actor: { ...by.actor, userId: "another-admin", name: "Other" }, channel: "admin" };
    const demote = await setUserRole(t.db, someone, adminId, "operator").catch((e) => e);
    expect(demote).toMatchObject({
      code: "CONFLICT",
      message: "admin@rein.test is the last active admin and cannot be made operator; make someone else an admin first",
    });
    expect(await refusal(disableUser(t.db, someone, adminId))).toBe("CONFLICT");
    expect(await t.db.user.findUniqueOrThrow({ where: { id: adminId } })).toMatchObject({
      role: "admin",
      disabledAt: null,
      sessionVersion: 0,
    });

    const secondId = await createUser(t.db, { email: "second@rein.test", password: "password-123", role: "operator" });
    await setUserRole(t.db, by, secondId, "admin");
    await setUserRole(t.db, someone, adminId, "approver");
    expect((await t.db.user.findUniqueOrThrow({ where: { id: adminId } })).role).toBe("approver");
    // Now the second is the last one.
    expect(await refusal(disableUser(t.db, someone, secondId))).toBe("CONFLICT");
    expect(await refusal(setUserRole(t.db, someone, secondId, "viewer"))).toBe("CONFLICT");
    await setUserRole(t.db, someone, adminId, "admin");
    await disableUser(t.db, someone, secondId);
    expect((await t.db.user.findUniqueOrThrow({ where: { id: secondId } })).disabledAt).not.toBeNull();
    const audit = await t.db.auditEntry.findMany({ where: { kind: "user.role_changed" }, orderBy: { id: "asc" } });
    expect(audit.map((a) => `${a.subject} ${a.detail}`)).toEqual([
      'second@rein.test {"userId":"' + secondId + '","before":{"role":"operator"},"after":{"role":"admin"}}',
      'admin@rein.test {"userId":"' + adminId + '","before":{"role":"admin"},"after":{"role":"approver"}}',
      'admin@rein.test {"userId":"' + adminId + '","before":{"role":"approver"},"after":{"role":"admin"}}',
    ]);
  });

  it("a disabled admin does not count: demoting the only active one is refused", async () => {
    const dormant = await createUser(t.db, { email: "dormant@rein.test", password: "password-123", role: "admin" });
    await t.db.user.update({ where: { id: dormant }, data: { disabledAt: new Date() } });
    const someone: Acting = { actor: { ...by.actor, userId: "someone-else" }, channel: "api" };
    expect(await refusal(setUserRole(t.db, someone, adminId, "approver"))).toBe("CONFLICT");
    expect(await refusal(disableUser(t.db, someone, adminId))).toBe("CONFLICT");
    expect((await t.db.user.findUniqueOrThrow({ where: { id: adminId } })).role).toBe("admin");
    expect(await t.db.auditEntry.count({ where: { kind: { in: ["user.role_changed", "user.disabled"] } } })).toBe(0);
  });

  it("two admins demoting or disabling each other at once: exactly one wins, an admin is left", async () => {
    for (const [i, change] of (["demote", "disable", "demote", "disable"] as const).entries()) {
      const a = await createUser(t.db, { email: `a${i}@rein.test`, password: "password-123", role: "admin" });
      const b = await createUser(t.db, { email: `b${i}@rein.test`, password: "password-123", role: "admin" });
      // Only these two are admins during this round.
      await t.db.user.updateMany({ where: { role: "admin", id: { notIn: [a, b] } }, data: { role: "operator" } });
      const as = async (actor: string): Promise<Acting> => ({ actor: (await loadActor(t.db, actor))!, channel: "admin" });
      const act = async (actor: string, target: string) =>
        change === "demote" ? setUserRole(t.db, await as(actor), target, "operator") : disableUser(t.db, await as(actor), target);
      const outcomes = await Promise.all([refusal(act(a, b)), refusal(act(b, a))]);
      expect(outcomes.sort()).toEqual(["CONFLICT", "accepted"]);
      expect(await t.db.user.count({ where: { role: "admin", disabledAt: null } })).toBe(1);
    }
  });

  it("nobody disables themselves or removes their own admin role", async () => {
    expect(await refusal(disableUser(t.db, by, adminId))).toBe("INVALID_INPUT");
    expect(await refusal(setUserRole(t.db, by, adminId, "operator"))).toBe("INVALID_INPUT");
  });
});

describe("disabling a person", () => {
  it("refuses their session cookie and API token on the next request and ends their sockets; enabling lets the token back in", async () => {
    const userId = await createUser(t.db, { email: "leaver@rein.test", password: "password-123", role: "operator" });
    const token = (await createApiToken(t.db, { userId, name: "ci" })).token;
    const bearer = { authorization: `Bearer ${token}` };
    const cookie = await cookieFor(userId);
    expect(await authenticateRequest(t.db, { headers: cookie }, SECRET)).toMatchObject({ userId });
    expect(await authenticateRequest(t.db, { headers: bearer }, SECRET)).toMatchObject({ userId });
    const ended: string[] = [];
    const off = onSessionsEnded((id) => ended.push(id));
    try {
      await disableUser(t.db, by, userId);
    } finally {
      off();
    }
    expect(ended).toEqual([userId]);
    expect(await authenticateRequest(t.db, { headers: cookie }, SECRET)).toBeNull();
    expect(await authenticateRequest(t.db, { headers: bearer }, SECRET)).toBeNull();
    expect((await listUsers(t.db)).find((u) => u.id === userId)).toMatchObject({ status: "disabled", disabledAt: expect.any(Date) });

    await enableUser(t.db, by, userId);
    expect(await authenticateRequest(t.db, { headers: bearer }, SECRET)).toMatchObject({ userId });
    // The cookie from before stays dead: its session version is the old one.
    expect(await authenticateRequest(t.db, { headers: cookie }, SECRET)).toBeNull();
    expect(await authenticateRequest(t.db, { headers: await cookieFor(userId, 1) }, SECRET)).toMatchObject({ userId });
    const audit = await t.db.auditEntry.findMany({ where: { subject: "leaver@rein.test" }, orderBy: { id: "asc" } });
    expect(audit.map((a) => `${a.kind} ${a.actorId} ${a.channel}`)).toEqual([
      `user.disabled ${adminId} admin`,
      `user.enabled ${adminId} admin`,
    ]);
    expect(JSON.parse(audit[0].detail)).toMatchObject({ before: { status: "active" }, after: { status: "disabled" } });
  });
});

describe("people", () => {
  it("addUser puts the person in the team with their role there; a taken e-mail is a CONFLICT", async () => {
    const team = await t.db.team.create({ data: { name: "Data" } });
    const { id } = await addUser(t.db, by, {
      email: "Ana@Rein.Test",
      password: "password-123",
      role: "viewer",
      teamId: team.id,
      teamRole: "approver",
    });
    const listed = (await listUsers(t.db)).find((u) => u.id === id)!;
    expect(listed).toMatchObject({
      email: "ana@rein.test",
      name: "ana",
      role: "viewer",
      status: "active",
      lastSeenAt: null,
      teams: [{ id: team.id, name: "Data", role: "approver", effectiveRole: "approver" }],
    });
    expect(await refusal(addUser(t.db, by, { email: "ana@rein.test", password: "password-123", role: "viewer" }))).toBe("CONFLICT");
    expect(await refusal(addUser(t.db, by, { email: "b@rein.test", password: "short", role: "viewer" }))).toBe("INVALID_INPUT");
    expect(
      await refusal(addUser(t.db, by, { email: "c@rein.test", password: "password-123", role: "viewer", teamId: "no-such-team" })),
    ).toBe("NOT_FOUND");
    const audit = await t.db.auditEntry.findFirstOrThrow({ where: { kind: "user.created" } });
    expect(audit.detail).not.toContain("password-123");
  });

  it("an authenticated request notes lastSeenAt, at most once a minute", async () => {
    const userId = await createUser(t.db, { email: "seen@rein.test", password: "password-123", role: "viewer" });
    const headers = await cookieFor(userId);
    await authenticateRequest(t.db, { headers }, SECRET);
    const first = (await t.db.user.findUniqueOrThrow({ where: { id: userId } })).lastSeenAt!;
    expect(Date.now() - first.getTime()).toBeLessThan(5_000);
    await authenticateRequest(t.db, { headers }, SECRET);
    expect((await t.db.user.findUniqueOrThrow({ where: { id: userId } })).lastSeenAt).toEqual(first);
    const earlier = new Date(Date.now() - 61_000);
    await t.db.user.update({ where: { id: userId }, data: { lastSeenAt: earlier } });
    await authenticateRequest(t.db, { headers }, SECRET);
    expect((await t.db.user.findUniqueOrThrow({ where: { id: userId } })).lastSeenAt!.getTime()).toBeGreaterThan(earlier.getTime());
  });
});
