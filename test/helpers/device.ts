// Devices (docs/devices.md) on a real HTTP server of their own, wired as
// server.ts wires them: POST /api/devices/pair and the device socket on one
// port, one DeviceHub installed as the process's hub (so tRPC and REST see
// which devices are online).
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  DeviceHub,
  attachDeviceSocket,
  createDeviceEndpoints,
  installDeviceHub,
  isDevicePath,
  type DeviceHubLimits,
} from "@/server/devices";
import type { Db } from "@/server/db";

export interface DeviceServer {
  hub: DeviceHub;
  /** http://<host>:<port> */
  url: string;
  port: number;
  /** What the hub logged. */
  logged: string[];
  close(): Promise<void>;
}

export async function startDeviceServer(
  db: Db,
  opts: { host?: string; port?: number; limits?: Partial<DeviceHubLimits>; pairsPerSecond?: number; publicUrl?: string } = {},
): Promise<DeviceServer> {
  const logged: string[] = [];
  const hub = new DeviceHub({
    db,
    log: { info: (m) => void logged.push(m), error: (m, e) => void logged.push(`${m} ${e instanceof Error ? e.message : ""}`) },
    limits: opts.limits,
  });
  const uninstall = installDeviceHub(hub);
  const endpoints = createDeviceEndpoints({ db, pairsPerSecond: opts.pairsPerSecond });
  const server = http.createServer((req, res) => {
    if (isDevicePath(req.url)) return void endpoints(req, res);
    res.writeHead(404).end();
  });
  attachDeviceSocket(server, hub, { publicUrl: opts.publicUrl });
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    hub,
    url: `http://${host}:${port}`,
    port,
    logged,
    close: () =>
      new Promise<void>((resolve) => {
        hub.close();
        uninstall();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
