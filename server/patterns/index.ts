// Patterns that come from outside (an agent, a model, a user, an external
// server) run in linear time (docs/security.md#patterns-run-in-linear-time):
// RE2 semantics, through re2js, so no input can freeze the event loop by
// backtracking. The price is RE2's syntax: no backreferences and no lookaround.
import { DomainError } from "@/server/errors";
import { RE2JS } from "re2js";

export interface LinearPattern {
  readonly source: string;
  /** Somewhere in the text (a JSON-schema `pattern`, a policy `pattern`). */
  test(text: string): boolean;
  /** The whole text (globs). */
  matches(text: string): boolean;
}

export class PatternError extends DomainError {
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super("INVALID_INPUT", `pattern ${JSON.stringify(pattern)} cannot be used: ${reason}`);
    this.name = "PatternError";
  }
}

/** Longest pattern accepted; RE2's own program-size limit applies as well. */
export const MAX_PATTERN_LENGTH = 2_000;

/** Compiles a pattern with RE2 semantics, or throws a PatternError saying why in a person's words. */
export function linearPattern(source: string, options: { ignoreCase?: boolean } = {}): LinearPattern {
  if (typeof source !== "string") throw new PatternError(String(source), "it is not text");
  if (source.length > MAX_PATTERN_LENGTH)
    throw new PatternError(source.slice(0, 40) + "…", `it is longer than ${MAX_PATTERN_LENGTH} characters`);
  let re: RE2JS;
  try {
    re = RE2JS.compile(source, options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (err) {
    const why = (err as Error).message.replace(/^error parsing regexp: /, "");
    throw new PatternError(source, `${why} (patterns run in linear time, with RE2 syntax: no backreferences or lookaround)`);
  }
  return {
    source,
    test: (text) => re.matcher(text).find(),
    matches: (text) => re.matches(text),
  };
}

/** Why a pattern cannot be used, or null when it can. */
export function patternProblem(source: string): string | null {
  try {
    linearPattern(source);
    return null;
  } catch (err) {
    return err instanceof PatternError ? err.reason : (err as Error).message;
  }
}

/** RE2 escapes for literal text. */
export function escapePattern(text: string): string {
  return text.replace(/[.+*?^$()|[\]{}\\]/g, "\\$&");
}

export { patternViolation, schemaPatternProblems, withoutPatterns } from "./json-schema";
