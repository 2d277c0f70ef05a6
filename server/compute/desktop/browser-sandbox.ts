// The desktop browser's sandbox
// (docs/security.md#the-desktops-browser-sees-only-a-browsers-files). A person
// who takes the desktop over can type file:///… into Chromium's address bar, so
// what Chromium can open is what the sandbox holds: the system's programs and
// libraries read-only, the few files of /etc a browser reads, the display's X
// socket, and three folders of the desktop (the profile, the downloads, and the
// sockets that join it to Rein). No data directory, no workspace, no home, no
// /var. bwrap reads its arguments from a pipe, so no host path shows in the
// sandbox's /proc/1/cmdline.
import fs from "node:fs";
import path from "node:path";
import { jailNode } from "../files/jail";
import { xSocketPath } from "./x11";

/** The desktop's folders as the browser sees them: names that say nothing of the host. */
export const SANDBOX_PROFILE = "/browser/profile";
export const SANDBOX_DOWNLOADS = "/browser/downloads";
export const SANDBOX_NET = "/browser/net";
export const EGRESS_SOCKET = "egress.sock";
export const CDP_SOCKET = "cdp.sock";

/**
 * What Chromium, Debian's wrapper script (/etc/chromium.d, /etc/chromium)
 * and fontconfig read in /etc, and the TLS roots; bound when present.
 */
const ETC_FILES = ["chromium", "chromium.d", "fonts", "ssl", "ca-certificates", "ld.so.cache", "localtime", "alternatives", "mime.types"];

/** The desktop's folders on the host, bound into the sandbox at the SANDBOX_* names. */
export interface BrowserFolders {
  profileDir: string;
  downloadsDir: string;
  /** Holds the egress proxy's socket (Rein's) and the DevTools socket (the sandbox's). */
  netDir: string;
  display: number;
}

/** Top-level links into /usr (merged /usr), or the folder itself where it is not one. */
function systemRoot(): string[] {
  const args: string[] = [];
  for (const dir of ["bin", "lib", "lib32", "lib64", "libx32", "sbin"]) {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(`/${dir}`);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) args.push("--symlink", fs.readlinkSync(`/${dir}`), `/${dir}`);
    else if (st.isDirectory()) args.push("--ro-bind", `/${dir}`, `/${dir}`);
  }
  return args;
}

export function browserSandboxArgs(folders: BrowserFolders): string[] {
  const args = [
    // A network of its own (its only way out is the egress proxy's socket), its own processes and host name.
    // Not an IPC namespace of its own: Chromium hands the X server System V shared memory by id, and in
    // another namespace the same id names another process's segment on the X server's side.
    "--unshare-net",
    "--unshare-pid",
    "--unshare-uts",
    "--hostname",
    "desktop",
    "--unshare-cgroup-try",
    "--die-with-parent",
    // The server may run as root; the browser keeps no capability of it.
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/usr",
    "/usr",
    ...systemRoot(),
  ];
  for (const name of ETC_FILES) args.push("--ro-bind-try", `/etc/${name}`, `/etc/${name}`);
  // Fontconfig's system cache: without it every new profile scans the fonts again.
  args.push("--ro-bind-try", "/var/cache/fontconfig", "/var/cache/fontconfig");
  // Node and the system's programs live under /usr here; a Node elsewhere is bound at a path that says nothing of the host.
  const node = jailNode();
  if (node !== process.execPath) args.push("--ro-bind", process.execPath, node);
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/dev/shm", "--tmpfs", "/tmp");
  // In a network namespace of its own Chromium cannot reach X's abstract socket: only the display's socket file.
  const xSocket = xSocketPath(folders.display);
  args.push("--ro-bind", xSocket, xSocket);
  args.push(
    "--bind",
    folders.profileDir,
    SANDBOX_PROFILE,
    "--bind",
    folders.downloadsDir,
    SANDBOX_DOWNLOADS,
    "--bind",
    folders.netDir,
    SANDBOX_NET,
  );
  args.push("--chdir", SANDBOX_PROFILE);
  return args;
}

/** The browser's environment inside the sandbox: its home is its profile. */
export function sandboxEnv(env: Record<string, string>): Record<string, string> {
  return {
    ...env,
    HOME: SANDBOX_PROFILE,
    XDG_CONFIG_HOME: path.posix.join(SANDBOX_PROFILE, ".config"),
    XDG_CACHE_HOME: path.posix.join(SANDBOX_PROFILE, ".cache"),
  };
}
