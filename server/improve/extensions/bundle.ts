// How an extension's files become one script for the runtime-tool sandbox,
// which evaluates scripts, not modules: a small CommonJS. Each .js file is
// wrapped in a function (module, exports, require); require takes only
// relative paths inside the package ("./lib/x", ".js" and "/index.js" tried);
// .json files require as their parsed value, any other file as its text.
// Rein's harness (harness.ts) follows the files and defines run(args, rein)
// for one purpose: load, a tool's call, a hook, listing or running a test.
//
// The package and the harness share one QuickJS realm: a package can tamper
// with the harness, which can only fool its own tests, never reach the host
// (the sandbox is the boundary). The gate's results are a quality signal
// read by a person, not a security boundary.
import { HARNESS } from "./harness";
import { TEST_FILE, type ExtensionPackage } from "./package";

export type HarnessConfig =
  | { mode: "load" }
  | { mode: "tool"; tool: string }
  | { mode: "hook"; event: string }
  | { mode: "list"; file: string }
  | { mode: "test"; file: string; index: number; name: string };

/** Where each file's first line sits in the script, to point errors back into the package. */
export interface LineMap {
  spans: Array<{ file: string; first: number; lines: number }>;
}

export interface Bundle {
  source: string;
  map: LineMap;
}

const WRAPPER = "function (module, exports, require, test, assert, tools) {";

/** The package as one script; test files are left out unless `withTest` names one. */
export function bundle(pkg: ExtensionPackage, config: HarnessConfig, withTest?: string): Bundle {
  const lines: string[] = ["var __reinFiles = {"];
  const spans: LineMap["spans"] = [];
  for (const path of Object.keys(pkg.files).sort()) {
    if (TEST_FILE.test(path) && path !== withTest) continue;
    const text = pkg.files[path];
    if (!path.endsWith(".js")) {
      lines.push(`${JSON.stringify(path)}: ${JSON.stringify(text)},`);
      continue;
    }
    lines.push(`${JSON.stringify(path)}: ${WRAPPER}`);
    const body = text.split("\n");
    spans.push({ file: path, first: lines.length + 1, lines: body.length });
    lines.push(...body, "},");
  }
  lines.push("};", `var run = (${HARNESS})(__reinFiles, ${JSON.stringify(config)});`);
  return { source: lines.join("\n"), map: { spans } };
}

/** A line of the script as a file and line of the package, or null (the harness's own lines). */
export function locate(map: LineMap, line: number): { file: string; line: number } | null {
  for (const s of map.spans) if (line >= s.first && line < s.first + s.lines) return { file: s.file, line: line - s.first + 1 };
  return null;
}

/** Rewrites the sandbox's "(line N, column C)" into the package's file and line; drops positions in the harness. */
export function mapMessage(map: LineMap, message: string): string {
  return message.replace(/ \(line (\d+)(?:, column (\d+))?\)/g, (_, line: string, column?: string) => {
    const at = locate(map, Number(line));
    if (!at) return "";
    return ` (${at.file} line ${at.line}${column ? `, column ${column}` : ""})`;
  });
}

/** The first frame of a stack that is in the package, as "file line N, column C". */
export function packageFrame(map: LineMap, stack: string): string | null {
  for (const m of stack.matchAll(/tool\.js:(\d+):(\d+)/g)) {
    const at = locate(map, Number(m[1]));
    if (at) return `${at.file} line ${at.line}, column ${m[2]}`;
  }
  return null;
}
