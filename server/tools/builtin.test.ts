// The built-in tools (docs/terminal-and-files.md#the-file-tools) over a real
// temporary workspace (a git repository made by Workspace.ensure()), called
// through the ToolRunner so argument validation is part of what is tested.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { processGone, waitFor } from "@/test/helpers/wait";
import {
  BUILTIN_TOOLS,
  MemoryReplayCache,
  type ToolError,
  ToolRegistry,
  ToolRunner,
  Workspace,
  globToRegExp,
  type ToolOutcome,
} from "./index";
import { runRipgrep } from "./builtin/ripgrep";

let base: string; // holds the workspace and an "outside" directory next to it
let ws: Workspace;
let outside: string;
let n = 0;

const runner = new ToolRunner(new ToolRegistry(BUILTIN_TOOLS), new MemoryReplayCache());
const ALL_TOOLS = BUILTIN_TOOLS.map((t) => t.name);

/** Runs a built-in tool as an agent would; every call is a new call (no cache hits). */
async function call(
  toolName: string,
  args: unknown,
  opts: { signal?: AbortSignal; handoffs?: string[]; agent?: string } = {},
): Promise<ToolOutcome> {
  const result = await runner.run(
    { toolCallId: `call_${n}`, toolName, args },
    { runId: "run-builtin", nodeId: `node-${n++}`, checkpointId: "cp" },
    {
      runId: "run-builtin",
      workspace: ws,
      agent: { name: opts.agent ?? "tester", handoffs: opts.handoffs ?? [] },
      actorId: "user-test",
      signal: opts.signal ?? new AbortController().signal,
    },
    ALL_TOOLS,
  );
  return result.outcome;
}

async function ok<T = Record<string, any>>(toolName: string, args: unknown, opts?: Parameters<typeof call>[2]): Promise<T> {
  const outcome = await call(toolName, args, opts);
  if (!outcome.ok) throw new Error(`${toolName} failed: ${outcome.error.code} ${outcome.error.message}`);
  return outcome.output as T;
}

async function fails(toolName: string, args: unknown, opts?: Parameters<typeof call>[2]) {
  const outcome = await call(toolName, args, opts);
  if (outcome.ok) throw new Error(`${toolName} should have failed, but returned ${JSON.stringify(outcome.output)}`);
  return outcome.error;
}

const file = (rel: string) => path.join(ws.root, rel);
const write = (rel: string, content: string) => {
  fs.mkdirSync(path.dirname(file(rel)), { recursive: true });
  fs.writeFileSync(file(rel), content);
};

beforeEach(async () => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "rein-test-tools-")));
  ws = new Workspace(path.join(base, "ws"));
  await ws.ensure();
  outside = path.join(base, "outside");
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, "secret.txt"), "outside secret\n");
});
afterEach(() => {
  // A test that failed may have left its background sleep behind.
  const pidFile = path.join(ws.root, "bg.pid");
  if (fs.existsSync(pidFile)) {
    try {
      process.kill(Number(fs.readFileSync(pidFile, "utf8")), "SIGKILL");
    } catch {
      /* already gone */
    }
  }
  fs.rmSync(base, { recursive: true, force: true });
});

describe("Workspace", () => {
  it("ensure() makes a git repository with a first commit, once", async () => {
    expect(fs.existsSync(path.join(ws.root, ".git"))).toBe(true);
    const log = () => execFileSync("git", ["log", "--format=%s"], { cwd: ws.root, encoding: "utf8" }).trim().split("\n");
    expect(log()).toEqual(["Workspace created by Rein"]);
    await ws.ensure();
    expect(log()).toEqual(["Workspace created by Rein"]);
  });
});

