// npm run bench:soak — Rein under a steady load for half an hour with pruning on
// (docs/performance.md#a-half-hour-soak): the real server (API and kernel, no
// web UI) on SQLite keeps BENCH_AT_ONCE long runs executing at once (default
// 50, with REIN_WORKERS set to match so none waits in the queue: each a
// sandboxed pod playing BENCH_STEPS steps of a shell command that sleeps a
// second, a file written every tenth), launching a new one over REST as each
// ends, for BENCH_MINUTES (default 30). Its database starts with a backlog of
// old runs: BENCH_BACKLOG (default 5,000) past every retention, which the
// first pass prunes while the runs go on, and as many again that cross their
// retention during the soak, a few a minute, as a server's data ages; a prune
// pass is started every BENCH_PRUNE_EVERY seconds (default 120).
//
// Every minute it prints the server's memory (RSS and heap), the database's
// size on disk and in use, the event loop's delay over that minute (from
// /api/health's vitals), /api/health's round trip, and the runs so far. At the
// end: the same figures over the whole soak against the idle server measured
// first in the same run. It fails when a run is lost (ended otherwise than
// succeeded, or gone) or when memory grows without bound: RSS in the last
// third of the soak more than 20% (and 64 MB) above the middle third.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createApiToken, createUser } from "@/server/identity";
import { openNativeSqlite } from "@/server/db";
import type { Vitals } from "@/server/app";
import { freePort, spawnServer, type ServerProcess } from "../test/helpers/server-process";
import { generateBacklog } from "./bench-backlog";
import { migratedDb, summary } from "./bench-stats";

const MINUTES = Number(process.env.BENCH_MINUTES) || 30;
const AT_ONCE = Number(process.env.BENCH_AT_ONCE) || 50;
const STEPS = Number(process.env.BENCH_STEPS) || 60;
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 5_000);
const PRUNE_EVERY_S = Number(process.env.BENCH_PRUNE_EVERY) || 120;
const DAY = 86_400_000;
const MB = 1024 * 1024;

const round = (n: number, d = 1) => (Math.round(n * 10 ** d) / 10 ** d).toFixed(d);
const mb = (bytes: number) => `${round(bytes / MB, 0)} MB`;

/** The scenario of one long run: STEPS shell steps of about a second each, a file written every tenth. */
function longRun(n: number) {
  const turns = Array.from({ length: STEPS }, (_, i) => ({
    text: `Step ${i + 1} of run ${n}.`,
    toolCalls: [
      i % 10 === 9
        ? { tool: "write_file", args: { path: `notes/${i}.md`, content: `Step ${i + 1}\n`.repeat(20) } }
        : { tool: "shell", args: { command: `sleep 1 && echo ${i + 1} >> progress.txt` } },
    ],
  }));
  return { turns: [...turns, { text: "Done." }] };
}

interface Sample {
  minute: number;
  rss: number;
  heap: number;
  dbFile: number;
  dbUsed: number;
  lag: Vitals["eventLoopDelayMs"]["lastMinute"];
  healthP99: number;
  launched: number;
  ended: number;
}

/** The SQLite database's bytes on disk (with its WAL) and the bytes its live pages hold. */
function databaseSize(file: string): { file: number; used: number } {
  const size = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
  const db = openNativeSqlite(`file:${file}`);
  try {
    const pages = Number(db.pragma("page_count", { simple: true }));
    const free = Number(db.pragma("freelist_count", { simple: true }));
    const pageSize = Number(db.pragma("page_size", { simple: true }));
    return { file: size(file) + size(`${file}-wal`), used: (pages - free) * pageSize };
  } finally {
    db.close();
  }
}

