// Ending a person's sessions against the real server (docs/people-and-teams.md,
// docs/security.md#authentication-roles-and-teams): when an admin disables
// someone, or their password is reset through a link, the sockets they already
// have open (run events, terminal, every namespace) are closed at once, and
// their cookie and API token are refused on the next request and the next
// handshake.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { io, type Socket } from "socket.io-client";
import { encode } from "next-auth/jwt";
import { createApiToken, createUser } from "@/server/identity";
import { createTestDb, type TestDb } from "./helpers/db";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";

const SECRET = "people-sessions-test-secret-0123456789abcdef";

let t: TestDb;
let server: ServerProcess;
let adminToken: string;
let leaver: { id: string; token: string; cookie: string };
let forgetful: { id: string; cookie: string };
let demoted: { id: string; token: string };

beforeAll(async () => {
  t = await createTestDb();
  const admin = await createUser(t.db, { email: "admin@rein.test", password: "password-123", role: "admin" });
  adminToken = (await createApiToken(t.db, { userId: admin, name: "admin" })).token;
  const leaverId = await createUser(t.db, { email: "leaver@rein.test", password: "password-123", role: "operator" });
  leaver = {
    id: leaverId,
    token: (await createApiToken(t.db, { userId: leaverId, name: "laptop" })).token,
    cookie: `next-auth.session-token=${await encode({ token: { sub: leaverId, sv: 0 }, secret: SECRET })}`,
  };
  const forgetfulId = await createUser(t.db, { email: "forgetful@rein.test", password: "password-123", role: "viewer" });
  forgetful = {
    id: forgetfulId,
    cookie: `next-auth.session-token=${await encode({ token: { sub: forgetfulId, sv: 0 }, secret: SECRET })}`,
  };
  const demotedId = await createUser(t.db, { email: "demoted@rein.test", password: "password-123", role: "operator" });
  demoted = { id: demotedId, token: (await createApiToken(t.db, { userId: demotedId, name: "laptop" })).token };
  await t.db.$disconnect();
  const s = spawnServer({ REIN_DATA_DIR: t.dir, PORT: String(await freePort()), NEXTAUTH_SECRET: SECRET, REIN_POD_POOL_SIZE: "0" });
  await s.ready;
  server = s;
}, 60_000);

afterAll(async () => {
  await server?.kill("SIGTERM");
  await t?.cleanup();
});

type Auth = { token: string } | { cookie: string };

function connect(namespace: string, auth: Auth): Socket {
  return io(`${server.url}${namespace}`, {
    path: "/socket.io",
    transports: ["websocket"],
    reconnection: false,
    forceNew: true,
    ...("token" in auth ? { auth: { token: auth.token } } : { extraHeaders: { cookie: auth.cookie } }),
  });
}

const connected = (socket: Socket) =>
  new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", reject);
  });
const refused = (socket: Socket) => new Promise<string>((resolve) => socket.once("connect_error", (err) => resolve(err.message)));
const disconnected = (socket: Socket) => new Promise<string>((resolve) => socket.once("disconnect", (reason) => resolve(reason)));

async function rest(method: string, path: string, auth: Auth, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...("token" in auth ? { authorization: `Bearer ${auth.token}` } : { cookie: auth.cookie, origin: server.url }),
      ...(body ? { "content-type": "application/json" } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: await res.json() };
}

describe("ending a person's sessions", () => {
  it("disabling closes their open sockets in every namespace and refuses their token and cookie from then on", async () => {
    const sockets = [
      connect("/runs", { token: leaver.token }),
      connect("/terminal", { token: leaver.token }),
      connect("/runs", { cookie: leaver.cookie }),
      connect("/", { cookie: leaver.cookie }),
    ];
    await Promise.all(sockets.map(connected));
    const bystander = connect("/runs", { token: adminToken });
    await connected(bystander);
    expect((await rest("GET", "/api/v1/runs", { token: leaver.token })).status).toBe(200);

    const closed = sockets.map(disconnected);
    const disabled = await rest("POST", `/api/v1/users/${leaver.id}/disable`, { token: adminToken });
    expect(disabled).toEqual({ status: 200, json: { ok: true } });
    expect(await Promise.all(closed)).toEqual(sockets.map(() => "io server disconnect"));
    expect(bystander.connected).toBe(true);

    expect((await rest("GET", "/api/v1/runs", { token: leaver.token })).status).toBe(401);
    expect((await rest("GET", "/api/v1/runs", { cookie: leaver.cookie })).status).toBe(401);
    for (const auth of [{ token: leaver.token }, { cookie: leaver.cookie }]) {
      const again = connect("/runs", auth);
      expect(await refused(again)).toMatch(/UNAUTHORIZED/);
      again.close();
    }
    bystander.close();
  });

  it("a password reset through a link closes the person's sockets and refuses the old cookie", async () => {
    const socket = connect("/runs", { cookie: forgetful.cookie });
    await connected(socket);
    const link = await rest("POST", `/api/v1/users/${forgetful.id}/reset-link`, { token: adminToken });
    expect(link.status).toBe(200);
    const token = new URL(link.json.url).searchParams.get("token");
    const closed = disconnected(socket);
    // The reset page's call: no login, from Rein's own origin.
    const accepted = await fetch(`${server.url}/api/trpc/invitations.accept`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ json: { token, password: "a-brand-new-password" } }),
    });
    expect(accepted.status).toBe(200);
    expect((await accepted.json()).result.data.json).toEqual({ email: "forgetful@rein.test" });
    expect(await closed).toBe("io server disconnect");
    expect((await rest("GET", "/api/v1/runs", { cookie: forgetful.cookie })).status).toBe(401);
  });

  it("a role change reaches the sockets already open: a demoted operator can no longer control the run's desktop", async () => {
    const run = await rest("POST", "/api/v1/runs", { token: demoted.token }, { goal: "Write a haiku", agent: "demo-coder" });
    expect(run.status).toBe(201);
    const socket = connect("/runs", { token: demoted.token });
    await connected(socket);
    const canControl = async () =>
      ((await socket.emitWithAck("watchDesktop", { runId: run.json.id })) as { ok: boolean; canControl?: boolean }).canControl;
    expect(await canControl()).toBe(true);
    expect((await rest("PATCH", `/api/v1/users/${demoted.id}`, { token: adminToken }, { role: "viewer" })).status).toBe(200);
    const deadline = Date.now() + 5_000;
    while ((await canControl()) !== false && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await canControl()).toBe(false);
    expect(socket.connected).toBe(true);
    socket.close();
  });

  it("removing a person from a team closes their open sockets, so nothing of that team keeps streaming to them", async () => {
    const run = await rest("POST", "/api/v1/runs", { token: adminToken }, { goal: "Another haiku", agent: "demo-coder" });
    expect(run.status).toBe(201);
    const teamId = run.json.teamId as string;
    expect((await rest("GET", `/api/v1/runs/${run.json.id}`, { token: demoted.token })).status).toBe(200);
    const socket = connect("/runs", { token: demoted.token });
    await connected(socket);
    const closed = disconnected(socket);
    const removed = await rest("DELETE", `/api/v1/teams/${teamId}/members/${demoted.id}`, { token: adminToken });
    expect(removed.status).toBe(200);
    expect(await closed).toBe("io server disconnect");
    // The run of that team is no longer theirs to see.
    expect((await rest("GET", `/api/v1/runs/${run.json.id}`, { token: demoted.token })).status).toBe(404);
  });
});
