// Attack suite: team gateway keys (docs/gateway.md#team-keys). Only a team's
// admins (or admins) issue, list and revoke its keys; another team's admin
// learns nothing of them; the key is never stored, logged or audited; a
// revoked or expired key is refused; a foreign or oversized value is refused
// before anything hashes it; and a page of another site cannot issue a key
// with an admin's session cookie (server.ts's origin check).
import crypto from "node:crypto";
import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { createTestDb, type TestDb } from "../helpers/db";
import { freePort, spawnServer, type ServerProcess } from "../helpers/server-process";
import { callerFor } from "../helpers/services";
import { startGatewayKeyServer, type GatewayKeyServer } from "../helpers/gateway-keys";

let tk: TestKernel;
let gk: GatewayKeyServer;
let teamA: string;
let adminOfB: Actor;

const as = (actor: Actor) => callerFor(tk, actor);

async function chat(headers: Record<string, string>) {
  const res = await fetch(`${gk.base}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
  });
  return { status: res.status, body: await res.text() };
}

async function refusal(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => "OK",
    (err: { code?: string }) => err.code ?? "?",
  );
}

beforeAll(async () => {
  tk = await createTestKernel({ telemetry: true });
  gk = await startGatewayKeyServer(tk);
  teamA = tk.actors.operator.teamIds[0];
  // A viewer in Rein who is an admin of team B alone, and no member of team A.
  const id = await createUser(tk.t.db, { email: "b-admin@test.local", password: "test-password-1", role: "viewer", teams: ["team-b"] });
  const teamB = (await tk.t.db.team.findUniqueOrThrow({ where: { name: "team-b" }, select: { id: true } })).id;
  await as(tk.actors.admin).teams.setMemberRole({ teamId: teamB, userId: id, role: "admin" });
  adminOfB = (await loadActor(tk.t.db, id))!;
  expect(adminOfB.teamIds).toEqual([teamB]);
}, 60_000);

afterAll(async () => {
  await gk?.close();
  await tk?.cleanup();
});

describe("who manages a team's keys", () => {
  it("a non-admin of the team can neither issue, list nor revoke its keys", async () => {
    const made = await as(tk.actors.admin).gatewayKeys.create({ teamId: teamA, name: "a-key" });
    for (const role of ["viewer", "operator", "approver"] as const) {
      const actor = tk.actors[role];
      expect(await refusal(as(actor).gatewayKeys.create({ teamId: teamA, name: "mine" }))).toBe("FORBIDDEN");
      expect(await refusal(as(actor).gatewayKeys.revoke({ id: made.gatewayKey.id }))).toBe("FORBIDDEN");
      expect(await refusal(as(actor).gatewayKeys.list({ teamId: teamA }))).toBe("FORBIDDEN");
    }
    expect(await tk.t.db.gatewayKey.count({ where: { name: "mine" } })).toBe(0);
    expect((await tk.t.db.gatewayKey.findUniqueOrThrow({ where: { id: made.gatewayKey.id } })).revokedAt).toBeNull();
  });

  it("an admin of team B cannot list, revoke or issue team A's keys, nor learn they exist", async () => {
    const made = await as(tk.actors.admin).gatewayKeys.create({ teamId: teamA, name: "a-secret-project" });
    expect(await refusal(as(adminOfB).gatewayKeys.list({ teamId: teamA }))).toBe("NOT_FOUND");
    expect(await refusal(as(adminOfB).gatewayKeys.revoke({ id: made.gatewayKey.id }))).toBe("NOT_FOUND");
    expect(await refusal(as(adminOfB).gatewayKeys.create({ teamId: teamA, name: "planted" }))).toBe("NOT_FOUND");
    const own = await as(adminOfB).gatewayKeys.list({});
    expect(own.every((k) => k.team.id !== teamA)).toBe(true);
    expect((await tk.t.db.gatewayKey.findUniqueOrThrow({ where: { id: made.gatewayKey.id } })).revokedAt).toBeNull();
    // Their own team's keys they do manage.
    const theirs = await as(adminOfB).gatewayKeys.create({ teamId: adminOfB.teamIds[0], name: "b-key" });
    expect((await as(adminOfB).gatewayKeys.revoke({ id: theirs.gatewayKey.id })).state).toBe("revoked");
  });
});

describe("the key itself", () => {
  it("is nowhere in the database, the gateway's log or the audit log, after it was made, used and revoked", async () => {
    const made = await as(tk.actors.admin).gatewayKeys.create({ teamId: teamA, name: "leak-check", model: "scripted/demo-coder" });
    expect((await chat({ authorization: `Bearer ${made.key}` })).status).toBe(200);
    await chat({ "x-api-key": made.key.slice(0, -1) + (made.key.endsWith("A") ? "B" : "A") });
    await as(tk.actors.admin).gatewayKeys.revoke({ id: made.gatewayKey.id });
    expect((await chat({ authorization: `Bearer ${made.key}` })).status).toBe(401);
    await tk.telemetry!.settle();
    const tables = await tk.t.db.$queryRawUnsafe<Array<{ name: string }>>(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`,
    );
    expect(tables.length).toBeGreaterThan(20);
    const random = made.key.slice("rein_gk_".length + 6);
    for (const { name } of tables) {
      const rows = await tk.t.db.$queryRawUnsafe<unknown[]>(`SELECT * FROM "${name}"`);
      const text = JSON.stringify(rows, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v));
      expect(text.includes(random), `table ${name} holds the key`).toBe(false);
    }
    expect(gk.logged.join("\n")).not.toContain(random);
    const audit = await as(tk.actors.admin).audit.list({});
    expect(JSON.stringify(audit)).not.toContain(random);
  });

  it("is refused once expired, and once revoked", async () => {
    const made = await as(tk.actors.admin).gatewayKeys.create({
      teamId: teamA,
      name: "short-lived",
      model: "scripted/demo-coder",
      expiresInDays: 1,
    });
    expect((await chat({ authorization: `Bearer ${made.key}` })).status).toBe(200);
    await tk.t.db.gatewayKey.update({ where: { id: made.gatewayKey.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await chat({ authorization: `Bearer ${made.key}` });
    expect(expired.status).toBe(401);
    expect(expired.body).toContain("has expired");
    const again = await as(tk.actors.admin).gatewayKeys.create({ teamId: teamA, name: "revoked", model: "scripted/demo-coder" });
    await as(tk.actors.admin).gatewayKeys.revoke({ id: again.gatewayKey.id });
    const revoked = await chat({ "x-api-key": again.key });
    expect(revoked.status).toBe(401);
    expect(JSON.parse(revoked.body).error.code).toBe("invalid_api_key");
  });

  it("a value with another prefix, or a 10 KB header, is refused without being hashed or looked up", async () => {
    const made = await as(tk.actors.admin).gatewayKeys.create({ teamId: teamA, name: "prefix-check" });
    const hashes = vi.spyOn(crypto, "createHash");
    try {
      const foreign: Array<Record<string, string>> = [
        { authorization: `Bearer rein_gw_${made.key.slice(8)}` },
        { "x-api-key": `sk-${made.key.slice(8)}` },
        { authorization: `Bearer rein_gk_${"A".repeat(10 * 1024)}` },
        { "x-api-key": `rein_gk_${"B".repeat(10 * 1024)}` },
      ];
      for (const headers of foreign) {
        hashes.mockClear();
        const res = await chat(headers);
        expect(res.status).toBe(401);
        expect(hashes.mock.calls.filter(([algorithm]) => algorithm === "sha256")).toEqual([]);
      }
    } finally {
      hashes.mockRestore();
    }
  });
});

describe("issuing a key from another site", () => {
  const SECRET = "gateway-keys-attack-secret-0123456789abcdef";
  let t: TestDb;
  let server: ServerProcess;
  let cookie: string;
  let foreign: string;

  beforeAll(async () => {
    t = await createTestDb();
    const userId = await createUser(t.db, { email: "admin@rein.test", password: "password-123", role: "admin" });
    cookie = `next-auth.session-token=${await encode({ token: { sub: userId }, secret: SECRET })}`;
    const port = await freePort();
    const s = spawnServer({
      REIN_DATA_DIR: t.dir,
      PORT: String(port),
      REIN_UI: "off",
      REIN_POD_POOL_SIZE: "0",
      NEXTAUTH_SECRET: SECRET,
      REIN_PUBLIC_URL: `http://localhost:${port}`,
    });
    await s.ready;
    server = s;
    foreign = `http://127.0.0.1:${port + 1}`;
  }, 60_000);

  afterAll(async () => {
    await server?.kill("SIGTERM");
    await t?.cleanup();
  });

  it("is refused: an admin's cookie sent by another site's page issues and revokes nothing", async () => {
    const team = await t.db.team.findFirstOrThrow({ select: { id: true } });
    const post = (origin: string) =>
      fetch(`${server.url}/api/v1/gateway-keys`, {
        method: "POST",
        headers: { cookie, origin, "content-type": "application/json" },
        body: JSON.stringify({ teamId: team.id, name: "forged" }),
      });
    const forged = await post(foreign);
    expect(forged.status).toBe(403);
    expect(await t.db.gatewayKey.count()).toBe(0);
    // The same request from Rein's own page is taken, and the key it gets works on Rein's port.
    const own = await post(server.url);
    expect(own.status, await own.clone().text()).toBe(201);
    const { key, gatewayKey } = (await own.json()) as { key: string; gatewayKey: { id: string } };
    const models = await fetch(`${server.url}/api/gateway/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(models.status).toBe(200);
    const revoke = await fetch(`${server.url}/api/v1/gateway-keys/${gatewayKey.id}`, {
      method: "DELETE",
      headers: { cookie, origin: foreign },
    });
    expect(revoke.status).toBe(403);
    expect((await t.db.gatewayKey.findUniqueOrThrow({ where: { id: gatewayKey.id } })).revokedAt).toBeNull();
    expect(server.output()).not.toContain(key.slice(14));
  });
});
