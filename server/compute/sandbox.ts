// How a pod is confined: bubblewrap namespaces, a read-only system, the
// workspace read-write at /workspace, private /tmp, no network by default.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cgroupSupport } from "./cgroups";
import type { PodLimits, SandboxStatus } from "./types";

export const POD_WORKDIR = "/workspace";
/** Where the pod sees its host directory of per-command secret files (pod.ts), read-only and outside the workspace. */
export const POD_SECRETS_DIR = "/run/rein";
const POD_UID = 1000;

/** Is bubblewrap there and can it make namespaces here? Tried once at start. */
export function probeSandbox(): SandboxStatus {
  const cg = cgroupSupport();
  const limits = { processes: cg.pids, memory: cg.memory, cpuWeight: cg.cpu };
  try {
    execFileSync(
      "bwrap",
      [
        "--unshare-all",
        "--die-with-parent",
        "--ro-bind",
        "/usr",
        "/usr",
        "--symlink",
        "usr/bin",
        "/bin",
        "--symlink",
        "usr/lib",
        "/lib",
        "--symlink",
        "usr/lib64",
        "/lib64",
        "--unshare-user",
        "--uid",
        String(POD_UID),
        "/usr/bin/true",
      ],
      {
        stdio: "pipe",
        timeout: 10_000,
      },
    );
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    const why =
      e.code === "ENOENT"
        ? "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
        : `bubblewrap cannot create namespaces here: ${e.stderr?.toString().trim() || e.message}`;
    return { kind: "bubblewrap", ok: false, message: `Terminal pods are unavailable: ${why}`, limits };
  }
  const missing = [!cg.pids && "process count limit", !cg.memory && "memory limit", !cg.cpu && "lower CPU weight"].filter(
    (m): m is string => !!m,
  );
  const listed = missing.length > 1 ? `${missing.slice(0, -1).join(", ")} and ${missing.at(-1)}` : missing[0];
  const message = missing.length
    ? `Terminal pods use bubblewrap; their ${listed} ${missing.length > 1 ? "are" : "is"} not enforced (cgroups are not writable here)`
    : "Terminal pods use bubblewrap with process and memory limits and a lower CPU weight than the server";
  return { kind: "bubblewrap", ok: true, message, limits };
}

let identityFiles: { passwd: string; group: string } | null = null;

/** The pod's own /etc/passwd and /etc/group: one user, nothing of the host's accounts. */
function podIdentityFiles() {
  if (identityFiles && fs.existsSync(identityFiles.passwd)) return identityFiles;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-pod-etc-"));
  const passwd = path.join(dir, "passwd");
  const group = path.join(dir, "group");
  fs.writeFileSync(
    passwd,
    `root:x:0:0:root:/root:/usr/sbin/nologin\nrein:x:${POD_UID}:${POD_UID}:Rein agent:${POD_WORKDIR}:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
  );
  fs.writeFileSync(group, `root:x:0:\nrein:x:${POD_UID}:\nnogroup:x:65534:\n`);
  identityFiles = { passwd, group };
  return identityFiles;
}

/** bwrap arguments for a pod over `workspaceDir`, then the shell under rlimits. */
export function bwrapArgs(workspaceDir: string, limits: PodLimits, env: Record<string, string>, secretsDir?: string): string[] {
  // No --new-session: the PTY is the pod's own, and the shell needs it as its
  // controlling terminal so Ctrl-C reaches the foreground command only.
  const args = ["--unshare-all", "--die-with-parent"];
  if (limits.network) args.push("--share-net");
  args.push("--ro-bind", "/usr", "/usr");
  for (const dir of ["bin", "lib", "lib64", "sbin"]) {
    if (fs.existsSync(`/usr/${dir}`)) args.push("--symlink", `usr/${dir}`, `/${dir}`);
  }
  // Only the parts of /etc a shell and git need; nothing with credentials.
  const identity = podIdentityFiles();
  args.push("--ro-bind", identity.passwd, "/etc/passwd", "--ro-bind", identity.group, "/etc/group");
  for (const file of [
    "/etc/hosts",
    "/etc/nsswitch.conf",
    "/etc/localtime",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/alternatives",
    "/etc/bash.bashrc",
    "/etc/inputrc",
    "/etc/terminfo",
    "/etc/ld.so.cache",
  ]) {
    if (fs.existsSync(file)) args.push("--ro-bind", file, file);
  }
  if (limits.network && fs.existsSync("/etc/resolv.conf")) args.push("--ro-bind", "/etc/resolv.conf", "/etc/resolv.conf");
  args.push("--proc", "/proc", "--dev", "/dev");
  args.push("--size", String(limits.tmpMb * 1024 * 1024), "--tmpfs", "/tmp");
  args.push("--bind", workspaceDir, POD_WORKDIR, "--chdir", POD_WORKDIR);
  if (secretsDir) args.push("--ro-bind", secretsDir, POD_SECRETS_DIR);
  args.push("--hostname", "rein-pod", "--unshare-user", "--uid", String(POD_UID), "--gid", String(POD_UID), "--disable-userns");
  args.push("--clearenv");
  for (const [k, v] of Object.entries(env)) args.push("--setenv", k, v);
  args.push("/usr/bin/prlimit", `--cpu=${limits.cpuSeconds}`, `--fsize=${limits.fileSizeMb * 1024 * 1024}`, "--core=0", "--");
  return args;
}
