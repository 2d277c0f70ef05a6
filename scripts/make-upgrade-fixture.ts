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
import { build } from "esbuild";
import Database from "better-sqlite3";
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

async function main() {
  const commit = process.argv[2] ?? DEFAULT_COMMIT;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rein-upgrade-fixture-"));
  const old = path.join(tmp, "old");
  let server: ChildProcess | undefined;
  let log = "";
  const serverLog = () => log;
  let debugRun: (() => Promise<string>) | undefined;
  try {
    sh("git", ["worktree", "add", "--detach", old, commit]);
    fs.symlinkSync(path.join(root, "node_modules"), path.join(old, "node_modules"));
    console.log(`[fixture] ${commit}: prisma generate`);
    sh("bash", ["scripts/prisma.sh", "generate", "--schema", "prisma/schema.prisma"], { cwd: old });
    sh("bash", ["scripts/prisma.sh", "generate", "--schema", "prisma/postgres/schema.prisma"], { cwd: old });
    console.log("[fixture] bundling its server");
    await build({
      absWorkingDir: old,
      entryPoints: { server: "server.ts", "sandbox-worker": "server/improve/sandbox/worker.ts" },
      outdir: path.join(old, "dist"),
      outExtension: { ".js": ".mjs" },
      bundle: true,
      platform: "node",
      format: "esm",
      packages: "external",
      target: "node22",
      tsconfig: "tsconfig.json",
      logLevel: "warning",
    });
    const dataDir = path.join(tmp, "data");
    fs.mkdirSync(dataDir);
    const databaseUrl = `file:${path.join(dataDir, "rein.db")}`;
    const env = { ...process.env, REIN_DATA_DIR: dataDir, DATABASE_URL: databaseUrl };
    console.log("[fixture] its migrations");
    sh("bash", ["scripts/prisma.sh", "migrate", "deploy"], { cwd: old, env });
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, ["dist/server.mjs"], {
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
    log = "";
    server.stdout!.on("data", (d: Buffer) => (log += d.toString()));
    server.stderr!.on("data", (d: Buffer) => (log += d.toString()));
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
    const status = async (id: string) => {
      const run = await api("GET", `/api/v1/runs/${id}`);
      const value = (run.status ?? (run.run as { status?: string } | undefined)?.status) as string | undefined;
      if (!value) throw new Error(`no status in ${JSON.stringify(run).slice(0, 300)}`);
      return value;
    };
    const waiting = (await api("POST", "/api/v1/runs", { goal: "Deploy the release before the upgrade", agent: "demo-deploy" }))
      .id as string;
    debugRun = async () => JSON.stringify(await api("GET", `/api/v1/runs/${waiting}/events`)).slice(0, 3000);
    await waitFor("the deploy run to wait for a person", async () => {
      const now = await status(waiting);
      if (["failed", "succeeded", "canceled"].includes(now)) throw new Error(`the deploy run ended ${now}`);
      return now === "waiting_human" ? true : undefined;
    });
    const paused = (await api("POST", "/api/v1/runs", { goal: "Add a slugify helper before the upgrade", agent: "demo-coder" }))
      .id as string;
    await waitFor("the coder run to start", async () => ((await status(paused)) === "running" ? true : undefined));
    await api("POST", `/api/v1/runs/${paused}/pause`);
    await waitFor("the coder run to pause", async () => ((await status(paused)) === "paused" ? true : undefined));
    server.kill("SIGTERM");
    await new Promise((r) => server!.once("exit", r));
    server = undefined;

    const db = new Database(path.join(dataDir, "rein.db"));
    // No path of this machine in the fixture: the one absolute path Rein stores, the demo repository's, becomes
    // a neutral one (a restored data directory's start puts its own in place).
    db.prepare(`UPDATE "Repository" SET source = ? WHERE "builtIn" = 1`).run("/var/lib/rein/repos/demo-service");
    db.pragma("wal_checkpoint(TRUNCATE)");
    const migrations = (
      db.prepare(`SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY migration_name`).all() as Array<{
        migration_name: string;
      }>
    ).map((r) => r.migration_name);
    db.close();
    // The same manifest as `rein backup` writes (server/backup), so that `rein restore` brings it back.
    const manifest = {
      format: "rein-backup",
      version: 1,
      createdAt: new Date().toISOString(),
      database: "sqlite",
      migrations,
      keys: true,
      sealed: 0,
    };
    fs.writeFileSync(path.join(dataDir, "rein-backup.json"), JSON.stringify(manifest, null, 2));
    const keep = fs.readdirSync(dataDir).filter((n) => !["server.pid", "pods", "rein.db-wal", "rein.db-shm"].includes(n));
    fs.mkdirSync(out, { recursive: true });
    sh("tar", ["--create", "--gzip", "--file", path.join(out, "sqlite.tar.gz"), "--exclude=mcp/pids", "-C", dataDir, ...keep]);
    const about = { commit, lastMigration: migrations.at(-1), token, waitingRunId: waiting, pausedRunId: paused };
    fs.writeFileSync(path.join(out, "fixture.json"), JSON.stringify(about, null, 2) + "\n");
    console.log(`[fixture] wrote ${path.relative(root, out)}: ${JSON.stringify(about)}`);
  } catch (err) {
    if (server) console.error(`[fixture] the earlier server said:\n${serverLog().slice(-4000)}`);
    if (debugRun) console.error(`[fixture] its events: ${await debugRun().catch((e: Error) => e.message)}`);
    throw err;
  } finally {
    server?.kill("SIGKILL");
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
