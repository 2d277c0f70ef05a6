// npm run bench:year — a year of data (scripts/bench-year-data.ts) on SQLite and on PostgreSQL, and the
// list pages read through the product's own code: tRPC procedures called as a team's member or an admin
// (the Runs list, a run page, the Inbox, Costs for 90 days, Traces, Audit) and the REST list endpoints
// over HTTP with an API token. Each query is timed on the year's database and on an empty one of the
// same kind (migrated, the same people, one run), taking turns, and printed side by side: p50, p95 and
// max, aim p95 < 200 ms (docs/performance.md#a-year-of-data). Prints figures; asserts nothing.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { createCaller } from "@/server/api";
import { createRestHandler } from "@/server/channels";
import { migratePostgres, openDb, type Db } from "@/server/db";
import { HitlBroker, memoryKeyRing, newKeyRecord } from "@/server/hitl";
import { LinkThrottle, createApiToken, loadActor, type Actor } from "@/server/identity";
import { createKernel, type Kernel } from "@/server/kernel";

import { testServices } from "@/test/helpers/services";
import { migratedDb, summary } from "./bench-stats";
import { FULL_YEAR, generateYear, openPgClient, type YearPeople, type YearSize } from "./bench-year-data";

const num = (value: string | undefined, fallback: number) => Number(value ?? fallback);
const RUNS = num(process.env.BENCH_YEAR_RUNS, FULL_YEAR.runs);
const SIZE: YearSize = {
  runs: RUNS,
  events: num(process.env.BENCH_YEAR_EVENTS, RUNS * (FULL_YEAR.events / FULL_YEAR.runs)),
  spans: num(process.env.BENCH_YEAR_SPANS, RUNS * (FULL_YEAR.spans / FULL_YEAR.runs)),
  teams: num(process.env.BENCH_YEAR_TEAMS, FULL_YEAR.teams),
  requests: num(process.env.BENCH_YEAR_REQUESTS, Math.round(RUNS * (FULL_YEAR.requests / FULL_YEAR.runs))),
  audit: num(process.env.BENCH_YEAR_AUDIT, RUNS * (FULL_YEAR.audit / FULL_YEAR.runs)),
};
/** 0: only generate (with BENCH_YEAR_KEEP=1, to time later). */
const SAMPLES = num(process.env.BENCH_YEAR_SAMPLES, 30);
const WARMUP = 3;
/** A query slower than this in all is sampled fewer times (at least 5). */
const BUDGET_MS = num(process.env.BENCH_YEAR_BUDGET_MS, 15_000);
/** Only the queries whose name has this in it (e.g. "Runs:"). */
const ONLY = process.env.BENCH_YEAR_ONLY;
const DATABASES = (process.env.BENCH_YEAR_DB ?? "sqlite,postgres").split(",").filter(Boolean);
/** Keep the year's databases for the next run (same size: reused, not generated again). */
const KEEP = process.env.BENCH_YEAR_KEEP === "1";
const DIR = process.env.BENCH_YEAR_DIR ?? path.join(os.tmpdir(), "rein-bench-year");
const PG_SERVER = process.env.BENCH_YEAR_PG ?? "postgresql://postgres@127.0.0.1:5432";
const PG_DATABASE = "rein_bench_year";
const MARKER = "bench.year";
const DAY = 86_400_000;

interface Side {
  db: Db;
  kernel: Kernel;
  people: YearPeople;
  admin: Actor;
  member: Actor;
  caller: (actor: Actor) => ReturnType<typeof createCaller>;
  rest: (pathAndQuery: string, as: "admin" | "member") => Promise<unknown>;
  close(): Promise<void>;
}

async function openSide(url: string, people: YearPeople, dataDir: string): Promise<Side> {
  const db = await openDb(url);
  const kernel = await createKernel({ db, databaseUrl: url, dataDir, workers: 0, scriptedDelayMs: 0, log: { info() {}, error() {} } });
  const broker = new HitlBroker({ db, runs: kernel.store, enqueue: () => {}, log: { error() {} } });
  const hitl = { broker, links: { db, keys: memoryKeyRing({ version: 1, current: newKeyRecord(new Date()) }) } };
  const services = testServices({ db }, { kernel, hitl });
  const admin = (await loadActor(db, people.adminId))!;
  const member = (await loadActor(db, people.memberId))!;
  const tokens = {
    admin: (await createApiToken(db, { userId: people.adminId, name: "bench-year" })).token,
    member: (await createApiToken(db, { userId: people.memberId, name: "bench-year" })).token,
  };
  const handler = createRestHandler(services, { authSecret: "bench-year-secret-bench-year-secret-bench" });
  const server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    db,
    kernel,
    people,
    admin,
    member,
    caller: (actor) =>
      createCaller({ ...services, actor, linkBase: "http://localhost:3000", clientAddress: null, linkThrottle: new LinkThrottle() }),
    async rest(pathAndQuery, as) {
      const res = await fetch(`${base}${pathAndQuery}`, { headers: { authorization: `Bearer ${tokens[as]}` } });
      const body = await res.json();
      if (!res.ok) throw new Error(`${pathAndQuery}: ${res.status} ${JSON.stringify(body)}`);
      return body;
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      kernel.close();
      await db.$disconnect();
    },
  };
}

