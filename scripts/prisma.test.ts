// scripts/prisma.sh (npm run db:migrate): a database whose folder does not
// exist yet, such as ./data in a fresh clone, is created with its folder.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rein-prisma-sh-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

it("migrates a database in a folder that does not exist yet", () => {
  const file = path.join(tmp, "fresh", "data", "rein.db");
  const out = spawnSync("bash", [path.join(__dirname, "prisma.sh"), "migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: `file:${file}` },
    encoding: "utf8",
    timeout: 120_000,
  });
  expect(out.status, out.stdout + out.stderr).toBe(0);
  expect(fs.statSync(file).size).toBeGreaterThan(0);
});
