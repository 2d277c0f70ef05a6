// Worktrees and checks on real git repositories: the demo's failing test fails
// in the sandbox and passes once fixed in a worktree; a repository's hooks,
// filters and fsmonitor never run; protected paths are refused by name.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeSandbox } from "@/server/compute";
import { makeTempDir } from "@/test/helpers/db";
import { ProtectedPathError } from "../changes";
import { DEMO_FIX, DEMO_PROTECTED_PATHS, DEMO_TEST_COMMAND, demoRepositoryDir, writeDemoRepository } from "./demo";
import { checkProtectedPaths, commitWorktree, createWorktree, diffOf, openWorktree, removeWorktree, type RepositoryRef } from "./worktrees";
import { runChecks } from "./checks";

const sandbox = probeSandbox();
const IDENTITY = {
  GIT_AUTHOR_NAME: "T",
  GIT_AUTHOR_EMAIL: "t@test.local",
  GIT_COMMITTER_NAME: "T",
  GIT_COMMITTER_EMAIL: "t@test.local",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
};
const sh = (cwd: string, args: string[]) =>
  execFileSync("git", args, { cwd, env: { ...process.env, ...IDENTITY }, encoding: "utf8" }).trim();

let dataDir: string;
let demo: RepositoryRef;
const deps = () => ({ dataDir, runningCheckout: dataDir });

beforeAll(async () => {
  dataDir = makeTempDir("rein-repos-wt-");
  await writeDemoRepository(demoRepositoryDir(dataDir));
  demo = {
    id: "demo",
    name: "demo-service",
    source: demoRepositoryDir(dataDir),
    defaultBranch: "main",
    protectedPaths: JSON.stringify(DEMO_PROTECTED_PATHS),
  };
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

function plainRepo(files: Record<string, string>): string {
  const dir = makeTempDir("rein-repos-src-");
  sh(dir, ["init", "--quiet", "--initial-branch=main"]);
  for (const [f, c] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), c);
  }
  sh(dir, ["add", "--all"]);
  sh(dir, ["commit", "--quiet", "-m", "start"]);
  return dir;
}

describe("the demo repository in a worktree", () => {
  it.skipIf(!sandbox.ok)("its test fails in the sandbox before the fix and passes after it; the diff names the file", async () => {
    const wt = await createWorktree(deps(), demo, "fix1");
    expect(wt.branch).toBe("rein/change-fix1");
    expect(wt.path).toBe(path.join(dataDir, "worktrees", "fix1"));
    expect(wt.baseCommit).toBe(sh(demo.source, ["rev-parse", "main"]));

    const before = await runChecks({ testCommand: DEMO_TEST_COMMAND, testTimeoutSec: 60 }, wt.path);
    expect(before.state).toBe("failed");
    expect(before.exitCode).not.toBe(0);
    expect(before.log).toContain("nearest cent");

    const file = path.join(wt.path, DEMO_FIX.path);
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(DEMO_FIX.from, DEMO_FIX.to));
    const after = await runChecks({ testCommand: DEMO_TEST_COMMAND, testTimeoutSec: 60 }, wt.path);
    expect(after).toMatchObject({ state: "passed", exitCode: 0, timedOut: false });

    const diff = await diffOf(wt);
    expect(diff.files).toEqual([{ path: "src/price.mjs", status: "modified", insertions: 1, deletions: 1 }]);
    expect(diff.diff).toContain("+  return Math.round(");
    await checkProtectedPaths(deps(), demo, diff.files);

    const reopened = await openWorktree(deps(), demo, "fix1", wt.baseCommit);
    expect(reopened).toEqual(wt);
    const head = await commitWorktree(wt, "Round discounts to the nearest cent");
    await removeWorktree(deps(), demo, "fix1");
    expect(fs.existsSync(wt.path)).toBe(false);
    expect(await openWorktree(deps(), demo, "fix1", wt.baseCommit)).toBeNull();
    expect(sh(demo.source, ["rev-parse", "rein/change-fix1"])).toBe(head);
    expect(sh(demo.source, ["show", "rein/change-fix1:src/price.mjs"])).toContain("Math.round(");
    // The demo repository has no checkout to leave stale (it is bare), and the worktree is forgotten.
    expect(sh(demo.source, ["rev-parse", "--is-bare-repository"])).toBe("true");
    expect(sh(demo.source, ["worktree", "list"]).split("\n")).toHaveLength(1);

    // Made again from the branch left behind: the change is there, on the same base.
    const again = await createWorktree(deps(), demo, "fix1");
    expect(again.baseCommit).toBe(wt.baseCommit);
    expect(fs.readFileSync(path.join(again.path, DEMO_FIX.path), "utf8")).toContain("Math.round(");
    await removeWorktree(deps(), demo, "fix1", { deleteBranch: true });
  });

  it.skipIf(!sandbox.ok)("a command running past the time limit is stopped and reported as timed out", async () => {
    const wt = await createWorktree(deps(), demo, "slow");
    const r = await runChecks({ testCommand: "echo started; sleep 30", testTimeoutSec: 5 }, wt.path);
    expect(r).toMatchObject({ state: "timed_out", timedOut: true, exitCode: null });
    expect(r.log).toContain("started");
    expect(r.log).toContain("longer than 5 s");
    expect(r.durationMs).toBeLessThan(25_000);
    await removeWorktree(deps(), demo, "slow", { deleteBranch: true });
  });

  it.skipIf(!sandbox.ok)("a long output is kept capped, its start and its end", async () => {
    const wt = await createWorktree(deps(), demo, "loud");
    const r = await runChecks(
      { testCommand: "echo FIRST-LINE; head -c 600000 /dev/zero | tr '\\0' x; echo; echo LAST-LINE", testTimeoutSec: 30 },
      wt.path,
      { maxLogBytes: 64 * 1024 },
    );
    expect(r.state).toBe("passed");
    expect(r.log).toContain("FIRST-LINE");
    expect(r.log).toContain("LAST-LINE");
    expect(r.logDroppedBytes).toBeGreaterThan(500_000);
    expect(Buffer.byteLength(r.log)).toBeLessThan(66 * 1024);
    await removeWorktree(deps(), demo, "loud", { deleteBranch: true });
  });

  it("checks never run unsandboxed unless that is asked for", async () => {
    const err = await runChecks({ testCommand: "true", testTimeoutSec: 10 }, demo.source, {
      sandbox: { kind: "bubblewrap", ok: false, message: "no bwrap here", limits: { processes: false, memory: false, cpuWeight: false } },
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "SANDBOX_UNAVAILABLE" });
    expect((err as Error).message).toContain("no bwrap here");
  });

  it("refuses a change id that is not one", async () => {
    await expect(createWorktree(deps(), demo, "../escape")).rejects.toThrow(/not a change request id/);
  });
});

