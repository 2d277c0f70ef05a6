// Read-only git plumbing over a run's workspace, for the Files view. git runs
// in the file sandbox, which sees only the workspace: the repository is the
// agent's (its index names any path, its config any program), so nothing git
// reads or runs can reach the host. Only commands that run no configured
// programs are used all the same (no `git diff`/`status`, whose clean filters
// and fsmonitor hooks would run the agent's code), with the repository named
// explicitly so git never walks up into a parent repository.
import crypto from "node:crypto";
import type { Workspace } from "./workspace";

export class GitUnavailableError extends Error {}

const MAX_OUTPUT = 64 * 1024 * 1024;

/** Run in the file sandbox, whose working directory is the workspace; git never walks up into a parent repository. */
function gitArgv(args: string[]): string[] {
  return [
    "git",
    "--git-dir=.git",
    "--work-tree=.",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.quotepath=off",
    "-c",
    "safe.directory=*",
    ...args,
  ];
}

const GIT_ENV = { GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_NOSYSTEM: "1" };

/** Runs git in the workspace's sandbox and returns its stdout; fails with the message git printed. */
export async function git(workspace: Workspace, args: string[], input?: string): Promise<Buffer> {
  let r;
  try {
    r = await workspace.run(gitArgv(args), { env: GIT_ENV, input, maxBytes: MAX_OUTPUT });
  } catch (err) {
    throw new GitUnavailableError((err as Error).message);
  }
  if (r.code !== 0) throw new GitUnavailableError(r.stderr || `git exited with ${r.code ?? r.signal}`);
  if (r.truncated) throw new GitUnavailableError("git printed more than Rein reads at once");
  return r.stdout;
}

/** The workspace's first commit (the one Rein made when it created the workspace), or null. */
export async function firstCommit(root: Workspace): Promise<string | null> {
  try {
    const out = (await git(root, ["rev-list", "--max-parents=0", "HEAD"])).toString("utf8").trim().split("\n");
    return out[out.length - 1] || null;
  } catch {
    return null;
  }
}

/** The last `n` commits of the workspace's HEAD as "<short sha> <subject>", newest first (none: an empty list). */
export async function recentCommits(root: Workspace, n: number): Promise<string[]> {
  const out = (
    await git(root, [
      "-c",
      "core.pager=cat",
      "log",
      "--no-color",
      "--no-decorate",
      `--max-count=${Math.max(1, Math.floor(n))}`,
      "--format=%h %s",
    ])
  ).toString("utf8");
  return out
    .split("\n")
    .map((l) => l.trimEnd())
    .filter(Boolean)
    .map((l) => (l.length > 200 ? `${l.slice(0, 200)}…` : l));
}

export interface TreeBlob {
  mode: string;
  sha: string;
  size: number;
}

/** Every file of a commit's tree: path -> blob (submodules skipped). */
export async function listTree(root: Workspace, commit: string): Promise<Map<string, TreeBlob>> {
  const out = (await git(root, ["ls-tree", "-r", "-z", "-l", "--full-tree", commit])).toString("utf8");
  const blobs = new Map<string, TreeBlob>();
  for (const record of out.split("\0")) {
    if (!record) continue;
    const tab = record.indexOf("\t");
    const [mode, type, sha, size] = record.slice(0, tab).split(/ +/);
    if (type !== "blob") continue;
    blobs.set(record.slice(tab + 1), { mode, sha, size: Number(size) });
  }
  return blobs;
}

/** Tracked and untracked, not ignored paths of the work tree (nested repositories skipped). */
export async function listWorkTree(root: Workspace): Promise<string[]> {
  const out = (await git(root, ["ls-files", "-z", "--cached", "--others", "--exclude-standard"])).toString("utf8");
  return [...new Set(out.split("\0").filter((p) => p && !p.endsWith("/")))];
}

/** The git object id of content as a blob (sha1, or sha256 for such repositories). */
export function blobId(content: Buffer, algorithm: "sha1" | "sha256"): string {
  return crypto.createHash(algorithm).update(`blob ${content.length}\0`).update(content).digest("hex");
}

/** Reads blobs by id with one `git cat-file --batch`; the caller bounds the sizes asked for. */
export async function readBlobs(root: Workspace, shas: string[]): Promise<Map<string, Buffer>> {
  const result = new Map<string, Buffer>();
  if (shas.length === 0) return result;
  const out = await git(root, ["cat-file", "--batch"], shas.join("\n") + "\n");
  let at = 0;
  for (const sha of shas) {
    const eol = out.indexOf(0x0a, at);
    if (eol === -1) break;
    const header = out.subarray(at, eol).toString("utf8").split(" ");
    at = eol + 1;
    if (header[1] === "missing") continue;
    const size = Number(header[2]);
    result.set(sha, out.subarray(at, at + size));
    at += size + 1;
  }
  return result;
}
