// What a run changed in its workspace since it started: every file added,
// modified, deleted or renamed relative to the workspace's first commit,
// committed or not, untracked files included (ignored ones not), with both
// texts for a diff view. Uses only the read-only plumbing of workspace-git.ts.
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
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
export async function diffWorkspace(root: string): Promise<WorkspaceDiff> {
  const base = await firstCommit(root);
  const baseBlobs = base ? await listTree(root, base) : new Map<string, TreeBlob>();
  const algorithm = base && base.length === 64 ? "sha256" : "sha1";
  const now = new Map<string, fs.Stats>();
  for (const rel of await listWorkTree(root)) {
    const stat = await fsp.lstat(path.join(root, rel)).catch(() => null);
    if (stat && (stat.isFile() || stat.isSymbolicLink())) now.set(rel, stat);
  }
  const id = async (rel: string, stat: fs.Stats) => blobId(await bytesOf(root, rel, stat), algorithm);

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
    const from = deletedSizes.has(stat.size) ? deletedById.get(await id(rel, stat))?.shift() : undefined;
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
  await fillTexts(root, files, baseBlobs, now);
  return { exists: true, base, files, truncated: changes.length > files.length };
}

async function differs(blob: TreeBlob, rel: string, stat: fs.Stats, id: (rel: string, stat: fs.Stats) => Promise<string>): Promise<boolean> {
  if ((blob.mode === "120000") !== stat.isSymbolicLink()) return true;
  if (!stat.isSymbolicLink() && (blob.mode === "100755") !== ((stat.mode & 0o111) !== 0)) return true;
  if (!stat.isSymbolicLink() && stat.size !== blob.size) return true;
  return (await id(rel, stat)) !== blob.sha;
}

/** A file's bytes as git stores them: a symlink is its target path. */
async function bytesOf(root: string, rel: string, stat: fs.Stats): Promise<Buffer> {
  const abs = path.join(root, rel);
  return stat.isSymbolicLink() ? Buffer.from(await fsp.readlink(abs)) : fsp.readFile(abs);
}

async function fillTexts(root: string, files: FileChange[], baseBlobs: Map<string, TreeBlob>, now: Map<string, fs.Stats>) {
  let budget = DIFF_TEXT_BUDGET;
  const take = (before: number, after: number) => {
    if (before > MAX_TEXT_BYTES || after > MAX_TEXT_BYTES || before + after > budget) return false;
    budget -= before + after;
    return true;
  };
  const wanted = new Map<FileChange, { original?: TreeBlob; current?: fs.Stats }>();
  for (const f of files) {
    const original = f.status === "A" ? undefined : baseBlobs.get(f.oldPath ?? f.path);
    const current = f.status === "D" ? undefined : now.get(f.path);
    if (take(original?.size ?? 0, current?.size ?? 0)) wanted.set(f, { original, current });
    else f.tooLarge = true;
  }
  const blobs = await readBlobs(root, [...new Set([...wanted.values()].flatMap((w) => (w.original ? [w.original.sha] : [])))]);
  for (const [f, w] of wanted) {
    const before = w.original ? blobs.get(w.original.sha) : undefined;
    const after = w.current ? await bytesOf(root, f.path, w.current).catch(() => undefined) : undefined;
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