describe("worktrees and the running checkout", () => {
  it("go inside the checkout's folder only where its git ignores them", async () => {
    const running = plainRepo({ ".gitignore": "data/\n", "server.ts": "// running\n" });
    const ignored = path.join(running, "data");
    await writeDemoRepository(demoRepositoryDir(ignored));
    const inIgnored = { ...demo, source: demoRepositoryDir(ignored) };
    const wt = await createWorktree({ dataDir: ignored, runningCheckout: running }, inIgnored, "in-data");
    expect(sh(running, ["status", "--porcelain"])).toBe("");
    await removeWorktree({ dataDir: ignored, runningCheckout: running }, inIgnored, "in-data", { deleteBranch: true });
    expect(fs.existsSync(wt.path)).toBe(false);

    const tracked = path.join(running, "state");
    await expect(createWorktree({ dataDir: tracked, runningCheckout: running }, demo, "in-tree")).rejects.toThrow(
      /inside the server's running checkout and not ignored/,
    );
    expect(fs.existsSync(path.join(tracked, "worktrees", "in-tree"))).toBe(false);
    fs.rmSync(running, { recursive: true, force: true });
  });
});

describe("protected paths", () => {
  it("a change touching one is refused with the path named", async () => {
    const wt = await createWorktree(deps(), demo, "ci");
    fs.mkdirSync(path.join(wt.path, ".ci"));
    fs.writeFileSync(path.join(wt.path, ".ci", "deploy.yml"), "steps: []\n");
    fs.writeFileSync(path.join(wt.path, "src", "extra.mjs"), "export const x = 1;\n");
    const diff = await diffOf(wt);
    expect(diff.files.map((f) => f.path).sort()).toEqual([".ci/deploy.yml", "src/extra.mjs"]);
    const err = await checkProtectedPaths(deps(), demo, diff.files).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProtectedPathError);
    expect((err as Error).message).toContain(".ci/deploy.yml");
    expect((err as Error).message).not.toContain("src/extra.mjs");
    await removeWorktree(deps(), demo, "ci", { deleteBranch: true });
  });

  it("Rein's own repository gets Rein's list too; another repository does not", async () => {
    const rein = plainRepo({
      "server/improve/changes/protected.ts": "// the list\n",
      "server/policy/rules.ts": "export {};\n",
      "lib/x.ts": "export {};\n",
    });
    const other = plainRepo({ "server/policy/rules.ts": "export {};\n" });
    const reinRef = { id: "rein", name: "rein", source: rein, defaultBranch: "main", protectedPaths: "[]" };
    const otherRef = { id: "other", name: "other", source: other, defaultBranch: "main", protectedPaths: "[]" };
    await expect(checkProtectedPaths(deps(), reinRef, [{ path: "server/policy/rules.ts" }])).rejects.toThrow(/server\/policy\/rules\.ts/);
    await expect(checkProtectedPaths(deps(), reinRef, [{ path: "lib/x.ts" }])).resolves.toBeUndefined();
    await expect(checkProtectedPaths(deps(), otherRef, [{ path: "server/policy/rules.ts" }])).resolves.toBeUndefined();
    fs.rmSync(rein, { recursive: true, force: true });
    fs.rmSync(other, { recursive: true, force: true });
  });
});