interface Query {
  name: string;
  run: (s: Side) => Promise<unknown>;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The queries, each as the page asks it (the UI's page sizes and defaults). */
function queries(cursors: Map<Side, string | null>): Query[] {
  const now = Date.now();
  const costs90 = { from: day(now - 89 * DAY), to: day(now) };
  return [
    { name: "Runs: default (member)", run: (s) => s.caller(s.member).runs.list({ limit: 50 }) },
    { name: "Runs: default (admin)", run: (s) => s.caller(s.admin).runs.list({ limit: 50 }) },
    { name: "Runs: status failed", run: (s) => s.caller(s.member).runs.list({ status: ["failed"], limit: 50 }) },
    { name: "Runs: agent", run: (s) => s.caller(s.member).runs.list({ agent: "sql-helper", limit: 50 }) },
    { name: "Runs: tag", run: (s) => s.caller(s.member).runs.list({ tag: "hotfix", limit: 50 }) },
    { name: "Runs: sort by cost", run: (s) => s.caller(s.member).runs.list({ sort: "cost", limit: 50 }) },
    { name: "Runs: sort by duration (admin)", run: (s) => s.caller(s.admin).runs.list({ sort: "duration", dir: "asc", limit: 50 }) },
    { name: "Runs: search goal words", run: (s) => s.caller(s.member).runs.list({ q: "billing export", limit: 50 }) },
    { name: "Runs: search, no match (admin)", run: (s) => s.caller(s.admin).runs.list({ q: "no such words", limit: 50 }) },
    { name: "Runs: last 7 days", run: (s) => s.caller(s.member).runs.list({ from: new Date(now - 7 * DAY).toISOString(), limit: 50 }) },
    {
      name: "Runs: 5th page (admin)",
      run: (s) => s.caller(s.admin).runs.list({ limit: 50, ...(cursors.get(s) ? { cursor: cursors.get(s)! } : {}) }),
    },
    { name: "Run page: the run", run: (s) => s.caller(s.member).runs.get({ id: s.people.sampleRunId }) },
    { name: "Run page: first 500 events", run: (s) => s.caller(s.member).runs.events({ id: s.people.sampleRunId, limit: 500 }) },
    { name: "Run page: trace, first 500", run: (s) => s.caller(s.member).traces.page({ runId: s.people.sampleRunId, limit: 500 }) },
    {
      name: "Inbox: pending (member)",
      run: (s) => s.caller(s.member).humanRequests.list({ state: ["PENDING"], scope: "all", limit: 50 }),
    },
    { name: "Inbox: all (admin)", run: (s) => s.caller(s.admin).humanRequests.list({ scope: "all", limit: 50 }) },
    { name: "Inbox: badge count (member)", run: (s) => s.caller(s.member).humanRequests.openCount() },
    { name: "Costs: 90 days by model (admin)", run: (s) => s.caller(s.admin).costs.summary({ ...costs90, groupBy: "model" }) },
    { name: "Costs: 90 days by team (member)", run: (s) => s.caller(s.member).costs.summary({ ...costs90, groupBy: "team" }) },
    { name: "Costs: health, 90 days", run: (s) => s.caller(s.admin).costs.health(costs90) },
    { name: "Traces: runs, 7 days (member)", run: (s) => s.caller(s.member).traces.list({}) },
    { name: "Traces: spans, 7 days (admin)", run: (s) => s.caller(s.admin).traces.search({}) },
    {
      name: "Traces: span name, 30 days",
      run: (s) => s.caller(s.member).traces.search({ q: "execute_tool shell", from: new Date(now - 30 * DAY) }),
    },
    { name: "Traces: filter values", run: (s) => s.caller(s.admin).traces.facets({}) },
    { name: "Audit: newest (admin)", run: (s) => s.caller(s.admin).audit.list({ limit: 50 }) },
    { name: "Audit: one team", run: (s) => s.caller(s.admin).audit.list({ teamId: s.people.memberTeams[0], limit: 50 }) },
    { name: "Audit: request kinds", run: (s) => s.caller(s.admin).audit.list({ kind: "request", limit: 50 }) },
    { name: "REST /runs (member)", run: (s) => s.rest("/api/v1/runs", "member") },
    { name: "REST /runs?status=failed", run: (s) => s.rest("/api/v1/runs?status=failed", "member") },
    { name: "REST /human-requests pending", run: (s) => s.rest("/api/v1/human-requests?state=pending", "member") },
    { name: "REST /spans (admin)", run: (s) => s.rest("/api/v1/spans", "admin") },
    { name: "REST /costs 90 days", run: (s) => s.rest(`/api/v1/costs?from=${costs90.from}&to=${costs90.to}`, "member") },
    { name: "REST /users (admin)", run: (s) => s.rest("/api/v1/users", "admin") },
    { name: "REST /teams (member)", run: (s) => s.rest("/api/v1/teams", "member") },
  ];
}

/** The cursor that asks for the Runs list's 5th page of 50 (admin, newest first). */
async function fifthPageCursor(s: Side): Promise<string | null> {
  let cursor: string | null = null;
  for (let page = 1; page < 5; page++) {
    const r: { nextCursor: string | null } = await s.caller(s.admin).runs.list({ limit: 50, ...(cursor ? { cursor } : {}) });
    cursor = r.nextCursor;
    if (!cursor) break;
  }
  return cursor;
}

interface Row {
  name: string;
  year: ReturnType<typeof summary>;
  empty: ReturnType<typeof summary>;
}

/** Each query on both databases in turns: warm-up, then up to SAMPLES samples each. */
async function timeAll(year: Side, empty: Side): Promise<Row[]> {
  const cursors = new Map<Side, string | null>([
    [year, await fifthPageCursor(year)],
    [empty, await fifthPageCursor(empty)],
  ]);
  const rows: Row[] = [];
  for (const q of queries(cursors).filter((x) => !ONLY || x.name.includes(ONLY))) {
    for (let i = 0; i < WARMUP; i++) {
      await q.run(year);
      await q.run(empty);
    }
    const times = { year: [] as number[], empty: [] as number[] };
    let spent = 0;
    for (let i = 0; i < SAMPLES && (i < 5 || spent < BUDGET_MS); i++) {
      for (const [side, list] of [
        [year, times.year],
        [empty, times.empty],
      ] as const) {
        const t = performance.now();
        await q.run(side);
        const ms = performance.now() - t;
        list.push(ms);
        spent += ms;
      }
    }
    const row = { name: q.name, year: summary(times.year), empty: summary(times.empty) };
    rows.push(row);
    console.log(line(row));
  }
  return rows;
}

const f = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1)).padStart(7);
function line({ name, year, empty }: Row): string {
  const max = (s: ReturnType<typeof summary>) => s.max;
  const flag = year.p95 >= 200 ? "  OVER" : "";
  return `  ${name.padEnd(34)} ${f(year.p50)} ${f(year.p95)} ${f(max(year))}   ${f(empty.p50)} ${f(empty.p95)} ${f(max(empty))}  ${(year.p95 / Math.max(0.01, empty.p95)).toFixed(1).padStart(6)}x  n=${year.n}${flag}`;
}

