// REST v1 people, invitations and teams on a real HTTP server
// (docs/people-and-teams.md, docs/api.md): the same rules as the UI (admins
// manage people, a team's admins its members), links on the request's own
// origin, clear 4xx errors that change nothing, and the audit's channel is
// "api" (or "cli" for the CLI).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { authenticateToken, createApiToken, createUser } from "@/server/identity";
import { startRestServer, type RestTestServer } from "@/test/helpers/rest";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let rest: RestTestServer;
const tokens: Record<string, string> = {};

const api = (method: string, path: string, body?: unknown, as = "admin", headers: Record<string, string> = {}) =>
  rest.call(tokens[as], method, path, body, headers);

beforeAll(async () => {
  tk = await createTestKernel();
  for (const role of ["admin", "operator"] as const)
    tokens[role] = (await createApiToken(tk.t.db, { userId: tk.users[role], name: "rest" })).token;
  rest = await startRestServer(testServices(tk));
}, 60_000);

afterAll(async () => {
  await rest?.close();
  await tk.cleanup();
});

describe("REST v1 users and invitations", () => {
  it("admins add, list, change, disable and enable people; the CLI's changes are audited as cli", async () => {
    const created = await api("POST", "/api/v1/users", { email: "Rita@Test.Local", password: "password-123", role: "operator" });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    expect(
      (await api("PATCH", `/api/v1/users/${id}`, { role: "approver", name: "Rita R" }, "admin", { "x-rein-channel": "cli" })).json,
    ).toEqual({ ok: true });
    const token = (await createApiToken(tk.t.db, { userId: id, name: "hers" })).token;
    expect((await api("POST", `/api/v1/users/${id}/disable`)).json).toEqual({ ok: true });
    expect(await authenticateToken(tk.t.db, token)).toBeNull();
    const listed = (await api("GET", "/api/v1/users")).json.users.find((u: { id: string }) => u.id === id);
    expect(listed).toMatchObject({
      email: "rita@test.local",
      name: "Rita R",
      role: "approver",
      status: "disabled",
      teams: [{ name: "default" }],
    });
    expect((await api("POST", `/api/v1/users/${id}/enable`)).json).toEqual({ ok: true });
    const audit = await tk.t.db.auditEntry.findMany({ where: { subject: "rita@test.local" }, orderBy: { id: "asc" } });
    expect(audit.map((a) => `${a.kind} ${a.channel}`)).toEqual([
      "user.created api",
      "user.role_changed cli",
      "user.renamed cli",
      "user.disabled api",
      "user.enabled api",
    ]);
  });

  it.each([
    ["POST", "/api/v1/users", { email: "admin@test.local", password: "password-123", role: "viewer" }, 409, "CONFLICT"],
    ["POST", "/api/v1/users", { email: "new@test.local", password: "short", role: "viewer" }, 400, "INVALID_INPUT"],
    ["POST", "/api/v1/users", { email: "new@test.local", password: "password-123", role: "root" }, 400, "INVALID_INPUT"],
    ["PATCH", "/api/v1/users/no-such-user", { role: "viewer" }, 404, "NOT_FOUND"],
    ["PATCH", "/api/v1/users/no-such-user", {}, 400, "INVALID_INPUT"],
    ["PATCH", "/api/v1/users/no-such-user", { role: "viewer", disabled: true }, 400, "INVALID_INPUT"],
    ["POST", "/api/v1/users/no-such-user/disable", undefined, 404, "NOT_FOUND"],
    ["DELETE", "/api/v1/invitations/no-such-invitation", undefined, 404, "NOT_FOUND"],
    ["POST", "/api/v1/teams", { name: "no/slashes" }, 400, "INVALID_INPUT"],
    ["GET", "/api/v1/teams/no-such-team", undefined, 404, "NOT_FOUND"],
  ] as const)("%s %s %j is %d %s", async (method, path, body, status, errorCode) => {
    const before = await tk.t.db.auditEntry.count();
    const res = await api(method, path, body);
    expect(res.status).toBe(status);
    expect(res.json.error.code).toBe(errorCode);
    expect(res.json.error.message).toBeTruthy();
    expect(await tk.t.db.auditEntry.count()).toBe(before);
  });

  it("refuses removing your own admin role and disabling yourself with 400, changing nothing", async () => {
    const demote = await api("PATCH", `/api/v1/users/${tk.users.admin}`, { role: "viewer" });
    expect(demote).toMatchObject({
      status: 400,
      json: { error: { code: "INVALID_INPUT", message: "You cannot remove your own admin role" } },
    });
    const self = await api("POST", `/api/v1/users/${tk.users.admin}/disable`);
    expect(self).toMatchObject({ status: 400, json: { error: { message: "You cannot disable yourself" } } });
    expect(await tk.t.db.user.findUniqueOrThrow({ where: { id: tk.users.admin } })).toMatchObject({ role: "admin", disabledAt: null });
  });

  it("invites with a link on the request's origin, lists and revokes; reset links likewise", async () => {
    const created = await api("POST", "/api/v1/invitations", { email: "ivy@test.local", role: "viewer" });
    expect(created.status).toBe(201);
    expect(created.json.url).toMatch(new RegExp(`^${rest.base}/invite\\?token=[A-Za-z0-9_-]{43}$`));
    const listed = (await api("GET", "/api/v1/invitations")).json.invitations;
    expect(listed.find((i: { id: string }) => i.id === created.json.id)).toMatchObject({ email: "ivy@test.local", state: "pending" });
    expect(JSON.stringify(listed)).not.toContain(new URL(created.json.url).searchParams.get("token"));
    expect((await api("DELETE", `/api/v1/invitations/${created.json.id}`)).json).toEqual({ ok: true });
    expect((await api("DELETE", `/api/v1/invitations/${created.json.id}`)).status).toBe(409);
    const reset = await api("POST", `/api/v1/users/${tk.users.viewer}/reset-link`);
    expect(reset.status).toBe(200);
    expect(reset.json.url).toMatch(new RegExp(`^${rest.base}/reset\\?token=`));
  });

  it("people routes are for admins: an operator gets 403 and changes nothing", async () => {
    for (const [method, path, body] of [
      ["GET", "/api/v1/users"],
      ["POST", "/api/v1/users", { email: "x@test.local", password: "password-123", role: "admin" }],
      ["PATCH", `/api/v1/users/${tk.users.operator}`, { role: "admin" }],
      ["POST", `/api/v1/users/${tk.users.viewer}/disable`],
      ["POST", `/api/v1/users/${tk.users.viewer}/reset-link`],
      ["GET", "/api/v1/invitations"],
      ["POST", "/api/v1/invitations", { email: "x@test.local", role: "admin" }],
      ["POST", "/api/v1/teams", { name: "Mine" }],
    ] as const) {
      expect((await api(method, path, body, "operator")).status, `${method} ${path}`).toBe(403);
    }
    expect((await tk.t.db.user.findUniqueOrThrow({ where: { id: tk.users.operator } })).role).toBe("operator");
    expect(await tk.t.db.invitation.count({ where: { email: "x@test.local" } })).toBe(0);
  });
});

