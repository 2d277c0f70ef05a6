// The run workspace as people see it in the Files tab
// (docs/terminal-and-files.md#the-files-tab): the file tree, text files to view
// and edit, what changed since the run started, and the workspace as a .tar.gz.
//
// Everything here goes through the run's file service and the file sandbox
// (workspace.ts): the paths are the agent's, so the server never opens them.
import { DomainError, type ErrorCode } from "@/server/errors";
import { PassThrough, type Readable } from "node:stream";
import { ToolError } from "./types";
import type { TreeNode, Workspace } from "./workspace";
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
  | "ARCHIVE_FAILED"
  | "SANDBOX_UNAVAILABLE";

/** The kind of each refusal; a workspace without a repository has nothing to diff, like one not made yet. */
const KIND: Record<WorkspaceFileErrorCode, ErrorCode> = {
  NO_WORKSPACE: "NO_WORKSPACE",
  NO_REPOSITORY: "NO_WORKSPACE",
  BAD_PATH: "BAD_PATH",
  OUTSIDE_WORKSPACE: "BAD_PATH",
  NOT_FOUND: "NOT_FOUND",
  NOT_A_FILE: "INVALID_INPUT",
  BINARY: "UNPROCESSABLE",
  TOO_LARGE: "PAYLOAD_TOO_LARGE",
  CONFLICT: "CONFLICT",
  ARCHIVE_FAILED: "INTERNAL_ERROR",
  SANDBOX_UNAVAILABLE: "SANDBOX_UNAVAILABLE",
};

export class WorkspaceFileError extends DomainError {
  constructor(
    public readonly reason: WorkspaceFileErrorCode,
    message: string,
  ) {
    super(KIND[reason], message);
    this.name = "WorkspaceFileError";
  }
}

export const NO_WORKSPACE_MESSAGE = "The run has not started; its workspace does not exist yet";

export type { TreeNode } from "./workspace";

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

/** Codes of the file service that mean the same to a person here. */
const PASSED_ON = new Set<string>(["BAD_PATH", "OUTSIDE_WORKSPACE", "NOT_FOUND", "NOT_A_FILE", "TOO_LARGE", "SANDBOX_UNAVAILABLE"]);

export class WorkspaceFiles {
  constructor(private readonly workspace: Workspace) {}

  get root(): string {
    return this.workspace.root;
  }

  exists(): boolean {
    return this.workspace.exists();
  }

  private requireWorkspace() {
    if (!this.exists()) throw new WorkspaceFileError("NO_WORKSPACE", NO_WORKSPACE_MESSAGE);
  }

  /** A path inside the workspace by its form, or a clear refusal. */
  private checked(relative: string): string {
    if (typeof relative !== "string" || !relative.trim()) throw new WorkspaceFileError("BAD_PATH", "A file path is required");
    let rel: string;
    try {
      rel = this.workspace.normalize(relative);
    } catch (err) {
      throw this.translate(err);
    }
    if (rel === ".") throw new WorkspaceFileError("NOT_A_FILE", "The workspace folder itself is not a file");
    if (rel.split("/").includes(".git")) {
      throw new WorkspaceFileError("BAD_PATH", `"${relative}" is inside .git, which git manages; it cannot be opened or saved here`);
    }
    return rel;
  }

  private translate(err: unknown): Error {
    if (err instanceof ToolError) {
      if (PASSED_ON.has(err.code)) return new WorkspaceFileError(err.code as WorkspaceFileErrorCode, err.message);
      if (err.code === "IS_DIRECTORY") return new WorkspaceFileError("NOT_A_FILE", err.message);
    }
    return err as Error;
  }

  /** Messages from git and tar name the workspace by where it is on the server; people need not see that. */
  private redact(message: string): string {
    return message.split(this.root).join("<workspace>");
  }

  /** Files and folders, breadth first (so a cut keeps the top levels whole), without .git. */
  async tree(limit = MAX_TREE_ENTRIES): Promise<FileTree> {
    if (!this.exists()) return { exists: false, entries: [], count: 0, truncated: false, limit };
    const t = await this.workspace.tree(limit).catch((err) => {
      throw this.translate(err);
    });
    return { exists: true, entries: t.entries, count: t.count, truncated: t.truncated, limit };
  }

