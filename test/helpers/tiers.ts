// Compute tiers on a test kernel: the server's wiring (TierController with
// Budgets, connected to the kernel) around whatever desktops and terminals the
// test gives, and Rein's demo site on a real socket for the desktop to open.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { configureEgress } from "@/server/compute";
import { Budgets } from "@/server/limits";
import {
  TierController,
  connectTiers,
  type DesktopProvider,
  type DeviceRuns,
  type MachineRuns,
  type TerminalPods,
  type TierSettings,
} from "@/server/tiers";
import { handleDemoSite } from "@/server/demo-site";
import { SILENT_LOG, type TestKernel } from "./kernel";

export interface TestTiers {
  tiers: TierController;
  disconnect(): void;
}

export function attachTiers(
  tk: TestKernel,
  opts: {
    desktops?: DesktopProvider;
    terminals?: TerminalPods;
    remote?: MachineRuns;
    devices?: DeviceRuns;
    now?: () => number;
    selfUrl?: string;
    defaults?: TierSettings;
  } = {},
): TestTiers {
  const budgets = new Budgets({ db: tk.t.db, flush: async () => void (await tk.telemetry?.sink.flush()) });
  const tiers = new TierController({
    db: tk.t.db,
    runs: tk.kernel.store,
    specs: tk.kernel.specs,
    budgets,
    desktops: opts.desktops,
    terminals: opts.terminals,
    remote: opts.remote,
    devices: opts.devices,
    workspaceFor: tk.kernel.deps.workspaceFor,
    selfUrl: opts.selfUrl,
    now: opts.now,
    defaults: opts.defaults,
    log: SILENT_LOG,
  });
  const disconnect = connectTiers(tk.kernel, tiers);
  return { tiers, disconnect };
}

/** Rein's demo site, plus `extra` routes of the test's own, on 127.0.0.1. */
export async function startDemoSite(extra: Record<string, (res: http.ServerResponse) => void> = {}) {
  const server = http.createServer(
    (req, res) =>
      void (async () => {
        const route = extra[req.url ?? ""];
        if (route) return route(res);
        if (!(await handleDemoSite(req, res))) {
          res.writeHead(404);
          res.end();
        }
      })(),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  // The desktop's browser reaches the host only where allowed: the test's site is, as Rein's demo site is in server.ts.
  configureEgress({ allow: [{ host: "127.0.0.1", port }] });
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        // The desktop's Chromium keeps connections open.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A clock the test moves (the idle downgrade). */
export function fakeClock(start = Date.now()) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}
