// The run workspace as people see it in the Files tab (SPEC section 13): the
// file tree, text files to view and edit, what changed since the run started,
// and the workspace as a .tar.gz.
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { spawn } from "node:child_process";
import { PassThrough, type Readable } from "node:stream";
import { ToolError } from "./types";
import type { Workspace } from "./workspace";
import { diffWorkspace, type WorkspaceDiff } from "./workspace-diff";
import { GitUnavailableError } from "./workspace-git";
import { MAX_TEXT_BYTES, contentHash, decodeText, formatBytes } from "./workspace-text";

export { MAX_TEXT_BYTES, contentHash, decodeText, formatBytes } from "./workspace-text";
export { MAX_DIFF_FILES, diffWorkspace, type ChangeStatus, type FileChange, type WorkspaceDiff } from "./workspace-diff";

export const MAX_TREE_ENTRIES = 5_000;

export type WorkspaceFileErrorCode =
  | "NO_WORKSPACE"
  | "NO_REPOSITORY"
  | "BAD_PATH"
  | "OUTSIDE_WORKSPACE"
  | "NOT_FOUND"
  | "NOT_A_FILE"
  | "BINARY"
  | "TOO_LARGE"
  | "CONFLICT"
  | "ARCHIVE_FAILED";

export class WorkspaceFileError extends Error {
  constructor(
    public readonly code: WorkspaceFileErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "WorkspaceFileError";
  }
}

export const NO_WORKSPACE_MESSAGE = "The run has not started; its workspace does not exist yet";

export type TreeNode =
  | { type: "dir"; name: string; path: string; children: TreeNode[] }
  | { type: "file"; name: string; path: string; size: number; symlink?: true };

export interface FileTree {
  /** False until the run starts and creates its workspace. */
  exists: boolean;
  entries: TreeNode[];
  /** Files and folders listed. */
  count: number;
  /** More entries exist than `limit`; the deepest ones are left out. */
  truncated: boolean;
  limit: number;
}

export interface TextFile {
  path: string;
  content: string;
  /** SHA-256 of the bytes on disk; pass it back to save() to detect concurrent changes. */
  hash: string;
  size: number;
  modifiedAt: Date;
}

export interface SaveResult {
  path: string;
  hash: string;
  bytes: number;
  created: boolean;
}

const byName = (a: fs.Dirent, b: fs.Dirent) =>
  Number(b.isDirectory()) - Number(a.isDirectory()) || a.name.localeCompare(b.name, "en", { numeric: true });

/** Saves of one file in this process happen one after another. */
const saving = new Map<string, Promise<unknown>>();

export class WorkspaceFiles {
  constructor(private readonly workspace: Workspace) {}

  get root(): string {
    return this.workspace.root;
  }

  exists(): boolean {
    return fs.statSync(this.root, { throwIfNoEntry: false })?.isDirectory() ?? false;
  }

  private requireWorkspace() {
    if (!this.exists()) throw new WorkspaceFileError("NO_WORKSPACE", NO_WORKSPACE_MESSAGE);
  }

  /** An absolute path inside the workspace, or a clear refusal. */
  private resolve(relative: string): { abs: string; rel: string } {
    if (typeof relative !== "string" || !relative.trim()) throw new WorkspaceFileError("BAD_PATH", "A file path is required");
    let abs: string;
    try {
      abs = this.workspace.resolve(relative);
    } catch (err) {
      if (err instanceof ToolError) throw new WorkspaceFileError(err.code === "OUTSIDE_WORKSPACE" ? "OUTSIDE_WORKSPACE" : "BAD_PATH", err.message);
      throw err;
    }
    const rel = this.workspace.relative(abs);
    if (rel === "") throw new WorkspaceFileError("NOT_A_FILE", "The workspace folder itself is not a file");
    if (rel.split("/").includes(".git")) {
      throw new WorkspaceFileError("BAD_PATH", `"${relative}" is inside .git, which git manages; it cannot be opened or saved here`);
    }
    return { abs, rel };
  }

