// A run's workspace: a git repository under the data directory. Tools see
// only paths inside it.
import fs from "node:fs";
import path from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { ToolError } from "./types";

const exec = promisify(execFile);

export const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "Rein agent",
  GIT_AUTHOR_EMAIL: "agent@rein.local",
  GIT_COMMITTER_NAME: "Rein agent",
  GIT_COMMITTER_EMAIL: "agent@rein.local",
};

/** Rein's own files in a workspace (saved long outputs); git ignores them. */
export const OUTPUTS_DIR = ".rein/outputs";

/** Keeps .rein/ out of the run's git history and diffs. */
export function excludeReinFiles(root: string) {
  const file = path.join(root, ".git", "info", "exclude");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  if (!current.split("\n").includes("/.rein/")) fs.appendFileSync(file, `${current && !current.endsWith("\n") ? "\n" : ""}/.rein/\n`);
}

export class Workspace {
  constructor(public readonly root: string) {}

  /** Resolves a path the agent gave; refuses anything outside the workspace. */
  resolve(relative: string): string {
    if (typeof relative !== "string" || relative.includes("\0")) throw new ToolError("BAD_PATH", "Invalid path");
    const target = path.resolve(this.root, relative);
    if (target !== this.root && !target.startsWith(this.root + path.sep)) {
      throw new ToolError("OUTSIDE_WORKSPACE", `Path "${relative}" is outside the workspace`);
    }
    // A symlink inside the workspace must not lead out of it.
    let existing = target;
    while (!fs.existsSync(existing) && existing !== this.root) existing = path.dirname(existing);
    const real = fs.realpathSync(existing);
    const realRoot = fs.realpathSync(this.root);
    if (real !== realRoot && !real.startsWith(realRoot + path.sep)) {
      throw new ToolError("OUTSIDE_WORKSPACE", `Path "${relative}" leads outside the workspace`);
    }
    return target;
  }

  relative(absolute: string): string {
    return path.relative(this.root, absolute).split(path.sep).join("/");
  }

  /** Creates the directory and its git repository, once. */
  async ensure(): Promise<void> {
    if (fs.existsSync(path.join(this.root, ".git"))) return excludeReinFiles(this.root);
    fs.mkdirSync(this.root, { recursive: true });
    const env = { ...process.env, ...GIT_IDENTITY };
    await exec("git", ["init", "-q", "-b", "main"], { cwd: this.root, env });
    await exec("git", ["commit", "-q", "--allow-empty", "-m", "Workspace created by Rein"], { cwd: this.root, env });
    excludeReinFiles(this.root);
  }
}

export function workspaceFor(dataDir: string, runId: string): Workspace {
  return new Workspace(path.join(dataDir, "workspaces", runId));
}
