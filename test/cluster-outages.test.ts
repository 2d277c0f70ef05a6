// Several machines through outages. A web process and a worker on a Redis of
// their own, which the test kills (SIGKILL, no persistence: every job is
// lost) and starts again on the same port: the run executing carries on (its
// lease is in PostgreSQL) and a run launched during the outage starts once
// Redis is back. Then PostgreSQL ends every connection of theirs at once:
// both processes reconnect by themselves and the runs go on.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb, postgresAppName, type Db } from "@/server/db";
import { createApiToken, createUser } from "@/server/identity";
import { makeTempDir } from "./helpers/db";
import { createPgSchema, type PgSchema } from "./helpers/pg";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";
import { waitFor } from "./helpers/wait";

let schema: PgSchema;
let db: Db;
let dataDir: string;
let token: string;
let redisPort: number;
let redis: ChildProcess | null = null;
const procs: ServerProcess[] = [];

async function startRedis(): Promise<void> {
  const child = spawn(
    "redis-server",
    ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction"],
    { stdio: "ignore" },
  );
  redis = child;
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const s = net.connect(redisPort, "127.0.0.1", () => (s.end(), resolve(true)));
        s.on("error", () => resolve(false));
      }),
    "redis-server to listen",
    { limitMs: 10_000, intervalMs: 50 },
  );
}

async function stopRedis(): Promise<void> {
  const child = redis;
  redis = null;
  if (!child || child.exitCode !== null) return;
  const gone = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await gone;
}

function env(extra: Record<string, string>) {
  return {
    DATABASE_URL: schema.url,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    REIN_REDIS_PREFIX: "restart",
    REIN_DATA_DIR: dataDir,
    NEXTAUTH_SECRET: "redis-restart-secret-0123456789abcdef",
    REIN_LEASE_TTL_MS: "3000",
    REIN_SCRIPTED_DELAY_MS: "5",
    REIN_POD_POOL_SIZE: "0",
    ...extra,
  };
}

beforeAll(async () => {
  schema = await createPgSchema("redis");
  db = await openDb(schema.url, { poolMax: 2 });
  dataDir = makeTempDir("rein-redis-restart-");
  const userId = await createUser(db, { email: "operator@rein.test", password: "password-123", role: "operator" });
  token = (await createApiToken(db, { userId, name: "redis restart" })).token;
  redisPort = await freePort();
  await startRedis();
  const web = spawnServer(env({ REIN_ROLE: "web", PORT: String(await freePort()) }));
  await web.ready;
  procs.push(web);
  const worker = spawnServer(env({ REIN_ROLE: "worker", PORT: String(await freePort()) }), "is executing runs");
  await worker.ready;
  procs.push(worker);
}, 120_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.kill("SIGKILL")));
  await stopRedis();
  await db?.$disconnect();
  await schema?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
}, 60_000);

const effects = (runId: string) => {
  const file = path.join(dataDir, "workspaces", runId, "effects.log");
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : [];
};

async function launch(tag: string) {
  const res = await fetch(`${procs[0]!.url}/api/v1/runs`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      goal: tag,
      agent: "demo-coder",
      scenario: [
        ...Array.from({ length: 5 }, (_, i) => ({
          text: `Step ${i}.`,
          toolCalls: [{ tool: "shell", args: { command: `sleep 0.5 && echo ${tag}-${i} >> effects.log` } }],
        })),
        { text: "Done." },
      ],
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

const statusOf = async (id: string) => (await db.run.findUniqueOrThrow({ where: { id }, select: { status: true } })).status;

describe("several machines through outages", () => {
  it("the executing run carries on, a run launched while Redis is down starts once it is back, and nothing runs twice", async () => {
    const first = await launch("before");
    await waitFor(() => effects(first).length >= 1, "the first run's first command", { limitMs: 30_000 });
    await stopRedis();
    // Launched while Redis is down: recorded in PostgreSQL, handed out when Redis is back.
    const second = await launch("during");
    await new Promise((r) => setTimeout(r, 1_500));
    await startRedis();
    await waitFor(async () => (await statusOf(first)) === "succeeded", "the first run to finish", { limitMs: 60_000 });
    await waitFor(async () => (await statusOf(second)) === "succeeded", "the run launched during the outage to finish", {
      limitMs: 60_000,
    });
    for (const id of [first, second]) {
      expect(effects(id)).toHaveLength(5);
      expect(new Set(effects(id)).size).toBe(5);
      const seqs = (await db.runEvent.findMany({ where: { runId: id }, select: { seq: true }, orderBy: { seq: "asc" } })).map((e) => e.seq);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    }
    // Both processes say they are healthy again; to someone not logged in, without naming their host or pid.
    for (const p of procs) {
      await waitFor(async () => (await fetch(`${p.url}/api/health`)).status === 200, `${p.url} to be healthy`, { limitMs: 20_000 });
      const body = (await (await fetch(`${p.url}/api/health`)).json()) as {
        role: string;
        process: Record<string, unknown>;
        processes?: unknown;
      };
      expect(body.role).toMatch(/^(web|worker)$/);
      expect(body.process.id).toBeUndefined();
      expect(body.processes).toBeUndefined();
      expect(JSON.stringify(body)).not.toContain(`:${p.child.pid}:`);
    }
  }, 180_000);

  it("PostgreSQL ends every connection of the web process and the worker mid-run: they reconnect, the run goes on from its checkpoint, nothing runs twice, no event is lost", async () => {
    const id = await launch("pgdrop");
    await waitFor(() => effects(id).length >= 1, "the run's first command", { limitMs: 30_000 });
    const ended = await schema.sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [
      postgresAppName(schema.schema),
    ]);
    expect(ended.rowCount).toBeGreaterThan(0);
    // A command whose result could not be written asks a person (skip, retry, cancel); it never runs again by itself.
    await waitFor(
      async () => ["succeeded", "waiting_human"].includes(await statusOf(id)),
      "the run to go on after the connections dropped",
      { limitMs: 60_000 },
    );
    if ((await statusOf(id)) === "succeeded") expect(effects(id)).toHaveLength(5);
    else {
      const open = await db.humanRequest.findMany({ where: { runId: id, state: "PENDING" }, select: { kind: true } });
      expect(open.map((r) => r.kind)).toEqual(["choose"]);
    }
    expect(new Set(effects(id)).size).toBe(effects(id).length);
    const seqs = (await db.runEvent.findMany({ where: { runId: id }, select: { seq: true }, orderBy: { seq: "asc" } })).map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    for (const p of procs) {
      await waitFor(async () => (await fetch(`${p.url}/api/health`)).status === 200, `${p.url} to be healthy`, { limitMs: 20_000 });
    }
  }, 180_000);
});
