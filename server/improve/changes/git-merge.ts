// Merging and reverting a change request in the repository's object database
// only (docs/changes.md): `git merge-tree --write-tree` computes the
// merge, `commit-tree` writes a --no-ff merge commit (two parents), and
// `update-ref` moves the branch only if it still points where the merge was
// computed. No working tree is touched (a checkout of the branch elsewhere,
// Rein's own running one included, is never written), and git runs with no
// hooks, no system or global config and no prompts.
import { GitError, git } from "../repos/git";

export class MergeError extends Error {
  constructor(
    readonly code: "CONFLICT" | "MOVED" | "GIT_FAILED",
    message: string,
    readonly conflicts: string[] = [],
  ) {
    super(message);
    this.name = "MergeError";
  }
}

export interface Signature {
  name: string;
  email: string;
}

/** Hardened git (server/improve/repos/git.ts) on the repository's object database, as `author` when given. */
export async function repoGit(gitDir: string, args: string[], opts: { author?: Signature; input?: string } = {}): Promise<string> {
  const env = opts.author
    ? {
        GIT_AUTHOR_NAME: opts.author.name,
        GIT_AUTHOR_EMAIL: opts.author.email,
        GIT_COMMITTER_NAME: opts.author.name,
        GIT_COMMITTER_EMAIL: opts.author.email,
      }
    : undefined;
  try {
    return (await git(args, { gitDir, env, input: opts.input, timeoutMs: 60_000 })).toString("utf8");
  } catch (err) {
    if (!(err instanceof GitError)) throw err;
    throw Object.assign(new MergeError("GIT_FAILED", err.message.slice(0, 2000)), { stdout: err.stdout, exitCode: err.exitCode });
  }
}

const revParse = async (gitDir: string, ref: string) =>
  (await repoGit(gitDir, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`])).trim();

/** The tree of merging `theirs` into `ours`; throws CONFLICT naming the files. */
async function mergeTree(gitDir: string, ours: string, theirs: string): Promise<string> {
  try {
    const out = await repoGit(gitDir, ["merge-tree", "--write-tree", "--name-only", "--no-messages", ours, theirs]);
    return out.split("\n")[0].trim();
  } catch (err) {
    const e = err as MergeError & { stdout?: string; exitCode?: unknown };
    if (e.exitCode === 1 && e.stdout) {
      const [, ...files] = e.stdout.trim().split("\n");
      const conflicts = files.filter(Boolean);
      throw new MergeError(
        "CONFLICT",
        `The change no longer applies to the target: ${conflicts.join(", ") || "conflicting changes"}`,
        conflicts,
      );
    }
    throw err;
  }
}

/** Moves `branch` from `expected` to `next`, or throws MOVED when someone else moved it meanwhile. */
async function moveBranch(gitDir: string, branch: string, next: string, expected: string, message: string): Promise<void> {
  try {
    await repoGit(gitDir, ["update-ref", "-m", message, `refs/heads/${branch}`, next, expected]);
  } catch (err) {
    throw new MergeError("MOVED", `${branch} moved while the change was being merged; nothing was changed, try again`);
  }
}

export interface MergeResult {
  commit: string;
  /** Where the target pointed before. */
  previous: string;
  tree: string;
}

/** Checks that `source` still merges cleanly onto `target` as it is now, without writing anything. */
export async function mergePreview(gitDir: string, target: string, source: string): Promise<{ head: string; tree: string }> {
  const head = await revParse(gitDir, `refs/heads/${target}`);
  const tree = await mergeTree(gitDir, head, await revParse(gitDir, source));
  return { head, tree };
}

/** A --no-ff merge commit of `source` onto branch `target`; the branch moves only if it is still at the head the merge was computed on. */
export async function mergeNoFf(
  gitDir: string,
  target: string,
  source: string,
  message: string,
  author: Signature,
  expectedHead?: string,
): Promise<MergeResult> {
  const head = await revParse(gitDir, `refs/heads/${target}`);
  if (expectedHead && head !== expectedHead)
    throw new MergeError(
      "MOVED",
      `${target} moved since the change was checked (now ${head.slice(0, 12)}); its checks run again on the new base`,
    );
  const src = await revParse(gitDir, source);
  const tree = await mergeTree(gitDir, head, src);
  const commit = (await repoGit(gitDir, ["commit-tree", tree, "-p", head, "-p", src, "-F", "-"], { author, input: message })).trim();
  await moveBranch(gitDir, target, commit, head, `rein: ${message.split("\n")[0]}`);
  return { commit, previous: head, tree };
}

/** A revert commit of merge commit `merge` (its change against its first parent) on top of branch `target`. */
export async function revertMerge(gitDir: string, target: string, merge: string, message: string, author: Signature): Promise<MergeResult> {
  const head = await revParse(gitDir, `refs/heads/${target}`);
  const before = (await repoGit(gitDir, ["rev-parse", "--verify", "--quiet", `${merge}^1^{tree}`])).trim();
  // The undo as a commit on top of the merge, so the merge is the natural merge base of it and the target
  // (git 2.39's merge-tree has no --merge-base): what came after the merge stays, the merge's change goes.
  const undo = (await repoGit(gitDir, ["commit-tree", before, "-p", merge, "-F", "-"], { author, input: "undo" })).trim();
  const tree = await mergeTree(gitDir, head, undo);
  const commit = (await repoGit(gitDir, ["commit-tree", tree, "-p", head, "-F", "-"], { author, input: message })).trim();
  await moveBranch(gitDir, target, commit, head, `rein: ${message.split("\n")[0]}`);
  return { commit, previous: head, tree };
}