function header(what: string) {
  console.log(`\n${what}`);
  console.log(
    `  ${"query".padEnd(34)} ${"year ms: p50".padStart(15)} ${"p95".padStart(7)} ${"max".padStart(7)}   ${"empty: p50".padStart(7)} ${"p95".padStart(7)} ${"max".padStart(7)}  year/empty p95`,
  );
}

/** A kept database of this size, if there is one. */
async function reusable(db: Db): Promise<YearPeople | null> {
  const row = await db.setting.findUnique({ where: { key: MARKER } }).catch(() => null);
  if (!row) return null;
  const saved = JSON.parse(row.value) as { size: YearSize; people: YearPeople };
  return JSON.stringify(saved.size) === JSON.stringify(SIZE) ? saved.people : null;
}

async function markKept(url: string, people: YearPeople) {
  const db = await openDb(url);
  await db.setting.create({ data: { key: MARKER, value: JSON.stringify({ size: SIZE, people }) } });
  await db.$disconnect();
}

async function pgAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = await openPgClient(`${PG_SERVER}/postgres`);
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** The year's database of one kind: reused when kept with the same size, else made and filled. */
async function yearDatabase(kind: string): Promise<{ url: string; people: YearPeople }> {
  const url = kind === "sqlite" ? `file:${path.join(DIR, "year.db")}` : `${PG_SERVER}/${PG_DATABASE}?schema=year`;
  if (kind === "sqlite" ? fs.existsSync(path.join(DIR, "year.db")) : await pgDatabaseExists()) {
    const db = await openDb(url);
    const people = await reusable(db);
    await db.$disconnect();
    if (people) {
      // Migrations added since it was kept are applied, as an upgrade would.
      const t = performance.now();
      if (kind === "sqlite") await (await migratedDb(url)).$disconnect();
      else await migratePostgres(url);
      console.log(`  reusing the year's database kept from an earlier run (migrated in ${((performance.now() - t) / 1000).toFixed(1)} s)`);
      return { url, people };
    }
  }
  if (kind === "sqlite") {
    fs.rmSync(path.join(DIR, "year.db"), { force: true });
    fs.rmSync(path.join(DIR, "year.db-wal"), { force: true });
    fs.rmSync(path.join(DIR, "year.db-shm"), { force: true });
    await (await migratedDb(url)).$disconnect();
  } else {
    await pgAdmin(async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${PG_DATABASE} WITH (FORCE)`);
      await c.query(`CREATE DATABASE ${PG_DATABASE}`);
    });
    await migratePostgres(url);
  }
  const t = performance.now();
  const people = await generateYear(url, SIZE, Date.now(), (l) => console.log(l));
  console.log(
    `  generated in ${((performance.now() - t) / 1000).toFixed(0)} s${kind === "sqlite" ? `, ${(fs.statSync(path.join(DIR, "year.db")).size / 1e9).toFixed(1)} GB` : ""}`,
  );
  if (KEEP) await markKept(url, people);
  return { url, people };
}

async function pgDatabaseExists(): Promise<boolean> {
  return pgAdmin(async (c) => (await c.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [PG_DATABASE])).rowCount === 1);
}

async function emptyDatabase(kind: string): Promise<{ url: string; people: YearPeople }> {
  const url = kind === "sqlite" ? `file:${path.join(DIR, "empty.db")}` : `${PG_SERVER}/${PG_DATABASE}?schema=empty`;
  if (kind === "sqlite") {
    for (const ext of ["", "-wal", "-shm"]) fs.rmSync(path.join(DIR, `empty.db${ext}`), { force: true });
    await (await migratedDb(url)).$disconnect();
  } else {
    await pgAdmin(async (c) => {
      if (!(await pgDatabaseExists())) await c.query(`CREATE DATABASE ${PG_DATABASE}`);
    });
    const c = await openPgClient(`${PG_SERVER}/${PG_DATABASE}`);
    await c.query(`DROP SCHEMA IF EXISTS empty CASCADE`);
    await c.end();
    await migratePostgres(url);
  }
  // The same people and one run the size of an average one.
  const per = (n: number) => Math.max(1, Math.round(n / SIZE.runs));
  const people = await generateYear(
    url,
    { runs: 1, events: per(SIZE.events), spans: per(SIZE.spans), teams: SIZE.teams, requests: 0, audit: per(SIZE.audit) },
    Date.now(),
    () => {},
  );
  return { url, people };
}

async function main() {
  fs.mkdirSync(DIR, { recursive: true });
  console.log(
    `A year of data: ${SIZE.runs.toLocaleString()} runs, ${SIZE.events.toLocaleString()} events, ${SIZE.spans.toLocaleString()} spans, ${SIZE.teams} teams, ${SIZE.requests.toLocaleString()} human requests, ${SIZE.audit.toLocaleString()} audit entries`,
  );
  const results: Array<[string, Row[]]> = [];
  for (const kind of DATABASES) {
    if (kind !== "sqlite" && kind !== "postgres") throw new Error(`BENCH_YEAR_DB lists sqlite and postgres; got ${kind}`);
    console.log(`\n${kind === "sqlite" ? "SQLite" : "PostgreSQL"}: the year's database`);
    const y = await yearDatabase(kind);
    if (SAMPLES === 0) continue;
    const e = await emptyDatabase(kind);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-year-data-"));
    const year = await openSide(y.url, y.people, dataDir);
    const empty = await openSide(e.url, e.people, dataDir);
    try {
      header(`${kind === "sqlite" ? "SQLite" : "PostgreSQL"} (aim: year p95 < 200 ms)`);
      results.push([kind, await timeAll(year, empty)]);
    } finally {
      await year.close();
      await empty.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (kind === "sqlite") {
        for (const ext of ["", "-wal", "-shm"]) fs.rmSync(path.join(DIR, `empty.db${ext}`), { force: true });
        if (!KEEP) for (const ext of ["", "-wal", "-shm"]) fs.rmSync(path.join(DIR, `year.db${ext}`), { force: true });
      } else if (!KEEP) {
        await pgAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${PG_DATABASE} WITH (FORCE)`));
      }
    }
  }
  if (!KEEP) fs.rmSync(DIR, { recursive: true, force: true });
  const over = results.flatMap(([kind, rows]) => rows.filter((r) => r.year.p95 >= 200).map((r) => `${kind}: ${r.name}`));
  console.log(over.length ? `\nOver 200 ms at p95: ${over.join("; ")}` : "\nEvery query under 200 ms at p95.");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
