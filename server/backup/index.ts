// Backup and restore of one Rein installation (docs/operations.md#backup-and-restore): `rein backup
// FILE` while Rein runs, `rein restore FILE` on another machine. A backup is a gzipped tar archive: a
// manifest (rein-backup.json), a consistent copy of the database (SQLite's online backup API, or
// pg_dump of Rein's schema on PostgreSQL), and the data directory's files (workspaces, snapshots,
// outputs, repositories, worktrees). The keys (the one that seals secrets, the session and
// signed-link keys) are in it only when asked for: whoever holds a backup with its keys can read the
// secrets and sign in as anyone.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import Database from "better-sqlite3";
import pg from "pg";
import { dialectOf, postgresConfig, sqlitePathFromUrl } from "@/server/db";
import { DomainError } from "@/server/errors";

export class BackupError extends DomainError {}

const MANIFEST = "rein-backup.json";
/** The PostgreSQL dump inside a backup (pg_dump's custom format). */
const PG_DUMP = "database.pgdump";
const FORMAT = "rein-backup";
const VERSION = 1;

/** Files of the data directory a backup never holds: the database (copied on its own), the live lock, warm pods' state. */
const NEVER = ["rein.db", "rein.db-wal", "rein.db-shm", "rein.db-journal", "server.pid", "pods", MANIFEST, PG_DUMP];
/** Left out inside what is kept: the pids of MCP server processes of the machine the backup was made on. */
const NEVER_INSIDE = ["mcp/pids"];
/** The keys, kept only with `withKeys`. */
export const KEY_FILES = ["secret.key", "auth-secret.key", "link-keys.json"];

export interface Manifest {
  format: typeof FORMAT;
  version: number;
  createdAt: string;
  database: "sqlite" | "postgres";
  /** The migrations the database had: a build that lacks any of them is older than the backup. */
  migrations: string[];
  keys: boolean;
  /** PostgreSQL: the schema the dump holds, which a restore brings back under the same name. */
  schema?: string;
  /** Rows sealed with the secret key (secrets, provider keys): unreadable after a restore without it. */
  sealed: number;
}

export interface BackupOptions {
  dataDir: string;
  databaseUrl: string;
  file: string;
  withKeys?: boolean;
}

export interface BackupResult {
  file: string;
  bytes: number;
  manifest: Manifest;
}

/** Runs one of the tools a backup needs (tar, pg_dump, pg_restore); rejects with its own words when it fails. */
function tool(command: string, args: string[], install: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d: Buffer) => {
      if (err.length < 4_000) err += d.toString();
    });
    child.on("error", (e) => reject(new BackupError("UNAVAILABLE", `${command} could not be started (${e.message}); ${install}`)));
    child.on("close", (code) =>
      code === 0
        ? resolve()
        : reject(new BackupError("INVALID_INPUT", `${command} failed: ${err.trim().split("\n")[0] || `exit code ${code}`}`)),
    );
  });
}

const tar = (args: string[]) => tool("tar", args, "install tar");
const PG_TOOLS = "install PostgreSQL's client tools, of the server's version or newer (Debian: apt-get install postgresql-client)";

/** A query on PostgreSQL, on a connection of its own. */
async function pgQuery<R extends pg.QueryResultRow>(databaseUrl: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: postgresConfig(databaseUrl).connectionString, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

/** What Rein's PostgreSQL schema says about itself: its migrations and how many sealed values it holds. */
async function describePostgres(databaseUrl: string): Promise<{ migrations: string[]; sealed: number }> {
  const { schema } = postgresConfig(databaseUrl);
  const migrations = await pgQuery<{ migration_name: string }>(
    databaseUrl,
    `SELECT migration_name FROM "${schema}"._prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name`,
  );
  const tables = await pgQuery<{ table_name: string }>(
    databaseUrl,
    `SELECT table_name FROM information_schema.columns WHERE table_schema = $1 AND column_name = 'ciphertext'`,
    [schema],
  );
  let sealed = 0;
  for (const { table_name } of tables) {
    sealed += Number(
      (await pgQuery<{ n: string }>(databaseUrl, `SELECT count(*) AS n FROM "${schema}"."${table_name.replace(/"/g, "")}"`))[0]?.n ?? 0,
    );
  }
  return { migrations: migrations.map((r) => r.migration_name), sealed };
}

/** What a SQLite database copy says about itself: its migrations and how many sealed values it holds. */
function describeSqlite(file: string): { migrations: string[]; sealed: number } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const migrations = (
      db.prepare(`SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`).all() as Array<{
        migration_name: string;
      }>
    ).map((r) => r.migration_name);
    const sealedTables = (
      db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%"ciphertext"%'`).all() as Array<{ name: string }>
    ).map((r) => r.name);
    let sealed = 0;
    for (const t of sealedTables) sealed += (db.prepare(`SELECT count(*) AS n FROM "${t.replace(/"/g, "")}"`).get() as { n: number }).n;
    return { migrations: migrations.sort(), sealed };
  } finally {
    db.close();
  }
}

