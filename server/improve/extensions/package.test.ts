// The package format: every bad input gets its own clear problem, all at once.
import { describe, expect, it } from "vitest";
import { CSV_TOOLS_EXTENSION } from "./demo";
import {
  ExtensionPackageError,
  MAX_FILES,
  MAX_FILE_BYTES,
  extensionPackage,
  parseExtensionPackage,
  pathProblem,
  testFiles,
  type ExtensionPackage,
} from "./package";

const good = CSV_TOOLS_EXTENSION;

function withManifest(m: Record<string, unknown>): unknown {
  return { ...good, manifest: { ...good.manifest, ...m } };
}
function withFiles(files: Record<string, string>): unknown {
  return { ...good, files };
}
function problems(input: unknown): string[] {
  const r = parseExtensionPackage(input);
  if (r.ok) throw new Error("expected problems, the package was accepted");
  return r.problems;
}

describe("the extension package format", () => {
  it("accepts the demo package and finds its tests", () => {
    const r = parseExtensionPackage(good);
    expect(r.ok).toBe(true);
    expect(testFiles(good)).toEqual(["test/csv.test.js"]);
  });

  it.each([
    [{ name: "CSV_Tools" }, "manifest.name: name is lower-case letters and digits in words joined by single hyphens"],
    [{ name: "csv--tools" }, "manifest.name: name is lower-case"],
    [{ version: "1.0" }, "manifest.version: version is a semantic version"],
    [{ version: "01.0.0" }, "manifest.version: version is a semantic version"],
    [{ description: "short" }, "manifest.description: describe what the extension adds"],
    [{ capabilities: ["network"] }, "manifest.capabilities.0: the only capability is workspace:read"],
    [{ capabilities: ["workspace:read", "workspace:read"] }, "manifest.capabilities: capabilities are listed once each"],
    [{ tools: ["Bad Name"] }, "manifest.tools.0: a tool name is 3 to 48"],
    [{ skills: ["A"] }, "manifest.skills.0: a skill name is"],
    [{ hooks: ["Tool Result"] }, 'manifest.hooks.0: a hook is a run event type ("tool.result")'],
    [{ replay: { csv_column_sum: "always" } }, "manifest.replay.csv_column_sum:"],
    [{ extra: 1 }, "manifest: Unrecognized key"],
  ])("refuses the manifest %j", (m, expected) => {
    expect(problems(withManifest(m)).join("\n")).toContain(expected);
  });

  it("refuses a replay class for a tool the manifest does not list", () => {
    expect(problems(withManifest({ replay: { other_tool: "pure" } }))).toEqual([
      "manifest.replay names other_tool, which is not in manifest.tools",
    ]);
  });

  it("requires index.js and at least one test file", () => {
    expect(problems(withFiles({ "lib/a.js": "" }))).toEqual([
      "the package has no index.js: it is the entry point, module.exports = { name, version, setup(api) }",
      "the package has no tests: add test/<name>.test.js files (at least one test per tool)",
    ]);
  });

  it.each([
    ["../index.js", 'the path "../index.js" has a "." or ".." segment'],
    ["lib/../../x.js", 'has a "." or ".." segment'],
    ["./index2.js", 'has a "." or ".." segment'],
    ["/etc/passwd", 'the path "/etc/passwd" is absolute'],
    ["C:/x.js", "is absolute"],
    ["lib\\x.js", "has a backslash"],
    ["lib//x.js", "has an empty segment"],
    ["lib/x.js/", "has an empty segment"],
    ["lib/x y.js", "has characters other than"],
    ["", "a file has an empty path"],
  ])("refuses the path %j", (path, expected) => {
    expect(pathProblem(path)).toContain(expected);
    expect(problems(withFiles({ ...good.files, [path]: "x" })).join("\n")).toContain(expected);
  });

  it("refuses a test file nested under test/ or misnamed", () => {
    expect(problems(withFiles({ ...good.files, "test/deep/a.test.js": "" }))).toEqual([
      "test/deep/a.test.js: tests are files directly under test/ named *.test.js",
    ]);
    expect(problems(withFiles({ ...good.files, "test/helpers.js": "" }))).toEqual([
      "test/helpers.js: tests are files directly under test/ named *.test.js",
    ]);
  });

  it("holds the limits on file count, file size and total size", () => {
    const many: Record<string, string> = { ...good.files };
    for (let i = 0; i < MAX_FILES; i++) many[`lib/f${i}.js`] = "";
    expect(problems(withFiles(many))).toEqual([`the package has ${MAX_FILES + 4} files; at most ${MAX_FILES} are allowed`]);
    expect(problems(withFiles({ ...good.files, "lib/big.js": "x".repeat(MAX_FILE_BYTES + 1) }))).toEqual([
      "lib/big.js is 65 KiB; a file may be at most 64 KiB",
    ]);
    const total: Record<string, string> = { ...good.files };
    for (let i = 0; i < 9; i++) total[`lib/part${i}.js`] = "y".repeat(60 * 1024);
    expect(problems(withFiles(total))).toEqual([expect.stringMatching(/^the package is 5\d\d KiB; at most 512 KiB are allowed in all$/)]);
  });

  it("names every problem at once, manifest and files together", () => {
    const input = { manifest: { ...good.manifest, name: "Bad", version: "x" }, files: { "../a.js": "", "test/x.js": "" } };
    const found = problems(input);
    expect(found).toHaveLength(6);
    expect(found.join("\n")).toMatch(
      /manifest\.name[\s\S]*manifest\.version[\s\S]*"\.\.\/a\.js"[\s\S]*test\/x\.js: tests are[\s\S]*no index\.js[\s\S]*no tests/,
    );
    expect(() => extensionPackage(input)).toThrow(ExtensionPackageError);
  });

  it("refuses what is not a package at all, and files that are not text", () => {
    expect(problems(null)).toEqual(["the package: Invalid input: expected object, received null"]);
    expect(problems({ manifest: good.manifest, files: { "index.js": 42 } })).toEqual([
      "files.index.js: Invalid input: expected string, received number",
    ]);
    expect(problems({ manifest: good.manifest })).toEqual(["files: Invalid input: expected record, received undefined"]);
  });

  it("keeps the demo package frozen, so tests cannot change it for each other", () => {
    const pkg: ExtensionPackage = good;
    expect([pkg, pkg.manifest, pkg.manifest.tools, pkg.files].every(Object.isFrozen)).toBe(true);
  });
});
