// Makes the upgrade fixture (test/fixtures/upgrade/, docs/operations.md#upgrades): the data directory
// of an earlier Rein, built from an earlier commit of this repository, holding a run that waits for a
// person and a paused run. test/upgrade.test.ts restores it, migrates it with this build and checks
// that both runs go on. Run it when the fixture should move to a later base:
//
//   npm run fixtures:upgrade -- [COMMIT]
//
// It needs this checkout's node_modules (the earlier commit is built against them) and git.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import Database from "better-sqlite3";
import pg from "pg";
import { bundleServerEntries } from "@/test/helpers/bundle";
import { freePort } from "@/test/helpers/server-process";

/** The last commit before the migrations 20261228090000_run_duration, 20261229100000_team_ids and 20261229200000_memory_origin. */
const DEFAULT_COMMIT = "3eed6b03c57c1cfe546cb62f684c4b7a7d77113e";
const root = process.cwd();
const out = path.join(root, "test", "fixtures", "upgrade");
const ADMIN = { email: "admin@rein.test", password: "fixture-password-1" };

function sh(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  return execFileSync(cmd, args, {
    cwd: opts.cwd ?? root,
    env: opts.env ?? process.env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const got = await probe().catch(() => undefined);
    if (got !== undefined) return got;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The PostgreSQL schema the fixture is recorded in; the test loads it under a schema of its own. */
const PG_SCHEMA = "rein_upgrade_fixture";
const PG_BASE = process.env.REIN_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

interface Recorded {
  lastMigration: string | undefined;
  token: string;
  waitingRunId: string;
  pausedRunId: string;
}

/** Runs the earlier server (built in `old`) on a fresh database of `kind`, makes the two runs, stops it, and keeps what it wrote. */
async function record(old: string, tmp: string, kind: "sqlite" | "postgres"): Promise<Recorded> {
  const dataDir = path.join(tmp, `data-${kind}`);
  fs.mkdirSync(dataDir);
  const pgUrl = `${PG_BASE}?schema=${PG_SCHEMA}`;
  const databaseUrl = kind === "sqlite" ? `file:${path.join(dataDir, "rein.db")}` : pgUrl;
  const sqlOn = async (text: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: PG_BASE });
    await client.connect();
    try {
      return await client.query(text, values);
    } finally {
      await client.end();
    }
  };
  if (kind === "postgres") await sqlOn(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
  const env = { ...process.env, REIN_DATA_DIR: dataDir, DATABASE_URL: databaseUrl };
  console.log(`[fixture] ${kind}: its migrations`);
  sh("bash", ["scripts/db-migrate.sh"], { cwd: old, env });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let log = "";
  const server: ChildProcess = spawn(process.execPath, ["dist/server.mjs"], {
    cwd: old,
    env: {
      ...env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      REIN_UI: "off",
      REIN_ADMIN_EMAIL: ADMIN.email,
      REIN_ADMIN_PASSWORD: ADMIN.password,
      REIN_POD_POOL_SIZE: "0",
      REIN_DESKTOP_POOL_SIZE: "0",
      // A pause between the words the scripted model writes: slow enough to pause the second run mid-way.
      REIN_SCRIPTED_DELAY_MS: "150",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout!.on("data", (d: Buffer) => (log += d.toString()));
  server.stderr!.on("data", (d: Buffer) => (log += d.toString()));
  try {
    await waitFor("the earlier server", async () => (log.includes("Rein is ready at") ? true : undefined));
    const token = sh(
      process.execPath,
      ["--import", "tsx", "scripts/cli.ts", "token", "create", "--email", ADMIN.email, "--name", "upgrade fixture"],
      { cwd: old, env },
    ).trim();
    const api = async (method: string, route: string, body?: unknown) => {
      const res = await fetch(`${base}${route}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, unknown>;
      if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const status = async (id: string) => (await api("GET", `/api/v1/runs/${id}`)).status as string;
    const waiting = (await api("POST", "/api/v1/runs", { goal: "Deploy the release before the upgrade", agent: "demo-deploy" }))
      .id as string;
    await waitFor("the deploy run to wait for a person", async () => ((await status(waiting)) === "waiting_human" ? true : undefined));
    const paused = (await api("POST", "/api/v1/runs", { goal: "Add a slugify helper before the upgrade", agent: "demo-coder" }))
      .id as string;
    await waitFor("the coder run to start", async () => ((await status(paused)) === "running" ? true : undefined));
    await api("POST", `/api/v1/runs/${paused}/pause`);
    await waitFor("the coder run to pause", async () => ((await status(paused)) === "paused" ? true : undefined));
    server.kill("SIGTERM");
    await new Promise((r) => server.once("exit", r));

    // No path of this machine in the fixture: the one absolute path Rein stores, the demo repository's, becomes
    // a neutral one (a restored data directory's start puts its own in place).
    const neutral = "/var/lib/rein/repos/demo-service";
    let migrations: string[];
    if (kind === "sqlite") {
      const db = new Database(path.join(dataDir, "rein.db"));
      db.prepare(`UPDATE "Repository" SET source = ? WHERE "builtIn" = 1`).run(neutral);
      db.pragma("wal_checkpoint(TRUNCATE)");
      migrations = (
        db.prepare(`SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY migration_name`).all() as Array<{
          migration_name: string;
        }>
      ).map((r) => r.migration_name);
      db.close();
    } else {
      await sqlOn(`UPDATE ${PG_SCHEMA}."Repository" SET source = $1 WHERE "builtIn"`, [neutral]);
      migrations = (
        await sqlOn(`SELECT migration_name FROM ${PG_SCHEMA}._prisma_migrations WHERE finished_at IS NOT NULL ORDER BY migration_name`)
      ).rows.map((r: { migration_name: string }) => r.migration_name);
      // Plain INSERTs, so that the test can load it with one query of its own client.
      const dump = sh("pg_dump", ["--schema", PG_SCHEMA, "--no-owner", "--no-privileges", "--inserts", PG_BASE]);
      // psql's own commands (\restrict) are not SQL: the test's client sends the rest as one query.
      const sql = dump
        .split("\n")
        .filter((line) => !line.startsWith("\\"))
        .join("\n");
      fs.writeFileSync(path.join(out, "postgres.sql.gz"), zlib.gzipSync(sql, { level: 9 }));
      await sqlOn(`DROP SCHEMA ${PG_SCHEMA} CASCADE`);
    }
    // The same manifest as `rein backup` writes (server/backup), so that `rein restore` brings it back.
    const manifest = {
      format: "rein-backup",
      version: 1,
      createdAt: new Date().toISOString(),
      database: kind,
      migrations,
      keys: true,
      sealed: 0,
    };
    fs.writeFileSync(path.join(dataDir, "rein-backup.json"), JSON.stringify(manifest, null, 2));
    const keep = fs.readdirSync(dataDir).filter((n) => !["server.pid", "pods", "rein.db-wal", "rein.db-shm"].includes(n));
    sh("tar", ["--create", "--gzip", "--file", path.join(out, `${kind}.tar.gz`), "--exclude=mcp/pids", "-C", dataDir, ...keep]);
    return { lastMigration: migrations.at(-1), token, waitingRunId: waiting, pausedRunId: paused };
  } catch (err) {
    console.error(`[fixture] the earlier server said:\n${log.slice(-4000)}`);
    throw err;
  } finally {
    server.kill("SIGKILL");
  }
}

async function main() {
  const commit = process.argv[2] ?? DEFAULT_COMMIT;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rein-upgrade-fixture-"));
  const old = path.join(tmp, "old");
  try {
    sh("git", ["worktree", "add", "--detach", old, commit]);
    fs.symlinkSync(path.join(root, "node_modules"), path.join(old, "node_modules"));
    console.log(`[fixture] ${commit}: prisma generate`);
    sh("bash", ["scripts/prisma.sh", "generate", "--schema", "prisma/schema.prisma"], { cwd: old });
    sh("bash", ["scripts/prisma.sh", "generate", "--schema", "prisma/postgres/schema.prisma"], { cwd: old });
    console.log("[fixture] bundling its server");
    await bundleServerEntries(old, path.join(old, "dist"), { server: "server.ts", "sandbox-worker": "server/improve/sandbox/worker.ts" });
    fs.mkdirSync(out, { recursive: true });
    const about = { commit, pgSchema: PG_SCHEMA, sqlite: await record(old, tmp, "sqlite"), postgres: await record(old, tmp, "postgres") };
    fs.writeFileSync(path.join(out, "fixture.json"), JSON.stringify(about, null, 2) + "\n");
    console.log(`[fixture] wrote ${path.relative(root, out)}: ${JSON.stringify(about)}`);
  } finally {
    try {
      sh("git", ["worktree", "remove", "--force", old]);
    } catch {
      /* not added */
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
