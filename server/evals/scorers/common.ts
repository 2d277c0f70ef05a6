// Pieces several scorers share: safe patterns, text matching, short quotes.
import { linearPattern, PatternError, type LinearPattern } from "@/server/patterns";

/** Texts longer than this are matched on their first part only (patterns run in linear time; this bounds the time). */
export const MAX_MATCHED_CHARS = 1_000_000;

/** Why a user-given regex cannot be used, in a person's words; null when Rein can run it. */
export function regexProblem(source: string, ignoreCase = false): string | null {
  try {
    linearPattern(source, { ignoreCase });
    return null;
  } catch (err) {
    const why = err instanceof PatternError ? err.reason : (err as Error).message;
    return `the regex ${quote(source, 60)} is not one Rein can run in linear time: ${why}`;
  }
}

/** Compiles a regex already checked by regexProblem (RE2 semantics, never `new RegExp`). */
export function safeRegex(source: string, ignoreCase = false): LinearPattern {
  return linearPattern(source, { ignoreCase });
}

/** The part of a text that is matched, and whether it was cut. */
export function bounded(text: string): { text: string; cut: boolean } {
  return text.length > MAX_MATCHED_CHARS ? { text: text.slice(0, MAX_MATCHED_CHARS), cut: true } : { text, cut: false };
}

export const cutNote = (cut: boolean) =>
  cut ? ` (only its first ${MAX_MATCHED_CHARS.toLocaleString("en")} characters were searched)` : "";

export function containsText(haystack: string, needle: string, ignoreCase: boolean): boolean {
  return ignoreCase ? haystack.toLowerCase().includes(needle.toLowerCase()) : haystack.includes(needle);
}

/** A value quoted for a detail line, cut when long. */
export function quote(value: unknown, max = 80): string {
  const text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