describe("read_file", () => {
  beforeEach(() => write("notes.txt", "one\ntwo\nthree\nfour\nfive\n"));

  it("reads a whole file", async () => {
    const out = await ok("read_file", { path: "notes.txt" });
    expect(out.content).toBe("one\ntwo\nthree\nfour\nfive\n");
    expect(out.startLine).toBe(1);
  });

  it("reads a line range, 1-based and inclusive", async () => {
    expect(await ok("read_file", { path: "notes.txt", startLine: 2, endLine: 3 })).toMatchObject({
      content: "two\nthree",
      startLine: 2,
      endLine: 3,
    });
    expect((await ok("read_file", { path: "notes.txt", startLine: 4 })).content).toBe("four\nfive\n");
    expect((await ok("read_file", { path: "notes.txt", endLine: 1 })).content).toBe("one");
    expect((await ok("read_file", { path: "notes.txt", startLine: 5, endLine: 5 })).content).toBe("five");
    expect((await ok("read_file", { path: "notes.txt", startLine: 3, endLine: 99 })).content).toBe("three\nfour\nfive\n");
  });

  it("counts the lines of a file that ends with a newline as an editor does", async () => {
    expect((await ok("read_file", { path: "notes.txt" })).totalLines).toBe(5);
    write("no-newline.txt", "a\nb");
    expect((await ok("read_file", { path: "no-newline.txt" })).totalLines).toBe(2);
  });

  it("refuses a range that ends before it starts, a missing file and a directory", async () => {
    const range = await fails("read_file", { path: "notes.txt", startLine: 3, endLine: 2 });
    expect(range.code).toBe("INVALID_ARGUMENTS");
    expect(range.message).toContain("endLine is before startLine");
    expect(await fails("read_file", { path: "nope.txt" })).toEqual({ code: "NOT_FOUND", message: "No such file: nope.txt" });
    fs.mkdirSync(file("dir"));
    expect((await fails("read_file", { path: "dir" })).code).toBe("NOT_A_FILE");
    expect((await fails("read_file", { path: "notes.txt", startLine: 0 })).code).toBe("INVALID_ARGUMENTS");
    expect((await fails("read_file", {})).message).toContain("path");
  });
  describe("a file over 2 MB", () => {
    // 60,000 lines of 51 bytes: about 3 MB, lines crossing every read chunk's edge.
    const line = (i: number) => `line ${String(i).padStart(6, "0")} ${"x".repeat(38)}`;
    const big = Array.from({ length: 60_000 }, (_, i) => line(i + 1)).join("\n");
    beforeEach(() => write("big.log", `${big}\n`));

    it("reads a line range without the whole file, counting lines as for a small one", async () => {
      const out = await ok("read_file", { path: "big.log", startLine: 50_000, endLine: 50_002 });
      expect(out).toMatchObject({
        startLine: 50_000,
        endLine: 50_002,
        totalLines: 60_000,
        content: [line(50_000), line(50_001), line(50_002)].join("\n"),
      });
      expect((await ok("read_file", { path: "big.log", startLine: 59_999 })).content).toBe(`${line(59_999)}\n${line(60_000)}\n`);
      expect((await ok("read_file", { path: "big.log", startLine: 1, endLine: 1 })).content).toBe(line(1));
      write("big-no-newline.log", big);
      expect(await ok("read_file", { path: "big-no-newline.log", startLine: 60_000, endLine: 60_005 })).toMatchObject({
        content: line(60_000),
        endLine: 60_000,
        totalLines: 60_000,
      });
    });

    it("without a range, or with one too large to return, says what to do instead", async () => {
      const whole = await fails("read_file", { path: "big.log" });
      expect(whole.code).toBe("TOO_LARGE");
      expect(whole.message).toMatch(/big\.log is \d+ bytes.*startLine and endLine.*search/);
      const wide = await fails("read_file", { path: "big.log", startLine: 1, endLine: 59_000 });
      expect(wide.code).toBe("TOO_LARGE");
      expect(wide.message).toMatch(/lines 1-59000 of big\.log are more than .*; read fewer lines/i);
      const past = await fails("read_file", { path: "big.log", startLine: 70_000 });
      expect(past).toMatchObject({ code: "OUT_OF_RANGE", message: "big.log has 60000 lines; startLine 70000 is past the end" });
    });
  });
});

