// The server for the Playwright tests (playwright.config.ts webServer): the
// built dist/server.mjs on port 3100 (or REIN_E2E_PORT) with a fresh, migrated, temporary data
// directory, removed again when the server exits.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);

// e2e/fixtures.ts exports the same values for the specs.
const E2E_PORT = Number(process.env.REIN_E2E_PORT) || 3100;
const E2E_ADMIN_EMAIL = "admin@rein.test";
const E2E_ADMIN_PASSWORD = "rein-e2e-password";

if (!fs.existsSync("dist/server.mjs")) {
  console.error("[e2e-server] dist/server.mjs is missing: run npm run build first");
  process.exit(1);
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-e2e-"));
const databaseUrl = `file:${path.join(dataDir, "rein.db")}`;
let removed = false;
function removeDataDir() {
  if (removed) return;
  removed = true;
  try {
    fs.rmSync(dataDir, { recursive: true, force: true });
  } catch (err) {
    console.error(`[e2e-server] could not remove ${dataDir}: ${err.message}`);
  }
}
process.on("exit", removeDataDir);

const migrate = spawnSync("bash", [path.join("scripts", "prisma.sh"), "migrate", "deploy"], {
  env: { ...process.env, DATABASE_URL: databaseUrl },
  encoding: "utf8",
});
if (migrate.error || migrate.status !== 0) {
  process.stderr.write(migrate.stdout ?? "");
  process.stderr.write(migrate.stderr ?? "");
  console.error(`[e2e-server] applying the migrations to ${databaseUrl} failed`);
  process.exit(1);
}

const env = { ...process.env };
// Settings of the calling shell must not leak into the test server.
for (const key of Object.keys(env)) {
  if (key.startsWith("REIN_") || key === "DATABASE_URL" || key === "NEXTAUTH_SECRET") delete env[key];
}
Object.assign(env, {
  NODE_ENV: "production",
  PORT: String(E2E_PORT),
  REIN_DATA_DIR: dataDir,
  DATABASE_URL: databaseUrl,
  REIN_ADMIN_EMAIL: E2E_ADMIN_EMAIL,
  REIN_ADMIN_PASSWORD: E2E_ADMIN_PASSWORD,
  REIN_SCRIPTED_DELAY_MS: "5",
  REIN_UI: "on",
  // Every REST answer is checked against its route's response schema.
  REIN_CHECK_RESPONSES: "1",
  // Slack's Web API, as e2e/slack.spec.ts fakes it on the port after the next (e2e/fixtures.ts FAKE_SLACK_PORT).
  REIN_SLACK_API_URL: `http://127.0.0.1:${E2E_PORT + 7}/api/`,
  NEXTAUTH_URL: `http://localhost:${E2E_PORT}`,
  NEXT_TELEMETRY_DISABLED: "1",
});

const child = spawn(process.execPath, [path.join("dist", "server.mjs")], { env, stdio: "inherit" });

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
}
child.on("error", (err) => {
  console.error(`[e2e-server] could not start the server: ${err.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  removeDataDir();
  // Stopped by Playwright (SIGTERM) or by hand: a normal end.
  const stopped = signal === "SIGTERM" || signal === "SIGINT" || signal === "SIGHUP";
  process.exit(code ?? (stopped ? 0 : 1));
});
