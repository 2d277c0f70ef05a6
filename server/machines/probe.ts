// The connection test's look at a machine (docs/desktops-and-tiers.md#the-connection-test):
// OS, architecture, CPUs and whether bubblewrap can make a sandbox there,
// read with one bounded command. What the machine prints is hostile input:
// each fact must match its pattern or it is left out.
import { addressOf, type Confinement } from "@/lib/machines";
import type { MachineConnection } from "./ssh";

export interface MachineFacts {
  os: string | null;
  arch: string | null;
  cpus: number | null;
  /** bubblewrap's version when it is installed, else null. */
  bwrap: string | null;
  /** Whether bubblewrap made a sandbox there just now. */
  bwrapWorks: boolean;
}

/** Runs in the login user's shell; every value on its own line, so nothing can spill into another. */
const PROBE = [
  `printf 'os=%s\\n' "$(uname -s 2>/dev/null)"`,
  `printf 'arch=%s\\n' "$(uname -m 2>/dev/null)"`,
  `printf 'cpus=%s\\n' "$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null)"`,
  `if command -v bwrap >/dev/null 2>&1; then printf 'bwrap=%s\\n' "$(bwrap --version 2>/dev/null | head -n 1)";` +
    ` if bwrap --unshare-all --die-with-parent --ro-bind / / true >/dev/null 2>&1; then echo bwrap_works=1; fi; fi`,
].join("; ");

const PROBE_TIMEOUT_MS = 10_000;
const PROBE_MAX_BYTES = 4096;

export function parseFacts(text: string): MachineFacts {
  const facts: MachineFacts = { os: null, arch: null, cpus: null, bwrap: null, bwrapWorks: false };
  for (const line of text.split("\n").slice(0, 16)) {
    const [key, ...rest] = line.split("=");
    const value = rest.join("=").trim();
    if (key === "os" && /^[A-Za-z0-9_.-]{1,32}$/.test(value)) facts.os = value;
    else if (key === "arch" && /^[A-Za-z0-9_.-]{1,32}$/.test(value)) facts.arch = value;
    else if (key === "cpus" && /^\d{1,5}$/.test(value) && Number(value) >= 1) facts.cpus = Number(value);
    else if (key === "bwrap") facts.bwrap = /^bubblewrap (\d{1,4}(?:\.\d{1,4}){0,3})$/.exec(value)?.[1] ?? (value ? "unknown" : null);
    else if (key === "bwrap_works" && value === "1") facts.bwrapWorks = true;
  }
  if (!facts.bwrap) facts.bwrapWorks = false;
  return facts;
}

export const confinementOf = (facts: MachineFacts): Confinement => (facts.bwrap && facts.bwrapWorks ? "bubblewrap" : "user");

export async function probeMachine(conn: MachineConnection): Promise<MachineFacts> {
  const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  const result = await conn.exec(PROBE, { signal, maxOutputBytes: PROBE_MAX_BYTES });
  return parseFacts(result.stdout);
}

/** The test's words when it connected (docs/desktops-and-tiers.md#the-connection-test). */
export function connectedWords(
  m: { name: string; host: string; port: number; user: string },
  conn: { connectMs: number; fingerprint: string },
  facts: MachineFacts,
): string {
  const system = [facts.os, facts.arch].filter(Boolean).join(" ");
  const cpus = facts.cpus ? `${facts.cpus} CPU${facts.cpus === 1 ? "" : "s"}` : "";
  const about = [system, cpus].filter(Boolean).join(", ");
  const bwrap = facts.bwrap === "unknown" ? "bubblewrap" : `bubblewrap ${facts.bwrap}`;
  const confinement = !facts.bwrap
    ? `bubblewrap is not installed: commands run as user ${m.user} with the limits the host allows`
    : facts.bwrapWorks
      ? `${bwrap} is installed, commands will run confined`
      : `${bwrap} is installed but could not make a sandbox there: commands run as user ${m.user} with the limits the host allows`;
  return (
    `Connected to ${m.name} (${addressOf(m)}) as ${m.user} in ${conn.connectMs} ms; host key ${conn.fingerprint}` +
    `${about ? `; ${about}` : ""}; ${confinement}`
  );
}