describe("write_file", () => {
  it("creates the folders it needs", async () => {
    expect(await ok("write_file", { path: "a/b/c/deep.txt", content: "deep ✓\n" })).toEqual({
      path: "a/b/c/deep.txt",
      bytes: Buffer.byteLength("deep ✓\n"),
    });
    expect(fs.readFileSync(file("a/b/c/deep.txt"), "utf8")).toBe("deep ✓\n");
  });

  it("replaces a file atomically: by rename, leaving no temporary file", async () => {
    write("f.txt", "old content\n");
    const before = fs.statSync(file("f.txt")).ino;
    const fd = fs.openSync(file("f.txt"), "r"); // a reader that has the old file open
    try {
      await ok("write_file", { path: "f.txt", content: "new content\n" });
      expect(fs.readFileSync(file("f.txt"), "utf8")).toBe("new content\n");
      expect(fs.statSync(file("f.txt")).ino).not.toBe(before); // a new file was renamed into place
      const buf = Buffer.alloc(100);
      const read = fs.readSync(fd, buf, 0, 100, 0);
      expect(buf.subarray(0, read).toString()).toBe("old content\n"); // the reader saw a whole file, never half
    } finally {
      fs.closeSync(fd);
    }
    expect(
      fs
        .readdirSync(ws.root)
        .filter((f) => f !== ".git")
        .sort(),
    ).toEqual(["f.txt"]);
  });

  it("writes an empty file, and refuses to write over a directory", async () => {
    await ok("write_file", { path: "empty.txt", content: "" });
    expect(fs.readFileSync(file("empty.txt"), "utf8")).toBe("");
    fs.mkdirSync(file("d"));
    expect((await fails("write_file", { path: "d", content: "x" })).code).toBe("IS_DIRECTORY");
    expect(fs.statSync(file("d")).isDirectory()).toBe(true);
    expect((await fails("write_file", { path: "x.txt" })).message).toContain("content");
  });
});

describe("edit_file", () => {
  beforeEach(() => write("code.js", "let a = 1;\nlet b = 1;\nconsole.log(a);\n"));

  it("replaces a unique match", async () => {
    expect(await ok("edit_file", { path: "code.js", oldString: "let b = 1;", newString: "let b = 2;" })).toEqual({
      path: "code.js",
      replacements: 1,
    });
    expect(fs.readFileSync(file("code.js"), "utf8")).toBe("let a = 1;\nlet b = 2;\nconsole.log(a);\n");
  });

  it("takes the new string literally ($& and $1 are not patterns)", async () => {
    await ok("edit_file", { path: "code.js", oldString: "console.log(a);", newString: "console.log('$&', '$1');" });
    expect(fs.readFileSync(file("code.js"), "utf8")).toContain("console.log('$&', '$1');");
  });

  it("refuses no match and an ambiguous match, leaving the file as it was", async () => {
    const original = fs.readFileSync(file("code.js"), "utf8");
    expect(await fails("edit_file", { path: "code.js", oldString: "let c", newString: "x" })).toEqual({
      code: "NO_MATCH",
      message: "oldString does not occur in code.js",
    });
    const ambiguous = await fails("edit_file", { path: "code.js", oldString: " = 1;", newString: " = 3;" });
    expect(ambiguous.code).toBe("AMBIGUOUS");
    expect(ambiguous.message).toContain("occurs 2 times");
    expect(ambiguous.message).toContain("replaceAll");
    expect(fs.readFileSync(file("code.js"), "utf8")).toBe(original);
    expect((await fails("edit_file", { path: "missing.js", oldString: "a", newString: "b" })).code).toBe("NOT_FOUND");
    expect((await fails("edit_file", { path: "code.js", oldString: "", newString: "b" })).code).toBe("INVALID_ARGUMENTS");
  });

  it("replaces every match with replaceAll", async () => {
    expect(await ok("edit_file", { path: "code.js", oldString: " = 1;", newString: " = 3;", replaceAll: true })).toEqual({
      path: "code.js",
      replacements: 2,
    });
    expect(fs.readFileSync(file("code.js"), "utf8")).toBe("let a = 3;\nlet b = 3;\nconsole.log(a);\n");
  });
});

