// Starts the real Rein server (server.ts, API and kernel, no web UI) as a
// child process, for tests that kill and restart it, and for the benchmarks
// (which run outside Vitest: the Vitest-bound database helper is loaded only
// by serverWithToken).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createApiToken, createUser } from "@/server/identity";
import type { TestDb } from "./db";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  url: string;
  output(): string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<number | NodeJS.Signals | null>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Spawns the server in one process (SIGKILL reaches the server itself): the bundle the test setup
 * built (test/global-setup.ts), or `node --import tsx server.ts` outside Vitest (the benchmarks).
 * `readyText`: what it prints once ready (a worker of several machines prints its own line).
 */
export function spawnServer(
  env: Record<string, string>,
  readyText = "Rein is ready at",
  /** Another checkout of Rein to run (a benchmark's baseline); this one by default. */
  cwd = root,
): ServerProcess & { ready: Promise<void> } {
  let out = "";
  const bundle = process.env.REIN_TEST_SERVER_BUNDLE;
  // A benchmark's server writes a CPU profile of each of its threads into BENCH_CPU_PROF when it exits.
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_CPU_PROF] : [];
  const entry = [...profile, ...(bundle && fs.existsSync(bundle) && cwd === root ? [bundle] : ["--import", "tsx", "server.ts"])];
  const child = spawn(process.execPath, entry, {
    cwd,
    // No warm desktop unless a test asks for one: Chromium would take a core
    // from the tests on a small machine, and none of these tests moves to T2.
    env: { ...process.env, REIN_UI: "off", NODE_ENV: "production", REIN_DESKTOP_POOL_SIZE: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.on("exit", (code, sig) => resolve(code ?? sig)));
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes(readyText)) resolve();
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    void exited.then((code) => reject(new Error(`The server exited (${code}) before it was ready:\n${out}`)));
  });
  const port = Number(env.PORT);
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    exited,
    ready,
    async kill(signal: NodeJS.Signals = "SIGKILL") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

export interface ServerWithToken {
  t: TestDb;
  server: ServerProcess;
  /** An API token of an operator of this server. */
  token: string;
  stop(): Promise<void>;
}

/** A real server (API only, no warm pods) on a fresh database, with an operator and their API token: for tests that attack it over HTTP. */
export async function serverWithToken(): Promise<ServerWithToken> {
  const { createTestDb } = await import("./db");
  const t = await createTestDb();
  const userId = await createUser(t.db, { email: "operator@rein.test", password: "password-123", role: "operator" });
  const token = (await createApiToken(t.db, { userId, name: "program" })).token;
  const server = spawnServer({ REIN_DATA_DIR: t.dir, PORT: String(await freePort()), REIN_UI: "off", REIN_POD_POOL_SIZE: "0" });
  await server.ready;
  return {
    t,
    server,
    token,
    async stop() {
      await server.kill("SIGTERM");
      await t.cleanup();
    },
  };
}
