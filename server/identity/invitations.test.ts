// Invitation and reset links on a real SQLite database
// (docs/people-and-teams.md#invitations-and-reset-links): each works once (two
// accepts at once: one wins), expired, revoked, replaced and altered links are
// refused with their own message, an invite creates the person with its role
// and team, a reset ends every session.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encode } from "next-auth/jwt";
import { createTestDb, type TestDb } from "@/test/helpers/db";
import {
  LinkThrottle,
  acceptLink,
  authenticateRequest,
  createInvitation,
  createResetLink,
  createUser,
  inspectLink,
  listInvitations,
  loadActor,
  onSessionsEnded,
  revokeInvitation,
  verifyCredentials,
  type Acting,
} from "./index";

const SECRET = "a-test-secret-that-is-long-enough-0123456789";
const BASE = "https://rein.example";

let t: TestDb;
let by: Acting;
let teamId: string;

const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => "accepted",
    (err: { reason?: string }) => err.reason ?? String(err),
  );

beforeEach(async () => {
  t = await createTestDb();
  const adminId = await createUser(t.db, { email: "admin@rein.test", name: "Admin", password: "password-123", role: "admin" });
  by = { actor: (await loadActor(t.db, adminId))!, channel: "admin" };
  teamId = (await t.db.team.create({ data: { name: "Platform" } })).id;
});
afterEach(() => t.cleanup());

