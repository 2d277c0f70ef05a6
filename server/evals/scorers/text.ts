// The final assistant text: contains a text, or matches a regex (linear time, RE2).
import { z } from "zod";
import { bounded, containsText, cutNote, quote, regexProblem, safeRegex } from "./common";
import { defineScorer, passFail } from "./types";

export const textContains = defineScorer({
  kind: "text_contains",
  settings: z.object({
    text: z.string({ error: "text is the text to look for" }).min(1, "text to look for is empty"),
    ignoreCase: z.boolean().default(false),
  }),
  async score(input, config) {
    const { text, cut } = bounded(input.finalText);
    const passed = containsText(text, config.text, config.ignoreCase);
    return passFail(passed, `the final text ${passed ? "contains" : "does not contain"} ${quote(config.text)}${cutNote(cut)}`);
  },
});

export const textMatches = defineScorer({
  kind: "text_matches",
  settings: z.object({
    pattern: z.string({ error: "pattern is the regex to match" }).min(1, "the regex is empty"),
    ignoreCase: z.boolean().default(false),
  }),
  check: (config) => [regexProblem(config.pattern, config.ignoreCase)].filter((p): p is string => p !== null),
  async score(input, config) {
    const { text, cut } = bounded(input.finalText);
    const passed = safeRegex(config.pattern, config.ignoreCase).test(text);
    return passFail(passed, `the final text ${passed ? "matches" : "does not match"} /${config.pattern}/${cutNote(cut)}`);
  },
});
