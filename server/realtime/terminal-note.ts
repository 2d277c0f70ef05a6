// What the agent is told when a person hands the terminal back: the commands
// they ran and how the screen looked, so it can continue from there.

export const MAX_NOTE_COMMANDS = 100;
const MAX_NOTE_CHARS = 6000;
const SCREEN_LINES = 30;

export interface TakeoverSummary {
  byName: string;
  commands: Array<{ text: string; approximate: boolean }>;
  /** Commands left out of `commands` (past MAX_NOTE_COMMANDS). */
  moreCommands: number;
  /** Lines typed into programs the person started (not recorded: they may be passwords). */
  programLines: number;
  /** The end of the terminal's screen as plain text, when the terminal is still there. */
  screen: string | null;
  /** Why control ended, when it was not the person's own hand back. */
  reason?: string;
}

export function takeoverNote(s: TakeoverSummary): string {
  const parts: string[] = [];
  if (s.commands.length === 0) {
    parts.push(`While you were paused, ${s.byName} took over the terminal but ran no commands at the shell prompt.`);
  } else {
    const approximate = s.commands.some((c) => c.approximate);
    parts.push(
      `While you were paused, ${s.byName} took over the terminal and ran these commands in your shell, in this order` +
        (approximate ? " (lines marked ~ were edited with history or completion, so they may differ slightly)" : "") +
        ":",
    );
    const lines = s.commands.map((c) => `${c.approximate ? "~ " : "$ "}${c.text}`);
    if (s.moreCommands) lines.push(`… and ${s.moreCommands} more`);
    parts.push(lines.join("\n"));
  }
  if (s.programLines)
    parts.push(`They also typed ${s.programLines} line${s.programLines === 1 ? "" : "s"} into programs they started (not recorded).`);
  if (s.reason) parts.push(`Control ended because ${s.reason}.`);
  if (s.screen?.trim()) {
    parts.push(`The end of the terminal screen when they handed it back:\n${lastLines(s.screen, SCREEN_LINES)}`);
  }
  parts.push("The shell, its working directory and the files are as they left them. Check the state before you continue.");
  const note = parts.join("\n\n");
  return note.length > MAX_NOTE_CHARS ? `${note.slice(0, MAX_NOTE_CHARS - 1)}…` : note;
}

function lastLines(text: string, n: number): string {
  const lines = text.split("\n");
  return lines
    .slice(Math.max(0, lines.length - n))
    .map((l) => (l.length > 300 ? `${l.slice(0, 300)}…` : l))
    .join("\n");
}
