// Attack suite: an admin demoted while watching. An admin sees every team's
// runs; the sockets they opened as an admin must not go on streaming another
// team's run to them once they are an admin no more. The socket is closed at
// once, like a person's removed from a team; a page that reconnects
// subscribes anew, as the person they now are.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "socket.io";
import { io, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken, createUser, ensureTeam, loadActor, setUserRole, type Actor } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { attachRealtime } from "@/server/realtime";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { testServices } from "../helpers/services";

let tk: TestKernel;
let server: http.Server;
let realtime: Server;
let base: string;
let watcher: { id: string; token: string };
let betaRun: string;

const connect = (token: string): Socket =>
  io(`${base}/runs`, { path: "/socket.io", transports: ["websocket"], auth: { token }, reconnection: false, forceNew: true });
const connected = (s: Socket) =>
  new Promise<void>((resolve, reject) => (s.once("connect", () => resolve()), s.once("connect_error", reject)));
const subscribe = (s: Socket, runId: string) => s.emitWithAck("subscribe", { runId, after: 0 }) as Promise<{ ok: boolean; error?: string }>;
/** The socket's fate: closed by the server, or still open after the role change had ample time to reach it. */
const fate = (s: Socket) =>
  new Promise<string>((resolve) => {
    s.once("disconnect", (reason) => resolve(reason));
    setTimeout(() => resolve("still open"), 10_000);
  });

beforeAll(async () => {
  tk = await createTestKernel();
  const beta = await ensureTeam(tk.t.db, "beta");
  const betaOperatorId = await createUser(tk.t.db, {
    email: "beta-op@test.local",
    password: "test-password-1",
    role: "operator",
    teams: [],
  });
  await tk.t.db.teamMember.create({ data: { teamId: beta, userId: betaOperatorId, role: "operator" } });
  const betaOperator = (await loadActor(tk.t.db, betaOperatorId)) as Actor;
  betaRun = (
    await createRun(
      tk.kernel,
      { goal: "Beta's private work", agent: "demo-coder", scenario: [{ text: "done" }], teamId: beta },
      betaOperator,
    )
  ).id;
  await tk.settle(betaRun);
  const id = await createUser(tk.t.db, { email: "watcher@test.local", password: "test-password-1", role: "admin", teams: [] });
  watcher = { id, token: (await createApiToken(tk.t.db, { userId: id, name: "laptop" })).token };
  server = http.createServer();
  realtime = attachRealtime(server, testServices(tk), { authSecret: "test-secret" });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  // Closes the sockets still open too, so the server stops at once.
  await new Promise((r) => void (realtime ? realtime.close(r) : r(undefined)));
  await tk?.cleanup();
});

describe("an admin demoted while their sockets are open", () => {
  it("stops hearing another team's run: the socket is closed, and a new one cannot subscribe to it", async () => {
    const socket = connect(watcher.token);
    await connected(socket);
    expect((await subscribe(socket, betaRun)).ok).toBe(true);
    const closed = fate(socket);
    await setUserRole(tk.t.db, { actor: tk.actors.admin, channel: "admin" }, watcher.id, "operator");
    expect(await closed).toBe("io server disconnect");
    socket.close();

    const again = connect(watcher.token);
    await connected(again);
    expect(await subscribe(again, betaRun)).toEqual({ ok: false, code: "NOT_FOUND", error: `Run ${betaRun} was not found` });
    again.close();
  });
});
