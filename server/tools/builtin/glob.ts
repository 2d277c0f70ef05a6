// Globs for list_files, matched in linear time: the glob becomes an RE2
// pattern (server/patterns), so no glob an agent writes can make matching
// backtrack (nine "**" froze the server for seconds with a JavaScript regex).
import { escapePattern, linearPattern, type LinearPattern } from "@/server/patterns";
import { ToolError } from "../types";

/** The longest glob accepted. */
const MAX_GLOB_LENGTH = 1_000;

/** Glob to a whole-path matcher: `**` any depth, `*` within a segment, `?` one character, `{a,b}` alternatives. */
export function globToRegExp(glob: string): { source: string; test(path: string): boolean } {
  if (glob.length > MAX_GLOB_LENGTH) throw new ToolError("BAD_PATTERN", `The glob is longer than ${MAX_GLOB_LENGTH} characters`);
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*") {
      let j = i;
      while (glob[j + 1] === "*") j++;
      if (j > i) {
        // Any run of stars with two or more is one "**".
        const slash = glob[j + 1] === "/";
        re += slash ? "(?:.*/)?" : ".*";
        i = slash ? j + 1 : j;
      } else re += "[^/]*";
    } else if (c === "?") re += "[^/]";
    else if (c === "{") {
      const end = glob.indexOf("}", i);
      if (end < 0) re += "\\{";
      else {
        re += `(?:${glob
          .slice(i + 1, end)
          .split(",")
          .map(escapePattern)
          .join("|")})`;
        i = end;
      }
    } else re += escapePattern(c);
  }
  let compiled: LinearPattern;
  try {
    compiled = linearPattern(re);
  } catch (err) {
    throw new ToolError("BAD_PATTERN", `The glob ${JSON.stringify(glob)} cannot be used: ${(err as Error).message}`);
  }
  return { source: re, test: (p) => compiled.matches(p) };
}
