// A command run in the item's final workspace, in the run's sandbox (a
// terminal pod, as the shell tool uses): passes when it exits 0 in time.
import { z } from "zod";
import { quote } from "./common";
import { defineScorer, passFail } from "./types";

export const MAX_COMMAND_TIMEOUT_SEC = 600;
const OUTPUT_TAIL_CHARS = 400;

export const command = defineScorer({
  kind: "command",
  settings: z.object({
    command: z
      .string({ error: "command is the shell command to run" })
      .trim()
      .min(1, "the command is empty")
      .max(10_000, "the command is longer than 10,000 characters"),
    timeoutSec: z
      .number()
      .int("timeoutSec is a whole number of seconds")
      .min(1, "timeoutSec is at least 1")
      .max(MAX_COMMAND_TIMEOUT_SEC, `timeoutSec is at most ${MAX_COMMAND_TIMEOUT_SEC}`)
      .default(60),
  }),
  async score(input, config) {
    const r = await input.exec(config.command, config.timeoutSec);
    const tail = r.output.trim().slice(-OUTPUT_TAIL_CHARS);
    const said = tail ? `; it printed: ${tail}` : "";
    if (r.timedOut) return passFail(false, `${quote(config.command)} ran longer than ${config.timeoutSec} s and was stopped${said}`);
    return passFail(r.exitCode === 0, `${quote(config.command)} exited ${r.exitCode}${r.exitCode === 0 ? "" : said}`);
  },
});
