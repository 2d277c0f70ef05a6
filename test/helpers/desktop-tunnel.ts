// A worker's desktops and a web process's view of them, in this process, for
// the tests of desktops across processes: a real Xvfb + x11vnc handed to a
// run on the "worker" (its DesktopExporter on an HTTP server of its own, as
// server.ts's worker serves it), a real Redis under a prefix of the test's
// own, and the web process's RemoteDesktops.
import crypto from "node:crypto";
import http from "node:http";
import type net from "node:net";
import {
  DesktopExporter,
  RemoteDesktops,
  connectRedis,
  desktopChannels,
  type ExportedDesktop,
  type ExportedDesktops,
  type Redis,
} from "@/server/cluster";
import type { TestDesktop } from "./desktop";

export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
export const CLUSTER_SECRET = "a-deployment-secret-that-is-long-enough-0123";

/** The desktop tier's pool as the exporter sees it: the test hands runs desktops and stops them. */
export class WorkerDesktops implements ExportedDesktops {
  /** `onAttach`: the worker now executes the run (its lease). */
  constructor(private readonly onAttach: (runId: string) => void = () => {}) {}

  private readonly byRun = new Map<string, ExportedDesktop & { exit(reason: string): void }>();
  private readonly attached = new Set<(runId: string, desktop: ExportedDesktop) => void>();

  get(runId: string) {
    return this.byRun.get(runId);
  }

  onAttached(cb: (runId: string, desktop: ExportedDesktop) => void) {
    this.attached.add(cb);
    return () => void this.attached.delete(cb);
  }

  attach(runId: string, d: Pick<TestDesktop, "vncPort" | "vncPassword" | "width" | "height">) {
    const exits = new Set<(reason: string) => void>();
    const desktop = {
      id: `desktop-${crypto.randomBytes(4).toString("hex")}`,
      vncPort: d.vncPort,
      vncPassword: d.vncPassword,
      width: d.width,
      height: d.height,
      onExit: (cb: (reason: string) => void) => (exits.add(cb), () => void exits.delete(cb)),
      exit: (reason: string) => {
        if (this.byRun.get(runId) === desktop) this.byRun.delete(runId);
        exits.forEach((cb) => cb(reason));
      },
    };
    this.byRun.set(runId, desktop);
    this.onAttach(runId);
    this.attached.forEach((cb) => cb(runId, desktop));
    return desktop;
  }

  async release(runId: string, reason = "the run no longer needs it") {
    this.byRun.get(runId)?.exit(reason);
  }
}

export interface TunnelWorld {
  prefix: string;
  redis: Redis;
  /** The runs' leases as PostgreSQL would say (attach() gives the run to worker-a at epoch 1). */
  leases: Map<string, { owner: string; epoch: number }>;
  worker: { desktops: WorkerDesktops; exporter: DesktopExporter; base: string };
  web: RemoteDesktops;
  close(): Promise<void>;
}

/** A worker exporting desktops on its own port and a web process's RemoteDesktops, sharing a Redis prefix. */
export async function startTunnelWorld(secret = CLUSTER_SECRET): Promise<TunnelWorld> {
  const prefix = `test-desktops-${crypto.randomBytes(4).toString("hex")}`;
  const redis = connectRedis(REDIS_URL, { name: "test-desktops" });
  const channels = desktopChannels(prefix);
  const leases = new Map<string, { owner: string; epoch: number }>();
  const desktops = new WorkerDesktops((runId) => leases.set(runId, { owner: "worker-a", epoch: leases.get(runId)?.epoch ?? 1 }));
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const holds = async (runId: string, epoch: number) => leases.get(runId)?.owner === "worker-a" && leases.get(runId)?.epoch === epoch;
  const exporter = new DesktopExporter({
    desktops,
    redis,
    channels,
    worker: "worker-a",
    address: base,
    secret,
    holds,
    log: { error() {} },
  });
  server.on("upgrade", (req, socket) => {
    if (!exporter.handleUpgrade(req, socket)) socket.destroy();
  });
  await exporter.start();
  const web = new RemoteDesktops({ redis, channels, secret, lease: async (runId) => leases.get(runId) ?? null, log: { error() {} } });
  await web.start();
  return {
    prefix,
    redis,
    leases,
    worker: { desktops, exporter, base },
    web,
    async close() {
      await web.stop();
      await exporter.stop();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await redis.del(channels.desktops);
      redis.disconnect();
    },
  };
}

/** Asks the worker for a tunnel the way a web process does, with any Authorization; resolves to the HTTP status (101 when let in). */
export function askForTunnel(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, base), { headers: { connection: "Upgrade", upgrade: "rein-vnc", ...headers } });
    req.on("upgrade", (_res, socket) => {
      socket.destroy();
      resolve({ status: 101, body: "" });
    });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}
