// The CLI's standard input, read through one object: the tests run the CLI's
// commands inside their own process and give them an input of their own
// (test/helpers/cli.ts), as a pipe would.
import fs from "node:fs";

export const stdin = {
  /** Everything on standard input, as text (waits for its end). */
  read: (): string => fs.readFileSync(0, "utf8"),
  /** Whether standard input is a terminal: nothing was piped in. */
  isTTY: (): boolean => Boolean(process.stdin.isTTY),
};

/** A file's text; "-" reads standard input instead. */
export function readInput(file: string): string {
  return file === "-" ? stdin.read() : fs.readFileSync(file, "utf8");
}
