// The demo repository, `demo-service`: a tiny Node project with one failing
// test (a discount rounds down instead of to the nearest cent), so the story
// of a reviewed change works on a fresh install with no setup. Its tests run
// with `node --test`: no install, no network.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Db } from "@/server/db";
import { git } from "./git";
import { protectedPathsOf, type RepositoryView } from "./registry";

export const DEMO_REPOSITORY = "demo-service";
export const DEMO_TEST_COMMAND = "node --test";
export const DEMO_PROTECTED_PATHS = [".ci/**", ".git/**"];

export const DEMO_FILES: Record<string, string> = {
  "package.json": `${JSON.stringify({ name: "demo-service", version: "1.0.0", private: true, type: "module", scripts: { test: "node --test" } }, null, 2)}\n`,
  "README.md": `# demo-service

A tiny pricing service for Rein's demo of reviewed changes. Run its tests with
\`node --test\` (or \`npm test\`): one of them fails until the discount rounds to
the nearest cent.
`,
  "src/price.mjs": `// Prices are whole cents.

/** The price after a percentage discount, to the nearest cent. */
export function applyDiscount(cents, percent) {
  if (!Number.isInteger(cents) || cents < 0) throw new RangeError("cents must be a whole, non-negative number");
  if (!(percent >= 0 && percent <= 100)) throw new RangeError("percent must be between 0 and 100");
  return Math.floor((cents * (100 - percent)) / 100);
}

/** The total of a basket of { cents, quantity } lines. */
export function total(lines) {
  return lines.reduce((sum, line) => sum + line.cents * line.quantity, 0);
}
`,
  "test/price.test.mjs": `import { test } from "node:test";
import assert from "node:assert/strict";
import { applyDiscount, total } from "../src/price.mjs";

test("a round discount", () => {
  assert.equal(applyDiscount(1000, 25), 750);
});

test("a discount rounds to the nearest cent", () => {
  // 995 cents less 10% is 895.5 cents: the customer pays 896.
  assert.equal(applyDiscount(995, 10), 896);
});

test("a basket's total", () => {
  assert.equal(total([{ cents: 250, quantity: 2 }, { cents: 99, quantity: 1 }]), 599);
});
`,
};

/** The one-line fix the scripted demo makes. */
export const DEMO_FIX = { path: "src/price.mjs", from: "Math.floor(", to: "Math.round(" };

/** A fixed identity and date: the demo's first commit is the same on every install. */
const DEMO_COMMIT_ENV = {
  GIT_AUTHOR_NAME: "Rein",
  GIT_AUTHOR_EMAIL: "demo@rein.local",
  GIT_COMMITTER_NAME: "Rein",
  GIT_COMMITTER_EMAIL: "demo@rein.local",
  GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
};

export const demoRepositoryDir = (dataDir: string) => path.join(dataDir, "repos", DEMO_REPOSITORY);

/**
 * Writes the demo project as a bare repository with one commit on main,
 * unless the folder already holds a repository. Bare: merging moves main in
 * the object database, and no checkout of it is left showing stale files.
 */
export async function writeDemoRepository(dir: string): Promise<void> {
  if (fs.existsSync(path.join(dir, ".git")) || fs.existsSync(path.join(dir, "HEAD"))) return;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "rein-demo-"));
  const files = path.join(scratch, "files");
  try {
    for (const [file, content] of Object.entries(DEMO_FILES)) {
      fs.mkdirSync(path.dirname(path.join(files, file)), { recursive: true });
      fs.writeFileSync(path.join(files, file), content);
    }
    fs.mkdirSync(dir, { recursive: true });
    await git(["init", "--quiet", "--bare", "--initial-branch=main", "--template=", dir]);
    const opts = { gitDir: dir, workTree: files, env: { ...DEMO_COMMIT_ENV, GIT_INDEX_FILE: path.join(scratch, "index") } };
    await git(["add", "--all"], opts);
    await git(["commit", "--quiet", "--no-verify", "-m", "demo-service: prices and their tests"], opts);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Registers `demo-service` as a built-in repository on first start; later
 * starts change nothing (the folder is written again only if it went away).
 */
export async function seedDemoRepository(db: Db, dataDir: string): Promise<RepositoryView> {
  const dir = demoRepositoryDir(path.resolve(dataDir));
  await writeDemoRepository(dir);
  const data = {
    source: dir,
    defaultBranch: "main",
    testCommand: DEMO_TEST_COMMAND,
    testTimeoutSec: 120,
    protectedPaths: JSON.stringify(DEMO_PROTECTED_PATHS),
    teamId: null,
    builtIn: true,
  };
  const found = await db.repository.findUnique({ where: { name: DEMO_REPOSITORY } });
  // A data directory restored elsewhere (docs/operations.md#backup-and-restore): the demo repository is where this one is.
  const existing =
    found && found.builtIn && found.source !== dir ? await db.repository.update({ where: { id: found.id }, data: { source: dir } }) : found;
  const row =
    existing ??
    (await db.repository.create({ data: { name: DEMO_REPOSITORY, ...data } }).catch(async (err: { code?: string }) => {
      // Two starts at once: the other one registered it.
      if (err.code === "P2002") return db.repository.findUniqueOrThrow({ where: { name: DEMO_REPOSITORY } });
      throw err;
    }));
  const { archivedAt, ...rest } = row;
  return { ...rest, kind: "path", protectedPaths: protectedPathsOf(row), archived: archivedAt !== null };
}
