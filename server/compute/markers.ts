// The shell tells Rein where a command's output starts and ends, and its exit
// code, with a private OSC sequence that terminals ignore:
//   PS0 (after a command is read)  -> ESC ] 6973 ; S BEL
//   PROMPT_COMMAND (before prompt) -> ESC ] 6973 ; E ; <exit code> BEL
export const MARK_START = "\u001b]6973;S\u0007";
export const MARK_END_PREFIX = "\u001b]6973;E;";
/** The shell variable that names a command's secret variables (lower case: not a REIN_ one in `env`). */
export const SECRET_NAMES_VAR = "__rein_secret_vars";

export const SHELL_ENV = {
  PS0: MARK_START,
  // After the marker: a command's secret variables (pod.ts) end with it.
  PROMPT_COMMAND: `printf "\\033]6973;E;%s\\007" "$?"; unset $${SECRET_NAMES_VAR} ${SECRET_NAMES_VAR}`,
  PS1: "\\w $ ",
};

export type Marker = { kind: "start" } | { kind: "end"; exitCode: number };

/** The longest a marker can be: its prefix, `E;`, an exit code and BEL. */
const MAX_MARKER = 32;

/** Finds markers in a stream that may split them across chunks. */
export class MarkerScanner {
  private carry = "";

  /** Returns the text between markers and the markers, in order. */
  push(chunk: string): Array<{ text: string } | Marker> {
    const data = this.carry + chunk;
    this.carry = "";
    const out: Array<{ text: string } | Marker> = [];
    let i = 0;
    for (;;) {
      const at = data.indexOf("\u001b]6973;", i);
      if (at < 0) {
        // Keep a possible beginning of a marker for the next chunk.
        const esc = data.lastIndexOf("\u001b", data.length - 1);
        const tailStart = esc >= i && data.length - esc < 16 && "\u001b]6973;".startsWith(data.slice(esc, esc + 7)) ? esc : data.length;
        if (tailStart > i) out.push({ text: data.slice(i, tailStart) });
        this.carry = data.slice(tailStart);
        return out;
      }
      if (at > i) out.push({ text: data.slice(i, at) });
      // A marker is a few characters long: one without its BEL by then is output, not held and scanned again.
      const near = data.slice(at, at + MAX_MARKER + 1).indexOf("\u0007");
      const bel = near < 0 ? -1 : at + near;
      if (bel < 0) {
        if (data.length - at <= MAX_MARKER) {
          this.carry = data.slice(at);
          return out;
        }
        out.push({ text: data.slice(at, at + 1) });
        i = at + 1;
        continue;
      }
      const body = data.slice(at, bel + 1);
      if (body === MARK_START) out.push({ kind: "start" });
      else if (body.startsWith(MARK_END_PREFIX))
        out.push({ kind: "end", exitCode: Number.parseInt(body.slice(MARK_END_PREFIX.length, -1), 10) || 0 });
      i = bel + 1;
    }
  }
}

/** Terminal output as plain text: escape sequences removed, carriage-return overwrites applied. */
export function plainText(raw: string): string {
  const noEscapes = raw
    .replace(/\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g, "") // OSC
    .replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, "") // CSI
    .replace(/\u001b[\x20-\x2f]*[\x30-\x7e]/g, "") // other escapes (keypad modes, charsets...)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, (c) => (c === "\t" ? c : ""));
  return noEscapes
    .replace(/\r\n/g, "\n")
    .split("\n")
    .map((line) => {
      const parts = line.split("\r");
      return parts[parts.length - 1];
    })
    .join("\n");
}
