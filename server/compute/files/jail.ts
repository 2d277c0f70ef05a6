// The file sandbox
// (docs/security.md#files-only-through-the-sandboxed-file-service): every
// program that opens a path of a run's workspace on the server's behalf (the
// file service, git, ripgrep, tar) runs in a bubblewrap sandbox that sees only
// that workspace, at /workspace, as the sandbox's user. A symlink or a git
// index entry the agent wrote can then only ever point inside the workspace.
// bwrap reads its arguments from a pipe (--args), so no host path shows in the
// sandbox's /proc/1/cmdline.
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import fs from "node:fs";
import { probeSandbox } from "../sandbox";
import { createPodCgroup } from "../cgroups";

export const JAIL_ROOT = "/workspace";
const JAIL_UID = 1000;

export class JailUnavailableError extends Error {
  readonly code = "SANDBOX_UNAVAILABLE";
  constructor(why: string) {
    super(`Workspace files are reached only through the sandbox, which is unavailable on this server: ${why}`);
    this.name = "JailUnavailableError";
  }
}

export type JailMode = { kind: "bubblewrap" } | { kind: "none"; why: string } | { kind: "unavailable"; why: string };

let configured: { allowUnsandboxed: boolean } | null = null;
let mode: JailMode | null = null;

/**
 * Called once at start-up. Without bubblewrap, workspace files are refused
 * unless `allowUnsandboxed` (REIN_SANDBOX=none, for development only): then
 * the same programs run unconfined, with only their own checks between an
 * agent's symlink and the host.
 */
export function configureJail(options: { allowUnsandboxed: boolean }): void {
  configured = options;
  mode = null;
}

export function jailMode(): JailMode {
  if (mode) return mode;
  const status = probeSandbox();
  if (status.ok) mode = { kind: "bubblewrap" };
  else if (configured?.allowUnsandboxed) mode = { kind: "none", why: status.message };
  else mode = { kind: "unavailable", why: status.message };
  return mode;
}

/** What the file sandbox sees besides the workspace: the system read-only, nothing of the host's accounts or data. */
function jailArgs(
  workspaceDir: string,
  env: Record<string, string>,
  readOnly: Array<{ host: string; at: string }>,
  network = false,
  writable: Array<{ host: string; at: string }> = [],
  tmpMb?: number,
): string[] {
  const args = ["--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/usr", "/usr"];
  if (network) args.push("--share-net");
  for (const dir of ["bin", "lib", "lib64", "sbin"]) {
    if (fs.existsSync(`/usr/${dir}`)) args.push("--symlink", `usr/${dir}`, `/${dir}`);
  }
  for (const file of [
    "/etc/ld.so.cache",
    "/etc/alternatives",
    "/etc/localtime",
    ...(network ? ["/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/ssl", "/etc/ca-certificates"] : []),
  ]) {
    if (fs.existsSync(file)) args.push("--ro-bind", file, file);
  }
  // Node and the system's programs live under /usr here; a Node elsewhere is bound at a path that says nothing of the host.
  if (!process.execPath.startsWith("/usr/")) args.push("--ro-bind", process.execPath, JAIL_NODE);
  args.push("--proc", "/proc", "--dev", "/dev");
  if (tmpMb) args.push("--size", String(tmpMb * 1024 * 1024));
  args.push("--tmpfs", "/tmp");
  args.push("--bind", workspaceDir, JAIL_ROOT, "--chdir", JAIL_ROOT);
  for (const b of readOnly) args.push("--ro-bind", b.host, b.at);
  for (const b of writable) args.push("--bind", b.host, b.at);
  args.push("--unshare-user", "--uid", String(JAIL_UID), "--gid", String(JAIL_UID), "--disable-userns");
  args.push("--clearenv");
  for (const [k, v] of Object.entries(env)) args.push("--setenv", k, v);
  return args;
}

const JAIL_NODE = "/run/rein/node";

/** The Node binary as the sandbox sees it. */
export function jailNode(): string {
  return process.execPath.startsWith("/usr/") ? process.execPath : JAIL_NODE;
}

const BASE_ENV = { PATH: "/usr/bin:/bin", LANG: "C.UTF-8", LC_ALL: "C.UTF-8", HOME: JAIL_ROOT };

export interface JailSpawnOptions {
  env?: Record<string, string>;
  stdio?: SpawnOptions["stdio"];
  /** Host folders of Rein's own (never the agent's) seen read-only at `at`; argv names them by `at`. */
  readOnly?: Array<{ host: string; at: string }>;
  /** Host folders of Rein's own (never the agent's: a run's workspace snapshots) seen read-write at `at`; argv and env name them by `at`. */
  writable?: Array<{ host: string; at: string }>;
  /** The machine's network (an MCP server an admin let out); by default the sandbox has none. */
  network?: boolean;
  /** The size of the private /tmp (a tmpfs, in memory), MiB; by default the kernel's (half the memory). */
  tmpMb?: number;
  /**
   * A cgroup of its own with these limits, when the host lets Rein write cgroups: the program is in
   * it before it starts anything (a third-party program: docs/hosted-agents.md#the-sandbox).
   */
  cgroup?: { id: string; processes: number; memoryMb: number };
}

/**
 * Starts `argv` in the file sandbox over `workspaceDir`; argv[0] is a program
 * of the system (git, rg, tar) or jailNode(). Paths in argv are relative to
 * the workspace (the program's working directory).
 */
