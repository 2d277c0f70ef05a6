// Integrity (issue 17): a whole cycle — worktree, a committed change, checks,
// removal — leaves the running checkout byte for byte as it was, and the
// sandbox the checks run in can neither read that checkout nor reach the
// network. Each refusal is shown to work without the sandbox first.
import { execFile, execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeSandbox } from "@/server/compute";
import type { Actor } from "@/server/identity";
import { createTestDb, makeTempDir, type TestDb } from "@/test/helpers/db";
import { runChecks } from "./checks";
import { createRepository, visibleRepository, type RepositoryRow } from "./registry";
import { commitWorktree, createWorktree, diffOf, removeWorktree } from "./worktrees";

const run = promisify(execFile);
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
const admin: Actor = { userId: "u-admin", email: "admin@test.local", name: "admin", role: "admin", via: "session", teamIds: [] };

let t: TestDb;
let dataDir: string;
let running: string;
const SECRET_FILE = "config/secret.env";
const SECRET = `TOKEN=${crypto.randomBytes(12).toString("hex")}`;

/** Every file under dir (its .git included), path -> sha256, and each file's mode. */
function hashTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const p = path.join(e.parentPath, e.name);
    const rel = path.relative(dir, p);
    if (e.isFile()) out.set(rel, `${crypto.createHash("sha256").update(fs.readFileSync(p)).digest("hex")} ${fs.statSync(p).mode}`);
    else if (e.isDirectory()) out.set(`${rel}/`, "dir");
    else if (e.isSymbolicLink()) out.set(rel, `-> ${fs.readlinkSync(p)}`);
  }
  return out;
}

beforeAll(async () => {
  t = await createTestDb();
  dataDir = path.join(t.dir, "data");
  // The "running checkout": a repository with a test, and a file no check may read.
  running = makeTempDir("rein-running-");
  sh(running, ["init", "--quiet", "--initial-branch=main"]);
  fs.mkdirSync(path.join(running, "test"));
  fs.mkdirSync(path.join(running, "config"));
  fs.writeFileSync(path.join(running, "package.json"), '{ "type": "module" }\n');
  fs.writeFileSync(path.join(running, "test", "a.test.mjs"), 'import { test } from "node:test";\ntest("ok", () => {});\n');
  fs.writeFileSync(path.join(running, SECRET_FILE), `${SECRET}\n`);
  sh(running, ["add", "--all"]);
  sh(running, ["commit", "--quiet", "-m", "running"]);
});
afterAll(async () => {
  await t?.cleanup();
  if (running) fs.rmSync(running, { recursive: true, force: true });
});

async function repositoryOfRunning(name: string): Promise<RepositoryRow> {
  const view = await createRepository(
    { db: t.db, dataDir, runningCheckout: running },
    { actor: admin, channel: "admin" },
    { name, source: `file://${running}`, testCommand: "node --test", testTimeoutSec: 60 },
  );
  return visibleRepository(t.db, admin, view.id);
}

