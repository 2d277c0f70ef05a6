// Figures for `npm run bench:improve` (issue 17): worktree creation and
// cleanup for the demo repository and for a generated repository of 10,000
// files, and the demo change's checks in the sandbox against the same test
// command run directly. Medians of a few rounds; asserts nothing.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { probeSandbox } from "@/server/compute";
import { runChecks } from "./checks";
import { DEMO_FIX, DEMO_TEST_COMMAND, demoRepositoryDir, writeDemoRepository } from "./demo";
import { git } from "./git";
import { checkoutForChecks, commitWorktree, createWorktree, removeWorktree, type RepositoryRef } from "./worktrees";

const run = promisify(execFile);

export interface WorktreeFigures {
  files: number;
  createP50Ms: number;
  removeP50Ms: number;
}

export interface WorktreeBench {
  rounds: number;
  demo: WorktreeFigures;
  large: WorktreeFigures;
  /** The fixed demo change's tests: in a sandboxed pod vs `sh -c <command>` in the worktree, the same PATH (so the same node) in both. */
  checks:
    | { sandbox: string; sandboxedP50Ms: number; directP50Ms: number; ratio: number; cleanCheckoutP50Ms: number }
    | { sandbox: string; skipped: string };
}

const p50 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? Math.round(s[Math.floor((s.length - 1) / 2)] * 10) / 10 : 0;
};

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const value = await fn();
  return [performance.now() - start, value];
}

async function worktreeRounds(dataDir: string, repo: RepositoryRef, rounds: number, files: number): Promise<WorktreeFigures> {
  const creates: number[] = [];
  const removes: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const id = `bench-${repo.id}-${i}`;
    const [c] = await timed(() => createWorktree({ dataDir }, repo, id));
    const [r] = await timed(() => removeWorktree({ dataDir }, repo, id, { deleteBranch: true }));
    creates.push(c);
    removes.push(r);
  }
  return { files, createP50Ms: p50(creates), removeP50Ms: p50(removes) };
}

/** A repository of `count` small files in nested folders, one commit. */
async function generatedRepository(dir: string, count: number) {
  for (let i = 0; i < count; i++) {
    const sub = path.join(dir, `pkg${Math.floor(i / 500)}`, `mod${Math.floor(i / 50) % 10}`);
    if (i % 50 === 0) fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(sub, `file${i}.ts`), `export const value${i} = ${i};\n`);
  }
  const gitDir = path.join(dir, ".git");
  await git(["init", "--quiet", "--initial-branch=main", "--template=", dir]);
  await git(["add", "--all"], { gitDir, workTree: dir });
  await git(["commit", "--quiet", "--no-verify", "-m", "generated"], { gitDir, workTree: dir });
}

export async function benchWorktrees(opts: { rounds?: number; largeFiles?: number } = {}): Promise<WorktreeBench> {
  const rounds = opts.rounds ?? 5;
  const largeFiles = opts.largeFiles ?? 10_000;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-repos-"));
  try {
    await writeDemoRepository(demoRepositoryDir(dataDir));
    const demo: RepositoryRef = {
      id: "demo",
      name: "demo-service",
      source: demoRepositoryDir(dataDir),
      defaultBranch: "main",
      protectedPaths: "[]",
    };
    const demoFigures = await worktreeRounds(
      dataDir,
      demo,
      rounds,
      (await git(["ls-tree", "-r", "--name-only", "main"], { gitDir: demo.source })).toString().trim().split("\n").length,
    );

    const largeDir = path.join(dataDir, "repos", "large");
    await generatedRepository(largeDir, largeFiles);
    const large: RepositoryRef = { id: "large", name: "large", source: largeDir, defaultBranch: "main", protectedPaths: "[]" };
    const largeFigures = await worktreeRounds(dataDir, large, Math.max(3, Math.min(rounds, 5)), largeFiles);

    const status = probeSandbox();
    let checks: WorktreeBench["checks"];
    if (!status.ok) checks = { sandbox: "unavailable", skipped: status.message };
    else {
      const wt = await createWorktree({ dataDir }, demo, "bench-checks");
      const file = path.join(wt.path, DEMO_FIX.path);
      fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(DEMO_FIX.from, DEMO_FIX.to));
      const sandboxed: number[] = [];
      const direct: number[] = [];
      // What propose_change adds before the tests: a clean, detached checkout of the commit, and its removal after.
      const commit = await commitWorktree(wt, "bench", {
        GIT_AUTHOR_NAME: "bench",
        GIT_AUTHOR_EMAIL: "bench@rein.local",
        GIT_COMMITTER_NAME: "bench",
        GIT_COMMITTER_EMAIL: "bench@rein.local",
      });
      const checkouts: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const [made, checkout] = await timed(() => checkoutForChecks({ dataDir }, demo, "bench-checks", commit));
        const [removed] = await timed(() => checkout.remove());
        checkouts.push(made + removed);
      }
      for (let i = 0; i < rounds; i++) {
        const r = await runChecks({ testCommand: DEMO_TEST_COMMAND, testTimeoutSec: 120 }, wt.path, { sandbox: status });
        if (r.state !== "passed") throw new Error(`the fixed demo's checks did not pass: ${r.log.slice(-500)}`);
        sandboxed.push(r.durationMs);
        const [d] = await timed(() =>
          run("sh", ["-c", DEMO_TEST_COMMAND], {
            cwd: wt.path,
            env: { ...process.env, PATH: "/usr/local/bin:/usr/bin:/bin", HOME: os.tmpdir() },
          }),
        );
        direct.push(d);
      }
      await removeWorktree({ dataDir }, demo, "bench-checks", { deleteBranch: true });
      const s = p50(sandboxed);
      const d = p50(direct);
      checks = {
        sandbox: "bubblewrap",
        sandboxedP50Ms: s,
        directP50Ms: d,
        ratio: d > 0 ? Math.round((s / d) * 100) / 100 : 0,
        cleanCheckoutP50Ms: p50(checkouts),
      };
    }
    return { rounds, demo: demoFigures, large: largeFigures, checks };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
