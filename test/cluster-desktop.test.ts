// Desktops across processes (several machines): a run's desktop (a real Xvfb
// + x11vnc) lives on a worker, announced in a real Redis; the browser's VNC
// websocket is on a web process's proxy, which reaches the desktop through
// the worker's signed tunnel. What a person sees and may do is the same as
// with one process: the picture, input only once they took over, and the
// connection closed with the reason when the desktop stops on the worker.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { io as connectIo, type Socket } from "socket.io-client";
import { createApiToken } from "@/server/identity";
import { desktopChannels } from "@/server/cluster";
import { VNC_CLOSE, type DesktopWatchReply } from "@/server/realtime";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { startTestDesktop, type TestDesktop } from "@/test/helpers/desktop";
import { startTunnelWorld, type TunnelWorld } from "@/test/helpers/desktop-tunnel";
import { RemoteDesktops, desktopChannels as channelsOf } from "@/server/cluster";
import { WsVncClient } from "@/test/helpers/vnc-client";
import { createDesktopRun, startVncTestServer, type VncTestServer } from "@/test/helpers/vnc-server";
import { waitFor } from "@/test/helpers/wait";

describe("a worker's desktop on a web process", () => {
  let tk: TestKernel;
  let desktop: TestDesktop;
  let world: TunnelWorld;
  let web: VncTestServer;
  const tokens = {} as Record<"viewer" | "operator", string>;
  const sockets: Socket[] = [];

  const url = (runId: string) => `${web.base.replace("http", "ws")}/vnc/${encodeURIComponent(runId)}`;
  const as = (who: keyof typeof tokens) => ({ headers: { authorization: `Bearer ${tokens[who]}` } });
  const call = <T>(socket: Socket, event: string, runId: string) => new Promise<T>((resolve) => socket.emit(event, { runId }, resolve));
  function runsSocket(token: string) {
    const socket = connectIo(`${web.base}/runs`, {
      path: "/socket.io",
      transports: ["websocket"],
      auth: { token },
      reconnection: false,
      forceNew: true,
    });
    sockets.push(socket);
    return socket;
  }

  beforeAll(async () => {
    tk = await createTestKernel();
    desktop = await startTestDesktop();
    world = await startTunnelWorld();
    web = await startVncTestServer(tk, world.web);
    for (const role of ["viewer", "operator"] as const)
      tokens[role] = (await createApiToken(tk.t.db, { userId: tk.users[role], name: role })).token;
  });

  afterAll(async () => {
    sockets.forEach((s) => s.close());
    await web?.close();
    await world?.close();
    await desktop?.stop();
    await tk?.cleanup();
  });

  it("shows the worker's desktop; only the person who took over moves its pointer", async () => {
    const runId = await createDesktopRun(tk);
    world.worker.desktops.attach(runId, desktop);
    await waitFor(() => world.web.get(runId) !== undefined, "the web process to hear of the worker's desktop");
    desktop.movePointer(10, 10);

    const viewer = await WsVncClient.connect(url(runId), as("viewer"));
    const operator = await WsVncClient.connect(url(runId), as("operator"));
    expect([viewer.width, viewer.height]).toEqual([desktop.width, desktop.height]);
    // A framebuffer update comes back through the tunnel.
    await viewer.roundTrip();
    operator.send(WsVncClient.pointerEvent(300, 200));
    await operator.roundTrip();
    expect(desktop.pointer()).toEqual({ x: 10, y: 10 });

    const opSocket = runsSocket(tokens.operator);
    const watched = await call<DesktopWatchReply>(opSocket, "watchDesktop", runId);
    expect(watched).toMatchObject({ ok: true, desktop: { width: desktop.width, height: desktop.height } });
    expect(await call(opSocket, "desktopTakeover", runId)).toEqual({ ok: true, message: "You control the desktop" });
    operator.send(WsVncClient.pointerEvent(400, 300));
    await operator.roundTrip();
    await waitFor(
      () => desktop.pointer().x === 400 && desktop.pointer().y === 300,
      "the controller's pointer to move the worker's X pointer",
    );
    viewer.send(WsVncClient.pointerEvent(50, 60));
    await viewer.roundTrip();
    expect(desktop.pointer()).toEqual({ x: 400, y: 300 });
    expect((await call<{ ok: boolean }>(opSocket, "desktopHandback", runId)).ok).toBe(true);
    viewer.close();
    operator.close();
  });

  it("closes the web process's connections with the reason when the desktop stops on the worker", async () => {
    const runId = await createDesktopRun(tk);
    const d = world.worker.desktops.attach(runId, desktop);
    await waitFor(() => world.web.get(runId) !== undefined, "the web process to hear of the worker's desktop");
    const client = await WsVncClient.connect(url(runId), as("viewer"));
    d.exit("Xvfb exited with code 1");
    expect(await client.closed).toEqual({ code: VNC_CLOSE.desktopGone, reason: "The desktop stopped: Xvfb exited with code 1" });
    await waitFor(() => world.web.get(runId) === undefined, "the web process to forget the desktop");
    const late = await WsVncClient.open(url(runId), as("viewer"));
    expect(await late.closed).toEqual({ code: VNC_CLOSE.noDesktop, reason: "This run has no desktop now" });
  });

  it("a worker lets its desktop go when the run's desktop is announced by another worker (the run moved)", async () => {
    const runId = await createDesktopRun(tk);
    const mine = world.worker.desktops.attach(runId, desktop);
    await waitFor(() => world.web.get(runId)?.id === mine.id, "the web process to hear of the first desktop");
    // The run is worker B's now (its lease), and B announces its desktop.
    world.leases.set(runId, { owner: "worker-b", epoch: 2 });
    const before = await WsVncClient.open(url(runId), as("viewer"));
    expect((await before.closed).reason).toMatch(
      /^Could not connect to the desktop: the run has moved to another worker since this desktop started/,
    );
    const elsewhere = { runId, desktopId: "desktop-on-b", width: 1024, height: 768, worker: "worker-b", address: "http://127.0.0.1:9" };
    await world.redis.hset(desktopChannels(world.prefix).desktops, runId, JSON.stringify(elsewhere));
    await world.redis.publish(desktopChannels(world.prefix).desktopEvents, JSON.stringify({ kind: "attached", desktop: elsewhere }));
    await waitFor(() => world.worker.desktops.get(runId) === undefined, "worker A to release its desktop");
    await waitFor(() => world.web.get(runId)?.id === "desktop-on-b", "the web process to follow the run to worker B");
    // Worker A's end does not remove worker B's entry.
    expect(JSON.parse((await world.redis.hget(desktopChannels(world.prefix).desktops, runId))!)).toMatchObject({
      desktopId: "desktop-on-b",
    });
    // Worker B is not reachable here: the browser is told so, in words.
    const client = await WsVncClient.open(url(runId), as("viewer"));
    const closed = await client.closed;
    expect(closed.code).toBe(VNC_CLOSE.vncFailed);
    expect(closed.reason).toMatch(/^Could not connect to the desktop: the run's worker is not reachable/);
  });

  it("a worker that stops withdraws its desktops: web processes forget them and say why", async () => {
    const runId = await createDesktopRun(tk);
    world.worker.desktops.attach(runId, desktop);
    await waitFor(() => world.web.get(runId) !== undefined, "the web process to hear of the worker's desktop");
    const client = await WsVncClient.connect(url(runId), as("viewer"));
    const exits: string[] = [];
    world.web.get(runId)!.onExit((reason) => exits.push(reason));
    await world.worker.exporter.stop();
    await waitFor(() => world.web.get(runId) === undefined, "the web process to forget the stopped worker's desktop");
    expect(exits).toEqual(["its worker stopped"]);
    expect(await world.redis.hget(channelsOf(world.prefix).desktops, runId)).toBeNull();
    // A web process starting now does not list it either.
    const late = new RemoteDesktops({
      redis: world.redis,
      channels: channelsOf(world.prefix),
      secret: "unused-secret",
      lease: async () => null,
      log: { error() {} },
    });
    await late.start();
    expect(late.get(runId)).toBeUndefined();
    await late.stop();
    client.close();
  });
});