describe("REST v1 teams", () => {
  it("admins create, rename and archive; a team's admin manages its members; others see nothing of it", async () => {
    const created = await api("POST", "/api/v1/teams", { name: "Gamma" });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    expect((await api("POST", "/api/v1/teams", { name: "gamma" })).status).toBe(409);
    // The operator is made Gamma's admin; as such they add, change and remove members.
    expect((await api("POST", `/api/v1/teams/${id}/members`, { email: "operator@test.local", role: "admin" })).status).toBe(201);
    expect((await api("POST", `/api/v1/teams/${id}/members`, { email: "viewer@test.local", role: "viewer" }, "operator")).status).toBe(201);
    expect((await api("POST", `/api/v1/teams/${id}/members`, { email: "viewer@test.local", role: "viewer" }, "operator")).status).toBe(409);
    expect((await api("PATCH", `/api/v1/teams/${id}/members/${tk.users.viewer}`, { role: "approver" }, "operator")).json).toEqual({
      ok: true,
    });
    const members = (await api("GET", `/api/v1/teams/${id}/members`, undefined, "operator")).json.members;
    expect(members.map((m: { email: string; role: string }) => `${m.email} ${m.role}`).sort()).toEqual([
      "operator@test.local admin",
      "viewer@test.local approver",
    ]);
    const renamed = await api("PATCH", `/api/v1/teams/${id}`, { name: "Gamma Ray" }, "operator");
    expect(renamed).toMatchObject({ status: 200, json: { name: "Gamma Ray", canManage: true } });
    expect((await api("PATCH", `/api/v1/teams/${id}`, { archived: true }, "operator")).status).toBe(403);
    expect((await api("PATCH", `/api/v1/teams/${id}`, { name: "Half done", archived: true }, "operator")).status).toBe(403);
    expect((await api("GET", `/api/v1/teams/${id}`, undefined, "operator")).json).toMatchObject({ name: "Gamma Ray", archivedAt: null });
    expect((await api("DELETE", `/api/v1/teams/${id}/members/${tk.users.viewer}`, undefined, "operator")).json).toEqual({ ok: true });
    expect((await api("PATCH", `/api/v1/teams/${id}`, { archived: true })).json.archivedAt).toBeTruthy();
    expect((await api("POST", `/api/v1/teams/${id}/members`, { email: "viewer@test.local", role: "viewer" })).status).toBe(409);
    const listed = (await api("GET", "/api/v1/teams", undefined, "operator")).json.teams;
    expect(listed.map((t: { name: string; myRole: string }) => `${t.name} ${t.myRole}`)).toEqual(["default operator", "Gamma Ray admin"]);
    const audit = await tk.t.db.auditEntry.findMany({
      where: { kind: { startsWith: "team." }, actorId: tk.users.operator },
      orderBy: { id: "asc" },
    });
    expect(audit.map((a) => `${a.kind} ${a.channel}`)).toEqual([
      "team.member_added api",
      "team.member_role_changed api",
      "team.renamed api",
      "team.member_removed api",
    ]);
  });

  it("another team's member gets 404 for a team they are not in", async () => {
    const { json } = await api("POST", "/api/v1/teams", { name: "Delta" });
    tokens.outsider = (
      await createApiToken(tk.t.db, {
        userId: await createUser(tk.t.db, { email: "out@test.local", password: "password-123", role: "operator", teams: [] }),
        name: "o",
      })
    ).token;
    for (const [method, path, body] of [
      ["GET", `/api/v1/teams/${json.id}`],
      ["GET", `/api/v1/teams/${json.id}/members`],
      ["PATCH", `/api/v1/teams/${json.id}`, { name: "Mine" }],
      ["POST", `/api/v1/teams/${json.id}/members`, { email: "out@test.local", role: "admin" }],
    ] as const) {
      expect((await api(method, path, body, "outsider")).status, `${method} ${path}`).toBe(404);
    }
    expect(await tk.t.db.teamMember.count({ where: { teamId: json.id } })).toBe(0);
  });
});