describe("list_files", () => {
  beforeEach(() => {
    write("src/a.mjs", "");
    write("src/lib/b.mjs", "");
    write("src/lib/deep/c.mjs", "");
    write("src/d.js", "");
    write("test/e.mjs", "");
    write("README.md", "");
    write("node_modules/pkg/index.mjs", "");
  });

  it("lists the files matching a glob, skipping .git", async () => {
    expect(await ok("list_files", { pattern: "src/**/*.mjs" })).toEqual({
      files: ["src/a.mjs", "src/lib/b.mjs", "src/lib/deep/c.mjs"],
      truncated: false,
    });
    const all = (await ok<{ files: string[] }>("list_files", {})).files;
    expect(all).toEqual(["README.md", "src/a.mjs", "src/d.js", "src/lib/b.mjs", "src/lib/deep/c.mjs", "test/e.mjs"]);
    expect(all.some((f) => f.startsWith(".git/") || f.startsWith("node_modules/"))).toBe(false);
    expect((await ok("list_files", { pattern: "*.md" })).files).toEqual(["README.md"]);
    expect((await ok("list_files", { pattern: "**/*.{js,md}" })).files).toEqual(["README.md", "src/d.js"]);
  });

  it("lists below a directory, relative to it", async () => {
    expect((await ok("list_files", { path: "src/lib" })).files).toEqual(["b.mjs", "deep/c.mjs"]);
  });

  it("turns globs into anchored expressions", () => {
    const re = globToRegExp("src/**/*.mjs");
    expect(re.test("src/a.mjs")).toBe(true);
    expect(re.test("src/x/y/z.mjs")).toBe(true);
    expect(re.test("lib/src/a.mjs")).toBe(false);
    expect(re.test("src/a.mjs.bak")).toBe(false);
    expect(globToRegExp("?.txt").test("a.txt")).toBe(true);
    expect(globToRegExp("?.txt").test("ab.txt")).toBe(false);
    expect(globToRegExp("*.txt").test("a/b.txt")).toBe(false);
    expect(globToRegExp("a+b(1).txt").test("a+b(1).txt")).toBe(true);
  });
});

