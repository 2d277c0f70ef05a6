// Worktrees for change requests (docs/changes.md#where-things-happen: all tier
// 2–4 work happens in a git worktree outside the running system). Each change
// gets a branch `rein/change-<id>` checked out at `<dataDir>/worktrees/<id>`,
// made from the repository's default branch (for a URL source, from its bare
// clone after a fetch of that branch). Nothing is ever checked out or written
// in the server's running checkout (see source.ts for the rule on local paths).
//
// The agent writes in the worktree, `.git` file included, so the server never
// lets git find the repository from it: every call names the worktree's own
// git directory, which lives in the repository and is out of the agent's
// sandbox. git runs hardened (git.ts): no hooks, no filters, no fsmonitor.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DEFAULT_PROTECTED_PATHS, ProtectedPaths } from "../changes";
import { RepositoryError } from "./errors";
import { GitError, git, gitText } from "./git";
import { protectedPathsOf, type RepositoryRow } from "./registry";
import { cloneDirOf, isInside, localGitDir, parseSource, realPath } from "./source";

export type RepositoryRef = Pick<RepositoryRow, "id" | "name" | "source" | "defaultBranch" | "protectedPaths">;

export interface WorktreeDeps {
  dataDir: string;
  /** The server's own working tree (default: the process's working directory). */
  runningCheckout?: string;
}

export interface Worktree {
  changeId: string;
  path: string;
  branch: string;
  baseCommit: string;
  /** The worktree's own git directory (inside the repository, never inside the worktree). */
  gitDir: string;
}

export const changeBranch = (changeId: string) => `rein/change-${changeId}`;
export const worktreesDir = (dataDir: string) => path.join(path.resolve(dataDir), "worktrees");

/**
 * Where a change's worktree goes: under the worktrees folder by default, or a
 * folder named after the change elsewhere in the data directory (the
 * authoring run's workspace). git names the worktree's own record after the
 * folder, so the folder's name must be the change's id.
 */
export interface WorktreeAt {
  dir?: string;
}

function worktreePath(deps: WorktreeDeps, changeId: string, at: WorktreeAt): string {
  if (!at.dir) return path.join(worktreesDir(deps.dataDir), changeId);
  const dir = path.resolve(at.dir);
  if (path.basename(dir) !== changeId)
    throw new RepositoryError("INVALID_INPUT", `A worktree for ${changeId} must be a folder named ${changeId}`);
  if (!isInside(dir, path.resolve(deps.dataDir))) throw new RepositoryError("INVALID_INPUT", "A worktree goes inside the data directory");
  return dir;
}

function checkChangeId(changeId: string) {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(changeId))
    throw new RepositoryError("INVALID_INPUT", `${JSON.stringify(changeId.slice(0, 80))} is not a change request id`);
}

/** The git directory a repository's worktrees share: the local repository's, or the bare clone of a URL. */
export async function repositoryGitDir(deps: WorktreeDeps, repo: RepositoryRef): Promise<string> {
  const s = parseSource(repo.source);
  return s.kind === "path" ? localGitDir(s.path) : cloneDirOf(path.resolve(deps.dataDir), repo.id);
}

/** Brings the default branch of a URL source's clone up to date; nothing for a local path. */
async function refresh(deps: WorktreeDeps, repo: RepositoryRef, gitDir: string) {
  const s = parseSource(repo.source);
  if (s.kind !== "url") return;
  const ref = `refs/heads/${repo.defaultBranch}`;
  try {
    await git(["fetch", "--quiet", "--no-tags", "--no-recurse-submodules", "--", s.url, `+${ref}:${ref}`], {
      gitDir,
      transport: s.transport,
      timeoutMs: 300_000,
    });
  } catch (err) {
    throw new RepositoryError(
      "INVALID_INPUT",
      `Fetching ${repo.defaultBranch} of ${repo.name} from ${s.url} failed: ${(err as Error).message}`,
    );
  }
}

async function refExists(gitDir: string, ref: string): Promise<boolean> {
  try {
    await git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], { gitDir });
    return true;
  } catch {
    return false;
  }
}

/**
 * Worktrees may sit inside the running checkout's folder only where its git
 * ignores them (the default data directory, ./data, is ignored): never among
 * the files the server runs from.
 */
