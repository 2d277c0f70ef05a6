// A server with the VNC proxy for tests, in this process: socket.io's
// "/runs" (authenticated as in server.ts), the proxy, and desktops handed to
// runs by the test (a real Xvfb + x11vnc from ./desktop.ts).
import http from "node:http";
import net from "node:net";
import { attachRealtime, attachVncProxy, type DesktopSource, type ProxiedDesktop, type VncProxy } from "@/server/realtime";
import type { TestKernel } from "./kernel";
import { testServices } from "./services";
import type { TestDesktop } from "./desktop";

export const TEST_AUTH_SECRET = "a-test-secret-that-is-long-enough-0123456789";

/** The desktop tier's pool as the proxy sees it: runs mapped to desktops, released on demand. */
export class TestDesktops implements DesktopSource {
  private readonly byRun = new Map<string, ProxiedDesktop>();
  private readonly released = new Set<(runId: string) => void>();

  get(runId: string) {
    return this.byRun.get(runId);
  }

  onReleased(cb: (runId: string) => void) {
    this.released.add(cb);
    return () => void this.released.delete(cb);
  }

  /** Gives the run this desktop (its VNC port, or `port` to go through a relay); `exit` stops it as far as the proxy knows. */
  attach(runId: string, d: Pick<TestDesktop, "vncPort" | "vncPassword" | "width" | "height">, port = d.vncPort) {
    const exits = new Set<(reason: string) => void>();
    this.byRun.set(runId, {
      id: `desktop-${runId}`,
      vncPort: port,
      vncPassword: d.vncPassword,
      width: d.width,
      height: d.height,
      onExit: (cb) => (exits.add(cb), () => void exits.delete(cb)),
    });
    return { exit: (reason: string) => exits.forEach((cb) => cb(reason)) };
  }

  release(runId: string) {
    this.byRun.delete(runId);
    this.released.forEach((cb) => cb(runId));
  }
}

export interface VncTestServer {
  /** http://127.0.0.1:<port> */
  base: string;
  proxy: VncProxy;
  close(): Promise<void>;
}

/** `handler` answers plain HTTP requests (404 without one). */
export async function startVncTestServer(tk: TestKernel, desktops: DesktopSource, handler?: http.RequestListener): Promise<VncTestServer> {
  const server = http.createServer(handler ?? ((_req, res) => res.writeHead(404).end()));
  const io = attachRealtime(server, testServices(tk), { authSecret: TEST_AUTH_SECRET });
  const proxy = attachVncProxy(server, { db: tk.t.db, kernel: tk.kernel, authSecret: TEST_AUTH_SECRET, io, desktops, log: { error() {} } });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    proxy,
    async close() {
      proxy.close();
      void io.close().catch((err) => console.error("closing the socket server failed", err));
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A run for the desktop tests, queued but not handed to a worker: a take over pauses it at once. */
export async function createDesktopRun(tk: TestKernel, opts: { tier?: string; creator?: TestKernel["actors"]["operator"] } = {}) {
  const creator = opts.creator ?? tk.actors.operator;
  const run = await tk.t.db.run.create({
    data: {
      goal: "use the desktop",
      agentName: "demo-coder",
      agentVersion: 1,
      model: "scripted/run-scenario",
      scenario: JSON.stringify({ turns: [{ text: "Done with the desktop." }] }),
      tier: opts.tier ?? "T2",
      createdById: creator.userId,
      teamId: creator.teamIds[0] ?? null,
    },
    select: { id: true },
  });
  return run.id;
}

/**
 * A TCP relay in front of x11vnc recording every byte the proxy sends it:
 * what the VNC server received, per connection, to compare with what the
 * browser sent.
 */
export async function recordingRelay(port: number) {
  const received: Buffer[][] = [];
  const server = net.createServer((inbound) => {
    const log: Buffer[] = [];
    received.push(log);
    const outbound = net.connect({ host: "127.0.0.1", port });
    inbound.on("data", (d: Buffer) => (log.push(Buffer.from(d)), outbound.write(d)));
    outbound.on("data", (d: Buffer) => inbound.write(d));
    inbound.on("close", () => outbound.destroy());
    outbound.on("close", () => inbound.destroy());
    inbound.on("error", () => {});
    outbound.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as net.AddressInfo).port, received, close: () => new Promise((r) => server.close(r)) };
}

/** The proxy's handshake to the VNC server: version 12, security type 1, DES answer 16, ClientInit 1. */
export const HANDSHAKE_BYTES = 30;