describe("search", () => {
  beforeEach(() => {
    write("src/a.js", "const answer = 42;\n// TODO: more\n");
    write("src/b.md", "todo list\nnothing\n");
    write(".git/should-not-be-searched", "TODO\n");
  });

  it("finds matching lines with their paths and line numbers", async () => {
    expect(await ok("search", { pattern: "TODO" })).toEqual({
      matches: [{ path: "src/a.js", line: 2, text: "// TODO: more" }],
      truncated: false,
    });
    expect((await ok("search", { pattern: "todo", ignoreCase: true })).matches.map((m: { path: string }) => m.path)).toEqual([
      "src/a.js",
      "src/b.md",
    ]);
    expect((await ok("search", { pattern: "todo", ignoreCase: true, glob: "**/*.md" })).matches).toEqual([
      { path: "src/b.md", line: 1, text: "todo list" },
    ]);
    expect((await ok("search", { pattern: "\\d+" })).matches).toEqual([{ path: "src/a.js", line: 1, text: "const answer = 42;" }]);
    expect((await ok("search", { pattern: "nomatchanywhere" })).matches).toEqual([]);
  });

  it("refuses a bad regular expression with a clear error", async () => {
    const err = await fails("search", { pattern: "(unclosed" });
    expect(err.code).toBe("BAD_PATTERN");
    expect(err.message).toMatch(/^Invalid regular expression/);
    expect(err.message).toContain("unclosed group");
  });

  it("takes regular expressions: classes, alternation, anchors, word boundaries", async () => {
    write("src/c.ts", "export function fooBar() {}\nconst x = foo_bar;\nfunction bar() {}\n");
    const lines = async (pattern: string) =>
      (await ok<{ matches: Array<{ path: string; line: number }> }>("search", { pattern, glob: "*.ts" })).matches.map((m) => m.line);
    expect(await lines("^function\\s+\\w+")).toEqual([3]);
    expect(await lines("foo(Bar|_bar)")).toEqual([1, 2]);
    expect(await lines("\\bbar\\(")).toEqual([3]);
    expect(await lines("[A-Z]ar")).toEqual([1]);
  });

  it("filters files with a glob and limits the search to a path, keeping paths relative to the workspace", async () => {
    write("src/lib/deep.ts", "TODO deep\n");
    write("docs/notes.md", "TODO docs\n");
    write(".hidden/conf.ts", "TODO hidden\n");
    const paths = async (args: Record<string, unknown>) =>
      (await ok<{ matches: Array<{ path: string }> }>("search", { pattern: "TODO", ...args })).matches.map((m) => m.path);
    expect(await paths({})).toEqual([".hidden/conf.ts", "docs/notes.md", "src/a.js", "src/lib/deep.ts"]);
    expect(await paths({ glob: "**/*.ts" })).toEqual([".hidden/conf.ts", "src/lib/deep.ts"]);
    expect(await paths({ glob: "src/**" })).toEqual(["src/a.js", "src/lib/deep.ts"]);
    expect(await paths({ glob: "*.{md,js}" })).toEqual(["docs/notes.md", "src/a.js"]);
    expect(await paths({ path: "src" })).toEqual(["src/a.js", "src/lib/deep.ts"]);
    expect(await paths({ path: "src/lib/../lib" })).toEqual(["src/lib/deep.ts"]);
    expect(await paths({ path: "docs/notes.md" })).toEqual(["docs/notes.md"]);
    expect(await paths({ path: `${ws.root}/docs` })).toEqual(["docs/notes.md"]);
    expect(await paths({ path: "src", glob: "**/*.md" })).toEqual([]);
  });

  it("never searches .git, .rein or node_modules, even when a glob names them", async () => {
    write(".rein/outputs/call-1.txt", "TODO saved output\n");
    write("node_modules/pkg/index.js", "TODO in a package\n");
    write("sub/.git/config", "TODO nested git\n");
    for (const glob of [undefined, "**", ".git/**", ".rein/**", "**/*.txt"]) {
      const found = (await ok<{ matches: Array<{ path: string }> }>("search", { pattern: "TODO", ...(glob ? { glob } : {}) })).matches.map(
        (m) => m.path,
      );
      expect(
        found.filter((p) => /(^|\/)(\.git|\.rein|node_modules)\//.test(p)),
        `glob ${glob}`,
      ).toEqual([]);
    }
    for (const p of [".git", ".rein/outputs", "node_modules/pkg", "./.git/"]) {
      const err = await fails("search", { pattern: "TODO", path: p });
      expect(err.code, p).toBe("EXCLUDED_PATH");
      expect(err.message).toContain(p);
    }
  });

  it("skips files the workspace's .gitignore excludes", async () => {
    write(".gitignore", "build/\n");
    write("build/out.js", "TODO generated\n");
    expect((await ok("search", { pattern: "TODO" })).matches.map((m: { path: string }) => m.path)).toEqual(["src/a.js"]);
  });

  it("skips binary files, also when the binary part comes after a match", async () => {
    fs.writeFileSync(file("image.bin"), Buffer.concat([Buffer.from("TODO in a binary\n"), Buffer.from([0, 1, 2, 0])]));
    fs.writeFileSync(
      file("late.bin"),
      Buffer.concat([Buffer.from("TODO early\n"), Buffer.alloc(200_000, "a"), Buffer.from("\n\0TODO late\n")]),
    );
    expect((await ok("search", { pattern: "TODO" })).matches).toEqual([{ path: "src/a.js", line: 2, text: "// TODO: more" }]);
    expect((await ok("search", { pattern: "TODO", path: "image.bin" })).matches).toEqual([]);
  });

  it("caps the number of matches and the length of a line", async () => {
    write("many.txt", Array.from({ length: 500 }, (_, i) => `hit ${i + 1}`).join("\n") + "\n");
    const many = await ok<{ matches: Array<{ line: number }>; truncated: boolean }>("search", { pattern: "^hit", path: "many.txt" });
    expect(many.truncated).toBe(true);
    expect(many.matches).toHaveLength(200);
    expect(many.matches.map((m) => m.line)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    // Exactly as many as the cap is not truncated.
    write("exact.txt", Array.from({ length: 200 }, () => "exact").join("\n") + "\n");
    expect(await ok("search", { pattern: "exact", path: "exact.txt" })).toMatchObject({ truncated: false, matches: expect.any(Array) });
    expect((await ok("search", { pattern: "exact", path: "exact.txt" })).matches).toHaveLength(200);

    write("long.txt", `${"x".repeat(10_000)} needle\n`);
    const [long] = (await ok<{ matches: Array<{ text: string }> }>("search", { pattern: "needle" })).matches;
    expect(long.text).toBe("x".repeat(400));
  });

  it("refuses a path that does not exist", async () => {
    expect(await fails("search", { pattern: "x", path: "nope" })).toEqual({
      code: "NOT_FOUND",
      message: "No such file or directory: nope",
    });
  });

  describe("without ripgrep", () => {
    it("says that ripgrep is missing instead of searching some other way", async () => {
      // The sandbox's system has no program of this name, as a machine without ripgrep has no rg.
      const err = await runRipgrep({
        spawn: (argv) => ws.spawn(["rg-is-not-installed", ...argv.slice(1)], { stdio: ["ignore", "pipe", "pipe"] }),
        pattern: "TODO",
        ignoreCase: false,
        maxMatches: 10,
        maxLineChars: 100,
        maxFileBytes: 1000,
      }).then(
        () => null,
        (e: ToolError) => e,
      );
      expect(err?.code).toBe("RIPGREP_MISSING");
      expect(err?.message).toMatch(/ripgrep \(rg\).*not installed/);
    });
  });
});

describe("paths outside the workspace", () => {
  const escapes = ["../x", "/etc/passwd", "escape/secret.txt", "escape-file"];

  beforeEach(() => {
    fs.symlinkSync(outside, file("escape"));
    fs.symlinkSync(path.join(outside, "secret.txt"), file("escape-file"));
  });

  const cases = (p: string) =>
    [
      ["read_file", { path: p }],
      ["write_file", { path: p, content: "overwritten" }],
      ["edit_file", { path: p, oldString: "secret", newString: "changed" }],
      ["list_files", { path: p }],
      ["search", { pattern: "secret", path: p }],
    ] as const;

  it.each(escapes)("every path tool refuses %j with OUTSIDE_WORKSPACE and changes nothing outside", async (p) => {
    const before = fs.readdirSync(base).sort();
    for (const [tool, args] of cases(p)) {
      const err = await fails(tool, args);
      expect(err.code, `${tool} ${p}`).toBe("OUTSIDE_WORKSPACE");
      expect(err.message).toContain(p);
    }
    expect(fs.readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("outside secret\n");
    expect(fs.readdirSync(outside)).toEqual(["secret.txt"]);
    expect(fs.readdirSync(base).sort()).toEqual(before);
  });

  it("refuses a new file below a symlinked directory that leads outside", async () => {
    expect((await fails("write_file", { path: "escape/new.txt", content: "x" })).code).toBe("OUTSIDE_WORKSPACE");
    expect(fs.existsSync(path.join(outside, "new.txt"))).toBe(false);
  });

  it("does not follow symlinks out while walking", async () => {
    write("inside.txt", "secret inside\n");
    expect((await ok("list_files", {})).files).toEqual(["inside.txt"]);
    expect((await ok("search", { pattern: "secret" })).matches).toEqual([{ path: "inside.txt", line: 1, text: "secret inside" }]);
  });

  it("allows paths that only look odd but stay inside", async () => {
    write("a/b.txt", "ok\n");
    expect((await ok("read_file", { path: "a/../a/./b.txt" })).content).toBe("ok\n");
    expect((await ok("read_file", { path: `${ws.root}/a/b.txt` })).content).toBe("ok\n");
  });
});

describe("shell", () => {
  it("returns the exit code and the combined output", async () => {
    expect(await ok("shell", { command: "echo hello" })).toMatchObject({ exitCode: 0, output: "hello\n" });
    const out = await ok("shell", { command: "echo to-out; echo to-err >&2" });
    expect(out.output).toContain("to-out");
    expect(out.output).toContain("to-err");
  });

  it("runs in the workspace", async () => {
    write("here.txt", "x");
    expect((await ok("shell", { command: "pwd && ls" })).output).toBe(`${ws.root}\nhere.txt\n`);
  });

  it("treats a non-zero exit as a result (ok: true) with that exit code", async () => {
    const outcome = await call("shell", { command: "echo failing; exit 3" });
    expect(outcome).toEqual({ ok: true, output: { exitCode: 3, output: "failing\n" } });
  });

  it("kills the whole process group when timeoutSec runs out", async () => {
    const err = await fails("shell", { command: "sleep 30 >/dev/null 2>&1 & echo $! > bg.pid; wait", timeoutSec: 1 });
    expect(err.code).toBe("TIMEOUT");
    expect(err.message).toContain("1 s");
    const pid = Number(fs.readFileSync(file("bg.pid"), "utf8"));
    expect(pid).toBeGreaterThan(0);
    await waitFor(() => processGone(pid), `background sleep ${pid} to be killed`, { limitMs: 5_000 });
  });

  it("kills the command when the signal is aborted", async () => {
    const controller = new AbortController();
    const pending = call(
      "shell",
      { command: "sleep 30 >/dev/null 2>&1 & echo $! > bg.pid; wait; echo finished > done.txt", timeoutSec: 60 },
      { signal: controller.signal },
    );
    const pid = await waitFor(() => {
      const text = fs.existsSync(file("bg.pid")) ? fs.readFileSync(file("bg.pid"), "utf8").trim() : "";
      return text ? Number(text) : 0;
    }, "the command to start");
    controller.abort(new Error("canceled"));
    const outcome = await pending;
    expect(outcome).toMatchObject({ ok: false, error: { code: "ABORTED" } });
    await waitFor(() => processGone(pid), `sleep ${pid} to be killed`, { limitMs: 5_000 });
    expect(fs.existsSync(file("done.txt"))).toBe(false);
  });

  it("does not start a command when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("canceled"));
    const outcome = await call("shell", { command: "touch ran.txt", timeoutSec: 5 }, { signal: controller.signal });
    expect(outcome).toMatchObject({ ok: false, error: { code: "ABORTED" } });
    expect(fs.existsSync(file("ran.txt"))).toBe(false);
  });

  describe("environment", () => {
    const saved: Record<string, string | undefined> = {};
    const SECRETS = {
      NEXTAUTH_SECRET: "nextauth-secret-for-the-shell-test",
      REIN_SECRET_KEY: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
      DATABASE_URL: "file:/secret/place/rein.db",
    };
    beforeAll(() => {
      for (const [k, v] of Object.entries(SECRETS)) {
        saved[k] = process.env[k];
        process.env[k] = v;
      }
    });
    afterAll(() => {
      for (const k of Object.keys(SECRETS)) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    });

    it("contains no server secrets", async () => {
      const out = (await ok<{ output: string }>("shell", { command: "env" })).output;
      expect(out).toContain("PATH="); // env really ran
      for (const [name, value] of Object.entries(SECRETS)) {
        expect(out).not.toContain(name);
        expect(out).not.toContain(value);
      }
      expect(out).toContain(`HOME=${ws.root}`);
    });
  });

  it("refuses bad arguments", async () => {
    expect((await fails("shell", { command: "" })).code).toBe("INVALID_ARGUMENTS");
    expect((await fails("shell", { command: "true", timeoutSec: 0 })).message).toContain("timeoutSec");
    expect((await fails("shell", { cmd: "ls" })).message).toContain("command");
  });
});

describe("handoff and update_tasks", () => {
  it("hands off to an allowed agent", async () => {
    expect(
      await ok("handoff", { agent: "demo-specialist", reason: "coding" }, { agent: "demo-team", handoffs: ["demo-specialist"] }),
    ).toEqual({
      handoffTo: "demo-specialist",
      from: "demo-team",
      reason: "coding",
    });
  });

  it("refuses an agent that is not in the allowed list, naming the allowed ones", async () => {
    const err = await fails("handoff", { agent: "root-admin" }, { agent: "demo-team", handoffs: ["demo-specialist"] });
    expect(err).toEqual({ code: "HANDOFF_NOT_ALLOWED", message: 'demo-team cannot hand off to "root-admin" (allowed: demo-specialist)' });
    const none = await fails("handoff", { agent: "demo-specialist" }, { agent: "demo-coder", handoffs: [] });
    expect(none.message).toContain("allowed: none");
  });

  it("update_tasks returns the task list and refuses an unknown status", async () => {
    const tasks = [{ title: "a", status: "done" }];
    expect(await ok("update_tasks", { tasks, notes: "n" })).toEqual({ tasks, notes: "n" });
    const err = await fails("update_tasks", { tasks: [{ title: "a", status: "blocked" }] });
    expect(err.code).toBe("INVALID_ARGUMENTS");
    expect(err.message).toContain("tasks.0.status");
  });
});