describe("a repository's hooks, filters and fsmonitor", () => {
  it("are never run by the server, though git alone runs them", async () => {
    const markers = makeTempDir("rein-repos-markers-");
    const repo = plainRepo({ "a.txt": "one\n", ".gitattributes": "* filter=evil\n" });
    const program = (name: string) => {
      const file = path.join(markers, `${name}.sh`);
      fs.writeFileSync(file, `#!/bin/sh\ntouch ${JSON.stringify(path.join(markers, name))}\ncat\n`, { mode: 0o755 });
      return file;
    };
    for (const hook of ["post-checkout", "pre-commit", "post-commit", "commit-msg", "reference-transaction", "post-index-change"]) {
      fs.writeFileSync(path.join(repo, ".git", "hooks", hook), `#!/bin/sh\ntouch ${JSON.stringify(path.join(markers, `hook-${hook}`))}\n`, {
        mode: 0o755,
      });
    }
    sh(repo, ["config", "filter.evil.smudge", program("smudge")]);
    sh(repo, ["config", "filter.evil.clean", program("clean")]);
    sh(repo, ["config", "core.fsmonitor", program("fsmonitor")]);
    const ref = { id: "hooked", name: "hooked", source: repo, defaultBranch: "main", protectedPaths: "[]" };

    const wt = await createWorktree(deps(), ref, "h1");
    fs.writeFileSync(path.join(wt.path, "a.txt"), "two\n");
    fs.writeFileSync(path.join(wt.path, "b.txt"), "new\n");
    const diff = await diffOf(wt);
    expect(diff.files.map((f) => f.path)).toEqual(["a.txt", "b.txt"]);
    await commitWorktree(wt, "change");
    await removeWorktree(deps(), ref, "h1", { deleteBranch: true });
    expect(fs.readdirSync(markers).filter((f) => !f.endsWith(".sh"))).toEqual([]);

    // The same steps with plain git run them: the test would see it if Rein did.
    const control = path.join(dataDir, "control");
    sh(repo, ["worktree", "add", "--quiet", "-b", "control", control, "main"]);
    fs.writeFileSync(path.join(control, "a.txt"), "three\n");
    sh(control, ["commit", "--quiet", "-am", "control"]);
    const ran = fs.readdirSync(markers).filter((f) => !f.endsWith(".sh"));
    expect(ran).toEqual(expect.arrayContaining(["hook-post-checkout", "hook-pre-commit", "smudge", "clean"]));
    fs.rmSync(repo, { recursive: true, force: true });
    fs.rmSync(markers, { recursive: true, force: true });
  });

  it("a .git the agent wrote into its worktree is never used as the repository", async () => {
    const markers = makeTempDir("rein-repos-markers-");
    const wt = await createWorktree(deps(), demo, "forged");
    // The agent replaces the worktree's .git with a repository of its own, configured to run a program.
    fs.rmSync(path.join(wt.path, ".git"));
    sh(wt.path, ["init", "--quiet"]);
    fs.writeFileSync(path.join(markers, "fsmon.sh"), `#!/bin/sh\ntouch ${JSON.stringify(path.join(markers, "ran"))}\n`, { mode: 0o755 });
    sh(wt.path, ["config", "core.fsmonitor", path.join(markers, "fsmon.sh")]);
    fs.writeFileSync(path.join(wt.path, "README.md"), "changed\n");
    const diff = await diffOf(wt);
    expect(diff.files.map((f) => f.path)).toEqual(["README.md"]);
    expect(fs.existsSync(path.join(markers, "ran"))).toBe(false);
    await removeWorktree(deps(), demo, "forged", { deleteBranch: true });
    fs.rmSync(markers, { recursive: true, force: true });
  });
});
