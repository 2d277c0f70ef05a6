// An extension package as an agent proposes it (docs/extensions.md): a
// manifest and its files. Everything here is the agent's and hostile: checked,
// every problem at once, before any of it is bundled or run.
import { z } from "zod";
import { RUNTIME_CAPABILITIES } from "../sandbox";
import { RUNTIME_TOOL_NAME } from "../runtime-tools/proposal";

export const EXTENSION_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
/** Semantic Versioning 2.0.0, as its specification spells it. */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
import { SKILL_NAME } from "../skills";
/** A run event type as the event log names it ("tool.result", "human.decided"). */
const EVENT_TYPE = /^[a-z]+(\.[a-z_]+)*$/;
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
/** A test file: directly under test/, named *.test.js. */
export const TEST_FILE = /^test\/[A-Za-z0-9_-][A-Za-z0-9._-]*\.test\.js$/;
export const ENTRY_FILE = "index.js";

export const MAX_FILES = 50;
export const MAX_FILE_BYTES = 64 * 1024;
export const MAX_PACKAGE_BYTES = 512 * 1024;
const MAX_PATH_CHARS = 200;

const ReplayClass = z.enum(["pure", "idempotent_with_key", "unsafe_on_replay"]);
const unique = (list: string[]) => new Set(list).size === list.length;

export const ExtensionManifest = z
  .object({
    name: z
      .string()
      .max(64, "name is at most 64 characters")
      .regex(EXTENSION_NAME, "name is lower-case letters and digits in words joined by single hyphens (csv-tools)"),
    version: z.string().max(64).regex(SEMVER, "version is a semantic version (1.0.0)"),
    description: z.string().trim().min(10, "describe what the extension adds (10 characters or more)").max(1000),
    capabilities: z
      .array(
        z.enum(RUNTIME_CAPABILITIES as unknown as [string, ...string[]], {
          error: `the only capability is ${RUNTIME_CAPABILITIES.join(", ")}`,
        }),
      )
      .max(4)
      .refine(unique, "capabilities are listed once each"),
    tools: z
      .array(z.string().regex(RUNTIME_TOOL_NAME, "a tool name is 3 to 48 lower-case letters, digits and _, starting with a letter"))
      .max(20)
      .refine(unique, "tools are listed once each")
      .optional(),
    skills: z
      .array(z.string().regex(SKILL_NAME, "a skill name is 3 to 64 lower-case letters, digits and hyphens"))
      .max(20)
      .refine(unique, "skills are listed once each")
      .optional(),
    hooks: z
      .array(z.string().max(64).regex(EVENT_TYPE, 'a hook is a run event type ("tool.result")'))
      .max(20)
      .refine(unique, "hooks are listed once each")
      .optional(),
    /** Per tool; a tool not named here is unsafe_on_replay. */
    replay: z.record(z.string(), ReplayClass).optional(),
  })
  .strict();
export type ExtensionManifest = z.infer<typeof ExtensionManifest>;

const ExtensionShape = z.object({ manifest: ExtensionManifest, files: z.record(z.string(), z.string()) }).strict();
export type ExtensionPackage = z.infer<typeof ExtensionShape>;

export class ExtensionPackageError extends Error {
  constructor(readonly problems: string[]) {
    super(`The extension package is not valid: ${problems.join("; ")}`);
    this.name = "ExtensionPackageError";
  }
}

/** What is wrong with a file path, or null: canonical, relative, forward slashes, no dot segments. */
export function pathProblem(path: string): string | null {
  const shown = JSON.stringify(path.length > 80 ? `${path.slice(0, 80)}…` : path);
  if (path.length === 0) return "a file has an empty path";
  if (path.length > MAX_PATH_CHARS) return `the path ${shown} is longer than ${MAX_PATH_CHARS} characters`;
  if (path.includes("\\")) return `the path ${shown} has a backslash; use forward slashes`;
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return `the path ${shown} is absolute; paths are relative to the package`;
  const segments = path.split("/");
  if (segments.some((s) => s === "." || s === "..")) return `the path ${shown} has a "." or ".." segment; paths are canonical`;
  if (segments.some((s) => s === "")) return `the path ${shown} has an empty segment`;
  if (!segments.every((s) => SEGMENT.test(s))) return `the path ${shown} has characters other than letters, digits, ".", "_" and "-"`;
  return null;
}