async function assertOutsideRunningTree(root: string, running: string) {
  const at = realPath(root);
  if (!isInside(at, running)) return;
  if (at === running) throw new RepositoryError("INVALID_INPUT", "The worktrees folder is the server's running checkout");
  try {
    // A path that does not exist yet is still matched against the ignore rules.
    await git(["check-ignore", "--quiet", "--no-index", "--", path.relative(running, at)], { cwd: running });
  } catch (err) {
    if (err instanceof GitError && err.exitCode === 1) {
      throw new RepositoryError(
        "INVALID_INPUT",
        `Worktrees would go under ${root}, inside the server's running checkout and not ignored by it; put the data directory outside the checkout or in an ignored folder`,
      );
    }
    // 128: the server does not run from a git checkout; nothing to keep apart.
  }
}

/**
 * Makes the change's worktree. When its branch already exists (the worktree
 * was removed after a cycle and the checks run again), the branch is checked
 * out as it is, and its base is where it left the default branch.
 */
export async function createWorktree(deps: WorktreeDeps, repo: RepositoryRef, changeId: string, at: WorktreeAt = {}): Promise<Worktree> {
  checkChangeId(changeId);
  const commonDir = await repositoryGitDir(deps, repo);
  const wtPath = worktreePath(deps, changeId, at);
  const root = path.dirname(wtPath);
  const running = realPath(deps.runningCheckout ?? process.cwd());
  const s = parseSource(repo.source);
  if (s.kind === "path" && isInside(realPath(root), realPath(s.path))) {
    throw new RepositoryError(
      "INVALID_INPUT",
      `Worktrees go under ${root}, which is inside the repository ${repo.name} itself; move the data directory out of it`,
    );
  }
  await assertOutsideRunningTree(root, running);
  if (fs.existsSync(wtPath)) throw new RepositoryError("CONFLICT", `The change request ${changeId} already has a worktree`);
  fs.mkdirSync(root, { recursive: true });
  await refresh(deps, repo, commonDir);
  const branch = changeBranch(changeId);
  const defaultRef = `refs/heads/${repo.defaultBranch}`;
  if (!(await refExists(commonDir, defaultRef)))
    throw new RepositoryError("INVALID_INPUT", `${repo.name} has no branch ${repo.defaultBranch}`);
  const existing = await refExists(commonDir, `refs/heads/${branch}`);
  // The base is fixed first: the branch starts exactly there, even if the default branch moves meanwhile.
  const baseCommit = existing
    ? await gitText(["merge-base", defaultRef, `refs/heads/${branch}`], { gitDir: commonDir })
    : await gitText(["rev-parse", `${defaultRef}^{commit}`], { gitDir: commonDir });
  try {
    if (existing) await git(["worktree", "add", "--quiet", wtPath, branch], { gitDir: commonDir });
    else await git(["worktree", "add", "--quiet", "-b", branch, wtPath, baseCommit], { gitDir: commonDir });
  } catch (err) {
    fs.rmSync(wtPath, { recursive: true, force: true });
    throw new RepositoryError("INVALID_INPUT", `The worktree for ${changeId} could not be made: ${(err as Error).message}`);
  }
  const gitDir = path.join(commonDir, "worktrees", changeId);
  // Read once, now, before any agent has touched the worktree: it must be the one just made.
  const linked = fs.existsSync(path.join(gitDir, "gitdir")) ? realPath(fs.readFileSync(path.join(gitDir, "gitdir"), "utf8").trim()) : null;
  if (linked !== path.join(realPath(wtPath), ".git")) {
    await removeWorktree(deps, repo, changeId, at).catch(() => undefined);
    throw new RepositoryError("CONFLICT", `git put the worktree for ${changeId} somewhere unexpected; it was removed`);
  }
  return { changeId, path: wtPath, branch, baseCommit, gitDir };
}

/** The change's worktree as made before (its base from the change request), or null when it is gone. */
export async function openWorktree(
  deps: WorktreeDeps,
  repo: RepositoryRef,
  changeId: string,
  baseCommit: string,
  at: WorktreeAt = {},
): Promise<Worktree | null> {
  checkChangeId(changeId);
  const commonDir = await repositoryGitDir(deps, repo);
  const wtPath = worktreePath(deps, changeId, at);
  const gitDir = path.join(commonDir, "worktrees", changeId);
  if (!fs.existsSync(wtPath) || !fs.existsSync(path.join(gitDir, "gitdir"))) return null;
  return { changeId, path: wtPath, branch: changeBranch(changeId), baseCommit, gitDir };
}

