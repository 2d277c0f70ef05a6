// The repository registry on a real SQLite database: validation in words,
// admins only, visibility by team, audit rows, URL sources cloned bare, the
// running checkout refused, and the demo repository seeded once.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/server/identity";
import { createTestDb, makeTempDir, type TestDb } from "@/test/helpers/db";
import { DEMO_REPOSITORY, seedDemoRepository } from "./demo";
import { RepositoryError } from "./errors";
import { createRepository, getRepository, listRepositories, setRepositoryArchived, updateRepository, visibleRepository } from "./registry";
import { createWorktree, removeWorktree } from "./worktrees";
import { cloneDirOf } from "./source";

let t: TestDb;
let dataDir: string;
let running: string;
let alphaId: string;
let betaId: string;
let source: string;
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

const actor = (role: Actor["role"], teamIds: string[] = []): Actor => ({
  userId: `u-${role}-${teamIds.join("-")}`,
  email: `${role}@test.local`,
  name: role,
  role,
  via: "session",
  teamIds,
});
let admin: Actor;
let alphaOperator: Actor;
let betaOperator: Actor;
const as = (a: Actor) => ({ actor: a, channel: "admin" });
const deps = () => ({ db: t.db, dataDir, runningCheckout: running });
let seq = 0;
const input = (extra: Record<string, unknown> = {}) => ({ name: `repo-${++seq}`, source, testCommand: "node --test", ...extra });

async function refusal(p: Promise<unknown>): Promise<RepositoryError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(RepositoryError);
    return err as RepositoryError;
  }
  throw new Error("expected a refusal");
}

function gitRepo(dir: string, files: Record<string, string>) {
  fs.mkdirSync(dir, { recursive: true });
  sh(dir, ["init", "--quiet", "--initial-branch=main"]);
  for (const [f, c] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), c);
  }
  sh(dir, ["add", "--all"]);
  sh(dir, ["commit", "--quiet", "-m", "start"]);
  return dir;
}

beforeAll(async () => {
  t = await createTestDb();
  dataDir = path.join(t.dir, "data");
  running = gitRepo(makeTempDir("rein-running-"), { "server.ts": "// the running server\n" });
  source = gitRepo(makeTempDir("rein-source-"), { "index.mjs": "export {};\n" });
  alphaId = (await t.db.team.create({ data: { name: "alpha" } })).id;
  betaId = (await t.db.team.create({ data: { name: "beta" } })).id;
  admin = actor("admin");
  alphaOperator = actor("operator", [alphaId]);
  betaOperator = actor("operator", [betaId]);
});
afterAll(async () => {
  await t?.cleanup();
  for (const d of [running, source]) if (d) fs.rmSync(d, { recursive: true, force: true });
});

