// Where a repository's history comes from: a local path used in place, or a
// git URL cloned bare under the data directory. And the rule that keeps the
// server out of the tree it runs from.
//
// The running-checkout rule: a local repository may not be the server's own
// working tree, nor a folder git resolves to that same working tree (its
// top-level is the running checkout's). Worktrees would otherwise be made from
// and next to the files the server is running. Register Rein's own repository
// through a separate git worktree of it (`git worktree add /elsewhere`) or a
// file:// URL; a separate repository nested inside the checkout (the demo
// repository under ./data, say) is its own working tree and is accepted.
import fs from "node:fs";
import path from "node:path";
import { GitError, gitText, type Transport } from "./git";
import { RepositoryError } from "./errors";

export type SourceKind = { kind: "path"; path: string } | { kind: "url"; url: string; transport: Transport };

const SCHEMES: Record<string, Transport> = { "https:": "https", "ssh:": "ssh", "file:": "file" };

/** What the source string is, or a refusal saying what is accepted. */
export function parseSource(source: string): SourceKind {
  const s = source.trim();
  if (s.startsWith("/")) return { kind: "path", path: path.resolve(s) };
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(s)?.[1];
  if (!scheme || !s.includes("://")) {
    const scp = /^[^/\s]+@[^/\s]+:/.test(s);
    throw new RepositoryError(
      "INVALID_INPUT",
      `The source ${JSON.stringify(s.slice(0, 100))} is not an absolute local path nor a git URL${scp ? "; write an scp-style address as ssh://user@host/path" : ""}. Accepted: /absolute/path, https://, ssh:// or file:// URLs`,
    );
  }
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw new RepositoryError("INVALID_INPUT", `The git URL ${JSON.stringify(s.slice(0, 100))} cannot be parsed`);
  }
  const transport = SCHEMES[url.protocol];
  if (!transport)
    throw new RepositoryError(
      "INVALID_INPUT",
      `Git URLs with ${url.protocol}// are not accepted: use https://, ssh:// or file:// (or an absolute local path)`,
    );
  if (url.password)
    throw new RepositoryError(
      "INVALID_INPUT",
      "The git URL carries a password; Rein stores sources in the clear, so register a URL without credentials",
    );
  if (transport === "file" && url.host)
    throw new RepositoryError("INVALID_INPUT", "A file:// URL names a path on this server: file:///absolute/path");
  if (transport !== "file" && !url.hostname)
    throw new RepositoryError("INVALID_INPUT", `The git URL ${JSON.stringify(s.slice(0, 100))} names no host`);
  return { kind: "url", url: url.toString(), transport };
}

/** Where the bare clone of a URL source lives. */
export const cloneDirOf = (dataDir: string, repositoryId: string) => path.join(dataDir, "repos", repositoryId, "origin.git");

/** An absolute, real path (symlinks resolved), or the path as given when it does not exist. */
export function realPath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

export const isInside = (child: string, parent: string) => {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
};

/** The top-level of the working tree git sees at dir, or null when there is none (bare, or no repository). */
async function topLevel(dir: string): Promise<string | null> {
  try {
    const out = await gitText(["rev-parse", "--show-toplevel"], { cwd: dir });
    return out ? realPath(out) : null;
  } catch {
    return null;
  }
}

/** Refuses a local repository that is the running checkout or part of its working tree (see the rule above). */
export async function assertNotRunningCheckout(repoPath: string, runningCheckout: string): Promise<void> {
  const repo = realPath(repoPath);
  const running = realPath(runningCheckout);
  if (!isInside(repo, running)) return;
  const runningTop = (await topLevel(running)) ?? running;
  const repoTop = await topLevel(repo);
  if (repo === running || repoTop === null || repoTop === runningTop) {
    throw new RepositoryError(
      "INVALID_INPUT",
      `${repoPath} is the server's running checkout (or inside it); Rein never makes worktrees from the tree it runs from. Register a separate git worktree of it (git worktree add <elsewhere>) or a file:// URL`,
    );
  }
}

/** The git directory shared by a local repository's worktrees, checked readable; refusals say why. */
export async function localGitDir(repoPath: string): Promise<string> {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(repoPath);
  } catch {
    throw new RepositoryError("INVALID_INPUT", `There is no folder ${repoPath} on the server`);
  }
  if (!stat.isDirectory()) throw new RepositoryError("INVALID_INPUT", `${repoPath} is not a folder`);
  try {
    fs.accessSync(repoPath, fs.constants.R_OK | fs.constants.X_OK);
  } catch {
    throw new RepositoryError("INVALID_INPUT", `The server cannot read ${repoPath}`);
  }
  try {
    // The ceiling stops git from finding a repository above the folder: the folder itself must be one.
    const common = await gitText(["rev-parse", "--path-format=absolute", "--git-common-dir"], {
      cwd: repoPath,
      env: { GIT_CEILING_DIRECTORIES: path.dirname(realPath(repoPath)) },
    });
    return realPath(common);
  } catch (err) {
    const why =
      err instanceof GitError && err.stderr.includes("dubious ownership")
        ? "it belongs to another user (git refuses it)"
        : "it is not a git repository";
    throw new RepositoryError("INVALID_INPUT", `${repoPath} cannot be used: ${why}`);
  }
}

/** Refuses a default branch the repository does not have; returns its commit. */
export async function branchCommit(gitDir: string, branch: string, where: string): Promise<string> {
  try {
    return await gitText(["rev-parse", "--verify", "--end-of-options", `refs/heads/${branch}^{commit}`], { gitDir });
  } catch {
    throw new RepositoryError("INVALID_INPUT", `${where} has no branch ${branch}`);
  }
}
