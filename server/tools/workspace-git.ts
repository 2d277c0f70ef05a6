// Read-only git plumbing over a run's workspace, for the Files view.
// The workspace's repository is written by the agent, so its config and
// .gitattributes are untrusted: only commands that run no configured programs
// are used (no `git diff`/`status`, whose clean filters and fsmonitor hooks
// could execute code outside the sandbox), with the repository named
// explicitly so git never walks up into a parent repository.
import crypto from "node:crypto";
import path from "node:path";
import { execFile, spawn } from "node:child_process";

export class GitUnavailableError extends Error {}

const MAX_OUTPUT = 64 * 1024 * 1024;

function gitArgs(root: string, args: string[]): string[] {
  return [
    `--git-dir=${path.join(root, ".git")}`,
    `--work-tree=${root}`,
    "-c", "core.fsmonitor=false",
    "-c", "core.quotepath=off",
    "-c", `safe.directory=${root}`,
    ...args,
  ];
}

const GIT_ENV = { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" };

/** Runs git and returns its stdout; fails with the message git printed. */
export function git(root: string, args: string[], input?: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      gitArgs(root, args),
      { cwd: root, env: GIT_ENV, encoding: "buffer", maxBuffer: MAX_OUTPUT },
      (err, stdout, stderr) => {
        if (err) reject(new GitUnavailableError(stderr.toString("utf8").trim() || err.message));
        else resolve(stdout);
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** The workspace's first commit (the one Rein made when it created the workspace), or null. */
export async function firstCommit(root: string): Promise<string | null> {
  try {
    const out = (await git(root, ["rev-list", "--max-parents=0", "HEAD"])).toString("utf8").trim().split("\n");
    return out[out.length - 1] || null;
  } catch {
    return null;
  }
}

export interface TreeBlob {
  mode: string;
  sha: string;
  size: number;
}

/** Every file of a commit's tree: path -> blob (submodules skipped). */
export async function listTree(root: string, commit: string): Promise<Map<string, TreeBlob>> {
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
export async function listWorkTree(root: string): Promise<string[]> {
  const out = (await git(root, ["ls-files", "-z", "--cached", "--others", "--exclude-standard"])).toString("utf8");
  return [...new Set(out.split("\0").filter((p) => p && !p.endsWith("/")))];
}

/** The git object id of content as a blob (sha1, or sha256 for such repositories). */
export function blobId(content: Buffer, algorithm: "sha1" | "sha256"): string {
  return crypto.createHash(algorithm).update(`blob ${content.length}\0`).update(content).digest("hex");
}

/** Reads blobs by id with one `git cat-file --batch`; streams, so the caller bounds the sizes asked for. */
export function readBlobs(root: string, shas: string[]): Promise<Map<string, Buffer>> {
  const result = new Map<string, Buffer>();
  if (shas.length === 0) return Promise.resolve(result);
  return new Promise((resolve, reject) => {
    const child = spawn("git", gitArgs(root, ["cat-file", "--batch"]), { cwd: root, env: GIT_ENV, stdio: ["pipe", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => (stderr = (stderr + c.toString("utf8")).slice(-2000)));
    child.on("error", (err) => reject(new GitUnavailableError(err.message)));
    child.on("close", (code) => {
      if (code !== 0) return reject(new GitUnavailableError(stderr.trim() || `git cat-file exited with ${code}`));
      const out = Buffer.concat(chunks);
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
      resolve(result);
    });
    child.stdin.end(shas.join("\n") + "\n");
  });
}