describe("registering a repository", () => {
  it("a local path: stored as given, audited", async () => {
    const r = await createRepository(deps(), as(admin), input({ protectedPaths: ["secrets/**"], testTimeoutSec: 90 }));
    expect(r).toMatchObject({
      kind: "path",
      source,
      defaultBranch: "main",
      testCommand: "node --test",
      testTimeoutSec: 90,
      protectedPaths: ["secrets/**"],
      builtIn: false,
      archived: false,
      teamId: null,
    });
    const audit = await t.db.auditEntry.findMany({ where: { kind: "repository.created", subject: r.name } });
    expect(audit).toHaveLength(1);
    expect(audit[0].actorId).toBe(admin.userId);
  });

  it("every bad field is named, and nothing is stored", async () => {
    const before = await t.db.repository.count();
    const err = await refusal(
      createRepository(deps(), as(admin), {
        name: "Bad Name",
        source: "",
        testCommand: "",
        testTimeoutSec: 0,
        defaultBranch: "../x",
        color: "red",
      }),
    );
    expect(err.code).toBe("INVALID_INPUT");
    expect(err.problems.map((p) => p.field).sort()).toEqual(
      expect.arrayContaining(["name", "source", "testCommand", "testTimeoutSec", "defaultBranch"]),
    );
    expect(err.message).toMatch(/problems/);
    expect(await t.db.repository.count()).toBe(before);
  });

  it.each([
    ["ftp://example.com/x.git", /ftp:\/\/ are not accepted: use https:\/\/, ssh:\/\/ or file:\/\//],
    ["git://example.com/x.git", /git:\/\/ are not accepted/],
    ["git@example.com:org/x.git", /ssh:\/\/user@host\/path/],
    ["relative/path", /not an absolute local path nor a git URL/],
    ["https://user:hunter2@example.com/x.git", /carries a password/],
    ["/nowhere/at/all", /There is no folder \/nowhere\/at\/all/],
  ])("refuses the source %s with a clear message", async (src, message) => {
    const err = await refusal(createRepository(deps(), as(admin), input({ source: src })));
    expect(err.code).toBe("INVALID_INPUT");
    expect(err.message).toMatch(message);
  });

  it("refuses a folder that is no git repository, or a branch it lacks", async () => {
    const plain = makeTempDir("rein-plain-");
    expect((await refusal(createRepository(deps(), as(admin), input({ source: plain })))).message).toContain("not a git repository");
    // A folder inside a repository is not a repository of its own.
    fs.mkdirSync(path.join(source, "sub"));
    expect((await refusal(createRepository(deps(), as(admin), input({ source: path.join(source, "sub") })))).message).toContain(
      "not a git repository",
    );
    expect((await refusal(createRepository(deps(), as(admin), input({ defaultBranch: "develop" })))).message).toContain(
      "has no branch develop",
    );
    fs.rmSync(plain, { recursive: true, force: true });
  });

  it("refuses the running checkout and folders of its tree, accepts a separate worktree of it", async () => {
    fs.mkdirSync(path.join(running, "lib"));
    for (const src of [running, `${running}/`, path.join(running, "lib")]) {
      expect((await refusal(createRepository(deps(), as(admin), input({ source: src })))).message).toContain("running checkout");
    }
    const separate = path.join(makeTempDir("rein-sep-"), "rein-improve");
    sh(running, ["worktree", "add", "--quiet", "-b", "improve", separate]);
    const r = await createRepository(deps(), as(admin), input({ source: separate, defaultBranch: "improve" }));
    expect(r.source).toBe(separate);
  });

  it("a file:// URL is cloned bare into the data directory; a clone that fails leaves nothing", async () => {
    const r = await createRepository(deps(), as(admin), input({ source: `file://${source}` }));
    expect(r.kind).toBe("url");
    const clone = cloneDirOf(dataDir, r.id);
    expect(sh(clone, ["rev-parse", "--is-bare-repository"])).toBe("true");
    expect(sh(clone, ["rev-parse", "main"])).toBe(sh(source, ["rev-parse", "main"]));
    // A worktree is made from the URL's default branch as it is now: fetched first.
    fs.writeFileSync(path.join(source, "later.mjs"), "export {};\n");
    sh(source, ["add", "later.mjs"]);
    sh(source, ["commit", "--quiet", "-m", "later"]);
    const wt = await createWorktree({ dataDir }, await visibleRepository(t.db, admin, r.id), "url1");
    expect(wt.baseCommit).toBe(sh(source, ["rev-parse", "main"]));
    expect(fs.existsSync(path.join(wt.path, "later.mjs"))).toBe(true);
    await removeWorktree({ dataDir }, await visibleRepository(t.db, admin, r.id), "url1", { deleteBranch: true });
    const before = fs.readdirSync(path.join(dataDir, "repos")).length;
    const err = await refusal(createRepository(deps(), as(admin), input({ source: `file://${source}-missing` })));
    expect(err.message).toMatch(/Cloning file:\/\/.* failed/);
    expect(fs.readdirSync(path.join(dataDir, "repos"))).toHaveLength(before);
  });

  it("a taken name is a conflict", async () => {
    const r = await createRepository(deps(), as(admin), input());
    expect((await refusal(createRepository(deps(), as(admin), input({ name: r.name })))).code).toBe("CONFLICT");
  });

  it("only admins register, change and archive", async () => {
    expect((await refusal(createRepository(deps(), as(alphaOperator), input({ teamId: alphaId })))).code).toBe("FORBIDDEN");
    const r = await createRepository(deps(), as(admin), input({ teamId: alphaId }));
    expect((await refusal(updateRepository(deps(), as(alphaOperator), r.id, { testCommand: "true" }))).code).toBe("FORBIDDEN");
    expect((await refusal(setRepositoryArchived(deps(), as(alphaOperator), r.id, true))).code).toBe("FORBIDDEN");
  });
});

describe("seeing and changing repositories", () => {
  it("a team's repository is seen by its members and admins; a team-less one by everyone", async () => {
    const alpha = await createRepository(deps(), as(admin), input({ teamId: alphaId }));
    const everyone = await createRepository(deps(), as(admin), input());
    const names = async (a: Actor) => (await listRepositories(t.db, a)).map((r) => r.name);
    expect(await names(alphaOperator)).toEqual(expect.arrayContaining([alpha.name, everyone.name]));
    expect(await names(betaOperator)).toContain(everyone.name);
    expect(await names(betaOperator)).not.toContain(alpha.name);
    expect(await names(admin)).toEqual(expect.arrayContaining([alpha.name, everyone.name]));
    expect((await refusal(getRepository(t.db, betaOperator, alpha.id))).code).toBe("NOT_FOUND");
    expect((await getRepository(t.db, alphaOperator, alpha.id)).id).toBe(alpha.id);
  });

  it("a team that does not exist is refused", async () => {
    const err = await refusal(createRepository(deps(), as(admin), input({ teamId: "no-such-team" })));
    expect(err.problems[0]).toMatchObject({ field: "teamId" });
  });

  it("an update changes only what it names; the source never changes; each change is audited", async () => {
    const r = await createRepository(deps(), as(admin), input({ testTimeoutSec: 120 }));
    const u = await updateRepository(deps(), as(admin), r.id, { testCommand: "npm test", protectedPaths: [".ci/**"] });
    expect(u).toMatchObject({ testCommand: "npm test", testTimeoutSec: 120, protectedPaths: [".ci/**"], source });
    expect((await refusal(updateRepository(deps(), as(admin), r.id, { source: "/elsewhere" }))).message).toContain("source cannot change");
    expect((await refusal(updateRepository(deps(), as(admin), r.id, { defaultBranch: "nope" }))).message).toContain("has no branch nope");
    const audit = await t.db.auditEntry.findMany({ where: { kind: "repository.updated", subject: r.name } });
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0].detail).changed).toEqual(["testCommand", "protectedPaths"]);
  });

  it("archived repositories leave the list and come back when restored", async () => {
    const r = await createRepository(deps(), as(admin), input());
    await setRepositoryArchived(deps(), as(admin), r.id, true);
    expect((await listRepositories(t.db, admin)).map((x) => x.id)).not.toContain(r.id);
    expect((await listRepositories(t.db, admin, { includeArchived: true })).find((x) => x.id === r.id)?.archived).toBe(true);
    await setRepositoryArchived(deps(), as(admin), r.id, false);
    expect((await listRepositories(t.db, admin)).map((x) => x.id)).toContain(r.id);
    expect((await t.db.auditEntry.findMany({ where: { subject: r.name } })).map((a) => a.kind)).toEqual([
      "repository.created",
      "repository.archived",
      "repository.restored",
    ]);
  });
});