  /** A text file with the hash to save it against; binary and large files are refused. */
  async readText(relative: string): Promise<TextFile> {
    this.requireWorkspace();
    const rel = this.checked(relative);
    const file = await this.workspace.readFile(rel, { maxBytes: MAX_TEXT_BYTES }).catch((err) => {
      if (err instanceof ToolError && err.code === "NOT_FOUND")
        throw new WorkspaceFileError("NOT_FOUND", `${rel} does not exist in the workspace`);
      if (err instanceof ToolError && err.code === "TOO_LARGE") {
        const size = Number(err.extra?.size ?? 0);
        throw new WorkspaceFileError(
          "TOO_LARGE",
          `${rel} is ${formatBytes(size)}; files up to ${formatBytes(MAX_TEXT_BYTES)} open here. Download the workspace to see it.`,
        );
      }
      throw this.translate(err);
    });
    const content = decodeText(file.data);
    if (content === null) {
      throw new WorkspaceFileError("BINARY", `${rel} is a binary file; only text files open here. Download the workspace to see it.`);
    }
    return { path: rel, content, hash: contentHash(file.data), size: file.size, modifiedAt: new Date(file.mtimeMs) };
  }

  /**
   * Writes a text file atomically (temporary file + rename). With
   * expectedHash (the hash readText gave, or null for "must not exist yet")
   * a file changed since it was loaded is refused with CONFLICT.
   */
  async save(relative: string, content: string, expectedHash?: string | null): Promise<SaveResult> {
    this.requireWorkspace();
    const rel = this.checked(relative);
    const bytes = Buffer.from(content, "utf8");
    if (bytes.length > MAX_TEXT_BYTES) {
      throw new WorkspaceFileError(
        "TOO_LARGE",
        `The new content of ${rel} is ${formatBytes(bytes.length)}; files up to ${formatBytes(MAX_TEXT_BYTES)} can be saved here`,
      );
    }
    // The check against expectedHash and the write happen in the file service, one request after the other per workspace.
    const written = await this.workspace.writeFile(rel, bytes, { expectedHash }).catch((err) => {
      if (err instanceof ToolError && err.code === "CONFLICT") {
        const current = (err.extra?.current as string | null | undefined) ?? null;
        throw new WorkspaceFileError(
          "CONFLICT",
          expectedHash === null
            ? `${rel} already exists; open it to edit it`
            : current === null
              ? `${rel} was deleted since you opened it; reload to see the workspace as it is now`
              : `${rel} changed since you opened it (the agent or someone else saved it); reload to see the current version, then make your edit again`,
        );
      }
      throw this.translate(err);
    });
    return { path: rel, hash: written.hash, bytes: written.bytes, created: written.created };
  }

  /**
   * Every file added, modified, deleted or renamed since the workspace's
   * first commit, committed or not, untracked files included (ignored ones
   * not), with both texts for a diff view.
   */
  async diff(): Promise<WorkspaceDiff> {
    if (!this.exists()) return { exists: false, base: null, files: [], truncated: false };
    const dotGit = await this.workspace.stat(".git", { follow: false }).catch((err) => {
      throw this.translate(err);
    });
    if (dotGit?.kind !== "dir") {
      throw new WorkspaceFileError(
        "NO_REPOSITORY",
        "The workspace has no git repository any more (.git was removed), so Rein cannot tell what changed",
      );
    }
    try {
      return await diffWorkspace(this.workspace);
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
    // tar runs in the file sandbox: a symlink it meets is stored as a symlink, and nothing outside is there to read.
    let child: ReturnType<Workspace["spawn"]>;
    try {
      child = this.workspace.spawn(
        [
          "tar",
          "-czf",
          "-",
          "--exclude=.git",
          "--exclude=./.rein",
          "--ignore-failed-read",
          "--warning=no-file-changed",
          "--warning=no-file-removed",
          ".",
        ],
        { stdio: ["ignore", "pipe", "pipe"], env: { LC_ALL: "C" } },
      );
    } catch (err) {
      throw this.translate(err);
    }
    const out = new PassThrough();
    let stderr = "";
    child.stderr!.on("data", (c: Buffer) => (stderr = (stderr + c.toString("utf8")).slice(-2000)));
    child.stdout!.pipe(out, { end: false });
    child.on("error", (err) => out.destroy(new WorkspaceFileError("ARCHIVE_FAILED", `Could not run tar: ${err.message}`)));
    child.on("close", (code) => {
      // tar exits 1 when a file changed while it was read (the agent may be working): the archive is still whole.
      if (code === 0 || code === 1) out.end();
      else out.destroy(new WorkspaceFileError("ARCHIVE_FAILED", `tar failed (exit ${code}): ${this.redact(stderr.trim())}`));
    });
    out.on("close", () => {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          child.kill("SIGKILL");
        }
      }
    });
    return out;
  }
}

export function workspaceFiles(workspace: Workspace): WorkspaceFiles {
  return new WorkspaceFiles(workspace);
}
