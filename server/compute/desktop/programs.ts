// Are the desktop's programs installed? Checked once, when the pool is made,
// so a missing one is a clear message rather than a failed run.
import fs from "node:fs";
import path from "node:path";
import type { JailMode } from "../files/jail";

/** The desktop's programs are looked up here, and only here (their environment is the desktop's own). */
export const DESKTOP_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** Program -> the Debian package that has it. */
const PROGRAMS: Record<string, string> = {
  Xvfb: "xvfb",
  openbox: "openbox",
  x11vnc: "x11vnc",
  chromium: "chromium",
  setpriv: "util-linux",
};

function onPath(program: string, searchPath: string): boolean {
  return searchPath.split(":").some((dir) => {
    if (!dir) return false;
    try {
      fs.accessSync(path.join(dir, program), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * Why desktops are unavailable for want of a sandbox, or null. The browser is
 * confined by bubblewrap; without it a person at the desktop would reach the
 * host's files and network, so only an explicit REIN_SANDBOX=none runs one.
 */
export function checkDesktopSandbox(mode: JailMode): string | null {
  if (mode.kind !== "unavailable") return null;
  const why = mode.why.replace(/^Terminal pods are unavailable: /, "");
  return `Desktops (T2) are unavailable: the desktop's browser runs only in a sandbox, and ${why} (REIN_SANDBOX=none runs it without one, for development only)`;
}

/** null when every program is there; otherwise why desktops are unavailable, with what to install. */
export function checkDesktopPrograms(searchPath = DESKTOP_PATH): string | null {
  const missing = Object.keys(PROGRAMS).filter((p) => !onPath(p, searchPath));
  if (!missing.length) return null;
  const packages = [...new Set(missing.map((p) => PROGRAMS[p]))];
  return `Desktops (T2) are unavailable: ${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} not installed: apt-get install ${packages.join(" ")}`;
}