/** Removes the worktree (whatever is in it) and prunes its record; the branch stays for merging. */
export async function removeWorktree(
  deps: WorktreeDeps,
  repo: RepositoryRef,
  changeId: string,
  opts: WorktreeAt & { deleteBranch?: boolean } = {},
): Promise<void> {
  checkChangeId(changeId);
  const commonDir = await repositoryGitDir(deps, repo);
  const wtPath = worktreePath(deps, changeId, opts);
  try {
    await git(["worktree", "remove", "--force", "--force", wtPath], { gitDir: commonDir });
  } catch {
    // Not a worktree any more (removed by hand, or half made): remove the folder and let prune forget it.
  }
  fs.rmSync(wtPath, { recursive: true, force: true });
  await git(["worktree", "prune"], { gitDir: commonDir });
  if (opts.deleteBranch) await git(["branch", "--quiet", "-D", changeBranch(changeId)], { gitDir: commonDir }).catch(() => undefined);
}

/** Commits everything in the worktree (tracked, new and deleted files) on its branch; returns the head commit. */
export async function commitWorktree(wt: Worktree, message: string, identity?: Record<string, string>): Promise<string> {
  const { commit, parent } = await commitTree(wt, await snapshotTree(wt), message, identity);
  await advanceBranch(wt, commit, parent);
  return commit;
}

/**
 * A commit of `tree` on top of the branch's tip, written in the object
 * database only: nothing points at it until advanceBranch. The same tree as
 * the tip is no commit (the tip is returned). What is committed is the tree
 * that was scanned, never the worktree read a second time
 * (docs/security.md#change-requests).
 */
export async function commitTree(
  wt: Worktree,
  tree: string,
  message: string,
  identity?: Record<string, string>,
): Promise<{ commit: string; parent: string }> {
  const opts = { gitDir: wt.gitDir, env: identity };
  const parent = await gitText(["rev-parse", "--verify", "--quiet", `refs/heads/${wt.branch}^{commit}`], opts);
  if ((await gitText(["rev-parse", `${parent}^{tree}`], opts)) === tree) return { commit: parent, parent };
  const commit = (await git(["commit-tree", "--no-gpg-sign", tree, "-p", parent, "-F", "-"], { ...opts, input: message }))
    .toString("utf8")
    .trim();
  return { commit, parent };
}

/** Moves the worktree's branch from `parent` to `commit`, or fails when it moved meanwhile; the worktree's own index follows (its files are untouched). */
export async function advanceBranch(wt: Worktree, commit: string, parent: string): Promise<void> {
  if (commit === parent) return;
  const opts = { gitDir: wt.gitDir, workTree: wt.path };
  try {
    await git(["update-ref", "-m", "rein: propose", `refs/heads/${wt.branch}`, commit, parent], opts);
  } catch (err) {
    throw new RepositoryError(
      "CONFLICT",
      `The branch ${wt.branch} moved while the change was being committed; nothing was committed, propose again`,
    );
  }
  await git(["read-tree", commit], opts);
}

export type FileStatus = "added" | "modified" | "deleted" | "type_changed";

export interface ChangedFile {
  path: string;
  status: FileStatus;
  /** Lines added and removed; null for a binary file. */
  insertions: number | null;
  deletions: number | null;
}

export interface WorktreeDiff {
  /** The tree the diff goes to (for diffOf: everything in the worktree when it was scanned, committed or not). */
  tree: string;
  files: ChangedFile[];
  stat: { files: number; insertions: number; deletions: number };
  /** The unified diff against the base commit, cut at maxDiffBytes. */
  diff: string;
  truncated: boolean;
}

const STATUS: Record<string, FileStatus> = { A: "added", M: "modified", D: "deleted", T: "type_changed" };
export const MAX_DIFF_BYTES = 1024 * 1024;

/**
 * The worktree's files now (committed, staged, changed or new, as
 * `git add --all` sees them) as a tree in the object database. The
 * worktree's own index is untouched: the snapshot goes through an index of
 * its own.
 */
export async function snapshotTree(wt: Worktree): Promise<string> {
  const index = path.join(os.tmpdir(), `rein-index-${crypto.randomBytes(8).toString("hex")}`);
  const withIndex = { gitDir: wt.gitDir, workTree: wt.path, env: { GIT_INDEX_FILE: index } };
  try {
    await git(["read-tree", `refs/heads/${wt.branch}`], withIndex);
    await git(["add", "--all"], withIndex);
    return await gitText(["write-tree"], withIndex);
  } finally {
    fs.rmSync(index, { force: true });
    fs.rmSync(`${index}.lock`, { force: true });
  }
}

/** What the change is: the worktree's files now (see snapshotTree) against its base commit. */
export async function diffOf(wt: Worktree, opts: { maxDiffBytes?: number } = {}): Promise<WorktreeDiff> {
  return diffBetween(wt.gitDir, wt.baseCommit, await snapshotTree(wt), opts);
}

