// Files of the final workspace: one exists, one contains a text or matches a
// regex. Reads go through the run's sandboxed file service (ScoringInput);
// paths are also checked here, so a bad one is a configuration error at once.
import path from "node:path";
import { z } from "zod";
import { WorkspaceFileError } from "@/server/tools";
import { bounded, containsText, cutNote, quote, regexProblem, safeRegex } from "./common";
import { defineScorer, passFail, type ScoreResult } from "./types";

/** A path inside the workspace by its form: relative, and never leading up and out. */
export function workspacePathProblem(p: string): string | null {
  if (p.includes("\0")) return "a file path cannot contain a NUL character";
  if (p.startsWith("/")) return `the path ${quote(p)} is absolute; give it relative to the workspace (e.g. src/index.ts)`;
  const normal = path.posix.normalize(p);
  if (normal === ".." || normal.startsWith("../")) return `the path ${quote(p)} leads outside the workspace`;
  if (normal === "." || normal === "./") return "the path names the workspace folder itself, not a file";
  return null;
}

const FilePath = z
  .string({ error: "path is the file's path in the workspace" })
  .min(1, "the file path is empty")
  .max(1_000, "the file path is longer than 1,000 characters")
  .superRefine((p, ctx) => {
    const problem = workspacePathProblem(p);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

/** A refusal of the file service as the scorer's answer; anything else is not the scorer's to judge. */
function missing(err: unknown, p: string): ScoreResult {
  if (err instanceof WorkspaceFileError) {
    if (err.code === "NOT_FOUND") return passFail(false, `${p} does not exist in the final workspace`);
    return passFail(false, `${p} could not be checked: ${err.message}`);
  }
  throw err;
}

export const fileExists = defineScorer({
  kind: "file_exists",
  settings: z.object({ path: FilePath }),
  async score(input, config) {
    let there: boolean;
    try {
      there = await input.exists(config.path);
    } catch (err) {
      return missing(err, config.path);
    }
    return passFail(there, `${config.path} ${there ? "exists" : "does not exist"} in the final workspace`);
  },
});

export const fileContains = defineScorer({
  kind: "file_contains",
  settings: z.object({
    path: FilePath,
    /** Give text (a substring) or pattern (a regex), not both. */
    text: z.string().min(1, "text to look for is empty").optional(),
    pattern: z.string().min(1, "the regex is empty").optional(),
    ignoreCase: z.boolean().default(false),
  }),
  check(config) {
    if ((config.text === undefined) === (config.pattern === undefined))
      return ["file_contains needs either text (a substring) or pattern (a regex), not both and not neither"];
    const problem = config.pattern !== undefined ? regexProblem(config.pattern, config.ignoreCase) : null;
    return problem ? [problem] : [];
  },
  async score(input, config) {
    let content: string;
    try {
      content = await input.readText(config.path);
    } catch (err) {
      return missing(err, config.path);
    }
    const { text, cut } = bounded(content);
    if (config.pattern !== undefined) {
      const passed = safeRegex(config.pattern, config.ignoreCase).test(text);
      return passFail(passed, `${config.path} ${passed ? "matches" : "does not match"} /${config.pattern}/${cutNote(cut)}`);
    }
    const passed = containsText(text, config.text!, config.ignoreCase);
    return passFail(passed, `${config.path} ${passed ? "contains" : "does not contain"} ${quote(config.text)}${cutNote(cut)}`);
  },
});
