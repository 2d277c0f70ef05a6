// Disk use by kind and by team (Settings › Data; docs/operations.md#disk-use).
// Measuring reads every table and walks every run's folders, so it runs in
// the background and off the event loop: SQLite's queries in a worker thread
// with a read-only connection of its own, PostgreSQL's on the server, the
// folders with `du` inside the file sandbox. The last measurement is kept in
// a setting row, so the page shows it at once.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { Worker } from "node:worker_threads";
import { spawnInJail } from "@/server/compute";
import { dialectOf, sqlitePathFromUrl, type Db } from "@/server/db";

export const USAGE_KEY = "data.usage";

/** Where the database's bytes are, by what they hold. */
export const DB_KINDS = ["events", "checkpoints", "spans", "deliveries", "audit", "other"] as const;
export type DbKind = (typeof DB_KINDS)[number];
const TABLE_KIND: Record<string, DbKind> = {
  RunEvent: "events",
  Checkpoint: "checkpoints",
  ToolCallResult: "checkpoints",
  Span: "spans",
  SpanRollup: "spans",
  WebhookDelivery: "deliveries",
  WebhookAttempt: "deliveries",
  OutboxMessage: "deliveries",
  AuditEntry: "audit",
};

/** The data directory's folders, by what they hold. */
export const FILE_KINDS = ["workspaces", "snapshots", "repositories"] as const;
export type FileKind = (typeof FILE_KINDS)[number];
/** Folders with one sub-folder per run, counted per team. */
const RUN_FOLDERS: Array<{ dir: string; kind: FileKind }> = [
  { dir: "workspaces", kind: "workspaces" },
  { dir: "outputs", kind: "workspaces" },
  { dir: "hosted", kind: "workspaces" },
  { dir: "snapshots", kind: "snapshots" },
];
const OTHER_FOLDERS: Array<{ dir: string; kind: FileKind }> = [
  { dir: "repos", kind: "repositories" },
  { dir: "worktrees", kind: "repositories" },
];

export interface DiskUsage {
  measuredAt: string;
  tookMs: number;
  database: { dialect: "sqlite" | "postgres"; totalBytes: number; byKind: Record<DbKind, number> };
  files: { totalBytes: number; byKind: Record<FileKind, number> };
  /** Per team (null: runs of no team): the run data in the database (events, checkpoints, spans) and the runs' folders. */
  byTeam: Array<{ teamId: string | null; runs: number; databaseBytes: number; fileBytes: number }>;
}

/** At most this many lines of `du` are read (a run folder each): more runs than that are counted in the total only. */
const MAX_DU_LINES = 2_000_000;

export async function measureUsage(deps: { db: Db; dataDir: string; databaseUrl: string }): Promise<DiskUsage> {
  const started = Date.now();
  const dialect = dialectOf(deps.databaseUrl);
  const database = dialect === "sqlite" ? await sqliteUsage(deps.databaseUrl) : await postgresUsage(deps.db);
  const teams = new Map<string | null, { runs: number; databaseBytes: number; fileBytes: number }>();
  const team = (id: string | null) => {
    let t = teams.get(id);
    if (!t) teams.set(id, (t = { runs: 0, databaseBytes: 0, fileBytes: 0 }));
    return t;
  };
  for (const r of database.teams) {
    const t = team(r.teamId);
    t.runs += r.runs;
    t.databaseBytes += r.bytes;
  }

  const files: Record<FileKind, number> = { workspaces: 0, snapshots: 0, repositories: 0 };
  const perRun = new Map<string, number>();
  for (const f of RUN_FOLDERS) {
    const dir = path.join(deps.dataDir, f.dir);
    if (!fs.existsSync(dir)) continue;
    files[f.kind] += await du(dir, (name, bytes) => perRun.set(name, (perRun.get(name) ?? 0) + bytes));
  }
  for (const f of OTHER_FOLDERS) {
    const dir = path.join(deps.dataDir, f.dir);
    if (fs.existsSync(dir)) files[f.kind] += await du(dir, () => {});
  }
  // Each run's folders, to its team: 500 runs at a time.
  const ids = [...perRun.keys()];
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await deps.db.run.findMany({ where: { id: { in: ids.slice(i, i + 500) } }, select: { id: true, teamId: true } });
    for (const r of rows) team(r.teamId).fileBytes += perRun.get(r.id) ?? 0;
  }

  return {
    measuredAt: new Date().toISOString(),
    tookMs: Date.now() - started,
    database: { dialect, totalBytes: database.totalBytes, byKind: database.byKind },
    files: { totalBytes: FILE_KINDS.reduce((n, k) => n + files[k], 0), byKind: files },
    byTeam: [...teams.entries()]
      .map(([teamId, t]) => ({ teamId, ...t }))
      .sort((a, b) => b.databaseBytes + b.fileBytes - (a.databaseBytes + a.fileBytes)),
  };
}

interface DatabaseUsage {
  totalBytes: number;
  byKind: Record<DbKind, number>;
  teams: Array<{ teamId: string | null; runs: number; bytes: number }>;
}

const emptyKinds = (): Record<DbKind, number> => Object.fromEntries(DB_KINDS.map((k) => [k, 0])) as Record<DbKind, number>;

