// The agent's settings and token (docs/devices.md#on-the-device), in
// ~/.config/rein-device/config.json (or $XDG_CONFIG_HOME), readable by the
// owner alone (mode 0600): the token is the device's whole authority.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { DeviceCommands } from "../../../lib/device-protocol";

export interface AgentConfig {
  url: string;
  deviceId: string;
  name: string;
  token: string;
  /** The one folder Rein's runs may read and write (an absolute, real path). */
  folder: string;
  commands: DeviceCommands;
  /** Hardware the owner chose to tell Rein about (usb, gpu, …). */
  expose: string[];
}

export function configPath(): string {
  // The device's own desktop convention (not one of Rein's server variables, which server/config/env.ts lists).
  const { XDG_CONFIG_HOME: xdgConfig } = process.env;
  const base = xdgConfig || path.join(os.homedir(), ".config");
  return path.join(base, "rein-device", "config.json");
}

export function readConfig(): AgentConfig | null {
  let text: string;
  try {
    text = fs.readFileSync(configPath(), "utf8");
  } catch {
    return null;
  }
  const c = JSON.parse(text) as Partial<AgentConfig>;
  if (!c.url || !c.token || !c.deviceId || !c.folder || !c.name) throw new Error(`${configPath()} is incomplete: pair again`);
  return {
    url: c.url,
    token: c.token,
    deviceId: c.deviceId,
    folder: c.folder,
    name: c.name,
    commands: c.commands === "any" ? "any" : "none",
    expose: c.expose ?? [],
  };
}

export function writeConfig(config: AgentConfig): void {
  const file = configPath();
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(config, null, 2) + "\n", { mode: 0o600 });
  fs.renameSync(tmp, file);
  fs.chmodSync(file, 0o600);
}

export function forgetConfig(): boolean {
  try {
    fs.rmSync(configPath());
    return true;
  } catch {
    return false;
  }
}
