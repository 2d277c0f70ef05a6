// What Settings › Devices shows (docs/devices.md#the-devices-page), as pure
// functions the page and its tests share: the commands to type on a device,
// the pairing code's countdown, and a device's system in words.
import { DEVICE_AGENT_PATH, type DeviceCapabilities } from "@/lib/device-protocol";

/** The folder a new device offers to Rein's runs when its owner names none. */
export const DEFAULT_DEVICE_FOLDER = "~/rein-work";

const PLAIN_WORD = /^[A-Za-z0-9_./:@%+=,-]+$/;

/**
 * A word the shell reads as itself: plain words stay as they are, others go in
 * single quotes. A leading `~/` stays outside the quotes so the shell still
 * expands it to the home folder.
 */
export function shellWord(word: string): string {
  if (word === "") return "''";
  if (word === "~" || (word.startsWith("~/") && PLAIN_WORD.test(word.slice(2) || "x"))) return word;
  if (word.startsWith("~/")) return `~/${shellWord(word.slice(2))}`;
  if (PLAIN_WORD.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Rein's address as the device reaches it: the page's origin, without a trailing slash. */
function base(origin: string): string {
  return origin.replace(/\/+$/, "");
}

/** `npx <rein>/api/devices/agent.tgz pair <rein> <CODE> --folder <folder>` (docs/devices.md#quick-start). */
export function pairCommand(origin: string, code: string, folder: string): string {
  const rein = base(origin);
  return `npx ${rein}${DEVICE_AGENT_PATH} pair ${rein} ${code} --folder ${shellWord(folder.trim() || DEFAULT_DEVICE_FOLDER)}`;
}

/** The command that keeps a paired device connected. */
export function runCommand(origin: string): string {
  return `npx ${base(origin)}${DEVICE_AGENT_PATH} run`;
}

/** "9:05" for the time a pairing code has left; "0:00" once it is over. */
export function formatCountdown(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** "linux · x64 · 8 CPUs · 16 GiB" */
export function systemWords(c: Pick<DeviceCapabilities, "os" | "arch" | "cpus" | "memoryMb">): string {
  const memory = c.memoryMb >= 1024 ? `${Math.round((c.memoryMb / 1024) * 10) / 10} GiB` : `${c.memoryMb} MiB`;
  return [c.os, c.arch, `${c.cpus} ${c.cpus === 1 ? "CPU" : "CPUs"}`, c.memoryMb > 0 ? memory : null].filter(Boolean).join(" · ");
}

/** What Rein may run on the device, in words: commands none or any, and whether a terminal is confined. */
export function commandsWords(c: Pick<DeviceCapabilities, "commands" | "confined">): string {
  if (c.commands === "none") return "none";
  return c.confined ? "a terminal, confined" : "a terminal, not confined";
}