  /** Messages from git and tar name the workspace by where it is on the server; people need not see that. */
  private redact(message: string): string {
    return message.split(this.root).join("<workspace>");
  }

  /** Files and folders, breadth first (so a cut keeps the top levels whole), without .git. */
  async tree(limit = MAX_TREE_ENTRIES): Promise<FileTree> {
    if (!this.exists()) return { exists: false, entries: [], count: 0, truncated: false, limit };
    const entries: TreeNode[] = [];
    const queue: Array<{ abs: string; rel: string; children: TreeNode[] }> = [{ abs: this.root, rel: "", children: entries }];
    let count = 0;
    let truncated = false;
    for (let i = 0; i < queue.length && !truncated; i++) {
      const dir = queue[i];
      let dirents: fs.Dirent[];
      try {
        dirents = await fsp.readdir(dir.abs, { withFileTypes: true });
      } catch {
        continue; // unreadable or gone meanwhile: listed as an empty folder
      }
      // .git, and Rein's own .rein/ at the top (saved long outputs), are not the run's files.
      dirents = dirents.filter((d) => d.name !== ".git" && !(dir.rel === "" && d.name === ".rein")).sort(byName);
      if (count + dirents.length > limit) {
        truncated = true;
        dirents = dirents.slice(0, limit - count);
      }
      count += dirents.length;
      const nodes = await Promise.all(
        dirents.map(async (d): Promise<TreeNode> => {
          const abs = path.join(dir.abs, d.name);
          const rel = dir.rel ? `${dir.rel}/${d.name}` : d.name;
          if (d.isDirectory()) {
            const node: TreeNode = { type: "dir", name: d.name, path: rel, children: [] };
            queue.push({ abs, rel, children: node.children });
            return node;
          }
          const stat = await fsp.lstat(abs).catch(() => null);
          return { type: "file", name: d.name, path: rel, size: stat?.size ?? 0, ...(d.isSymbolicLink() ? { symlink: true as const } : {}) };
        }),
      );
      dir.children.push(...nodes);
    }
    return { exists: true, entries, count, truncated, limit };
  }

  /** A text file with the hash to save it against; binary and large files are refused. */
  async readText(relative: string): Promise<TextFile> {
    this.requireWorkspace();
    const { abs, rel } = this.resolve(relative);
    const stat = await fsp.stat(abs).catch(() => null);
    if (!stat) throw new WorkspaceFileError("NOT_FOUND", `${rel} does not exist in the workspace`);
    if (!stat.isFile()) throw new WorkspaceFileError("NOT_A_FILE", `${rel} is ${stat.isDirectory() ? "a folder" : "not a regular file"}`);
    if (stat.size > MAX_TEXT_BYTES) {
      throw new WorkspaceFileError(
        "TOO_LARGE",
        `${rel} is ${formatBytes(stat.size)}; files up to ${formatBytes(MAX_TEXT_BYTES)} open here. Download the workspace to see it.`,
      );
    }
    const bytes = await fsp.readFile(abs);
    const content = decodeText(bytes);
    if (content === null) {
      throw new WorkspaceFileError("BINARY", `${rel} is a binary file; only text files open here. Download the workspace to see it.`);
    }
    return { path: rel, content, hash: contentHash(bytes), size: bytes.length, modifiedAt: stat.mtime };
  }

  /**
   * Writes a text file atomically (temporary file + rename). With
   * expectedHash (the hash readText gave, or null for "must not exist yet")
   * a file changed since it was loaded is refused with CONFLICT.
   */
  async save(relative: string, content: string, expectedHash?: string | null): Promise<SaveResult> {
    this.requireWorkspace();
    const { abs, rel } = this.resolve(relative);
    const bytes = Buffer.from(content, "utf8");
    if (bytes.length > MAX_TEXT_BYTES) {
      throw new WorkspaceFileError("TOO_LARGE", `The new content of ${rel} is ${formatBytes(bytes.length)}; files up to ${formatBytes(MAX_TEXT_BYTES)} can be saved here`);
    }
    const previous = saving.get(abs) ?? Promise.resolve();
    const run = previous.catch(() => {}).then(() => this.write(abs, rel, bytes, expectedHash));
    saving.set(abs, run);
    try {
      return await run;
    } finally {
      if (saving.get(abs) === run) saving.delete(abs);
    }
  }

