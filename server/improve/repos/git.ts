// git on the host for repositories and their worktrees, hardened so nothing a
// repository carries runs here: no hooks, no fsmonitor, no clean/smudge/process
// filter (every driver its config names is emptied), no textconv or external
// diff, no system or global config, an empty HOME, no prompts, and no
// transport but the one a clone or fetch names. The environment is built from
// nothing, so no secret of the server's reaches git or what it starts.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { GIT_IDENTITY } from "@/server/tools";

export class GitError extends Error {
  constructor(
    message: string,
    readonly stderr = "",
    /** git's exit status; null when it was killed or did not start. */
    readonly exitCode: number | null = null,
    /** What it printed before it failed (merge-tree prints its conflicts there). */
    readonly stdout = "",
  ) {
    super(message);
    this.name = "GitError";
  }
}

const MAX_OUTPUT = 64 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 120_000;

let emptyHome: string | null = null;
/** A HOME with nothing in it: no ~/.gitconfig, ~/.ssh/config or credentials are read. */
function home(): string {
  if (emptyHome && fs.existsSync(emptyHome)) return emptyHome;
  emptyHome = fs.mkdtempSync(path.join(os.tmpdir(), "rein-git-home-"));
  return emptyHome;
}

export function gitEnv(extra: Record<string, string> = {}): Record<string, string> {
  const h = home();
  return {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    LANG: "C.UTF-8",
    HOME: h,
    XDG_CONFIG_HOME: h,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "/bin/false",
    SSH_ASKPASS: "/bin/false",
    GIT_SSH_COMMAND: "ssh -o BatchMode=yes",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_NO_REPLACE_OBJECTS: "1",
    ...GIT_IDENTITY,
    ...extra,
  };
}

/** Options every call carries: they come after the repository's config, so they win. */
const HARDENING = [
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.untrackedCache=false",
  "-c",
  "core.sshCommand=ssh -o BatchMode=yes",
  "-c",
  "core.askPass=/bin/false",
  "-c",
  "credential.helper=",
  "-c",
  "protocol.allow=never",
  "-c",
  "submodule.recurse=false",
  "-c",
  "gc.auto=0",
  "-c",
  "maintenance.auto=false",
  "-c",
  "core.quotepath=off",
  "-c",
  "advice.detachedHead=false",
];

export type Transport = "https" | "ssh" | "file";

export interface GitOptions {
  /** The repository, named explicitly so git never finds one by walking up from a directory. */
  gitDir?: string;
  workTree?: string;
  /** Working directory of the process (default: the system temp dir, inside no repository). */
  cwd?: string;
  /** The one transport a clone or fetch may use. */
  transport?: Transport;
  env?: Record<string, string>;
  timeoutMs?: number;
  input?: string;
}

function run(argv: string[], opts: GitOptions, label: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      argv,
      {
        cwd: opts.cwd ?? os.tmpdir(),
        env: gitEnv(opts.env) as NodeJS.ProcessEnv,
        encoding: "buffer",
        maxBuffer: MAX_OUTPUT,
        timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        killSignal: "SIGKILL",
      },
      (err: Error | null, stdout: Buffer, stderr: Buffer) => {
        if (err) {
          const text = stderr.toString("utf8").trim();
          const why = (err as { killed?: boolean }).killed
            ? `timed out after ${(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000} s`
            : text || err.message;
          const code = (err as { code?: unknown }).code;
          reject(new GitError(`git ${label} failed: ${why}`, text, typeof code === "number" ? code : null, stdout.toString("utf8")));
        } else resolve(stdout);
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** Every filter driver the repository's config names, each emptied (an empty command is no filter). */
async function filterOverrides(gitDir: string): Promise<string[]> {
  let out: string;
  try {
    out = (
      await run([...HARDENING, `--git-dir=${gitDir}`, "config", "--null", "--name-only", "--get-regexp", "^filter\\."], {}, "config")
    ).toString("utf8");
  } catch {
    return []; // exit 1: no such keys
  }
  const drivers = new Set<string>();
  for (const key of out.split("\0")) {
    const m = /^filter\.(.+)\.[^.]+$/s.exec(key);
    if (m) drivers.add(m[1]);
  }
  return [...drivers].flatMap((d) => [
    "-c",
    `filter.${d}.smudge=`,
    "-c",
    `filter.${d}.clean=`,
    "-c",
    `filter.${d}.process=`,
    "-c",
    `filter.${d}.required=false`,
  ]);
}

/** Runs hardened git and returns its stdout; fails with what git printed. */
export async function git(args: string[], opts: GitOptions = {}): Promise<Buffer> {
  const argv = [...HARDENING];
  if (opts.transport) argv.push("-c", `protocol.${opts.transport}.allow=always`);
  if (opts.gitDir) {
    argv.push(...(await filterOverrides(opts.gitDir)), `--git-dir=${opts.gitDir}`);
    if (opts.workTree) argv.push(`--work-tree=${opts.workTree}`);
  }
  argv.push(...args);
  return run(argv, opts, args[0] ?? "");
}

export const gitText = async (args: string[], opts: GitOptions = {}) => (await git(args, opts)).toString("utf8").trim();