/**
 * Makes FILE: the database first (so every file it names is there, or newer), then the data
 * directory's files. Written beside FILE and renamed into place, so FILE is whole or absent.
 */
export async function backup(options: BackupOptions): Promise<BackupResult> {
  const dataDir = path.resolve(options.dataDir);
  const file = path.resolve(options.file);
  if (fs.existsSync(file)) throw new BackupError("CONFLICT", `${file} exists already; name a new file`);
  if (file === dataDir || file.startsWith(dataDir + path.sep))
    throw new BackupError("INVALID_INPUT", "the backup file must be outside the data directory");
  const database = dialectOf(options.databaseUrl);
  const staging = fs.mkdtempSync(path.join(path.dirname(file), `.${path.basename(file)}.partial-`));
  const partial = `${staging}.tar.gz`;
  try {
    let described = { migrations: [] as string[], sealed: 0 };
    const first: string[] = [MANIFEST];
    if (database === "sqlite") {
      const source = new Database(sqlitePathFromUrl(options.databaseUrl), { fileMustExist: true });
      try {
        // One step for whatever remains after the first: a copy another process writes to meanwhile
        // restarts at most once, and a reader never blocks Rein's writers in WAL mode.
        await source.backup(path.join(staging, "rein.db"), { progress: ({ remainingPages }) => Math.max(remainingPages, 100) });
      } finally {
        source.close();
      }
      described = describeSqlite(path.join(staging, "rein.db"));
      first.push("rein.db");
    } else {
      // pg_dump reads one consistent snapshot while Rein writes.
      const { connectionString, schema } = postgresConfig(options.databaseUrl);
      await tool(
        "pg_dump",
        [
          "--format=custom",
          "--no-owner",
          "--no-privileges",
          `--schema=${schema}`,
          `--file=${path.join(staging, PG_DUMP)}`,
          connectionString,
        ],
        PG_TOOLS,
      );
      described = await describePostgres(options.databaseUrl);
      first.push(PG_DUMP);
    }
    const manifest: Manifest = {
      format: FORMAT,
      version: VERSION,
      createdAt: new Date().toISOString(),
      database,
      migrations: described.migrations,
      keys: Boolean(options.withKeys),
      ...(database === "postgres" ? { schema: postgresConfig(options.databaseUrl).schema } : {}),
      sealed: described.sealed,
    };
    fs.writeFileSync(path.join(staging, MANIFEST), JSON.stringify(manifest, null, 2));
    const leaveOut = new Set([...NEVER, ...(options.withKeys ? [] : KEY_FILES)]);
    const entries = fs
      .readdirSync(dataDir)
      .filter((name) => !leaveOut.has(name))
      .sort();
    // Symbolic links are kept as links, never followed; sparse files stay sparse.
    const excludes = NEVER_INSIDE.map((p) => `--exclude=${p}`);
    await tar(["--create", "--gzip", "--sparse", "--file", partial, ...excludes, "-C", staging, ...first, "-C", dataDir, "--", ...entries]);
    fs.renameSync(partial, file);
    return { file, bytes: fs.statSync(file).size, manifest };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
    fs.rmSync(partial, { force: true });
  }
}

/** The members of an archive, read as a stream (an archive of a million files is not held as one string). */
async function members(file: string): Promise<string[]> {
  const child = spawn("tar", ["--list", "--gzip", "--file", file], { stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr.on("data", (d: Buffer) => {
    if (err.length < 4_000) err += d.toString();
  });
  const names: string[] = [];
  for await (const line of readline.createInterface({ input: child.stdout })) names.push(line);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0)
    throw new BackupError("INVALID_INPUT", `${file} is not a Rein backup: ${err.trim().split("\n")[0] ?? "tar could not read it"}`);
  return names;
}

/** The manifest of a backup, checked. */
async function readManifest(file: string): Promise<Manifest> {
  const text = await new Promise<string>((resolve, reject) => {
    const child = spawn("tar", ["--extract", "--gzip", "--file", file, "--to-stdout", MANIFEST], { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      if (out.length < 100_000) out += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(out) : reject(new BackupError("INVALID_INPUT", `${file} is not a Rein backup: it has no ${MANIFEST}`)),
    );
  });
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text) as Manifest;
  } catch {
    throw new BackupError("INVALID_INPUT", `${file} is not a Rein backup: its ${MANIFEST} is not JSON`);
  }
  if (manifest.format !== FORMAT || typeof manifest.version !== "number" || !Array.isArray(manifest.migrations)) {
    throw new BackupError("INVALID_INPUT", `${file} is not a Rein backup: its ${MANIFEST} is not one`);
  }
  if (manifest.version > VERSION)
    throw new BackupError(
      "INVALID_INPUT",
      `${file} was made by a newer Rein (backup format ${manifest.version}); restore it with that one`,
    );
  return manifest;
}

