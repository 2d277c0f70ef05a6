// What any JSON input must be before a handler sees it: not nested deeper
// than people and programs need, and text that is well-formed Unicode (a lone
// surrogate cannot be stored, tokenized or shown). Checked without recursion,
// so the check itself cannot be made to overflow the stack.
export const MAX_JSON_DEPTH = 64;

/** A surrogate without its pair; the pattern has no repetition, so it runs in linear time. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function wellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** What is wrong with a parsed JSON value, in words, or null. */
export function jsonInputProblem(value: unknown, maxDepth = MAX_JSON_DEPTH): string | null {
  const stack: Array<{ v: unknown; depth: number; at: string }> = [{ v: value, depth: 0, at: "body" }];
  while (stack.length) {
    const { v, depth, at } = stack.pop()!;
    if (typeof v === "string") {
      if (!wellFormed(v)) return `${at} holds text that is not valid Unicode (a lone surrogate)`;
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (depth >= maxDepth) return `${at} is nested more than ${maxDepth} levels deep`;
    if (Array.isArray(v)) v.forEach((x, i) => stack.push({ v: x, depth: depth + 1, at: `${at}[${i}]` }));
    else
      for (const [k, x] of Object.entries(v)) {
        if (!wellFormed(k)) return `${at} has a key that is not valid Unicode (a lone surrogate)`;
        stack.push({ v: x, depth: depth + 1, at: `${at}.${k}` });
      }
  }
  return null;
}

/** decodeURIComponent that says "null" instead of throwing on malformed percent-encoding. */
export function decodePathPart(part: string): string | null {
  try {
    const decoded = decodeURIComponent(part);
    return wellFormed(decoded) ? decoded : null;
  } catch {
    return null;
  }
}