describe("a cycle and the running checkout", () => {
  it.skipIf(!sandbox.ok)("hashes of every file of the running checkout are the same before and after", async () => {
    const before = hashTree(running);
    const repo = await repositoryOfRunning("running-copy");
    const deps = { dataDir, runningCheckout: running };
    const wt = await createWorktree(deps, repo, "iso1");
    expect(wt.path.startsWith(path.join(dataDir, "worktrees"))).toBe(true);
    fs.writeFileSync(path.join(wt.path, "test", "b.test.mjs"), 'import { test } from "node:test";\ntest("new", () => {});\n');
    fs.writeFileSync(path.join(wt.path, SECRET_FILE), "TOKEN=changed\n");
    expect((await diffOf(wt)).files.map((f) => f.path).sort()).toEqual([SECRET_FILE, "test/b.test.mjs"]);
    await commitWorktree(wt, "a change");
    const cr = await t.db.changeRequest.create({
      data: { repositoryId: repo.id, title: "a change", branch: wt.branch, baseCommit: wt.baseCommit },
    });
    const r = await runChecks(repo, wt.path, { db: t.db, changeRequestId: cr.id });
    expect(r.state).toBe("passed");
    await removeWorktree(deps, repo, "iso1");
    expect(hashTree(running)).toEqual(before);

    // The check is recorded, and the change request keeps its last result.
    const rows = await t.db.changeCheck.findMany({ where: { changeRequestId: cr.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: "tests", state: "passed", exitCode: 0 });
    expect(rows[0].endedAt).not.toBeNull();
    expect(rows[0].log).toContain("pass 2");
    expect(JSON.parse((await t.db.changeRequest.findUniqueOrThrow({ where: { id: cr.id } })).checks).tests).toMatchObject({
      checkId: rows[0].id,
      state: "passed",
      exitCode: 0,
    });
  });
});

describe("the sandbox the checks run in", () => {
  it.skipIf(!sandbox.ok)("cannot read a file of the running checkout", async () => {
    const target = path.join(running, SECRET_FILE);
    const command = `cat ${target}`;
    // Without the sandbox the same command reads it: the refusal below is the sandbox's.
    expect((await run("sh", ["-c", command])).stdout).toContain(SECRET);
    const repo = await repositoryOfRunning("reader");
    const deps = { dataDir, runningCheckout: running };
    const wt = await createWorktree(deps, repo, "reader");
    const r = await runChecks({ testCommand: command, testTimeoutSec: 30 }, wt.path);
    expect(r.state).toBe("failed");
    expect(r.log).not.toContain(SECRET);
    expect(r.log).toContain("No such file or directory");
    // Nor through the worktree's .git, which names the repository's folder on the host.
    const viaGit = await runChecks({ testCommand: `cat "$(sed -n 's/^gitdir: //p' .git)/HEAD"`, testTimeoutSec: 30 }, wt.path);
    expect(viaGit.state).toBe("failed");
    await removeWorktree(deps, repo, "reader");
  });

  it.skipIf(!sandbox.ok)("cannot reach the network, not even the host's loopback", async () => {
    const server = net.createServer((s) => {
      s.on("error", () => undefined);
      s.end("hello\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as net.AddressInfo).port;
    const command = `node -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => { console.log('CONNECTED'); process.exit(0); }).on('error', (e) => { console.log('REFUSED ' + e.code); process.exit(3); })"`;
    try {
      expect((await run("sh", ["-c", command])).stdout).toContain("CONNECTED");
      const repo = await repositoryOfRunning("networker");
      const deps = { dataDir, runningCheckout: running };
      const wt = await createWorktree(deps, repo, "net");
      const r = await runChecks({ testCommand: command, testTimeoutSec: 30 }, wt.path);
      expect(r.state).toBe("failed");
      expect(r.log).toContain("REFUSED");
      expect(r.log).not.toContain("CONNECTED");
      const dns = await runChecks(
        {
          testCommand: `node -e "require('dns').lookup('example.com', (e) => { console.log(e ? 'NO-DNS' : 'RESOLVED'); process.exit(e ? 3 : 0); })"`,
          testTimeoutSec: 30,
        },
        wt.path,
      );
      expect(dns.log).toContain("NO-DNS");
      await removeWorktree(deps, repo, "net");
    } finally {
      server.close();
    }
  });

  it.skipIf(!sandbox.ok)("gets none of the server's environment", async () => {
    process.env.REIN_TEST_SERVER_SECRET = "server-only-value-7f3a";
    try {
      const repo = await repositoryOfRunning("env-reader");
      const deps = { dataDir, runningCheckout: running };
      const wt = await createWorktree(deps, repo, "env");
      const r = await runChecks({ testCommand: "env", testTimeoutSec: 30 }, wt.path);
      expect(r.state).toBe("passed");
      expect(r.log).toContain("HOME=/tmp");
      expect(r.log).not.toContain("server-only-value-7f3a");
      await removeWorktree(deps, repo, "env");
    } finally {
      delete process.env.REIN_TEST_SERVER_SECRET;
    }
  });
});
