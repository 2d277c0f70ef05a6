// system.processes through createCaller (Settings › System): one process
// describes itself on SQLite; several processes are read from the registry on
// a real PostgreSQL, with the shared Redis queue and the leases live workers hold.
import crypto from "node:crypto";
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { trpcError } from "@/test/helpers/trpc";
import { waitFor } from "@/test/helpers/wait";
import {
  ProcessRegistry,
  RunLeases,
  describeDeployment,
  joinCluster,
  packageVersion,
  type Cluster,
  type ProcessRow,
} from "@/server/cluster";
import type { SystemInfo } from "@/server/app";
import type { Actor } from "@/server/identity";
import { callerFor } from "@/test/helpers/services";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const QUIET = { info() {}, error() {} };

const processesAs = (tk: TestKernel, actor: Actor | null, system: SystemInfo) => callerFor(tk, actor, { system }).system.processes();

async function refusals(tk: TestKernel, system: SystemInfo) {
  expect((await trpcError(processesAs(tk, null, system))).code).toBe("UNAUTHORIZED");
  for (const role of ["viewer", "operator", "approver"] as const) {
    const err = await trpcError(processesAs(tk, tk.actors[role], system));
    expect(err.code, role).toBe("FORBIDDEN");
  }
}

describe("system.processes in one process (SQLite, no registry)", () => {
  let tk: TestKernel;
  beforeAll(async () => {
    tk = await createTestKernel();
  }, 60_000);
  afterAll(async () => {
    await tk?.cleanup();
  });

  it("describes this process as the one row, role all, alive", async () => {
    const before = Date.now();
    const out = await processesAs(tk, tk.actors.admin, { cluster: null, version: "9.8.7-test" });
    expect(out.mode).toBe("one-process");
    expect(out.processes).toHaveLength(1);
    const [me] = out.processes;
    expect(me).toMatchObject({
      role: "all",
      host: os.hostname(),
      pid: process.pid,
      version: "9.8.7-test",
      alive: true,
      state: "running",
      self: true,
      stoppedAt: null,
      leaseRenewals: 0,
    });
    expect(me.runsOwned).toBe(tk.kernel.pool.stats().active);
    expect(new Date(me.heartbeatAt).getTime()).toBeGreaterThanOrEqual(before - 1000);
    // Started when this process did, not when it was asked.
    expect(Date.now() - new Date(me.startedAt).getTime()).toBeGreaterThanOrEqual(Math.floor(process.uptime() * 1000) - 1000);
    expect(out.leases).toEqual({ active: 0 });
    expect(out.queue).toEqual({ depth: tk.kernel.pool.stats().waiting });
  });

  it("shows the version the server read from package.json", async () => {
    const out = await processesAs(tk, tk.actors.admin, { cluster: null, version: packageVersion() });
    expect(out.processes[0].version).toBe(packageVersion());
    expect(packageVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("counts this process's runs from its pool: executing as owned, waiting as the queue", async () => {
    const out = await describeDeployment({ db: tk.t.db, cluster: null, version: "1", pool: { active: 3, waiting: 5 } });
    expect(out.processes[0]).toMatchObject({ runsOwned: 3, queueDepth: 5 });
    expect(out.queue.depth).toBe(5);
  });

  it("is for admins: anonymous UNAUTHORIZED, every lesser role FORBIDDEN", async () => {
    await refusals(tk, { cluster: null, version: "1" });
  });
});

describe("system.processes on several machines (PostgreSQL + Redis)", () => {
  let tk: TestKernel;
  let web: Cluster;
  let worker: ProcessRegistry;
  let stopped: ProcessRegistry;
  const deadId = `gone-host:4242:${crypto.randomBytes(3).toString("hex")}`;
  const prefix = `system-test-${crypto.randomBytes(4).toString("hex")}`;

  beforeAll(async () => {
    tk = await createTestKernel({ database: "postgres" });
    // This process, as a web process of the deployment.
    web = await joinCluster({
      db: tk.t.db,
      databaseUrl: tk.t.url,
      redisUrl: REDIS_URL,
      role: "web",
      version: "2.0.0-web",
      prefix,
      log: QUIET,
    });
    // A live worker that beats often and reports what it does.
    worker = await ProcessRegistry.start({
      db: tk.t.db,
      databaseUrl: tk.t.url,
      role: "worker",
      version: "2.0.0-worker",
      heartbeatMs: 50,
      log: QUIET,
    });
    worker.report({ runsOwned: 2, leaseRenewals: 17, queueDepth: 1, lagMs: 240 });
    // A worker that shut down cleanly.
    stopped = await ProcessRegistry.start({ db: tk.t.db, databaseUrl: tk.t.url, role: "worker", version: "1.9.0", log: QUIET });
    await stopped.stop();
    // What a SIGKILLed worker leaves behind: its row, an old heartbeat, and no lock.
    const old = new Date(Date.now() - 60_000);
    await tk.t.db.runnerProcess.create({
      data: {
        id: deadId,
        role: "worker",
        host: "gone-host",
        pid: 4242,
        version: "1.9.0",
        lockKey: 1234567,
        startedAt: old,
        heartbeatAt: old,
      },
    });
    const leases = new RunLeases(tk.t.db);
    await leases.acquire("run-held-by-live", { id: worker.id, lockKey: worker.lockKey });
    await leases.acquire("run-held-by-dead", { id: deadId, lockKey: 1234567 });
    const handedBack = await leases.acquire("run-handed-back", { id: worker.id, lockKey: worker.lockKey });
    await leases.release("run-handed-back", handedBack!.epoch);
    await web.queue.add("run-waiting");
    await waitFor(
      async () => (await tk.t.db.runnerProcess.findUnique({ where: { id: worker.id } }))?.leaseRenewals === 17,
      "the worker's first heartbeat",
    );
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await web?.queue.queue.obliterate({ force: true }).catch(() => {});
    await web?.stop();
    await tk?.cleanup();
  });

  const byId = (rows: ProcessRow[], id: string) => {
    const row = rows.find((p) => p.id === id);
    expect(row, id).toBeDefined();
    return row!;
  };

  it("lists every process with its state, this one marked", async () => {
    const out = await processesAs(tk, tk.actors.admin, { cluster: web, version: "2.0.0-web" });
    expect(out.mode).toBe("several");
    expect(out.processes).toHaveLength(4);
    expect(byId(out.processes, web.registry.id)).toMatchObject({
      role: "web",
      version: "2.0.0-web",
      pid: process.pid,
      host: os.hostname(),
      alive: true,
      state: "running",
      self: true,
    });
    expect(byId(out.processes, worker.id)).toMatchObject({
      role: "worker",
      version: "2.0.0-worker",
      alive: true,
      state: "running",
      self: false,
      runsOwned: 2,
      leaseRenewals: 17,
      queueDepth: 1,
      lagMs: 240,
      stoppedAt: null,
    });
    const gone = byId(out.processes, stopped.id);
    expect(gone).toMatchObject({ alive: false, state: "stopped" });
    expect(new Date(gone.stoppedAt!).toISOString()).toBe(gone.stoppedAt);
    expect(byId(out.processes, deadId)).toMatchObject({
      host: "gone-host",
      pid: 4242,
      alive: false,
      state: "not responding",
      stoppedAt: null,
    });
  });

  it("counts the queue in Redis and only the leases live holders keep", async () => {
    const out = await processesAs(tk, tk.actors.admin, { cluster: web, version: "2.0.0-web" });
    expect(out.queue).toEqual({ depth: 1 });
    expect(out.leases).toEqual({ active: 1 });
  });

  it("dates are ISO strings", async () => {
    const out = await processesAs(tk, tk.actors.admin, { cluster: web, version: "2.0.0-web" });
    for (const p of out.processes) {
      expect(typeof p.startedAt).toBe("string");
      expect(new Date(p.heartbeatAt).toISOString()).toBe(p.heartbeatAt);
    }
  });

  it("is for admins: anonymous UNAUTHORIZED, every lesser role FORBIDDEN", async () => {
    await refusals(tk, { cluster: web, version: "2.0.0-web" });
  });
});