async function main() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-soak-"));
  let server: (ServerProcess & { ready: Promise<void> }) | null = null;
  try {
    const dataDir = path.join(root, "data");
    fs.mkdirSync(dataDir);
    const file = path.join(dataDir, "rein.db");
    const url = `file:${file}`;
    const setup = await migratedDb(url);
    const adminId = await createUser(setup, { email: "soak@rein.test", name: "Soak", password: "soak-password-1", role: "admin" });
    const token = (await createApiToken(setup, { userId: adminId, name: "soak" })).token;
    const teams = (await setup.team.findMany({ select: { id: true } })).map((t) => t.id);
    await setup.$disconnect();

    // The backlog: half past every retention (a year back), half crossing a retention during the soak.
    const now = Date.now();
    const soakMs = MINUTES * 60_000;
    const crossing = [14, 30, 180];
    console.log(`Writing a backlog of ${BACKLOG * 2} old runs (${BACKLOG * 2 * 200} events)…`);
    generateBacklog(url, dataDir, {
      runs: BACKLOG * 2,
      events: 200,
      folders: Math.min(500, BACKLOG),
      userId: adminId,
      teamIds: teams,
      prefix: "old",
      endedAt: (i) =>
        i < BACKLOG
          ? now - 181 * DAY - Math.floor((i / BACKLOG) * 184 * DAY)
          : now - crossing[i % crossing.length] * DAY + Math.floor(((i - BACKLOG) / BACKLOG) * soakMs),
    });
    const start = databaseSize(file);
    console.log(`The database holds ${mb(start.used)}.`);

    const port = await freePort();
    const bundle = path.resolve("dist", "server.mjs");
    if (fs.existsSync(bundle)) process.env.REIN_TEST_SERVER_BUNDLE = bundle;
    // As many runs executing as are launched: none waits in the queue.
    server = spawnServer({ REIN_DATA_DIR: dataDir, DATABASE_URL: url, PORT: String(port), REIN_WORKERS: String(AT_ONCE) });
    await server.ready;
    const base = server.url;
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const api = async <T>(method: string, p: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${base}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    };
    const vitals = async () => (await api<{ vitals: Vitals }>("GET", "/api/health")).vitals;

    // The idle server: the baseline, over a minute that does not include its start.
    await new Promise((r) => setTimeout(r, 65_000));
    const idle = await vitals();
    console.log(
      `Idle: RSS ${mb(idle.rssBytes)}, loop delay p99 ${idle.eventLoopDelayMs.lastMinute.p99} ms, max ${idle.eventLoopDelayMs.lastMinute.max} ms.`,
    );
    // The start itself (migrations checked, telemetry catching up on the backlog) is in the figures since start.
    console.log(`Start with the backlog: loop delay max ${idle.eventLoopDelayMs.sinceStart.max} ms since the server started.`);

    // The load: AT_ONCE runs at all times; a prune pass every PRUNE_EVERY_S.
    const launched = new Set<string>();
    const outcomes = new Map<string, string>();
    let stopLaunching = false;
    let failures = 0;
    const launchOne = async (n: number) => {
      const run = await api<{ id: string }>("POST", "/api/v1/runs", {
        goal: `Soak run ${n}`,
        agent: "demo-coder",
        scenario: longRun(n),
        maxSteps: STEPS + 5,
        budgetUsd: 10,
      });
      launched.add(run.id);
      return run.id;
    };
    let n = 0;
    const lanes = Array.from({ length: AT_ONCE }, async () => {
      while (!stopLaunching) {
        const id = await launchOne(n++);
        for (;;) {
          await new Promise((r) => setTimeout(r, 2_000));
          const run = await api<{ status: string }>("GET", `/api/v1/runs/${id}`);
          if (["succeeded", "failed", "cancelled", "interrupted"].includes(run.status)) {
            outcomes.set(id, run.status);
            if (run.status !== "succeeded") failures++;
            break;
          }
        }
      }
    });
    const pruner = setInterval(() => void api("POST", "/api/v1/retention/prune").catch(() => {}), PRUNE_EVERY_S * 1000);
    await api("POST", "/api/v1/retention/prune");

    // /api/health's round trip, every second, as a load balancer would probe it.
    let probes: number[] = [];
    const allProbes: number[] = [];
    const prober = setInterval(() => {
      const t = performance.now();
      void fetch(`${base}/api/health`).then(
        () => {
          const ms = performance.now() - t;
          probes.push(ms);
          allProbes.push(ms);
        },
        () => {},
      );
    }, 1000);

    // What every pass dropped, by kind, summed over the soak.
    type Status = { current: Pass | null; lastPass: Pass | null };
    type Pass = { startedAt: string; dropped: Record<string, number> };
    const passes = new Map<string, Record<string, number>>();
    const notePasses = async () => {
      const status = await api<Status>("GET", "/api/v1/retention");
      for (const p of [status.current, status.lastPass]) if (p) passes.set(p.startedAt, p.dropped);
    };
    const passWatch = setInterval(() => void notePasses().catch(() => {}), 10_000);
    const samples: Sample[] = [];
    console.log("\nminute   RSS      heap     db file   db in use  loop p50/p99/max (ms)   health p99   runs launched/ended");
    for (let minute = 1; minute <= MINUTES; minute++) {
      await new Promise((r) => setTimeout(r, 60_000));
      const v = await vitals();
      await notePasses();
      const size = databaseSize(file);
      const s: Sample = {
        minute,
        rss: v.rssBytes,
        heap: v.heapUsedBytes,
        dbFile: size.file,
        dbUsed: size.used,
        lag: v.eventLoopDelayMs.lastMinute,
        healthP99: summary(probes).p99,
        launched: launched.size,
        ended: outcomes.size,
      };
      probes = [];
      samples.push(s);
      console.log(
        `${String(minute).padStart(6)}   ${mb(s.rss).padStart(7)}  ${mb(s.heap).padStart(7)}  ${mb(s.dbFile).padStart(8)}  ${mb(s.dbUsed).padStart(9)}  ` +
          `${`${s.lag.p50}/${s.lag.p99}/${s.lag.max}`.padStart(22)}   ${`${round(s.healthP99)} ms`.padStart(10)}   ${s.launched}/${s.ended}`,
      );
    }
    stopLaunching = true;
    clearInterval(pruner);
    console.log("\nNo more launches; waiting for the runs under way to end…");
    await Promise.all(lanes);
    clearInterval(prober);
    const end = await vitals();
    clearInterval(passWatch);
    await notePasses();
    const dropped: Record<string, number> = {};
    for (const d of passes.values()) for (const [k, v] of Object.entries(d)) dropped[k] = (dropped[k] ?? 0) + v;

    // What a lost run is: launched and not ended succeeded, or gone from the database.
    const lost = [...launched].filter((id) => outcomes.get(id) !== "succeeded");
    const third = Math.max(1, Math.floor(samples.length / 3));
    const middle = summary(samples.slice(third, 2 * third).map((s) => s.rss)).p50;
    const last = summary(samples.slice(2 * third).map((s) => s.rss)).p50;
    const grows = samples.length >= 3 && last > middle * 1.2 && last - middle > 64 * MB;
    const lagP99s = samples.map((s) => s.lag.p99);
    const health = summary(allProbes);

    console.log(`\nOver ${MINUTES} minutes, ${AT_ONCE} runs at a time of ${STEPS} steps each:`);
    console.log(
      `  runs: ${launched.size} launched, ${[...outcomes.values()].filter((o) => o === "succeeded").length} succeeded, ${lost.length} lost`,
    );
    if (samples.length >= 3)
      console.log(
        `  RSS: idle ${mb(idle.rssBytes)}; middle third ${mb(middle)}, last third ${mb(last)} (${round(((last - middle) / middle) * 100)}%); at the end ${mb(end.rssBytes)}`,
      );
    console.log(
      `  database in use: ${mb(start.used)} at the start, ${mb(samples.at(-1)?.dbUsed ?? 0)} at the end; on disk ${mb(samples.at(-1)?.dbFile ?? 0)}`,
    );
    console.log(
      `  pruned in ${passes.size} pass(es): ${
        Object.entries(dropped)
          .map(([k, v]) => `${k} ${v.toLocaleString("en-US")}`)
          .join(", ") || "nothing"
      }`,
    );
    console.log(
      `  loop delay: worst minute's p99 ${round(Math.max(...lagP99s))} ms, median minute's p99 ${round(summary(lagP99s).p50)} ms, ` +
        `p99 over the soak ${end.eventLoopDelayMs.sinceStart.p99} ms, max ${end.eventLoopDelayMs.sinceStart.max} ms; idle p99 ${idle.eventLoopDelayMs.lastMinute.p99} ms`,
    );
    console.log(
      `  /api/health round trip: p50 ${round(health.p50)} ms, p99 ${round(health.p99)} ms, max ${round(Math.max(...allProbes))} ms`,
    );
    const problems: string[] = [];
    if (lost.length)
      problems.push(
        `${lost.length} run(s) lost: ${lost
          .slice(0, 5)
          .map((id) => `${id} (${outcomes.get(id) ?? "never ended"})`)
          .join(", ")}`,
      );
    if (failures && !lost.length) problems.push(`${failures} run(s) did not succeed`);
    if (grows) problems.push(`memory grows: RSS went from ${mb(middle)} to ${mb(last)} between the middle and the last third`);
    if (problems.length) {
      console.error(`\nbench:soak failed: ${problems.join("; ")}`);
      process.exitCode = 1;
    } else console.log("\nNo run lost; memory level.");
  } finally {
    await server?.kill("SIGTERM");
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`bench:soak failed: ${(err as Error).message}`);
  process.exit(1);
});
