// Several machines with real processes: two web processes and three workers
// (node server.ts with REIN_ROLE) on one PostgreSQL schema and Redis. Workers
// are SIGKILLed in the middle of runs whose every step is an unsafe shell
// command, and one is frozen with SIGSTOP past its lease and thawed.
// Every run ends or asks a person, no command runs twice, no event is lost.
import fs from "node:fs";
import path from "node:path";
import { io } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb, type Db } from "@/server/db";
import { createApiToken, createUser } from "@/server/identity";
import { RunQueue, channelsFor, connectRedis } from "@/server/cluster";
import { makeTempDir } from "./helpers/db";
import { createPgSchema, type PgSchema } from "./helpers/pg";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";
import { waitFor } from "./helpers/wait";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const STEPS = 6;

let schema: PgSchema;
let db: Db;
let dataDir: string;
let prefix: string;
let token: string;
const webs: ServerProcess[] = [];
const workers: Array<ServerProcess & { id?: string }> = [];

function env(extra: Record<string, string>): Record<string, string> {
  return {
    DATABASE_URL: schema.url,
    REDIS_URL,
    REIN_REDIS_PREFIX: prefix,
    REIN_DATA_DIR: dataDir,
    NEXTAUTH_SECRET: "cluster-test-secret-0123456789abcdef",
    REIN_LEASE_TTL_MS: "3000",
    REIN_SCRIPTED_DELAY_MS: "5",
    REIN_POD_POOL_SIZE: "0",
    ...extra,
  };
}

async function startWeb() {
  const s = spawnServer(env({ REIN_ROLE: "web", PORT: String(await freePort()) }));
  await s.ready;
  webs.push(s);
  return s;
}

async function startWorker() {
  const s = spawnServer(env({ REIN_ROLE: "worker", PORT: String(await freePort()), REIN_WORKERS: "4" }), "is executing runs");
  await s.ready;
  const w = Object.assign(s, { id: /Rein worker (\S+) is executing runs/.exec(s.output())?.[1] });
  workers.push(w);
  return w;
}

