// What the agent is told when a person hands the desktop back: how much they
// used it (counts only: what they typed may be a password) and where the
// browser was, so it looks before it continues.

export interface DesktopUse {
  /** When control began. */
  since: number;
  keys: number;
  clicks: number;
  pastes: number;
  /** The pointer's buttons at the last pointer event, to count presses. */
  buttons: number;
}

export const newDesktopUse = (now = Date.now()): DesktopUse => ({ since: now, keys: 0, clicks: 0, pastes: 0, buttons: 0 });

/** Counts one message the controller sent that reached the desktop. */
export function countInput(use: DesktopUse, type: string, bytes: Buffer) {
  if (type === "KeyEvent" && bytes[1]) use.keys++;
  else if (type === "QemuKeyEvent" && bytes.readUInt16BE(2)) use.keys++;
  else if (type === "ClientCutText") use.pastes++;
  else if (type === "PointerEvent") {
    // Buttons 1-3 newly down are clicks; 4-7 are the wheel.
    const buttons = bytes[1] & 0x7f;
    if (buttons & ~use.buttons & 0x07) use.clicks++;
    use.buttons = buttons;
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : word.endsWith("s") ? "es" : "s"}`;

/** A span of time as a person says it: "45 seconds", "3 minutes 5 seconds", "1 hour 2 minutes". */
export function spokenDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const say = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  if (total < 60) return total === 0 ? "less than a second" : say(total, "second");
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (hours) return minutes ? `${say(hours, "hour")} ${say(minutes, "minute")}` : say(hours, "hour");
  return seconds ? `${say(minutes, "minute")} ${say(seconds, "second")}` : say(minutes, "minute");
}

export function desktopNote(s: {
  byName: string;
  use: DesktopUse;
  now?: number;
  page?: { title: string; url: string } | null;
  reason?: string;
}): string {
  const held = spokenDuration((s.now ?? Date.now()) - s.use.since);
  const { keys, clicks, pastes } = s.use;
  const parts: string[] = [];
  if (keys + clicks + pastes === 0) {
    parts.push(`While you were paused, ${s.byName} took over the desktop for ${held} but did not use its keyboard or mouse.`);
  } else {
    const did = [keys && plural(keys, "key press"), clicks && plural(clicks, "click"), pastes && plural(pastes, "paste")]
      .filter(Boolean)
      .join(", ");
    parts.push(
      `While you were paused, ${s.byName} took over the desktop and used it for ${held} (${did}; what they typed is not recorded).`,
    );
  }
  if (s.reason) parts.push(`Control ended because ${s.reason}.`);
  if (s.page) parts.push(`When they handed it back the browser showed "${s.page.title.slice(0, 200)}" at ${s.page.url.slice(0, 500)}.`);
  parts.push("The desktop, its windows and pages are as they left them. Look at the screen (take a screenshot) before you continue.");
  return parts.join("\n\n");
}