/** Run data per team: the text of events, checkpoints and spans (a close estimate of their share of the pages). */
const teamQueries = (len: string) => [
  `SELECT "teamId" AS "teamId", CAST(COUNT(*) AS BIGINT) AS "runs", 0 AS "bytes" FROM "Run" GROUP BY "teamId"`,
  `SELECT r."teamId" AS "teamId", 0 AS "runs", CAST(SUM(${len}(e."payload")) AS BIGINT) AS "bytes" FROM "RunEvent" e JOIN "Run" r ON r."id" = e."runId" GROUP BY r."teamId"`,
  `SELECT r."teamId" AS "teamId", 0 AS "runs", CAST(SUM(${len}(c."state")) AS BIGINT) AS "bytes" FROM "Checkpoint" c JOIN "Run" r ON r."id" = c."runId" GROUP BY r."teamId"`,
  `SELECT "teamId" AS "teamId", 0 AS "runs", CAST(SUM(${len}("attributes") + COALESCE(${len}("detail"), 0)) AS BIGINT) AS "bytes" FROM "Span" GROUP BY "teamId"`,
];

function collect(
  kindRows: Array<{ table: string; bytes: unknown }>,
  teamRows: Array<{ teamId: string | null; runs: unknown; bytes: unknown }>,
) {
  const byKind = emptyKinds();
  let totalBytes = 0;
  for (const r of kindRows) {
    const n = Number(r.bytes ?? 0);
    byKind[TABLE_KIND[r.table] ?? "other"] += n;
    totalBytes += n;
  }
  const teams = teamRows.map((r) => ({ teamId: r.teamId, runs: Number(r.runs ?? 0), bytes: Number(r.bytes ?? 0) }));
  return { totalBytes, byKind, teams };
}

async function postgresUsage(db: Db): Promise<DatabaseUsage> {
  const kindRows = await db.$queryRawUnsafe<Array<{ table: string; bytes: bigint }>>(
    `SELECT c.relname::text AS "table", pg_total_relation_size(c.oid)::bigint AS "bytes" FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'r'`,
  );
  const teamRows: Array<{ teamId: string | null; runs: unknown; bytes: unknown }> = [];
  for (const q of teamQueries("octet_length")) teamRows.push(...(await db.$queryRawUnsafe<typeof teamRows>(q)));
  return collect(kindRows, teamRows);
}

const SQLITE_WORKER = `
const { workerData, parentPort } = require("node:worker_threads");
const Database = require(workerData.module);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
try {
  const kinds = db.prepare(
    'SELECT m.tbl_name AS "table", SUM(s.pgsize) AS bytes FROM dbstat s JOIN sqlite_schema m ON m.name = s.name GROUP BY m.tbl_name'
  ).all();
  const teams = [];
  for (const q of workerData.teamQueries) teams.push(...db.prepare(q).all());
  parentPort.postMessage({ kinds, teams });
} catch (err) {
  parentPort.postMessage({ error: String(err && err.message || err) });
} finally {
  db.close();
}
`;

function sqliteUsage(databaseUrl: string): Promise<DatabaseUsage> {
  const file = sqlitePathFromUrl(databaseUrl);
  return new Promise((resolve, reject) => {
    const worker = new Worker(SQLITE_WORKER, {
      eval: true,
      workerData: {
        module: createRequire(path.join(process.cwd(), "package.json")).resolve("better-sqlite3"),
        file,
        teamQueries: teamQueries("length"),
      },
    });
    worker.once(
      "message",
      (m: {
        error?: string;
        kinds: Array<{ table: string; bytes: number }>;
        teams: Array<{ teamId: string | null; runs: number; bytes: number }>;
      }) => {
        if (m.error) return reject(new Error(`measuring the database failed: ${m.error}`));
        const used = collect(m.kinds, m.teams);
        // The write-ahead log is part of the database's size on disk, not yet in its pages.
        const wal = fs.statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
        used.byKind.other += wal;
        used.totalBytes += wal;
        resolve(used);
      },
    );
    worker.once("error", reject);
    worker.once("exit", (code) => code !== 0 && reject(new Error(`measuring the database stopped (exit ${code})`)));
  });
}

/**
 * `du` of a folder inside the file sandbox (it sees that folder only): the
 * total in bytes, and each sub-folder's to `each`, read line by line as they come.
 */
function du(dir: string, each: (name: string, bytes: number) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawnInJail(dir, ["du", "-k", "-P", "-d", "1", "."], { stdio: ["ignore", "pipe", "pipe"] });
    let total = 0;
    let lines = 0;
    let stderr = "";
    child.stderr!.on("data", (c: Buffer) => {
      if (stderr.length < 2000) stderr += c.toString();
    });
    const rl = readline.createInterface({ input: child.stdout!, crlfDelay: Infinity });
    rl.on("line", (line) => {
      if (++lines > MAX_DU_LINES || line.length > 300) return;
      const m = /^(\d+)\t\.(?:\/([^/]+))?$/.exec(line);
      if (!m) return;
      const bytes = Number(m[1]) * 1024;
      if (m[2] === undefined) total = bytes;
      else each(m[2], bytes);
    });
    child.once("error", reject);
    child.once("close", (code) => {
      // du exits 1 when a file vanished or could not be read while it walked: what it did count stands.
      if (code === 0 || code === 1) resolve(total);
      else reject(new Error(`measuring ${path.basename(dir)} failed: ${stderr.trim().slice(0, 300) || `exit ${code}`}`));
    });
  });
}

/** The last measurement, if any. */
export async function lastUsage(db: Db): Promise<DiskUsage | null> {
  const row = await db.setting.findUnique({ where: { key: USAGE_KEY } });
  if (!row) return null;
  try {
    return JSON.parse(row.value) as DiskUsage;
  } catch {
    return null;
  }
}

export async function saveUsage(db: Db, usage: DiskUsage): Promise<void> {
  const value = JSON.stringify(usage);
  await db.setting.upsert({ where: { key: USAGE_KEY }, create: { key: USAGE_KEY, value }, update: { value } });
}
