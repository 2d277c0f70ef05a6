// Paths a change request may not touch (docs/changes.md): Rein's own gates and
// telemetry stay out of any agent's reach, whatever the repository. Globs run
// in linear time (server/patterns); paths are the agent's, so they are
// normalised before they are matched and anything odd is refused.
import { DomainError } from "@/server/errors";
import { linearPattern, type LinearPattern } from "@/server/patterns";

/** For Rein's own repository: policy, people, secrets, human requests, evals, self-improvement and CI. */
export const DEFAULT_PROTECTED_PATHS: readonly string[] = [
  "server/policy/**",
  "server/hitl/**",
  "server/identity/**",
  "server/secrets/**",
  "server/evals/**",
  "server/improve/**",
  "server/audit/**",
  "server/telemetry/**",
  "test/attack/**",
  ".ci/**",
  ".git/**",
  ".github/**",
];

const MAX_GLOBS = 200;
const MAX_GLOB_LENGTH = 300;

export class ProtectedPathError extends DomainError {
  constructor(
    readonly paths: string[],
    message: string,
  ) {
    super("INVALID_INPUT", message);
    this.name = "ProtectedPathError";
  }
}

/** A path as git shows it, made canonical; null when it is not a plain path inside the repository. */
export function canonicalPath(path: string): string | null {
  if (typeof path !== "string" || path.length === 0 || path.length > 4096 || path.includes("\0")) return null;
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return null;
  const parts: string[] = [];
  for (const part of path.replace(/\\/g, "/").split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") return null;
    parts.push(part);
  }
  return parts.length ? parts.join("/") : null;
}

function globSource(glob: string): string {
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
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return re;
}

/**
 * The folders a glob's paths sit in, up to its first `**`: a change putting a
 * file or a symlink there (`.ci` -> a folder of the agent's) would put
 * what is under it at the protected paths without naming any of them.
 */
function ancestorGlobs(glob: string): string[] {
  const parts = glob.split("/");
  const out: string[] = [];
  for (let k = 1; k < parts.length; k++) {
    if (parts[k - 1].includes("**")) break;
    out.push(parts.slice(0, k).join("/"));
  }
  return out;
}

export class ProtectedPaths {
  private readonly patterns: Array<{ glob: string; pattern: LinearPattern }>;

  constructor(globs: readonly string[]) {
    if (globs.length > MAX_GLOBS) throw new ProtectedPathError([], `at most ${MAX_GLOBS} protected paths`);
    this.patterns = globs.flatMap((glob) => {
      const g = glob.trim().replace(/\/$/, "/**");
      if (!g || g.length > MAX_GLOB_LENGTH)
        throw new ProtectedPathError(
          [glob],
          `the protected path ${JSON.stringify(glob.slice(0, 40))} is empty or longer than ${MAX_GLOB_LENGTH} characters`,
        );
      return [g, ...ancestorGlobs(g)].map((source) => ({ glob: g, pattern: linearPattern(globSource(source)) }));
    });
  }

  /** The glob protecting this path, or null. A path that is not a plain path inside the repository is protected by "(invalid path)". */
  match(path: string): string | null {
    const canonical = canonicalPath(path);
    if (canonical === null) return "(invalid path)";
    // git compares paths byte for byte, but a case-insensitive checkout would not: match both ways.
    const lower = canonical.toLowerCase();
    for (const { glob, pattern } of this.patterns) if (pattern.matches(canonical) || pattern.matches(lower)) return glob;
    return null;
  }

  /** Refuses a change touching any protected path, naming each. */
  check(paths: readonly string[]): void {
    const hits = paths.flatMap((p) => {
      const glob = this.match(p);
      return glob ? [`${p} (${glob})`] : [];
    });
    if (hits.length)
      throw new ProtectedPathError(
        hits,
        `The change touches protected paths: ${hits.slice(0, 20).join(", ")}${hits.length > 20 ? ` and ${hits.length - 20} more` : ""}`,
      );
  }
}
