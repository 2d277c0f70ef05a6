// `npm start`: runs an already built Rein (see `npm run build`).
// Applies pending database migrations, then runs dist/server.mjs in production
// mode, passing signals on and exiting with the server's exit code.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);

if (!fs.existsSync("dist/server.mjs") || !fs.existsSync(".next/BUILD_ID")) {
  console.error("Rein is not built yet: run npm run build (or npm run up)");
  process.exit(1);
}

// The same rule as the server: DATABASE_URL, else <REIN_DATA_DIR>/rein.db.
const dataDir = path.resolve(process.env.REIN_DATA_DIR || "./data");
const databaseUrl = process.env.DATABASE_URL || `file:${path.join(dataDir, "rein.db")}`;
if (!process.env.DATABASE_URL) fs.mkdirSync(dataDir, { recursive: true });

// On PostgreSQL the migrator's few lines are shown as they come: what it applied, or that it waits for
// another process applying them (docs/operations.md#processes-that-start-together). Prisma's output
// for SQLite is kept for a failure.
const postgres = /^postgres(ql)?:\/\//.test(databaseUrl);
const migrate = spawnSync("bash", [path.join("scripts", "db-migrate.sh"), "--schema-only"], {
  env: { ...process.env, DATABASE_URL: databaseUrl },
  encoding: "utf8",
  stdio: postgres ? ["ignore", "inherit", "pipe"] : "pipe",
});
if (migrate.error || migrate.status !== 0) {
  process.stderr.write(migrate.stdout ?? "");
  process.stderr.write(migrate.stderr ?? "");
  if (migrate.error) console.error(migrate.error.message);
  console.error("Rein cannot start: applying the database migrations failed.");
  process.exit(1);
}
// Rewrites of large tables an upgrade needs run in batches and say how far they are (server/db/backfill.ts).
const backfill = spawnSync(process.execPath, ["--disable-warning=MODULE_TYPELESS_PACKAGE_JSON", path.join("server", "db", "backfill.ts")], {
  env: { ...process.env, DATABASE_URL: databaseUrl },
  stdio: "inherit",
});
if (backfill.error || backfill.status !== 0) {
  if (backfill.error) console.error(backfill.error.message);
  console.error(
    "Rein cannot start: rewriting a table for this upgrade failed; what was done is kept, and the next start goes on from there.",
  );
  process.exit(1);
}

const child = spawn(process.execPath, [path.join("dist", "server.mjs")], {
  env: { ...process.env, NODE_ENV: "production" },
  stdio: "inherit",
});

// Pass signals on. A Ctrl-C in a terminal reaches this process (often twice:
// from the terminal and from npm) and the server itself, so the same signal
// is passed on at most once a second; the server's shutdown should be idempotent.
const lastForwarded = new Map();
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    const now = Date.now();
    if (now - (lastForwarded.get(signal) ?? 0) < 1000) return;
    lastForwarded.set(signal, now);
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
}

child.on("error", (err) => {
  console.error(`Rein could not be started: ${err.message}`);
  process.exit(1);
});

child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal so the caller sees what happened.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
