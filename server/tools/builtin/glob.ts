import fs from "node:fs";
import path from "node:path";

/** Glob to RegExp: `**` any depth, `*` within a segment, `?` one character, `{a,b}` alternatives. */
export function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const slash = glob[i + 2] === "/";
        re += slash ? "(?:.*/)?" : ".*";
        i += slash ? 2 : 1;
      } else re += "[^/]*";
    } else if (c === "?") re += "[^/]";
    else if (c === "{") {
      const end = glob.indexOf("}", i);
      if (end < 0) re += "\\{";
      else {
        re += `(?:${glob.slice(i + 1, end).split(",").map(escape).join("|")})`;
        i = end;
      }
    } else re += escape(c);
  }
  return new RegExp(`^${re}$`);
}

function escape(s: string) {
  return s.replace(/[.+^$()|[\]\\{}*?]/g, "\\$&");
}

const SKIP = new Set([".git", "node_modules"]);

/** Relative paths (with /) of the files below dir, sorted, skipping .git and node_modules. */
export function* walkFiles(dir: string, prefix = ""): Generator<string> {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    if (SKIP.has(e.name)) continue;
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) yield* walkFiles(path.join(dir, e.name), rel);
    else if (e.isFile()) yield rel;
  }
}