/** The files, counts and unified diff from `base` to `to` (a commit or a tree), read from the object database only. */
export async function diffBetween(gitDir: string, base: string, to: string, opts: { maxDiffBytes?: number } = {}): Promise<WorktreeDiff> {
  const at = { gitDir };
  const tree = await gitText(["rev-parse", "--verify", `${to}^{tree}`], at);
  const names = (await git(["diff-tree", "-r", "-z", "--no-renames", "--name-status", base, tree], at)).toString("utf8").split("\0");
  const files: ChangedFile[] = [];
  for (let i = 0; i + 1 < names.length; i += 2)
    files.push({ path: names[i + 1], status: STATUS[names[i]] ?? "modified", insertions: null, deletions: null });
  const numstat = (await git(["diff-tree", "-r", "-z", "--no-renames", "--numstat", base, tree], at)).toString("utf8").split("\0");
  const byPath = new Map(files.map((f) => [f.path, f]));
  for (const rec of numstat) {
    const m = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(rec);
    const f = m && byPath.get(m[3]);
    if (!f) continue;
    f.insertions = m[1] === "-" ? null : Number(m[1]);
    f.deletions = m[2] === "-" ? null : Number(m[2]);
  }
  const max = opts.maxDiffBytes ?? MAX_DIFF_BYTES;
  const patch = await git(
    ["diff-tree", "-r", "-p", "--no-renames", "--no-color", "--no-ext-diff", "--no-textconv", "--full-index", base, tree],
    at,
  );
  const truncated = patch.length > max;
  const stat = {
    files: files.length,
    insertions: files.reduce((n, f) => n + (f.insertions ?? 0), 0),
    deletions: files.reduce((n, f) => n + (f.deletions ?? 0), 0),
  };
  return { tree, files, stat, diff: patch.subarray(0, max).toString("utf8"), truncated };
}

/** Is this Rein's own repository? Then Rein's protected folders are protected too. */
export async function isReinsOwn(deps: WorktreeDeps, repo: RepositoryRef): Promise<boolean> {
  const gitDir = await repositoryGitDir(deps, repo);
  try {
    const running = await gitText(["rev-parse", "--path-format=absolute", "--git-common-dir"], {
      cwd: deps.runningCheckout ?? process.cwd(),
    });
    if (realPath(running) === realPath(gitDir)) return true;
  } catch {
    /* the server does not run from a checkout */
  }
  // Or a copy of it: its default branch has Rein's own protected-path list.
  return git(["cat-file", "-e", `refs/heads/${repo.defaultBranch}:server/improve/changes/protected.ts`], { gitDir }).then(
    () => true,
    () => false,
  );
}

/** The repository's protected paths, with Rein's own list for Rein's own repository. */
export async function protectedPathsFor(deps: WorktreeDeps, repo: RepositoryRef): Promise<ProtectedPaths> {
  const own = protectedPathsOf(repo);
  return new ProtectedPaths((await isReinsOwn(deps, repo)) ? [...new Set([...own, ...DEFAULT_PROTECTED_PATHS])] : own);
}

/** Refuses a change touching a protected path, naming each (ProtectedPathError). */
export async function checkProtectedPaths(deps: WorktreeDeps, repo: RepositoryRef, files: ReadonlyArray<{ path: string }>): Promise<void> {
  (await protectedPathsFor(deps, repo)).check(files.map((f) => f.path));
}

/**
 * A clean, detached checkout of one commit for the checks, under the
 * worktrees folder: what is tested is exactly what would merge, not whatever
 * else (ignored files, a process still writing) sits in the agent's worktree.
 * Removed by the returned function.
 */
export async function checkoutForChecks(
  deps: WorktreeDeps,
  repo: RepositoryRef,
  changeId: string,
  commit: string,
): Promise<{ path: string; remove(): Promise<void> }> {
  const name = `${changeId}-checks`;
  checkChangeId(name);
  if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new RepositoryError("INVALID_INPUT", "The checks need a full commit id");
  const commonDir = await repositoryGitDir(deps, repo);
  const root = worktreesDir(deps.dataDir);
  const wtPath = path.join(root, name);
  await assertOutsideRunningTree(root, realPath(deps.runningCheckout ?? process.cwd()));
  fs.mkdirSync(root, { recursive: true });
  // Left behind by a crash: the checks start again from a clean checkout.
  await removeWorktree(deps, repo, name);
  try {
    await git(["worktree", "add", "--quiet", "--detach", wtPath, commit], { gitDir: commonDir });
  } catch (err) {
    fs.rmSync(wtPath, { recursive: true, force: true });
    throw new RepositoryError("INVALID_INPUT", `The checkout for the checks of ${changeId} could not be made: ${(err as Error).message}`);
  }
  return { path: wtPath, remove: () => removeWorktree(deps, repo, name) };
}
