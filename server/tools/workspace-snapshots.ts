// Snapshots of a run's workspace, one tree per checkpoint
// (docs/steering.md#fork-from-a-step): what a fork starts from. The trees go
// into a repository of Rein's own beside the workspace (never the agent's .git,
// whose branch and index stay untouched), through a private index, so each
// snapshot only hashes what changed since the last. git runs in the file
// sandbox, which sees the workspace and that repository and nothing else; the
// repository's config is Rein's, so no filter or hook of the agent's runs.
import fs from "node:fs";
import type { Workspace } from "./workspace";
import { ToolError } from "./types";

const STORE = "/run/rein/snapshots";
const SOURCE = "/run/rein/source";
const GIT_ENV = { GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" };
/** Safe settings whatever a workspace holds: no fsmonitor, no line-ending rewriting. */
const GIT_FLAGS = "-c core.fsmonitor=false -c core.autocrlf=false -c core.safecrlf=false -c core.quotepath=off";
/** What a snapshot leaves out: git's own folders, Rein's folder, and installed dependencies. */
const EXCLUDES = `':(exclude).rein' ':(exclude,glob)**/node_modules/**' ':(exclude,glob)node_modules/**'`;
const TREE = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

export class SnapshotError extends ToolError {
  constructor(message: string) {
    super("SNAPSHOT_FAILED", message);
  }
}

function check(r: { code: number | null; signal: string | null; stderr: string }, doing: string) {
  if (r.code !== 0) throw new SnapshotError(`${doing} failed: ${r.stderr || `git exited with ${r.code ?? r.signal}`}`);
}

/**
 * Records the workspace's files as a git tree in the snapshot repository and
 * returns its id. Files the agent's .gitignore names are included (a
 * snapshot is the workspace as it is); node_modules folders are not.
 */
export async function snapshotWorkspace(workspace: Workspace): Promise<string> {
  // The run's first snapshot creates the repository in the same sandbox: each
  // program started holds the event loop while it forks (docs/performance.md#many-runs-at-once).
  const init = storeMissing(workspace) ? `(unset GIT_DIR GIT_INDEX_FILE GIT_WORK_TREE; git init -q --bare ${STORE}) && ` : "";
  const writable = [{ host: workspace.snapshotsDir, at: STORE }];
  const env = { ...GIT_ENV, GIT_DIR: STORE, GIT_INDEX_FILE: `${STORE}/rein-index`, GIT_WORK_TREE: "." };
  const r = await workspace.run(["sh", "-c", `${init}git ${GIT_FLAGS} add -A --force -- . ${EXCLUDES} && git write-tree`], {
    env,
    writable,
    timeoutMs: 120_000,
  });
  check(r, "Snapshotting the workspace");
  const tree = r.stdout.toString("utf8").trim();
  if (!TREE.test(tree)) throw new SnapshotError(`Snapshotting the workspace printed no tree id (${JSON.stringify(tree.slice(0, 80))})`);
  return tree;
}

/** Makes the repository's folder; true when the repository is not there yet. */
function storeMissing(workspace: Workspace): boolean {
  fs.mkdirSync(workspace.snapshotsDir, { recursive: true, mode: 0o700 });
  return !fs.existsSync(`${workspace.snapshotsDir}/HEAD`);
}

async function ensureStore(workspace: Workspace): Promise<void> {
  if (!storeMissing(workspace)) return;
  const writable = [{ host: workspace.snapshotsDir, at: STORE }];
  check(await workspace.run(["git", "init", "-q", "--bare", STORE], { env: GIT_ENV, writable }), "Creating the snapshot repository");
}

/**
 * Links every object of one snapshot repository into another (both Rein's
 * own folders, named by git: no name in them is the agent's), so a fork's
 * repository starts with its parent's objects without copying them.
 */
function linkObjects(from: string, to: string): void {
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const src = `${from}/${entry.name}`;
    const dst = `${to}/${entry.name}`;
    if (entry.isDirectory()) {
      fs.mkdirSync(dst, { recursive: true });
      linkObjects(src, dst);
    } else if (entry.isFile() && !fs.existsSync(dst)) {
      try {
        fs.linkSync(src, dst);
      } catch {
        fs.copyFileSync(src, dst); // another file system: a copy
      }
    }
  }
}

/**
 * Fills a fresh workspace (a fork's) with the files of `tree` from another
 * run's snapshot repository, seen read-only. The workspace's own repository
 * is left as it was created: the files are there, not committed (the agent's
 * history is not part of a snapshot), so the agent's next `git add` and
 * `git commit` work as they would have in the run it was forked from.
 */
export async function restoreSnapshot(target: Workspace, source: Workspace, tree: string): Promise<void> {
  if (!TREE.test(tree)) throw new SnapshotError(`"${tree}" is not a tree id`);
  if (!fs.existsSync(`${source.snapshotsDir}/HEAD`)) throw new SnapshotError("The run it comes from has no workspace snapshots");
  // The fork's own snapshot repository starts with the parent's objects, and
  // its index with the restored files' stat data, so its first snapshot (the
  // check that the files are the tree) hashes nothing again.
  await ensureStore(target);
  linkObjects(`${source.snapshotsDir}/objects`, `${target.snapshotsDir}/objects`);
  const readOnly = [{ host: source.snapshotsDir, at: SOURCE }];
  const writable = [{ host: target.snapshotsDir, at: STORE }];
  const env = { ...GIT_ENV, GIT_DIR: SOURCE, GIT_INDEX_FILE: `${STORE}/rein-index`, GIT_WORK_TREE: "." };
  const r = await target.run(["sh", "-c", `git ${GIT_FLAGS} read-tree "$0" && git ${GIT_FLAGS} checkout-index -a -f -u`, tree], {
    env,
    readOnly,
    writable,
    timeoutMs: 120_000,
  });
  check(r, "Restoring the workspace");
}