async function api<T>(web: ServerProcess, method: string, route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${web.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

beforeAll(async () => {
  schema = await createPgSchema("procs");
  db = await openDb(schema.url, { poolMax: 4 });
  dataDir = makeTempDir("rein-procs-");
  prefix = `rein-procs-${process.pid}-${Date.now()}`;
  const userId = await createUser(db, { email: "operator@rein.test", password: "password-123", role: "operator" });
  token = (await createApiToken(db, { userId, name: "cluster test" })).token;
  // All at once on the fresh schema, as a cluster's machines come up: one seeds, the others wait for it
  // (docs/operations.md#processes-that-start-together).
  await Promise.all([startWeb(), startWeb(), startWorker(), startWorker(), startWorker()]);
  const said = [...webs, ...workers].map((p) => p.output());
  expect(said.filter((o) => o.includes("Another Rein process is setting up this database")).length).toBeGreaterThanOrEqual(1);
}, 120_000);

afterAll(async () => {
  await Promise.all([...webs, ...workers].map((p) => p.kill("SIGKILL")));
  const redis = connectRedis(REDIS_URL, { name: "test-cleanup" });
  const q = new RunQueue(channelsFor(prefix).queue, redis);
  await q.queue.obliterate({ force: true }).catch(() => {});
  await q.close();
  redis.disconnect();
  await db?.$disconnect();
  await schema?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
}, 60_000);

function scenario(tag: string, before = "") {
  return [
    ...Array.from({ length: STEPS }, (_, i) => ({
      text: `Step ${i}.`,
      toolCalls: [{ tool: "shell", args: { command: `${before}echo ${tag}-${i} >> effects.log` } }],
    })),
    { text: "Done." },
  ];
}

const effects = (runId: string) => {
  const file = path.join(dataDir, "workspaces", runId, "effects.log");
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : [];
};

async function statuses(ids: string[]) {
  const rows = await db.run.findMany({
    where: { id: { in: ids } },
    select: { id: true, status: true, errorCode: true, statusReason: true },
  });
  return new Map(rows.map((r) => [r.id, r]));
}

const statuses_ = async (ids: string[]) => (await statuses(ids)).get(ids[0]!)?.status;

async function expectSoundLogs(ids: string[]) {
  for (const id of ids) {
    const seqs = (await db.runEvent.findMany({ where: { runId: id }, select: { seq: true }, orderBy: { seq: "asc" } })).map((e) => e.seq);
    expect(seqs, `run ${id}`).toEqual(seqs.map((_, i) => i + 1));
    const done = effects(id);
    expect(new Set(done).size, `run ${id} ran a command twice: ${done.join(", ")}`).toBe(done.length);
  }
}

describe("several machines: two web processes and three workers", () => {
  it("a browser on web process B follows, live and in order, a run launched on A and executed by a worker; B pauses it, A resumes it, B cancels it", async () => {
    const [a, b] = webs as [ServerProcess, ServerProcess];
    const id = (
      await api<{ id: string }>(a, "POST", "/api/v1/runs", {
        goal: "watch me",
        agent: "demo-coder",
        scenario: scenario("watch", "sleep 0.3 && "),
      })
    ).id;
    const socket = io(`${b.url}/runs`, {
      path: "/socket.io",
      transports: ["websocket"],
      auth: { token },
      reconnection: false,
      forceNew: true,
    });
    try {
      const seen: Array<{ seq: number; type: string; payload: { to?: string } }> = [];
      const deltas: string[] = [];
      socket.on("events", (m: { runId: string; events: typeof seen }) => m.runId === id && seen.push(...m.events));
      socket.on("delta", (m: { runId: string; delta: string }) => m.runId === id && deltas.push(m.delta));
      const ack = await new Promise<{ ok: boolean; cursor?: number }>((resolve) =>
        socket.emit("subscribe", { runId: id, after: 0 }, resolve),
      );
      expect(ack.ok).toBe(true);
      await waitFor(() => effects(id).length >= 1, "the run's first command on a worker", { limitMs: 30_000 });
      // Pause from B: the worker executing it stops after its step.
      await api(b, "POST", `/api/v1/runs/${id}/pause`);
      await waitFor(async () => (await statuses([id])).get(id)!.status === "paused", "the run to pause on its worker", { limitMs: 30_000 });
      const doneWhenPaused = effects(id).length;
      await api(a, "POST", `/api/v1/runs/${id}/resume`);
      await waitFor(() => effects(id).length > doneWhenPaused, "the run to go on after resume", { limitMs: 30_000 });
      await api(b, "POST", `/api/v1/runs/${id}/cancel`);
      await waitFor(async () => (await statuses([id])).get(id)!.status === "canceled", "the run to be canceled on its worker", {
        limitMs: 30_000,
      });
      // B's socket heard every event from the log, in order, without a gap, the end included.
      await waitFor(() => seen.some((e) => e.type === "run.state" && e.payload.to === "canceled"), "B to hear the cancel", {
        limitMs: 15_000,
      });
      const stored = (await db.runEvent.findMany({ where: { runId: id }, select: { seq: true }, orderBy: { seq: "asc" } })).map(
        (e) => e.seq,
      );
      expect(seen.map((e) => e.seq)).toEqual(stored.slice(stored.indexOf(seen[0]!.seq)));
      expect(seen.map((e) => e.seq)).toEqual([...new Set(seen.map((e) => e.seq))].sort((x, y) => x - y));
      expect(seen.filter((e) => e.type === "run.state").map((e) => e.payload.to)).toEqual(expect.arrayContaining(["paused", "canceled"]));
      // The model's words streamed from the worker reached B too.
      expect(deltas.join("").length).toBeGreaterThan(0);
    } finally {
      socket.disconnect();
    }
  }, 120_000);

  it("a person on web process B watches the terminal of a run executing on a worker, takes it over, types, and hands it back; the run goes on", async () => {
    const b = webs[1]!;
    const id = (
      await api<{ id: string }>(b, "POST", "/api/v1/runs", {
        goal: "take me over",
        agent: "demo-coder",
        scenario: [
          { text: "First.", toolCalls: [{ tool: "shell", args: { command: "sleep 3 && echo first-step-done" } }] },
          { text: "Then.", toolCalls: [{ tool: "shell", args: { command: "echo agent-is-back" } }] },
          { text: "Done." },
        ],
      })
    ).id;
    const socket = io(`${b.url}/terminal`, {
      path: "/socket.io",
      transports: ["websocket"],
      auth: { token },
      reconnection: false,
      forceNew: true,
    });
    let shown = "";
    const statuses: Array<{ ready?: boolean; controller?: { name: string } | null }> = [];
    socket.on("snapshot", (m: { runId: string; data: string }) => m.runId === id && (shown = m.data));
    socket.on("data", (m: { runId: string; seq: number; data: string }) => {
      if (m.runId !== id) return;
      shown += m.data;
      socket.emit("ack", { runId: id, seq: m.seq });
    });
    socket.on("status", (m: { runId: string } & (typeof statuses)[number]) => m.runId === id && statuses.push(m));
    const call = <T>(event: string, extra: Record<string, unknown> = {}) =>
      new Promise<T>((resolve) => socket.emit(event, { runId: id, ...extra }, resolve));
    try {
      expect((await call<{ ok: boolean }>("attach", { cols: 100, rows: 30 })).ok).toBe(true);
      await waitFor(() => shown.includes("sleep 3"), "the agent's command on B's screen", { limitMs: 30_000, intervalMs: 20 });
      expect((await call<{ ok: boolean }>("takeover")).ok).toBe(true);
      await waitFor(async () => (await statuses_([id])) === "paused", "the run to pause on its worker", { limitMs: 30_000 });
      await waitFor(() => statuses.some((s) => s.ready === true), "control to be ready", { limitMs: 15_000, intervalMs: 20 });
      expect((await call<{ ok: boolean }>("input", { data: "echo hello-from-$((40+2))\r" })).ok).toBe(true);
      await waitFor(() => /hello-from-42/.test(shown), "the person's command output, from the worker's pod", {
        limitMs: 15_000,
        intervalMs: 20,
      });
      expect((await call<{ ok: boolean }>("handback")).ok).toBe(true);
      await waitFor(async () => (await statuses_([id])) === "succeeded", "the run to finish after the hand back", { limitMs: 60_000 });
      await waitFor(() => /agent-is-back/.test(shown), "the agent's next command on B's screen", { limitMs: 15_000, intervalMs: 20 }).catch(
        async (err: Error) => {
          const evs = await db.runEvent.findMany({
            where: { runId: id },
            select: { seq: true, type: true, payload: true },
            orderBy: { seq: "asc" },
          });
          const logs = workers
            .map(
              (w) =>
                `${w.id}:\n` +
                w
                  .output()
                  .split("\n")
                  .filter((l) => l.includes(id) || /lease|taken|lost/i.test(l))
                  .join("\n"),
            )
            .join("\n");
          const redis = connectRedis(REDIS_URL, { name: "debug" });
          const pods = await redis.hgetall(`${prefix}:pods`);
          const keys = await redis.keys(`${prefix}:term:${id}:*`);
          const lens = await Promise.all(keys.map((k) => redis.xlen(k)));
          redis.disconnect();
          throw new Error(
            `${err.message}\nSHOWN: ${JSON.stringify(shown.slice(-300))}\nPODS: ${JSON.stringify(pods)}\nSTREAMS: ${keys.map((k, i) => k + "=" + lens[i]).join(", ")}\nEVENTS: ${evs
              .filter((e) => /terminal|resumed|state/.test(e.type))
              .map((e) => e.type + " " + e.payload.slice(0, 90))
              .join("\n")}\nLOGS: ${logs}\nWEB B: ${b.output().slice(-1500)}`,
          );
        },
      );
      // Every pod of the run was a worker's (a web process executes nothing): each one's output was shared.
      const redis = connectRedis(REDIS_URL, { name: "check" });
      const pods = (await db.runEvent.findMany({ where: { runId: id, type: "terminal.attached" }, select: { payload: true } })).map(
        (e) => (JSON.parse(e.payload) as { podId: string }).podId,
      );
      expect(pods.length).toBeGreaterThanOrEqual(1);
      for (const podId of pods) expect(await redis.exists(`${prefix}:term:${id}:${podId}`), `pod ${podId} was not on a worker`).toBe(1);
      redis.disconnect();
      const inputs = await db.runEvent.findMany({ where: { runId: id, type: "terminal.input" }, select: { payload: true } });
      expect(inputs.map((e) => (JSON.parse(e.payload) as { text: string }).text)).toEqual(["echo hello-from-$((40+2))"]);
    } finally {
      socket.disconnect();
    }
  }, 120_000);

  it("SIGKILL workers at random points of 20 runs of unsafe commands: every run ends or asks a person, nothing runs twice, no event is lost", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const web = webs[i % webs.length]!;
      ids.push(
        // Each command takes a moment, so the kills below land while runs go on, however fast the workers are.
        (
          await api<{ id: string }>(web, "POST", "/api/v1/runs", {
            goal: `count ${i}`,
            agent: "demo-coder",
            scenario: scenario(`r${i}`, "sleep 0.4 && "),
          })
        ).id,
      );
    }
    // Four kills while the runs go on, each at a random moment; a new worker replaces each one. The first falls
    // on a worker that holds a run under way, so a takeover is sure to follow (random ones can all miss on a busy machine).
    const killed: string[] = [];
    for (let k = 0; k < 4; k++) {
      await new Promise((r) => setTimeout(r, 400 + Math.floor(Math.random() * 1200)));
      const holding =
        k === 0
          ? await waitFor(
              async () => {
                const running = await db.run.findMany({ where: { id: { in: ids }, status: "running" }, select: { id: true } });
                const leases = await db.runLease.findMany({ where: { runId: { in: running.map((r) => r.id) } }, select: { owner: true } });
                const index = workers.findIndex((w) => leases.some((l) => l.owner === w.id));
                return index >= 0 ? { index } : null;
              },
              "a worker with a run under way",
              { limitMs: 30_000, intervalMs: 50 },
            )
          : null;
      const victim = workers.splice(holding?.index ?? Math.floor(Math.random() * workers.length), 1)[0]!;
      killed.push(victim.id!);
      await victim.kill("SIGKILL");
      await startWorker();
    }
    const ended = (s: { status: string } | undefined) => s && ["succeeded", "waiting_human", "failed", "canceled"].includes(s.status);
    await waitFor(
      async () => [...(await statuses(ids)).values()].every(ended) && (await statuses(ids)).size === ids.length,
      "every run to end or ask a person",
      { limitMs: 150_000, intervalMs: 250 },
    );

    const all = await statuses(ids);
    for (const id of ids) {
      const s = all.get(id)!;
      expect(["succeeded", "waiting_human"], `run ${id}: ${s.status} ${s.errorCode ?? ""} ${s.statusReason ?? ""}`).toContain(s.status);
      if (s.status === "succeeded") expect(effects(id)).toHaveLength(STEPS);
      else {
        // A command in flight when its worker died: a person chooses (skip, retry, cancel); it never silently runs again.
        const open = await db.humanRequest.findMany({ where: { runId: id, state: "PENDING" }, select: { kind: true } });
        expect(open.map((r) => r.kind)).toEqual(["choose"]);
      }
    }
    await expectSoundLogs(ids);
    // The takeovers name the dead worker and the one that went on.
    const resumed = await db.runEvent.findMany({ where: { runId: { in: ids }, type: "run.resumed" }, select: { payload: true } });
    const froms = resumed.map((r) => (JSON.parse(r.payload) as { fromWorker?: string }).fromWorker);
    expect(froms.some((f) => f && killed.includes(f))).toBe(true);
  }, 240_000);

  // The worker may freeze inside a transaction: the one that takes over then waits on its row locks until
  // PostgreSQL ends the frozen session, retrying its writes meanwhile (docs/several-machines.md#frozen-workers).
  it(
    "a worker frozen past its lease (SIGSTOP) loses its run; thawed (SIGCONT), its writes are refused and it stops that run",
    { timeout: 150_000 },
    async () => {
      const web = webs[0]!;
      // Slow steps (a second each), so the run is mid-way when its worker freezes.
      const id = (
        await api<{ id: string }>(web, "POST", "/api/v1/runs", {
          goal: "slow count",
          agent: "demo-coder",
          scenario: scenario("slow", "sleep 1 && "),
        })
      ).id;
      await waitFor(() => effects(id).length >= 1, "the run's first command", { limitMs: 30_000 });
      const lease = await db.runLease.findUniqueOrThrow({ where: { runId: id } });
      const owner = lease.owner;
      const frozen = workers.find((w) => w.id === owner)!;
      expect(frozen).toBeDefined();
      // A worker that took the run over writes its run.resumed note just after taking the lease: wait for that
      // note before the freeze, or it would read below as written by the frozen worker after the freeze.
      if (lease.epoch >= 2) {
        await waitFor(
          async () =>
            (await db.runEvent.findMany({ where: { runId: id, type: "run.resumed" }, select: { payload: true } })).some(
              (e) => (JSON.parse(e.payload) as { byWorker?: string }).byWorker === owner,
            ),
          "the run.resumed note of the worker that holds the run",
          { limitMs: 15_000 },
        ).catch(() => undefined); // a lease handed back and taken again writes no such note
      }
      // On a loaded machine the run may have moved once already before this worker took it: what counts is
      // what happened after the freeze.
      const frozenAfter = (await db.runEvent.aggregate({ where: { runId: id }, _max: { seq: true } }))._max.seq ?? 0;
      frozen.child.kill("SIGSTOP");
      try {
        const next = await waitFor(
          async () => {
            const lease = await db.runLease.findUnique({ where: { runId: id } });
            return lease && lease.owner !== owner ? lease : null;
          },
          "another worker to take the frozen worker's run",
          { limitMs: 30_000 },
        ).catch(async (err: Error) => {
          const lease = await db.runLease.findUnique({ where: { runId: id } });
          const redis = connectRedis(REDIS_URL, { name: "debug" });
          const q = new RunQueue(channelsFor(prefix).queue, redis);
          const jobs = await Promise.all(
            [0, 1, 2].map(
              async (e) =>
                `e${e}:${(await q.queue.getJob(`run-${id}-e${e}`)) ? await (await q.queue.getJob(`run-${id}-e${e}`))!.getState() : "none"}`,
            ),
          );
          const counts = await q.queue.getJobCounts();
          await q.close();
          redis.disconnect();
          const logs = workers
            .map(
              (w) =>
                `${w.id}${w.id === owner ? " (frozen)" : ""}:\n` +
                w
                  .output()
                  .split("\n")
                  .filter((l) => /sweep|housekeeping|queue|Redis|lease|taken|error/i.test(l))
                  .slice(-8)
                  .join("\n"),
            )
            .join("\n");
          throw new Error(`${err.message}\nLEASE ${JSON.stringify(lease)}\nJOBS ${jobs.join(" ")} ${JSON.stringify(counts)}\n${logs}`);
        });
        expect(next.epoch).toBeGreaterThanOrEqual(2);
      } finally {
        frozen.child.kill("SIGCONT");
      }
      // Thawed, it stops executing the run and says why: its next write is refused by the fence, its renewal
      // finds the run taken, or PostgreSQL has ended the session it froze in (then it looks the lease up).
      const said = /another worker has taken (this run over|it over)|database connection was lost/;
      // A thawed worker that exits has failed this test: say so at once, with the line that says why first
      // (a summary shows only an error's first line).
      let exited: number | NodeJS.Signals | null | undefined;
      void frozen.exited.then((code) => (exited = code));
      await waitFor(
        async () => {
          if (exited !== undefined) {
            const why =
              frozen
                .output()
                .split("\n")
                .filter((l) => /Rein stops|Error|error/.test(l))
                .slice(-1)[0] ?? "";
            throw new Error(`the thawed worker exited (${exited}): ${why.slice(0, 300)}`);
          }
          return (
            said.test(frozen.output()) &&
            ((await (await fetch(`${frozen.url}/api/health`)).json()) as { process?: { runsOwned?: number } }).process?.runsOwned === 0
          );
        },
        "the thawed worker to stop executing the run and say why",
        { limitMs: 60_000, intervalMs: 200 },
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n--- the thawed worker ---\n${frozen.output().split("\n").slice(-25).join("\n")}`);
      });
      await waitFor(
        async () => ["succeeded", "waiting_human"].includes((await statuses([id])).get(id)!.status),
        "the run to end on the other worker",
        { limitMs: 60_000 },
      ).catch(async (err: Error) => {
        // Say where the run stands and what it did last, and what the workers said.
        const run = (await statuses([id])).get(id);
        const last = await db.runEvent.findMany({
          where: { runId: id },
          orderBy: { seq: "desc" },
          take: 8,
          select: { seq: true, type: true, payload: true },
        });
        const logs = workers
          .map((w) => `${w.id}${w.id === owner ? " (frozen)" : ""}:\n${w.output().split("\n").slice(-10).join("\n")}`)
          .join("\n");
        throw new Error(
          `${err.message}\nRUN ${JSON.stringify(run)}\nLAST ${last.map((e) => `${e.seq} ${e.type} ${e.payload.slice(0, 160)}`).join("\n")}\n${logs}`,
        );
      });
      await expectSoundLogs([id]);
      // Another worker continued it, and says from whom: the frozen worker, or (on a loaded machine) a worker
      // that took it from the frozen one and lost it in turn before its own note was written.
      const resumed = (
        await db.runEvent.findMany({
          where: { runId: id, type: "run.resumed", seq: { gt: frozenAfter } },
          orderBy: { seq: "asc" },
          select: { payload: true },
        })
      ).map((r) => JSON.parse(r.payload) as { fromWorker?: string | null; byWorker?: string });
      const first = resumed.find((r) => r.byWorker);
      expect(first, `run.resumed events: ${JSON.stringify(resumed)}`).toBeDefined();
      expect(first!.byWorker, `frozen: ${owner}; run.resumed events after the freeze: ${JSON.stringify(resumed)}`).not.toBe(owner);
      expect(workers.map((w) => w.id)).toContain(first!.fromWorker);
    },
  );
});
