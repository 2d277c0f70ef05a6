// What the device tells Rein about itself (docs/devices.md#capabilities):
// the machine's plain facts, the hardware its owner chose to expose, and how
// its terminal is run. Nothing is probed beyond that.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { DeviceCapabilities, DeviceCommands } from "../../../lib/device-protocol";
import { AGENT_VERSION } from "./version";

/** The program on PATH, or null. */
export function onPath(program: string): string | null {
  for (const dir of (process.env.PATH ?? "/usr/bin:/bin").split(":")) {
    if (!dir) continue;
    const file = path.join(dir, program);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      /* not here */
    }
  }
  return null;
}

let bwrapChecked: string | null | undefined;

/** bubblewrap, when it is on PATH and can make a sandbox here (Linux, user namespaces allowed). */
export function workingBwrap(): string | null {
  if (bwrapChecked !== undefined) return bwrapChecked;
  bwrapChecked = null;
  if (process.platform !== "linux") return null;
  const bwrap = onPath("bwrap");
  if (!bwrap) return null;
  const probe = spawnSync(
    bwrap,
    ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--die-with-parent", "true"],
    {
      stdio: "ignore",
      timeout: 5_000,
    },
  );
  if (probe.status === 0) bwrapChecked = bwrap;
  return bwrapChecked;
}

export function capabilities(opts: { commands: DeviceCommands; expose: string[] }): DeviceCapabilities {
  return {
    os: process.platform,
    arch: process.arch,
    cpus: os.cpus().length,
    memoryMb: Math.round(os.totalmem() / 1024 / 1024),
    hostname: os.hostname().slice(0, 200),
    hardware: opts.expose,
    agentVersion: AGENT_VERSION,
    commands: opts.commands,
    confined: workingBwrap() !== null,
  };
}
