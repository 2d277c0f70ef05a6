// The VNC proxy against a real Xvfb + x11vnc (with a password) and a real
// server, kernel and database: who gets in, that a viewer's input never
// reaches the VNC server while the controller's does (the X pointer moves
// only for the controller), take over and hand back through the "/runs"
// namespace, and connections closed with a reason when the desktop goes
// away or the run ends.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encode } from "next-auth/jwt";
import { io as connectIo, type Socket } from "socket.io-client";
import { createApiToken, createUser, rolesChanged } from "@/server/identity";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { startTestDesktop, type TestDesktop } from "@/test/helpers/desktop";
import { WsVncClient } from "@/test/helpers/vnc-client";
import {
  HANDSHAKE_BYTES,
  TEST_AUTH_SECRET,
  TestDesktops,
  createDesktopRun,
  recordingRelay,
  startVncTestServer,
  type VncTestServer,
} from "@/test/helpers/vnc-server";
import { waitFor } from "@/test/helpers/wait";
import { VNC_CLOSE, type DesktopStatus, type DesktopWatchReply } from "./protocol";
import type { ControlReply } from "../run-takeover";

describe("VNC proxy", () => {
  let tk: TestKernel;
  let desktop: TestDesktop;
  let relay: Awaited<ReturnType<typeof recordingRelay>>;
  let server: VncTestServer;
  let base: string;
  const desktops = new TestDesktops();
  const tokens = {} as Record<"viewer" | "operator" | "admin" | "outsider", string>;
  let operatorCookie = "";
  const sockets: Socket[] = [];

  const newRun = (opts: { tier?: string } = {}) => createDesktopRun(tk, opts);

  const url = (runId: string, query = "") => `${base.replace("http", "ws")}/vnc/${encodeURIComponent(runId)}${query}`;
  const as = (who: keyof typeof tokens) => ({ headers: { authorization: `Bearer ${tokens[who]}` } });

  function runsSocket(token: string) {
    const socket = connectIo(`${base}/runs`, {
      path: "/socket.io",
      transports: ["websocket"],
      auth: { token },
      reconnection: false,
      forceNew: true,
    });
    sockets.push(socket);
    return socket;
  }
  const call = <T>(socket: Socket, event: string, runId: string) => new Promise<T>((resolve) => socket.emit(event, { runId }, resolve));

  beforeAll(async () => {
    tk = await createTestKernel();
    desktop = await startTestDesktop();
    relay = await recordingRelay(desktop.vncPort);
    const outsider = await createUser(tk.t.db, {
      email: "outsider@test.local",
      password: "test-password-1",
      role: "operator",
      teams: ["elsewhere"],
    });
    for (const role of ["viewer", "operator", "admin"] as const)
      tokens[role] = (await createApiToken(tk.t.db, { userId: tk.users[role], name: role })).token;
    tokens.outsider = (await createApiToken(tk.t.db, { userId: outsider, name: "outsider" })).token;
    operatorCookie = `next-auth.session-token=${await encode({ token: { sub: tk.users.operator }, secret: TEST_AUTH_SECRET })}`;
    server = await startVncTestServer(tk, desktops);
    base = server.base;
  });

  afterAll(async () => {
    sockets.forEach((s) => s.close());
    await server?.close();
    await relay?.close();
    await desktop?.stop();
    await tk?.cleanup();
  });

  it("refuses an upgrade without a session or token (401), with a bad token, and for a run the person cannot see (404)", async () => {
    const runId = await newRun();
    desktops.attach(runId, desktop);
    await expect(WsVncClient.open(url(runId))).rejects.toMatchObject({ status: 401 });
    await expect(WsVncClient.open(url(runId), { headers: { authorization: "Bearer rein_not-a-token" } })).rejects.toMatchObject({
      status: 401,
    });
    await expect(WsVncClient.open(url(runId), { headers: { cookie: "next-auth.session-token=forged" } })).rejects.toMatchObject({
      status: 401,
    });
    await expect(WsVncClient.open(url("no-such-run"), as("operator"))).rejects.toMatchObject({ status: 404 });
    // A run of another team: as if it did not exist.
    await expect(WsVncClient.open(url(runId), as("outsider"))).rejects.toMatchObject({
      status: 404,
      body: expect.stringContaining("was not found"),
    });
  });

  it("lets in a session cookie from Rein's own pages, and a token as a query parameter or subprotocol; refuses a cookie from another origin (403)", async () => {
    const runId = await newRun();
    desktops.attach(runId, desktop);
    const host = new URL(base).host;
    const own = await WsVncClient.connect(url(runId), { headers: { cookie: operatorCookie, origin: `http://${host}` } });
    expect([own.width, own.height]).toEqual([desktop.width, desktop.height]);
    own.close();
    await expect(
      WsVncClient.open(url(runId), { headers: { cookie: operatorCookie, origin: "http://evil.example" } }),
    ).rejects.toMatchObject({ status: 403 });
    const byQuery = await WsVncClient.connect(url(runId, `?token=${tokens.viewer}`));
    await byQuery.roundTrip();
    byQuery.close();
    const byProtocol = await WsVncClient.connect(url(runId), { protocols: ["binary", `token.${tokens.viewer}`] });
    expect(byProtocol.ws.protocol).toBe("binary");
    byProtocol.close();
  });

  it("closes with a clear reason when the run has no desktop", async () => {
    const runId = await newRun({ tier: "T1" });
    const client = await WsVncClient.open(url(runId), as("operator"));
    expect(await client.closed).toEqual({ code: VNC_CLOSE.noDesktop, reason: "This run has no desktop now" });
  });

  it("never passes a viewer's keys or pointer to the VNC server; the controller's move the X pointer", async () => {
    const runId = await newRun();
    desktops.attach(runId, desktop, relay.port);
    desktop.movePointer(10, 10);
    const before = relay.received.length;

    const viewer = await WsVncClient.connect(url(runId), as("viewer"));
    const operator = await WsVncClient.connect(url(runId), as("operator"));
    const [viewerLog, operatorLog] = [relay.received[before], relay.received[before + 1]];

    // Neither controls the desktop yet: both only watch.
    for (const client of [viewer, operator]) {
      client.send(WsVncClient.pointerEvent(300, 200));
      client.send(WsVncClient.keyEvent(0x61, true));
      client.send(WsVncClient.keyEvent(0x61, false));
      await client.roundTrip();
    }
    expect(desktop.pointer()).toEqual({ x: 10, y: 10 });

    // The operator takes over; the run (queued) pauses at once.
    const opSocket = runsSocket(tokens.operator);
    const viewerSocket = runsSocket(tokens.viewer);
    const viewerStatuses: DesktopStatus[] = [];
    viewerSocket.on("desktopStatus", (s: DesktopStatus) => viewerStatuses.push(s));
    const watched = await call<DesktopWatchReply>(viewerSocket, "watchDesktop", runId);
    expect(watched).toMatchObject({
      ok: true,
      canControl: false,
      controller: null,
      desktop: { width: desktop.width, height: desktop.height },
      ended: false,
    });
    expect(await call<ControlReply>(viewerSocket, "desktopTakeover", runId)).toEqual({
      ok: false,
      error: "Taking over the desktop needs the operator role",
    });
    expect(await call<ControlReply>(opSocket, "desktopTakeover", runId)).toEqual({ ok: true, message: "You control the desktop" });
    await waitFor(
      () => viewerStatuses.some((s) => s.controller?.id === tk.users.operator && s.ready),
      "the viewer to hear of the take over",
    );
    expect((await tk.t.db.run.findUnique({ where: { id: runId } }))?.status).toBe("paused");

    // The controller's pointer moves the X pointer; the viewer's still does nothing.
    operator.send(WsVncClient.pointerEvent(400, 300));
    await operator.roundTrip();
    await waitFor(() => desktop.pointer().x === 400 && desktop.pointer().y === 300, "the controller's pointer event to move the X pointer");
    viewer.send(WsVncClient.pointerEvent(50, 60));
    viewer.send(WsVncClient.keyEvent(0x62, true));
    await viewer.roundTrip();
    operator.send(WsVncClient.updateRequest(0, 0, 2, 2));
    await operator.roundTrip();
    expect(desktop.pointer()).toEqual({ x: 400, y: 300 });

    // What x11vnc received on each connection: never a key or pointer event from the viewer.
    const messages = (log: Buffer[]) => Buffer.concat(log).subarray(HANDSHAKE_BYTES);
    const viewerBytes = messages(viewerLog);
    const expectedViewer = Buffer.concat([
      Buffer.from([0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0]),
      Buffer.from([2, 0, 0, 1, 0, 0, 0, 0]),
      WsVncClient.updateRequest(),
      WsVncClient.updateRequest(),
    ]);
    expect(viewerBytes.toString("hex")).toBe(expectedViewer.toString("hex"));
    expect(messages(operatorLog).includes(WsVncClient.pointerEvent(400, 300))).toBe(true);
    expect(messages(operatorLog).includes(WsVncClient.pointerEvent(300, 200))).toBe(false);

    // Hand back: the run resumes with a note, and both are in the event log.
    expect(await call<ControlReply>(viewerSocket, "desktopHandback", runId)).toMatchObject({ ok: false });
    const handedBack = await call<ControlReply>(opSocket, "desktopHandback", runId);
    expect(handedBack.ok).toBe(true);
    const events = await tk.kernel.store.listEvents(runId, 0, 1000);
    expect(events.filter((e) => e.type === "desktop.control").map((e) => e.payload)).toEqual([
      { action: "takeover", by: tk.users.operator, byName: tk.actors.operator.name },
      { action: "handback", by: tk.users.operator, byName: tk.actors.operator.name },
    ]);
    // The operator is a viewer again.
    operator.send(WsVncClient.pointerEvent(20, 20));
    await operator.roundTrip();
    expect(desktop.pointer()).toEqual({ x: 400, y: 300 });

    // The run goes on and ends: every connection closes, saying so; watchers hear it.
    await tk.settle(runId);
    const closed = await Promise.all([viewer.closed, operator.closed]);
    for (const c of closed) expect(c).toEqual({ code: VNC_CLOSE.runEnded, reason: "The run succeeded; its desktop is gone" });
    await waitFor(() => viewerStatuses.some((s) => s.ended), "the watchers to hear the run ended");
    const late = await WsVncClient.open(url(runId), as("operator"));
    expect((await late.closed).code).toBe(VNC_CLOSE.runEnded);
  });

  it("closes connections when the desktop stops or is released, with the reason", async () => {
    const runId = await newRun();
    const handle = desktops.attach(runId, desktop);
    const a = await WsVncClient.connect(url(runId), as("viewer"));
    handle.exit("Xvfb exited with code 1");
    expect(await a.closed).toEqual({ code: VNC_CLOSE.desktopGone, reason: "The desktop stopped: Xvfb exited with code 1" });

    desktops.attach(runId, desktop);
    const b = await WsVncClient.connect(url(runId), as("viewer"));
    desktops.release(runId);
    expect(await b.closed).toEqual({ code: VNC_CLOSE.desktopGone, reason: "The desktop stopped: the run released it" });
  });

  it("closes a person's connections when their roles change, so a reconnect is judged by the new role", async () => {
    const runId = await newRun();
    desktops.attach(runId, desktop);
    const mine = await WsVncClient.connect(url(runId), as("operator"));
    const theirs = await WsVncClient.connect(url(runId), as("viewer"));
    rolesChanged(tk.users.operator);
    expect(await mine.closed).toEqual({ code: VNC_CLOSE.rolesChanged, reason: "Your role changed; reconnect to go on with your new role" });
    // Nobody else's connection is touched.
    expect(theirs.ws.readyState).toBe(theirs.ws.OPEN);
    theirs.close();
    desktops.release(runId);
  });

  it("closes the connection on a client message it cannot frame, naming it", async () => {
    const runId = await newRun();
    desktops.attach(runId, desktop);
    const client = await WsVncClient.connect(url(runId), as("operator"));
    client.send([7, 0, 0, 0]);
    expect(await client.closed).toEqual({ code: VNC_CLOSE.protocol, reason: "Protocol error: unknown client message type 7" });
  });

  it("says why when the VNC server refuses the password", async () => {
    const runId = await newRun();
    desktops.attach(runId, { ...desktop, vncPassword: "wrong123" });
    const client = await WsVncClient.open(url(runId), as("operator"));
    const closed = await client.closed;
    expect(closed.code).toBe(VNC_CLOSE.vncFailed);
    expect(closed.reason).toMatch(/^Could not connect to the desktop: the desktop's VNC server refused the password/);
  });
});