/** Problems beyond the shape: files, sizes, and the manifest against the files. */
function packageProblems(pkg: ExtensionPackage): string[] {
  const problems: string[] = [];
  const paths = Object.keys(pkg.files);
  if (paths.length > MAX_FILES) problems.push(`the package has ${paths.length} files; at most ${MAX_FILES} are allowed`);
  let total = 0;
  for (const path of paths) {
    const p = pathProblem(path);
    if (p) problems.push(p);
    const bytes = Buffer.byteLength(pkg.files[path], "utf8");
    total += bytes;
    if (bytes > MAX_FILE_BYTES)
      problems.push(`${path} is ${Math.ceil(bytes / 1024)} KiB; a file may be at most ${MAX_FILE_BYTES / 1024} KiB`);
    if (path.startsWith("test/") && path.endsWith(".js") && !TEST_FILE.test(path))
      problems.push(`${path}: tests are files directly under test/ named *.test.js`);
  }
  if (total > MAX_PACKAGE_BYTES)
    problems.push(`the package is ${Math.ceil(total / 1024)} KiB; at most ${MAX_PACKAGE_BYTES / 1024} KiB are allowed in all`);
  if (!(ENTRY_FILE in pkg.files))
    problems.push(`the package has no ${ENTRY_FILE}: it is the entry point, module.exports = { name, version, setup(api) }`);
  if (!paths.some((p) => TEST_FILE.test(p)))
    problems.push("the package has no tests: add test/<name>.test.js files (at least one test per tool)");
  for (const tool of Object.keys(pkg.manifest.replay ?? {})) {
    if (!(pkg.manifest.tools ?? []).includes(tool)) problems.push(`manifest.replay names ${tool}, which is not in manifest.tools`);
  }
  return problems;
}

function issueText(issue: z.core.$ZodIssue): string {
  const at = issue.path.length ? issue.path.map(String).join(".") : "the package";
  return `${at}: ${issue.message}`;
}

/** The package, or every problem with it, each a sentence an agent can act on. */
export function parseExtensionPackage(input: unknown): { ok: true; pkg: ExtensionPackage } | { ok: false; problems: string[] } {
  const shaped = ExtensionShape.safeParse(input);
  if (!shaped.success) {
    const problems = shaped.error.issues.map(issueText);
    // The file checks still run when only the manifest is wrong: all problems at once.
    const files = z.object({ files: z.record(z.string(), z.string()) }).safeParse(input);
    const manifestOnly = shaped.error.issues.every((i) => i.path[0] === "manifest");
    if (files.success && manifestOnly) {
      const manifest = {
        name: "",
        version: "",
        description: "",
        capabilities: [],
        ...((input as { manifest?: object }).manifest ?? {}),
      } as ExtensionManifest;
      problems.push(...packageProblems({ manifest: { ...manifest, replay: undefined }, files: files.data.files }));
    }
    return { ok: false, problems };
  }
  const problems = packageProblems(shaped.data);
  return problems.length ? { ok: false, problems } : { ok: true, pkg: shaped.data };
}

/** The package, or an ExtensionPackageError naming every problem. */
export function extensionPackage(input: unknown): ExtensionPackage {
  const parsed = parseExtensionPackage(input);
  if (!parsed.ok) throw new ExtensionPackageError(parsed.problems);
  return parsed.pkg;
}

export function testFiles(pkg: ExtensionPackage): string[] {
  return Object.keys(pkg.files)
    .filter((p) => TEST_FILE.test(p))
    .sort();
}
