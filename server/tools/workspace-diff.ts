// What a run changed in its workspace since it started: every file added,
// modified, deleted or renamed relative to the workspace's first commit,
// committed or not, untracked files included (ignored ones not), with both
// texts for a diff view. Uses only the read-only plumbing of workspace-git.ts,
// and reads the work tree through the run's file service: the paths come from
// the agent's git index, so they are opened only inside the sandbox.
import type { FileInfo, Workspace } from "./workspace";
import { blobId, firstCommit, listTree, listWorkTree, readBlobs, type TreeBlob } from "./workspace-git";
import { MAX_TEXT_BYTES, decodeText } from "./workspace-text";

export const MAX_DIFF_FILES = 500;
/** Text inlined into one diff answer, both sides of every file together. */
const DIFF_TEXT_BUDGET = 16_000_000;

/** A = added, M = modified, D = deleted, R = renamed (same content, new path). */
export type ChangeStatus = "A" | "M" | "D" | "R";

export interface FileChange {
  path: string;
  /** For R: where the file was. */
  oldPath?: string;
  status: ChangeStatus;
  /** Not text: neither side is inlined. */
  binary: boolean;
  /** Larger than MAX_TEXT_BYTES, or past the answer's text budget: not inlined. */
  tooLarge: boolean;
  /** The text when the run started (null when added, binary or too large). */
  original: string | null;
  /** The text now (null when deleted, binary or too large). */
  current: string | null;
}

export interface WorkspaceDiff {
  exists: boolean;
  /** The commit compared against: the workspace's first commit. */
  base: string | null;
  files: FileChange[];
  truncated: boolean;
}

function change(rel: string, status: ChangeStatus): FileChange {
  return { path: rel, status, binary: false, tooLarge: false, original: null, current: null };
}

/** Compares the work tree with the first commit; git errors surface as GitUnavailableError. */
export async function diffWorkspace(workspace: Workspace): Promise<WorkspaceDiff> {
  const base = await firstCommit(workspace);
  const baseBlobs = base ? await listTree(workspace, base) : new Map<string, TreeBlob>();
  const algorithm = base && base.length === 64 ? "sha256" : "sha1";
  const now = new Map<string, FileInfo>();
  const paths = (await listWorkTree(workspace)).filter(plausible);
  for (let i = 0; i < paths.length; i += STAT_BATCH) {
    const batch = paths.slice(i, i + STAT_BATCH);
    const stats = await workspace.lstatMany(batch);
    batch.forEach((rel, j) => {
      const stat = stats[j];
      if (stat && (stat.kind === "file" || stat.kind === "symlink")) now.set(rel, stat);
    });
  }
  const id = async (rel: string) => {
    const bytes = await workspace.blob(rel);
    return bytes instanceof Buffer ? blobId(bytes, algorithm) : null;
  };

  const changes: FileChange[] = [];
  const added: string[] = [];
  for (const [rel, stat] of now) {
    const blob = baseBlobs.get(rel);
    if (!blob) added.push(rel);
    else if (await differs(blob, rel, stat, id)) changes.push(change(rel, "M"));
  }
  const deleted = [...baseBlobs.keys()].filter((rel) => !now.has(rel));

  // A deleted file whose exact content reappears under a new path was renamed.
  const deletedById = new Map<string, string[]>();
  for (const rel of deleted) deletedById.set(baseBlobs.get(rel)!.sha, [...(deletedById.get(baseBlobs.get(rel)!.sha) ?? []), rel]);
  const deletedSizes = new Set(deleted.map((rel) => baseBlobs.get(rel)!.size));
  const renamedFrom = new Set<string>();
  for (const rel of added) {
    const stat = now.get(rel)!;
    const sha = deletedSizes.has(stat.size) ? await id(rel) : null;
    const from = sha ? deletedById.get(sha)?.shift() : undefined;
    if (from) {
      renamedFrom.add(from);
      changes.push({ ...change(rel, "R"), oldPath: from });
    } else {
      changes.push(change(rel, "A"));
    }
  }
  for (const rel of deleted) if (!renamedFrom.has(rel)) changes.push(change(rel, "D"));

  changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const files = changes.slice(0, MAX_DIFF_FILES);
  await fillTexts(workspace, files, baseBlobs, now);
  return { exists: true, base, files, truncated: changes.length > files.length };
}

async function differs(blob: TreeBlob, rel: string, stat: FileInfo, id: (rel: string) => Promise<string | null>): Promise<boolean> {
  const symlink = stat.kind === "symlink";
  if ((blob.mode === "120000") !== symlink) return true;
  if (!symlink && (blob.mode === "100755") !== ((stat.mode & 0o111) !== 0)) return true;
  if (!symlink && stat.size !== blob.size) return true;
  return (await id(rel)) !== blob.sha;
}

/** A path as git lists it, that can be asked for: relative, without a way up (the index is the agent's). */
function plausible(rel: string): boolean {
  return !rel.startsWith("/") && !rel.split("/").some((part) => part === ".." || part === "." || part === "") && !rel.includes("\0");
}

const STAT_BATCH = 500;

async function fillTexts(workspace: Workspace, files: FileChange[], baseBlobs: Map<string, TreeBlob>, now: Map<string, FileInfo>) {
  let budget = DIFF_TEXT_BUDGET;
  const take = (before: number, after: number) => {
    if (before > MAX_TEXT_BYTES || after > MAX_TEXT_BYTES || before + after > budget) return false;
    budget -= before + after;
    return true;
  };
  const wanted = new Map<FileChange, { original?: TreeBlob; current?: FileInfo }>();
  for (const f of files) {
    const original = f.status === "A" ? undefined : baseBlobs.get(f.oldPath ?? f.path);
    const current = f.status === "D" ? undefined : now.get(f.path);
    if (take(original?.size ?? 0, current?.size ?? 0)) wanted.set(f, { original, current });
    else f.tooLarge = true;
  }
  const blobs = await readBlobs(workspace, [...new Set([...wanted.values()].flatMap((w) => (w.original ? [w.original.sha] : [])))]);
  for (const [f, w] of wanted) {
    const before = w.original ? blobs.get(w.original.sha) : undefined;
    const read = w.current ? await workspace.blob(f.path, MAX_TEXT_BYTES).catch(() => null) : null;
    const after = read instanceof Buffer ? read : undefined;
    const original = before ? decodeText(before) : null;
    const current = after ? decodeText(after) : null;
    if ((before && original === null) || (after && current === null)) {
      f.binary = true;
      continue;
    }
    f.original = original;
    f.current = current;
  }
}
