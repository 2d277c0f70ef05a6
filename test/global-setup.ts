// Vitest global setup: migrates one template SQLite database per test run, so
// each test can start from a copy of it (test/helpers/db.ts) instead of
// running the migrations again.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    reinTemplateDb: string;
  }
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export default function setup(project: TestProject): () => void {
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

  return () => {
    delete process.env.REIN_TEST_TEMPLATE_DB;
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