describe("invitations", () => {
  it("an invite creates the person with its role and team, once; only the token's hash is stored", async () => {
    const created = await createInvitation(
      t.db,
      by,
      { email: "New@Rein.Test", name: "Nina", role: "operator", teamId, teamRole: "admin" },
      BASE,
    );
    expect(created.url).toMatch(/^https:\/\/rein\.example\/invite\?token=[A-Za-z0-9_-]{43}$/);
    const token = tokenOf(created.url);
    expect(created.expiresAt.getTime() - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    const stored = await t.db.invitation.findUniqueOrThrow({ where: { id: created.id } });
    expect(JSON.stringify(stored)).not.toContain(token);

    expect(await inspectLink(t.db, token)).toEqual({
      kind: "invite",
      email: "new@rein.test",
      name: "Nina",
      role: "operator",
      teamName: "Platform",
      teamRole: "admin",
      invitedBy: "Admin",
      expiresAt: created.expiresAt,
    });
    expect(await acceptLink(t.db, { token, password: "a-good-password" })).toEqual({ email: "new@rein.test" });
    const userId = await verifyCredentials(t.db, "new@rein.test", "a-good-password");
    const actor = await loadActor(t.db, userId!);
    expect(actor).toMatchObject({ name: "Nina", role: "operator", teamIds: [teamId], teamRoles: { [teamId]: "admin" } });

    expect(await refusal(acceptLink(t.db, { token, password: "another-password" }))).toBe("LINK_USED");
    expect(await refusal(inspectLink(t.db, token))).toBe("LINK_USED");
    expect((await listInvitations(t.db)).map((i) => i.state)).toEqual(["used"]);
    const audit = await t.db.auditEntry.findMany({ where: { kind: { startsWith: "invitation." } }, orderBy: { id: "asc" } });
    expect(audit.map((a) => `${a.kind} ${a.actorName}`)).toEqual(["invitation.created Admin", "invitation.accepted Nina"]);
    expect(JSON.stringify(audit)).not.toContain(token);
    expect(JSON.stringify(audit)).not.toContain("a-good-password");
  });

  it("two accepts of one invitation at once: exactly one creates the person", async () => {
    const { url } = await createInvitation(t.db, by, { email: "race@rein.test", role: "viewer" }, BASE);
    const token = tokenOf(url);
    const outcomes = await Promise.all([1, 2, 3].map((i) => refusal(acceptLink(t.db, { token, password: `password-${i}-long` }))));
    expect(outcomes.filter((o) => o === "accepted")).toHaveLength(1);
    expect(outcomes.filter((o) => o !== "accepted").every((o) => o === "LINK_USED" || o === "CONFLICT")).toBe(true);
    expect(await t.db.user.count({ where: { email: "race@rein.test" } })).toBe(1);
  });

  it("refuses an expired, a revoked, a replaced and an altered link, each with its own message", async () => {
    const expired = await createInvitation(t.db, by, { email: "late@rein.test", role: "viewer" }, BASE);
    await t.db.invitation.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expiredErr = await acceptLink(t.db, { token: tokenOf(expired.url), password: "password-123" }).catch((e) => e);
    expect(expiredErr).toMatchObject({ reason: "LINK_EXPIRED", message: expect.stringContaining("expired") });

    const revoked = await createInvitation(t.db, by, { email: "gone@rein.test", role: "viewer" }, BASE);
    await revokeInvitation(t.db, by, revoked.id);
    const revokedErr = await acceptLink(t.db, { token: tokenOf(revoked.url), password: "password-123" }).catch((e) => e);
    expect(revokedErr).toMatchObject({ reason: "LINK_REVOKED", message: expect.stringContaining("withdrawn") });
    expect(await refusal(revokeInvitation(t.db, by, revoked.id))).toBe("CONFLICT");

    const first = await createInvitation(t.db, by, { email: "twice@rein.test", role: "viewer" }, BASE);
    const second = await createInvitation(t.db, by, { email: "twice@rein.test", role: "approver" }, BASE);
    expect(await refusal(inspectLink(t.db, tokenOf(first.url)))).toBe("LINK_REVOKED");
    expect((await inspectLink(t.db, tokenOf(second.url))).role).toBe("approver");

    const token = tokenOf(second.url);
    const altered = token.slice(0, -1) + (token.endsWith("A") ? "B" : "A");
    const alteredErr = await acceptLink(t.db, { token: altered, password: "password-123" }).catch((e) => e);
    expect(alteredErr).toMatchObject({ reason: "LINK_UNKNOWN", message: expect.stringContaining("not valid") });
    expect(new Set([expiredErr.message, revokedErr.message, alteredErr.message]).size).toBe(3);

    expect(await t.db.user.count({ where: { email: { in: ["late@rein.test", "gone@rein.test", "twice@rein.test"] } } })).toBe(0);
    expect((await listInvitations(t.db)).map((i) => `${i.email} ${i.state}`).sort()).toEqual([
      "gone@rein.test revoked",
      "late@rein.test expired",
      "twice@rein.test pending",
      "twice@rein.test revoked",
    ]);
  });

  it("refuses a short password without using the link, an existing e-mail, and an archived team", async () => {
    const { url } = await createInvitation(t.db, by, { email: "short@rein.test", role: "viewer" }, BASE);
    expect(await refusal(acceptLink(t.db, { token: tokenOf(url), password: "short" }))).toBe("INVALID_INPUT");
    expect((await inspectLink(t.db, tokenOf(url))).email).toBe("short@rein.test");
    expect(await refusal(createInvitation(t.db, by, { email: "ADMIN@rein.test", role: "viewer" }, BASE))).toBe("CONFLICT");
    await t.db.team.update({ where: { id: teamId }, data: { archivedAt: new Date() } });
    expect(await refusal(createInvitation(t.db, by, { email: "x@rein.test", role: "viewer", teamId }, BASE))).toBe("CONFLICT");
  });

  it("only admins invite", async () => {
    const operator = (await loadActor(
      t.db,
      await createUser(t.db, { email: "op@rein.test", password: "password-123", role: "operator" }),
    ))!;
    expect(await refusal(createInvitation(t.db, { actor: operator, channel: "api" }, { email: "x@rein.test", role: "admin" }, BASE))).toBe(
      "FORBIDDEN",
    );
    expect(await t.db.invitation.count()).toBe(0);
  });

  it("throttles an address that keeps sending unknown links", async () => {
    const throttle = new LinkThrottle({ addressFreeFailures: 3, baseDelayMs: 60_000 });
    const guard = { address: "203.0.113.9", throttle };
    for (let i = 0; i < 4; i++) expect(await refusal(inspectLink(t.db, `guess-${i}`, guard))).toBe("LINK_UNKNOWN");
    const { url } = await createInvitation(t.db, by, { email: "real@rein.test", role: "viewer" }, BASE);
    expect(await refusal(inspectLink(t.db, tokenOf(url), guard))).toBe("THROTTLED");
    expect(await refusal(inspectLink(t.db, tokenOf(url), { address: "198.51.100.1", throttle }))).toBe("accepted");
  });
});

describe("reset links", () => {
  it("set the password of the person they were made for and end every session of that person", async () => {
    const userId = await createUser(t.db, { email: "forgot@rein.test", password: "old-password", role: "operator" });
    const oldCookie = `next-auth.session-token=${await encode({ token: { sub: userId, sv: 0 }, secret: SECRET })}`;
    expect(await authenticateRequest(t.db, { headers: { cookie: oldCookie } }, SECRET)).not.toBeNull();
    const ended: string[] = [];
    const off = onSessionsEnded((id) => ended.push(id));
    try {
      const link = await createResetLink(t.db, by, userId, BASE);
      expect(link.url).toMatch(/^https:\/\/rein\.example\/reset\?token=/);
      expect(link.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(86_400_000);
      expect(await inspectLink(t.db, tokenOf(link.url))).toMatchObject({
        kind: "reset",
        email: "forgot@rein.test",
        name: "forgot",
        role: "operator",
      });
      expect(await acceptLink(t.db, { token: tokenOf(link.url), password: "new-password" })).toEqual({ email: "forgot@rein.test" });
      expect(ended).toEqual([userId]);
    } finally {
      off();
    }
    expect(await verifyCredentials(t.db, "forgot@rein.test", "new-password")).toBe(userId);
    expect(await verifyCredentials(t.db, "forgot@rein.test", "old-password")).toBeNull();
    expect(await authenticateRequest(t.db, { headers: { cookie: oldCookie } }, SECRET)).toBeNull();
    const newCookie = `next-auth.session-token=${await encode({ token: { sub: userId, sv: 1 }, secret: SECRET })}`;
    expect(await authenticateRequest(t.db, { headers: { cookie: newCookie } }, SECRET)).toMatchObject({ userId });
  });

  it("a newer reset link replaces the older one; a disabled person gets none", async () => {
    const userId = await createUser(t.db, { email: "again@rein.test", password: "old-password", role: "viewer" });
    const first = await createResetLink(t.db, by, userId, BASE);
    await createResetLink(t.db, by, userId, BASE);
    expect(await refusal(acceptLink(t.db, { token: tokenOf(first.url), password: "new-password" }))).toBe("LINK_REVOKED");
    await t.db.user.update({ where: { id: userId }, data: { disabledAt: new Date() } });
    expect(await refusal(createResetLink(t.db, by, userId, BASE))).toBe("CONFLICT");
    expect(await refusal(createResetLink(t.db, by, "no-such-user", BASE))).toBe("NOT_FOUND");
  });
});
