// Who a request is: an Auth.js session cookie or an API token, checked the
// way server.ts, tRPC, REST and socket.io all do it.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encode } from "next-auth/jwt";
import { createTestDb, type TestDb } from "@/test/helpers/db";
import { authenticateRequest, createApiToken, createUser, revokeApiToken } from "./index";
import { parseCookies } from "./request";

const SECRET = "a-test-secret-that-is-long-enough-0123456789";

describe("authenticateRequest", () => {
  let t: TestDb;
  let userId: string;

  beforeEach(async () => {
    t = await createTestDb();
    userId = await createUser(t.db, { email: "Op@Rein.Test", password: "password-123", role: "operator" });
  });
  afterEach(() => t.cleanup());

  const cookieFor = async (sub: string, secret = SECRET) =>
    `theme=dark; next-auth.session-token=${await encode({ token: { sub }, secret })}; other=1`;

  it("accepts a valid session cookie and reads the role from the database", async () => {
    const actor = await authenticateRequest(t.db, { headers: { cookie: await cookieFor(userId) } }, SECRET);
    expect(actor).toMatchObject({ userId, email: "op@rein.test", role: "operator", via: "session" });
    await t.db.user.update({ where: { id: userId }, data: { role: "viewer" } });
    expect((await authenticateRequest(t.db, { headers: { cookie: await cookieFor(userId) } }, SECRET))?.role).toBe("viewer");
  });

  it("refuses a cookie signed with another secret, a garbage cookie, a disabled user and no credentials", async () => {
    expect(
      await authenticateRequest(
        t.db,
        { headers: { cookie: await cookieFor(userId, "another-secret-that-is-long-enough-000000") } },
        SECRET,
      ),
    ).toBeNull();
    expect(await authenticateRequest(t.db, { headers: { cookie: "next-auth.session-token=garbage" } }, SECRET)).toBeNull();
    expect(await authenticateRequest(t.db, { headers: {} }, SECRET)).toBeNull();
    await t.db.user.update({ where: { id: userId }, data: { disabledAt: new Date() } });
    expect(await authenticateRequest(t.db, { headers: { cookie: await cookieFor(userId) } }, SECRET)).toBeNull();
  });

  it("accepts an API token and refuses it once revoked", async () => {
    const created = await createApiToken(t.db, { userId, name: "ci" });
    const headers = { authorization: `Bearer ${created.token}` };
    expect(await authenticateRequest(t.db, { headers }, SECRET)).toMatchObject({ userId, via: "token" });
    await revokeApiToken(t.db, userId, created.id);
    expect(await authenticateRequest(t.db, { headers }, SECRET)).toBeNull();
  });

  it("parses cookie headers", () => {
    expect(parseCookies("a=1; b=x%20y; =bad; c")).toEqual({ a: "1", b: "x y" });
    expect(parseCookies(undefined)).toEqual({});
  });
});
