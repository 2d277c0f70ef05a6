// A run's workspace: a git repository under the data directory. The server
// never opens a path inside it itself
// (docs/security.md#files-only-through-the-sandboxed-file-service): every file
// operation goes to the run's file service, and git, ripgrep and tar run in the
// file sandbox, all of which see only this workspace. `root` is where it is on
// the host, for binding it into sandboxes, and nothing else.
import fs from "node:fs";
import path from "node:path";
import type { ChildProcess } from "node:child_process";
import { FileServiceError, JailUnavailableError, fileServices, runInJail, spawnInJail, type JailRunResult } from "@/server/compute";
import { ToolError } from "./types";

export const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "Rein agent",
  GIT_AUTHOR_EMAIL: "agent@rein.local",
  GIT_COMMITTER_NAME: "Rein agent",
  GIT_COMMITTER_EMAIL: "agent@rein.local",
};

/** Rein's own folder in older workspaces (saved long outputs lived there); git ignores it and the Files tab hides it. */
export const OUTPUTS_DIR = ".rein/outputs";

/** Where the shell and the file sandbox see the workspace. */
const SANDBOX_NAME = "/workspace";

export interface FileInfo {
  kind: "file" | "dir" | "symlink" | "other";
  size: number;
  mode: number;
  mtimeMs: number;
}

export interface FileBytes {
  data: Buffer;
  size: number;
  mode: number;
  mtimeMs: number;
}

export interface WrittenFile {
  created: boolean;
  hash: string;
  bytes: number;
}

export type TreeNode =
  | { type: "dir"; name: string; path: string; children: TreeNode[] }
  | { type: "file"; name: string; path: string; size: number; symlink?: true };

/** A refusal or failure of the file service as a ToolError (the tools' and the Files tab's common currency). */
function toolError(err: unknown): never {
  if (err instanceof FileServiceError) throw new ToolError(err.code, err.message, err.extra);
  if (err instanceof JailUnavailableError) throw new ToolError(err.code, err.message);
  throw err;
}

export class Workspace {
  /**
   * @param root where the workspace is on the host (bound into sandboxes; never opened here)
   * @param outputsDir where long shell outputs are kept: outside the workspace, so the agent cannot redirect them
   * @param snapshotsDir Rein's own repository of the workspace's trees, one per checkpoint (workspace-snapshots.ts): outside the workspace too
   */
  constructor(
    public readonly root: string,
    public readonly outputsDir: string = `${root}.outputs`,
    public readonly snapshotsDir: string = `${root}.snapshots`,
  ) {}

  /**
   * A path the agent gave, checked for its form only (relative, no way up
   * and out); where it really leads is for the sandbox to find out. The
   * shell's name for the workspace, /workspace, is accepted too.
   */
  normalize(relative: string): string {
    if (typeof relative !== "string" || relative.includes("\0")) throw new ToolError("BAD_PATH", "Invalid path");
    let rel = relative;
    if (rel.startsWith("/")) {
      const base = [SANDBOX_NAME, this.root].find((b) => rel === b || rel.startsWith(`${b}/`));
      if (!base) throw new ToolError("OUTSIDE_WORKSPACE", `Path "${relative}" is outside the workspace`);
      rel = rel.slice(base.length).replace(/^\/+/, "");
    }
    const normal = path.posix.normalize(rel || ".").replace(/\/+$/, "");
    if (normal === ".." || normal.startsWith("../"))
      throw new ToolError("OUTSIDE_WORKSPACE", `Path "${relative}" is outside the workspace`);
    return normal === "" ? "." : normal;
  }

  /** Does the workspace exist on the host yet (the run has started)? */
  exists(): boolean {
    return fs.statSync(this.root, { throwIfNoEntry: false })?.isDirectory() ?? false;
  }

  private files() {
    return fileServices.for(this.root);
  }

  /** Every file operation is one request to the run's file service. */
  protected async ask<T>(op: string, params: Record<string, unknown>): Promise<T> {
    try {
      return await this.files().request<T>(op, params);
    } catch (err) {
      toolError(err);
    }
  }

  /** What is at a path (symlinks followed unless `follow: false`), or null. */
  stat(relative: string, options: { follow?: boolean } = {}): Promise<FileInfo | null> {
    return this.ask("stat", { path: this.normalize(relative), follow: options.follow ?? true });
  }

  /** Many paths at once, symlinks not followed (the diff's view of the work tree). */
  lstatMany(paths: string[]): Promise<Array<FileInfo | null>> {
    return this.ask("lstatMany", { paths: paths.map((p) => this.normalize(p)) });
  }

  async readFile(relative: string, options: { maxBytes?: number } = {}): Promise<FileBytes> {
    const r = await this.ask<{ data: string; size: number; mode: number; mtimeMs: number }>("read", {
      path: this.normalize(relative),
      maxBytes: options.maxBytes,
    });
    return { data: Buffer.from(r.data, "base64"), size: r.size, mode: r.mode, mtimeMs: r.mtimeMs };
  }

  /**
   * Lines start..end (1-based, inclusive; no end: to the last) of a file of
   * any size: the file service streams it, and refuses with TOO_LARGE when
   * those lines pass maxBytes. totalLines counts as an editor does.
   */
  async readLines(
    relative: string,
    range: { start: number; end?: number },
    maxBytes: number,
  ): Promise<{ text: string; totalLines: number; size: number }> {
    const r = await this.ask<{ data: string; totalLines: number; size: number }>("readLines", {
      path: this.normalize(relative),
      start: range.start,
      end: range.end ?? null,
      maxBytes,
    });
    return { text: Buffer.from(r.data, "base64").toString("utf8"), totalLines: r.totalLines, size: r.size };
  }

