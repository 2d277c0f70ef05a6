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

/** Files of the data directory a backup never holds: the database (copied on its own), the live lock, pods' and desktops' working folders. */
const NEVER = ["rein.db", "rein.db-wal", "rein.db-shm", "rein.db-journal", "server.pid", "pods", "desktops", MANIFEST, PG_DUMP];
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

interface ToolOptions {
  /** An archive opened once: the tool reads it as /dev/fd/3, so every step reads the same file. */
  archive?: number;
  /** Exit codes that are not failures (GNU tar's 1: a file changed or went away while it was read). */
  ok?: number[];
  env?: NodeJS.ProcessEnv;
}

/** Runs one of the tools a backup needs (tar, pg_dump, pg_restore); rejects with its own words when it fails. */
function tool(command: string, args: string[], install: string, options: ToolOptions = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const stdio: Array<"ignore" | "pipe" | number> = ["ignore", "ignore", "pipe"];
    if (options.archive !== undefined) stdio.push(options.archive);
    const child = spawn(command, args, { stdio, env: options.env ?? process.env });
    let err = "";
    child.stderr!.on("data", (d: Buffer) => {
      if (err.length < 4_000) err += d.toString();
    });
    child.on("error", (e) => reject(new BackupError("UNAVAILABLE", `${command} could not be started (${e.message}); ${install}`)));
    child.on("close", (code) =>
      (options.ok ?? [0]).includes(code ?? -1)
        ? resolve()
        : reject(new BackupError("INVALID_INPUT", `${command} failed: ${err.trim().split("\n")[0] || `exit code ${code}`}`)),
    );
  });
}

/** The archive as the tools read it: the file opened once, passed as their fourth descriptor. */
const ARCHIVE = "/dev/fd/3";

/**
 * pg_dump's and pg_restore's connection: the URL without its password, which goes in PGPASSWORD, so that
 * it is not in the process list for anyone on the machine to read.
 */
function pgConnection(databaseUrl: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const url = new URL(postgresConfig(databaseUrl).connectionString);
  const password = decodeURIComponent(url.password);
  url.password = "";
  return { dbname: url.toString(), env: password ? { ...process.env, PGPASSWORD: password } : process.env };
}

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
      const { dbname, env } = pgConnection(options.databaseUrl);
      const { schema } = postgresConfig(options.databaseUrl);
      await tool(
        "pg_dump",
        [
          "--format=custom",
          "--no-owner",
          "--no-privileges",
          `--schema=${schema}`,
          `--file=${path.join(staging, PG_DUMP)}`,
          `--dbname=${dbname}`,
        ],
        PG_TOOLS,
        { env },
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
    // Workspaces change while Rein runs: a file written or removed during the copy is taken as tar found it
    // (the database copy, taken first, names nothing newer), and is not a failure.
    const quiet = ["--warning=no-file-changed", "--warning=no-file-removed", "--warning=no-file-ignored"];
    await tool(
      "tar",
      [
        "--create",
        "--gzip",
        "--sparse",
        "--file",
        partial,
        ...quiet,
        ...excludes,
        "-C",
        staging,
        ...first,
        "-C",
        dataDir,
        "--",
        ...entries,
      ],
      "install tar",
      { ok: [0, 1] },
    );
    // A link, not a rename: a file made at FILE meanwhile is not replaced.
    try {
      fs.linkSync(partial, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") throw new BackupError("CONFLICT", `${file} exists already; name a new file`);
      throw err;
    }
    return { file, bytes: fs.statSync(file).size, manifest };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
    fs.rmSync(partial, { force: true });
  }
}

/**
 * Refuses an archive with a member named outside the directory it is extracted into. The names are read
 * as a stream and the first bad one stops tar (an archive of a million files is not held in memory).
 */
async function checkMembers(archive: number): Promise<void> {
  const child = spawn("tar", ["--list", "--gzip", "--file", ARCHIVE], { stdio: ["ignore", "pipe", "pipe", archive] });
  let err = "";
  child.stderr!.on("data", (d: Buffer) => {
    if (err.length < 4_000) err += d.toString();
  });
  const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
  for await (const name of readline.createInterface({ input: child.stdout! })) {
    if (path.isAbsolute(name) || name.split("/").includes("..")) {
      child.kill();
      await closed;
      throw new BackupError(
        "INVALID_INPUT",
        `This backup names a path outside the data directory (${name.slice(0, 200)}); it was not made by Rein`,
      );
    }
  }
  if ((await closed) !== 0)
    throw new BackupError("INVALID_INPUT", `This is not a Rein backup: ${err.trim().split("\n")[0] || "tar could not read it"}`);
}

/** The manifest of a backup, checked. */
async function readManifest(archive: number, file: string): Promise<Manifest> {
  const text = await new Promise<string>((resolve, reject) => {
    const child = spawn("tar", ["--extract", "--gzip", "--file", ARCHIVE, "--to-stdout", MANIFEST], {
      stdio: ["ignore", "pipe", "ignore", archive],
    });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
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
  // Opened once: what is checked is what is extracted, even if the path is given another file meanwhile.
  const archive = fs.openSync(file, "r");
  let manifest: Manifest;
  try {
    manifest = await readManifest(archive, file);
    const target = dialectOf(options.databaseUrl);
    if (manifest.database !== target) {
      throw new BackupError(
        "INVALID_INPUT",
        `This backup holds a ${manifest.database} database, but DATABASE_URL names ${target}; restore it where the same kind of database is used`,
      );
    }
    if (target === "sqlite" && sqlitePathFromUrl(options.databaseUrl) !== path.join(dataDir, "rein.db")) {
      throw new BackupError(
        "INVALID_INPUT",
        `A SQLite backup is restored as ${path.join(dataDir, "rein.db")}; unset DATABASE_URL, or point it there`,
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
    await checkMembers(archive);
    fs.mkdirSync(dataDir, { recursive: true });
    const present = fs.readdirSync(dataDir).filter((n) => n !== "lost+found");
    if (present.length) {
      throw new BackupError(
        "CONFLICT",
        `${dataDir} holds data already (${present.slice(0, 3).join(", ")}); restore into an empty directory`,
      );
    }
    if (manifest.database === "postgres") await checkEmptySchema(options.databaseUrl, manifest);
    try {
      // Owners and set-user-id bits are not taken from the archive: what it holds is the agents' work. GNU tar
      // makes a link that points outside only once every file is out, so no file is written through one.
      await tool(
        "tar",
        ["--extract", "--gzip", "--file", ARCHIVE, "--no-same-owner", "--no-same-permissions", "-C", dataDir],
        "install tar",
        {
          archive,
        },
      );
      fs.rmSync(path.join(dataDir, MANIFEST), { force: true });
      if (manifest.database === "postgres") {
        const { dbname, env } = pgConnection(options.databaseUrl);
        await tool(
          "pg_restore",
          ["--no-owner", "--no-privileges", "--exit-on-error", "--clean", "--if-exists", `--dbname=${dbname}`, path.join(dataDir, PG_DUMP)],
          PG_TOOLS,
          { env },
        );
      }
    } catch (err) {
      // The directory was empty: a restore that failed half-way leaves it empty again, to be tried again.
      for (const name of fs.readdirSync(dataDir))
        if (name !== "lost+found") fs.rmSync(path.join(dataDir, name), { recursive: true, force: true });
      throw err;
    } finally {
      fs.rmSync(path.join(dataDir, PG_DUMP), { force: true });
    }
  } finally {
    fs.closeSync(archive);
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