export function spawnInJail(workspaceDir: string, argv: string[], options: JailSpawnOptions = {}): ChildProcess {
  const m = jailMode();
  if (m.kind === "unavailable") throw new JailUnavailableError(m.why);
  const env = { ...BASE_ENV, ...options.env };
  const stdio = options.stdio ?? ["pipe", "pipe", "pipe"];
  if (m.kind === "none") {
    // Development only (REIN_SANDBOX=none): no boundary but the programs' own checks.
    const binds = [...(options.readOnly ?? []), ...(options.writable ?? [])];
    const onHost = (a: string) =>
      binds.reduce((arg, b) => (arg === b.at || arg.startsWith(`${b.at}/`) ? b.host + arg.slice(b.at.length) : arg), a);
    const [command, ...rest] = argv.map(onHost);
    const hostEnv = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, onHost(v)]));
    return spawn(command === jailNode() ? process.execPath : command, rest, {
      cwd: workspaceDir,
      env: { ...hostEnv, HOME: workspaceDir, REIN_FS_ROOT: workspaceDir } as Record<string, string> as NodeJS.ProcessEnv,
      stdio,
      detached: true,
    });
  }
  const list = Array.isArray(stdio) ? [...stdio] : [stdio, stdio, stdio];
  while (list.length < 3) list.push("ignore");
  // fd 3 carries bwrap's arguments; detached: a Ctrl+C meant for the server does not reach the sandbox.
  // With a cgroup, a shell waits on fd 4 until its process is in the group, then becomes bwrap (reading no
  // start-up file: bash reads ~/.bashrc when its stdin is a socket, and what it printed would reach the program's streams).
  const gated = options.cgroup ? cgroupOrNull(options.cgroup) : null;
  const child: ChildProcess = gated
    ? spawn(
        "/usr/bin/bash",
        ["--norc", "--noprofile", "-c", 'read -r _ <&4 && exec 4<&- && exec bwrap --args 3 -- "$@"', "rein-jail", ...argv],
        {
          cwd: "/",
          env: { PATH: "/usr/bin:/bin" } as unknown as NodeJS.ProcessEnv,
          stdio: [...list.slice(0, 3), "pipe", "pipe"] as SpawnOptions["stdio"],
          detached: true,
        },
      )
    : spawn("bwrap", ["--args", "3", "--", ...argv], {
        cwd: "/",
        env: {} as NodeJS.ProcessEnv,
        stdio: [...list.slice(0, 3), "pipe"] as SpawnOptions["stdio"],
        detached: true,
      });
  if (gated) {
    const gate = child.stdio[4] as NodeJS.WritableStream | null;
    gate?.on("error", () => {});
    try {
      if (child.pid) gated.add(child.pid);
    } catch {
      /* limits not enforced here; probeSandbox() says so at start */
    }
    gate?.end("\n");
    child.once("exit", () => gated.remove());
  }
  const argsPipe = child.stdio[3] as NodeJS.WritableStream | null;
  argsPipe?.on("error", () => {}); // bwrap that failed to start closes it; the exit says why
  argsPipe?.end(
    jailArgs(workspaceDir, env, options.readOnly ?? [], options.network, options.writable ?? [], options.tmpMb)
      .map((a) => `${a}\0`)
      .join(""),
  );
  return child;
}

function cgroupOrNull(c: { id: string; processes: number; memoryMb: number }) {
  try {
    return createPodCgroup(c.id, c);
  } catch {
    return null; // cgroups are not writable here: the other limits still apply (probeSandbox() says so at start)
  }
}

export interface JailRunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  /** stdout went past maxBytes; the program was stopped. */
  truncated: boolean;
}

/** Runs a program in the file sandbox to its end, with a time limit and a cap on what it may print. */
export function runInJail(
  workspaceDir: string,
  argv: string[],
  options: {
    input?: string | Buffer;
    env?: Record<string, string>;
    timeoutMs?: number;
    maxBytes?: number;
    signal?: AbortSignal;
    readOnly?: JailSpawnOptions["readOnly"];
    writable?: JailSpawnOptions["writable"];
  } = {},
): Promise<JailRunResult> {
  const { timeoutMs = 60_000, maxBytes = 64 * 1024 * 1024 } = options;
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawnInJail(workspaceDir, argv, {
        env: options.env,
        readOnly: options.readOnly,
        writable: options.writable,
        stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      });
    } catch (err) {
      return reject(err);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    let stderr = "";
    const kill = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const timer = setTimeout(kill, timeoutMs);
    const onAbort = () => kill();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout!.on("data", (c: Buffer) => {
      if (truncated) return;
      size += c.length;
      if (size > maxBytes) {
        truncated = true;
        chunks.push(c.subarray(0, c.length - (size - maxBytes)));
        kill();
      } else chunks.push(c);
    });
    child.stderr!.on("data", (c: Buffer) => (stderr = (stderr + c.toString("utf8")).slice(-4000)));
    child.on("error", (err) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      reject(err);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({ code, signal, stdout: Buffer.concat(chunks), stderr: stderr.trim(), truncated });
    });
    if (options.input !== undefined) {
      child.stdin!.on("error", () => {});
      child.stdin!.end(options.input);
    }
  });
}