  /** The bytes git would store for a work-tree entry (a symlink's target), null when it is gone or not a file. */
  async blob(relative: string, maxBytes?: number): Promise<Buffer | null | "too-large"> {
    const r = await this.ask<{ data?: string; tooLarge?: boolean } | null>("blob", { path: this.normalize(relative), maxBytes });
    if (!r) return null;
    return r.tooLarge ? "too-large" : Buffer.from(r.data ?? "", "base64");
  }

  /**
   * Writes a file atomically (temporary file + rename, parents created). With
   * expectedHash (a SHA-256, or null for "must not exist yet") a file that
   * changed meanwhile is refused with CONFLICT (extra.current: its hash now).
   */
  writeFile(relative: string, data: Buffer | string, options: { expectedHash?: string | null; mode?: number } = {}): Promise<WrittenFile> {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    return this.ask("write", {
      path: this.normalize(relative),
      data: bytes.toString("base64"),
      expectedHash: options.expectedHash,
      mode: options.mode,
    });
  }

  tree(limit: number): Promise<{ entries: TreeNode[]; count: number; truncated: boolean }> {
    return this.ask("tree", { limit });
  }

  /** Regular files below a folder, relative to it and sorted (.git and node_modules skipped). */
  walk(relative: string, limit: number): Promise<{ files: string[]; truncated: boolean }> {
    return this.ask("walk", { path: this.normalize(relative), limit });
  }

  /** A program (git, rg) in the file sandbox, run to its end. */
  async run(argv: string[], options: Parameters<typeof runInJail>[2] = {}): Promise<JailRunResult> {
    try {
      return await runInJail(this.root, argv, options);
    } catch (err) {
      toolError(err);
    }
  }

  /** A program in the file sandbox whose output is streamed (tar for the archive, rg). */
  spawn(argv: string[], options: Parameters<typeof spawnInJail>[2] = {}): ChildProcess {
    try {
      return spawnInJail(this.root, argv, options);
    } catch (err) {
      toolError(err);
    }
  }

  /**
   * Copies a file Rein holds on the host (a browser download) into the
   * workspace, by a copy that runs in the file sandbox: no name the agent
   * chose is ever opened by the server. An existing file is not overwritten;
   * the copy gets a free name beside it. Returns the name it got.
   */
  async importFile(hostFile: string, name: string): Promise<string> {
    const base = path.posix.basename(name.replace(/[\0/\\]/g, "_")).replace(/^\.+/, "_") || "download";
    const ext = path.posix.extname(base);
    const stem = base.slice(0, base.length - ext.length);
    for (let i = 0; i < 100; i++) {
      const candidate = i === 0 ? base : `${stem} (${i})${ext}`;
      if (await this.stat(candidate, { follow: false })) continue;
      const r = await this.run(["cp", "--no-clobber", "--no-dereference", "--", "/run/rein/import", candidate], {
        readOnly: [{ host: hostFile, at: "/run/rein/import" }],
      });
      if (r.code !== 0) throw new ToolError("IMPORT_FAILED", `Could not copy ${base} into the workspace: ${r.stderr}`);
      return candidate;
    }
    throw new ToolError("IMPORT_FAILED", `Could not find a free name for ${base} in the workspace`);
  }

  /** Creates the directory and its git repository, once; git runs in the sandbox. */
  async ensure(): Promise<void> {
    const fresh = !this.exists();
    if (fresh) fs.mkdirSync(this.root, { recursive: true });
    if (fresh || !(await this.stat(".git", { follow: false }))) {
      // One sandbox for both: each program started holds the event loop while it forks
      // (docs/performance.md#many-runs-at-once).
      const r = await this.run(["sh", "-c", "git init -q -b main && git commit -q --allow-empty -m 'Workspace created by Rein'"], {
        env: GIT_IDENTITY,
      });
      if (r.code !== 0) {
        const err = new ToolError(
          "WORKSPACE_FAILED",
          `Could not create the workspace's git repository: ${r.stderr || `git exited with ${r.code ?? r.signal}`}`,
        );
        // Killed by a signal (Ctrl+C reached it): the kernel leaves the run to resume.
        if (r.signal) Object.assign(err, { signal: r.signal });
        throw err;
      }
    }
    await this.excludeReinFiles();
  }

  /** Keeps .rein/ out of the run's git history and diffs. */
  async excludeReinFiles(): Promise<void> {
    await this.ask("ensureLine", { path: ".git/info/exclude", line: "/.rein/" }).catch((err) => {
      // A repository the agent broke (.git/info a file, say) is its own business.
      if (!(err instanceof ToolError) || err.code === "SANDBOX_UNAVAILABLE") throw err;
    });
  }

  /** The run is over: its file service goes. */
  release(): void {
    fileServices.release(this.root);
  }
}

export function workspaceFor(dataDir: string, runId: string): Workspace {
  return new Workspace(
    path.join(dataDir, "workspaces", runId),
    path.join(dataDir, "outputs", runId),
    path.join(dataDir, "snapshots", runId),
  );
}
