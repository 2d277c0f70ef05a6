// Vitest global setup: migrates one template SQLite database per test run, so
// each test can start from a copy of it (test/helpers/db.ts) instead of
// running the migrations again; and bundles the server once, as the build
// does, for the tests that start it as a process (test/helpers/server-process.ts).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bundleServerEntries } from "./helpers/bundle";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    reinTemplateDb: string;
  }
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * server.ts and its worker threads, bundled as scripts/build.sh bundles them into dist/, into a
 * directory of this run inside node_modules (so the bundles find their packages). A server started
 * from the bundle is ready about twice as soon as one compiled by tsx at each start.
 */
async function bundleServer(): Promise<string> {
  const base = path.join(root, "node_modules", ".cache", "rein-test-server");
  fs.mkdirSync(base, { recursive: true });
  // A run that was killed leaves its bundle behind; none lives longer than a day.
  for (const old of fs.readdirSync(base)) {
    const dir = path.join(base, old);
    if (Date.now() - fs.statSync(dir).mtimeMs > 86_400_000) fs.rmSync(dir, { recursive: true, force: true });
  }
  const outdir = fs.mkdtempSync(path.join(base, "run-"));
  await bundleServerEntries(root, outdir, {
    server: "server.ts",
    "sandbox-worker": "server/improve/sandbox/worker.ts",
    "terminal-worker": "server/realtime/terminal-worker.ts",
    "policy-worker": "server/policy/parse-worker.ts",
  });
  return path.join(outdir, "server.mjs");
}

export default async function setup(project: TestProject): Promise<() => void> {
  const bundled = bundleServer();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-vitest-template-"));
  const template = path.join(dir, "template.db");
  try {
    execFileSync("bash", [path.join(root, "scripts", "prisma.sh"), "migrate", "deploy"], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: `file:${template}` },
      stdio: "pipe",
      encoding: "utf8",
    });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`Could not migrate the template test database: ${e.message}\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
  if (!fs.existsSync(template)) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`prisma migrate deploy did not create ${template}`);
  }
  // Both ways reach the test workers: provide/inject is Vitest's API; the
  // environment variable also serves code that runs outside a test context.
  process.env.REIN_TEST_TEMPLATE_DB = template;
  project.provide("reinTemplateDb", template);
  const server = await bundled;
  process.env.REIN_TEST_SERVER_BUNDLE = server;
  // Every REST answer a test receives is checked against its route's response schema.
  process.env.REIN_CHECK_RESPONSES = "1";

  return () => {
    delete process.env.REIN_TEST_TEMPLATE_DB;
    delete process.env.REIN_TEST_SERVER_BUNDLE;
    delete process.env.REIN_CHECK_RESPONSES;
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(path.dirname(server), { recursive: true, force: true });
  };
}