  private async write(abs: string, rel: string, bytes: Buffer, expectedHash: string | null | undefined): Promise<SaveResult> {
    const stat = await fsp.stat(abs).catch(() => null);
    if (stat && !stat.isFile()) throw new WorkspaceFileError("NOT_A_FILE", `${rel} is ${stat.isDirectory() ? "a folder" : "not a regular file"}`);
    if (expectedHash !== undefined) {
      const current = stat ? contentHash(await fsp.readFile(abs)) : null;
      if (current !== expectedHash) {
        throw new WorkspaceFileError(
          "CONFLICT",
          expectedHash === null ? `${rel} already exists; open it to edit it`
          : current === null ? `${rel} was deleted since you opened it; reload to see the workspace as it is now`
          : `${rel} changed since you opened it (the agent or someone else saved it); reload to see the current version, then make your edit again`,
        );
      }
    }
    // Write where a symlink inside the workspace points (resolve checked it stays inside), not over the link.
    const target = stat ? await fsp.realpath(abs) : abs;
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const tmp = path.join(path.dirname(target), `.${path.basename(target)}.rein-${crypto.randomBytes(4).toString("hex")}.tmp`);
    try {
      await fsp.writeFile(tmp, bytes, { mode: stat ? stat.mode & 0o777 : 0o644 });
      await fsp.rename(tmp, target);
    } catch (err) {
      await fsp.rm(tmp, { force: true });
      throw err;
    }
    return { path: rel, hash: contentHash(bytes), bytes: bytes.length, created: !stat };
  }

  /**
   * Every file added, modified, deleted or renamed since the workspace's
   * first commit, committed or not, untracked files included (ignored ones
   * not), with both texts for a diff view.
   */
  async diff(): Promise<WorkspaceDiff> {
    if (!this.exists()) return { exists: false, base: null, files: [], truncated: false };
    if (!fs.existsSync(path.join(this.root, ".git"))) {
      throw new WorkspaceFileError("NO_REPOSITORY", "The workspace has no git repository any more (.git was removed), so Rein cannot tell what changed");
    }
    try {
      return await diffWorkspace(this.root);
    } catch (err) {
      if (err instanceof GitUnavailableError) {
        throw new WorkspaceFileError("NO_REPOSITORY", `git could not read the workspace's repository: ${this.redact(err.message)}`);
      }
      throw err;
    }
  }

  /**
   * The workspace without .git as a gzipped tar stream, produced while it is
   * read (nothing is held in memory). Destroying the stream stops tar.
   */
  archive(): Readable {
    this.requireWorkspace();
    const child = spawn(
      "tar",
      ["-czf", "-", "--exclude=.git", "--exclude=./.rein", "--ignore-failed-read", "--warning=no-file-changed", "--warning=no-file-removed", "-C", this.root, "."],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LC_ALL: "C" } },
    );
    const out = new PassThrough();
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr = (stderr + c.toString("utf8")).slice(-2000)));
    child.stdout.pipe(out, { end: false });
    child.on("error", (err) => out.destroy(new WorkspaceFileError("ARCHIVE_FAILED", `Could not run tar: ${err.message}`)));
    child.on("close", (code) => {
      // tar exits 1 when a file changed while it was read (the agent may be working): the archive is still whole.
      if (code === 0 || code === 1) out.end();
      else out.destroy(new WorkspaceFileError("ARCHIVE_FAILED", `tar failed (exit ${code}): ${this.redact(stderr.trim())}`));
    });
    out.on("close", () => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
    });
    return out;
  }
}

export function workspaceFiles(workspace: Workspace): WorkspaceFiles {
  return new WorkspaceFiles(workspace);
}