describe("the demo repository", () => {
  it("is seeded once: a second start changes nothing", async () => {
    const first = await seedDemoRepository(t.db, dataDir);
    const head = sh(first.source, ["rev-parse", "main"]);
    const second = await seedDemoRepository(t.db, dataDir);
    expect(second.id).toBe(first.id);
    expect(await t.db.repository.count({ where: { name: DEMO_REPOSITORY } })).toBe(1);
    expect(sh(first.source, ["rev-parse", "main"])).toBe(head);
    expect(sh(first.source, ["rev-list", "--count", "main"])).toBe("1");
    expect(first).toMatchObject({
      builtIn: true,
      teamId: null,
      defaultBranch: "main",
      testCommand: "node --test",
      protectedPaths: [".ci/**", ".git/**"],
    });
    // Its first commit is the same on every install.
    const other = makeTempDir("rein-demo-other-");
    const otherDb = await createTestDb();
    const elsewhere = await seedDemoRepository(otherDb.db, other);
    expect(sh(elsewhere.source, ["rev-parse", "main"])).toBe(head);
    await otherDb.cleanup();
    fs.rmSync(other, { recursive: true, force: true });
  });

  it("keeps its name", async () => {
    const demo = await seedDemoRepository(t.db, dataDir);
    expect((await refusal(updateRepository(deps(), as(admin), demo.id, { name: "renamed" }))).message).toContain("keeps its name");
  });
});