/** A PostgreSQL restore goes into the schema the backup was made from, which must hold no table yet. */
async function checkEmptySchema(databaseUrl: string, manifest: Manifest): Promise<void> {
  const { schema } = postgresConfig(databaseUrl);
  if (manifest.schema && manifest.schema !== schema) {
    throw new BackupError(
      "INVALID_INPUT",
      `This backup's database is the schema "${manifest.schema}", but DATABASE_URL names "${schema}"; set ?schema=${manifest.schema} in DATABASE_URL to restore it`,
    );
  }
  const [row] = await pgQuery<{ n: string }>(databaseUrl, `SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = $1`, [
    schema,
  ]);
  if (Number(row?.n ?? 0) > 0) {
    throw new BackupError("CONFLICT", `The schema "${schema}" holds tables already; restore into an empty database or schema`);
  }
}

export interface RestoreOptions {
  file: string;
  dataDir: string;
  databaseUrl: string;
  /** This build's migrations (prisma/migrations): a backup with one it lacks was made by a newer Rein. */
  migrationsDir: string;
}

export interface RestoreResult {
  manifest: Manifest;
  /** What the person should know before starting Rein, in words. */
  warnings: string[];
}

/**
 * Brings a backup back into an empty data directory. Refuses an archive that names a path outside it,
 * a backup made by a newer Rein, and a directory that holds data already. Start Rein afterwards: it
 * applies the migrations the backup lacks, and the runs that were waiting wait again.
 */
export async function restore(options: RestoreOptions): Promise<RestoreResult> {
  const file = path.resolve(options.file);
  const dataDir = path.resolve(options.dataDir);
  if (!fs.existsSync(file)) throw new BackupError("NOT_FOUND", `No backup at ${file}`);
  const manifest = await readManifest(file);
  const target = dialectOf(options.databaseUrl);
  if (manifest.database !== target) {
    throw new BackupError(
      "INVALID_INPUT",
      `This backup holds a ${manifest.database} database, but DATABASE_URL names ${target}; restore it where the same kind of database is used`,
    );
  }
  const known = new Set(fs.existsSync(options.migrationsDir) ? fs.readdirSync(options.migrationsDir) : []);
  const newer = manifest.migrations.filter((m) => !known.has(m));
  if (newer.length) {
    throw new BackupError(
      "INVALID_INPUT",
      `This backup was made by a newer Rein: its database has migrations this one does not know (${newer.slice(0, 3).join(", ")}); restore it with that version or a later one`,
    );
  }
  for (const name of await members(file)) {
    const parts = name.split("/");
    if (path.isAbsolute(name) || parts.includes(".."))
      throw new BackupError(
        "INVALID_INPUT",
        `This backup names a path outside the data directory (${name.slice(0, 200)}); it was not made by Rein`,
      );
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const present = fs.readdirSync(dataDir).filter((n) => n !== "lost+found");
  if (present.length) {
    throw new BackupError("CONFLICT", `${dataDir} holds data already (${present.slice(0, 3).join(", ")}); restore into an empty directory`);
  }
  if (manifest.database === "postgres") await checkEmptySchema(options.databaseUrl, manifest);
  // Owners and set-user-id bits are not taken from the archive: what it holds is the agents' work.
  await tar(["--extract", "--gzip", "--file", file, "--no-same-owner", "--no-same-permissions", "-C", dataDir]);
  fs.rmSync(path.join(dataDir, MANIFEST), { force: true });
  if (manifest.database === "postgres") {
    const dump = path.join(dataDir, PG_DUMP);
    try {
      await tool(
        "pg_restore",
        [
          "--no-owner",
          "--no-privileges",
          "--exit-on-error",
          "--clean",
          "--if-exists",
          `--dbname=${postgresConfig(options.databaseUrl).connectionString}`,
          dump,
        ],
        PG_TOOLS,
      );
    } finally {
      fs.rmSync(dump, { force: true });
    }
  }
  const warnings: string[] = [];
  if (!manifest.keys) {
    warnings.push("The backup holds no keys: people sign in again, and links sent for human requests before the backup no longer work.");
    if (manifest.sealed > 0) {
      warnings.push(
        `${manifest.sealed} secret value(s) and provider key(s) are sealed with the old installation's secret.key: copy that file into ${dataDir} before starting Rein, or set them again.`,
      );
    }
  }
  return { manifest, warnings };
}
