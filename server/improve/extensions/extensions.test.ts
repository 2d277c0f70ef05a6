// Extensions in the sandbox: the build, the gate, tools through their
// ToolDefinition, and what an extension's code cannot reach. The packages
// under test are hostile where it matters.
import { afterAll, describe, expect, it } from "vitest";
import { ToolError, type ToolContext } from "@/server/tools";
import { closeSandboxWorkers } from "../sandbox";
import { CSV_TOOLS_EXTENSION } from "./demo";
import { extensionToolDefinitions } from "./definition";
import { runExtensionGate } from "./gate";
import { hookSource, loadExtension, runBundle, type Registered } from "./load";
import { extensionPackage, type ExtensionPackage } from "./package";

afterAll(() => closeSandboxWorkers());

/** Short, so the timeout tests are quick; far above what the packages here need. */
const QUICK = { timeoutMs: 400 };

/** A package with one tool `echo_tool` unless told otherwise; files merged over a working index.js and test. */
function pkg(files: Record<string, string>, manifest: Partial<ExtensionPackage["manifest"]> = {}): ExtensionPackage {
  return extensionPackage({
    manifest: {
      name: "probe-ext",
      version: "0.1.0",
      description: "An extension made by a test.",
      capabilities: [],
      tools: ["echo_tool"],
      ...manifest,
    },
    files: {
      "index.js": `module.exports = { name: "probe-ext", version: "0.1.0", setup(api) {
  api.registerTool({ name: "echo_tool", description: "Returns its args as they came.", argsSchema: { type: "object" }, run: (args) => args });
} };`,
      "test/echo.test.js": `test("echoes", () => assert.deepEqual(tools.echo_tool({ a: 1 }), { a: 1 }));`,
      ...files,
    },
  });
}

async function loadProblems(p: ExtensionPackage, limits = {}): Promise<string> {
  const r = await loadExtension(p, limits);
  if (r.ok) throw new Error("expected the load to fail");
  return r.problems.join("\n");
}

const ctx = {
  runId: "run-1",
  toolCallId: "call-1",
  agent: { name: "demo", handoffs: [] },
  actorId: "u1",
  signal: new AbortController().signal,
} as unknown as ToolContext;

async function registeredOf(p: ExtensionPackage): Promise<Registered> {
  const r = await loadExtension(p);
  if (!r.ok) throw new Error(r.problems.join("; "));
  return r.registered;
}

describe("the demo extension, csv-tools", () => {
  it("passes its gate: it builds and its 3 tests pass", async () => {
    const gate = await runExtensionGate(CSV_TOOLS_EXTENSION);
    expect(gate).toMatchObject({ ok: true, passed: 3, failed: 0, untested: [], summary: "All 3 tests pass." });
    expect(gate.build.ok && gate.build.registered.skills.map((s) => s.name)).toEqual(["csv-sums"]);
  });

  it("its tool works through its ToolDefinition, arguments checked on the host", async () => {
    const [def] = extensionToolDefinitions(CSV_TOOLS_EXTENSION, await registeredOf(CSV_TOOLS_EXTENSION), {
      allowedCapabilities: async () => [],
    });
    expect(def).toMatchObject({
      name: "csv_column_sum",
      policyAlias: "extension_tool",
      replayClass: "pure",
      inputSchema: { required: ["csv", "column"] },
    });
    const args = def.args.parse({ csv: 'name,amount\n"Smith, Jane",10.5\nBob,4\n', column: "amount" });
    expect(await def.execute(args, ctx)).toEqual({ column: "amount", rows: 2, total: 14.5 });
    expect(def.args.safeParse({ csv: "a", column: "" }).success).toBe(false);
    expect(def.args.safeParse({ csv: "a", column: "a", extra: 1 }).success).toBe(false);
    const thrown = await def.execute({ csv: "a\n1\n", column: "b" }, ctx).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(ToolError);
    expect([(thrown as ToolError).code, (thrown as ToolError).message]).toEqual([
      "EXTENSION_TOOL_THREW",
      "csv_column_sum: the tool threw Error: no column b (index.js line 20, column 37)",
    ]);
  });
});

describe("the build step", () => {
  it("reports a syntax error in the package's file and line", async () => {
    const p = pkg({ "lib/bad.js": "const a = 1;\nconst = 2;\n", "index.js": `require("./lib/bad.js"); module.exports = {};` });
    expect(await loadProblems(p)).toMatch(
      /^loading the extension failed \(BAD_SOURCE\): the source does not compile: SyntaxError: .* \(lib\/bad\.js line 2, column \d+\)/,
    );
  });

  it("reports setup throwing, with where", async () => {
    const p = pkg({
      "index.js": `module.exports = { name: "probe-ext", version: "0.1.0",\n  setup(api) { throw new Error("setup broke"); } };`,
    });
    expect(await loadProblems(p)).toBe(
      "loading the extension failed (THREW): the tool threw Error: setup broke (index.js line 2, column 31)",
    );
  });

  it("refuses an index.js without setup, and names or versions that differ from the manifest", async () => {
    expect(await loadProblems(pkg({ "index.js": "module.exports = { name: 'probe-ext' };" }))).toBe(
      "loading the extension failed (THREW): the tool threw TypeError: index.js exports no setup(api) function",
    );
    const renamed = pkg({
      "index.js": `module.exports = { name: "other", version: "9.9.9", setup(api) { api.registerTool({ name: "other_tool", description: "Something else entirely.", run() {} }); } };`,
    });
    expect((await loadProblems(renamed)).split("\n")).toEqual([
      'index.js exports name "other", the manifest says "probe-ext"',
      'index.js exports version "9.9.9", the manifest says "0.1.0"',
      "setup registered the tools other_tool, the manifest lists echo_tool",
    ]);
  });

  it("refuses an argsSchema that is not an object schema, and skills and hooks that differ from the manifest", async () => {
    const p = pkg(
      {
        "index.js": `module.exports = { name: "probe-ext", version: "0.1.0", setup(api) {
  api.registerTool({ name: "echo_tool", description: "Returns its args as they came.", argsSchema: { type: "array" }, run: (a) => a });
  api.registerSkill("not a skill");
  api.on("tool.result", () => {});
} };`,
      },
      { hooks: ["run.ended"] },
    );
    const found = (await loadProblems(p)).split("\n");
    expect(found).toHaveLength(3);
    expect(found[0]).toBe('tool echo_tool: argsSchema must be an object schema ("type": "object")');
    expect(found[1]).toMatch(/^skill 1: /);
    expect(found[2]).toBe("setup listens to tool.result, the manifest lists run.ended");
  });

  it("stops a setup that never ends: TIMEOUT, not a hang", async () => {
    const p = pkg({ "index.js": `module.exports = { name: "probe-ext", version: "0.1.0", setup() { for (;;) {} } };` });
    expect(await loadProblems(p, QUICK)).toBe("loading the extension failed (TIMEOUT): the tool ran longer than 400 ms and was stopped");
  });
});

describe("require", () => {
  const requiring = (spec: string, extra: Record<string, string> = {}) =>
    pkg({ ...extra, "index.js": `require(${JSON.stringify(spec)});\nmodule.exports = {};` });

  it("loads the package's own files by relative path, .js and /index.js tried, .json parsed, other files as text", async () => {
    const p = pkg({
      "index.js": `const a = require("./lib/a"); const c = require("./lib/c"); const data = require("./data.json"); const doc = require("./README.md");
module.exports = { name: "probe-ext", version: "0.1.0", setup(api) {
  api.registerTool({ name: "echo_tool", description: [a.x, c.y, data.z, doc.trim()].join(" "), run: (args) => args });
} };`,
      "lib/a.js": `exports.x = require("../lib/b.js").x;`,
      "lib/b.js": `exports.x = "from-b";`,
      "lib/c/index.js": `module.exports = { y: "from-c" };`,
      "data.json": `{ "z": "from-json" }`,
      "README.md": "from-text\n",
    });
    expect((await registeredOf(p)).tools[0].description).toBe("from-b from-c from-json from-text");
  });

  it.each([
    ["fs", 'require("fs") in index.js: an extension may require only its own files, by a relative path'],
    ["child_process", 'require("child_process") in index.js: an extension may require only its own files'],
    ["/etc/passwd", 'require("/etc/passwd") in index.js: an extension may require only its own files'],
    ["../outside.js", 'require("../outside.js") in index.js: the path leads outside the package'],
    ["./lib/../../x.js", 'require("./lib/../../x.js") in index.js: the path leads outside the package'],
    ["./missing.js", 'require("./missing.js") in index.js: the package has no file "missing.js"'],
    ["./test/echo.test.js", 'require("./test/echo.test.js") in index.js: the package has no file "test/echo.test.js"'],
  ])("refuses require(%j) with a clear error", async (spec, expected) => {
    expect(await loadProblems(requiring(spec))).toContain(expected);
  });
});

describe("hooks", () => {
  it("calls every handler for the event in a fresh sandbox, and nothing for other events", async () => {
    const p = pkg(
      {
        "index.js": `module.exports = { name: "probe-ext", version: "0.1.0", setup(api) {
  api.registerTool({ name: "echo_tool", description: "Returns its args as they came.", run: (args) => args });
  api.on("tool.result", (e) => (e.ok ? null : "failed: " + e.tool));
  api.on("tool.result", (e) => e.durationMs > 1000 ? "slow" : "quick");
  api.on("human.decided", () => "decided");
} };`,
      },
      { hooks: ["tool.result", "human.decided"] },
    );
    expect((await registeredOf(p)).hooks).toEqual(["tool.result", "human.decided"]);
    const out = await runBundle(hookSource(p, "tool.result"), { tool: "shell", ok: false, durationMs: 5 }, {});
    expect(out).toMatchObject({ ok: true, output: ["failed: shell", "quick"] });
    expect(() => hookSource(p, "run.ended")).toThrow("the extension probe-ext does not listen to run.ended");
  });
});

describe("the gate", () => {
  it("never passes a package whose test fails, and says which and where", async () => {
    const p = pkg({
      "test/more.test.js": `test("passes", () => assert.ok(true));\ntest("fails", () => {\n  assert.equal(tools.echo_tool({ n: 1 }).n, 2);\n});`,
    });
    const gate = await runExtensionGate(p);
    expect(gate.ok).toBe(false);
    expect(gate.passed).toBe(2);
    expect(gate.failed).toBe(1);
    expect(gate.results.find((r) => !r.ok)).toMatchObject({
      file: "test/more.test.js",
      name: "fails",
      message: "AssertionError: expected 2, got 1 (at test/more.test.js line 3, column 15)",
    });
    expect(gate.summary).toBe(
      "2 of 3 tests pass; failing: test/more.test.js › fails (AssertionError: expected 2, got 1 (at test/more.test.js line 3, column 15)).",
    );
  });

  it("fails a package with a tool no passing test calls, and says so", async () => {
    const p = pkg(
      {
        "index.js": `module.exports = { name: "probe-ext", version: "0.1.0", setup(api) {
  api.registerTool({ name: "echo_tool", description: "Returns its args as they came.", run: (args) => args });
  api.registerTool({ name: "lonely_tool", description: "Nobody tests this one.", run: () => 1 });
} };`,
      },
      { tools: ["echo_tool", "lonely_tool"] },
    );
    const gate = await runExtensionGate(p);
    expect(gate).toMatchObject({ ok: false, passed: 1, failed: 0, untested: ["lonely_tool"] });
    expect(gate.summary).toBe(
      "All 1 test pass. No passing test calls lonely_tool: every tool needs at least one test that calls it through tools.<name>(args).",
    );
  });

  it("runs async tests, assert.throws on rejections, and a fake rein given to a tool", async () => {
    const p = pkg(
      {
        "index.js": `module.exports = { name: "probe-ext", version: "0.1.0", setup(api) {
  api.registerTool({ name: "echo_tool", description: "Returns the text of a workspace file.", run: async (args, rein) => {
    if (!args.path) throw new Error("path is required");
    return (await rein.readFile(args.path)).toUpperCase();
  } });
} };`,
        "test/echo.test.js": `test("reads through the rein it is given", async () => {
  const got = await tools.echo_tool({ path: "a.txt" }, { readFile: async (p) => "text of " + p });
  assert.equal(got, "TEXT OF A.TXT");
});
test("rejects without a path", async () => {
  await assert.throws(() => tools.echo_tool({}), /path is required/);
});
test("assert.throws fails when nothing throws", () => {
  let caught = null;
  try { assert.throws(() => 1); } catch (e) { caught = e.message; }
  assert.equal(caught, "expected an error, got 1");
});`,
      },
      { capabilities: ["workspace:read"] },
    );
    const gate = await runExtensionGate(p);
    expect(gate.results.filter((r) => !r.ok)).toEqual([]);
    expect(gate.ok).toBe(true);
  });

  it("stops a test that never ends as a TIMEOUT for that test alone; the others still run", async () => {
    const p = pkg({
      "test/loop.test.js": `test("loops", () => { for (;;) {} });\ntest("after the loop", () => assert.ok(tools.echo_tool({})));`,
    });
    const gate = await runExtensionGate(p, QUICK);
    expect(gate.ok).toBe(false);
    expect(gate.results.map((r) => [r.name, r.ok, r.message])).toEqual([
      ["echoes", true, "passed"],
      ["loops", false, "TIMEOUT: the tool ran longer than 400 ms and was stopped"],
      ["after the loop", true, "passed"],
    ]);
  });

  it("fails a build that fails without running any test, and a test file that defines no tests or does not load", async () => {
    const broken = await runExtensionGate(pkg({ "index.js": "module.exports = {" }));
    expect(broken).toMatchObject({ ok: false, passed: 0, failed: 0, results: [] });
    expect(broken.summary).toMatch(/^The build failed, so no test ran: loading the extension failed \(BAD_SOURCE\)/);
    const empty = await runExtensionGate(pkg({ "test/empty.test.js": "// nothing yet", "test/throws.test.js": 'require("fs");' }));
    expect(empty.ok).toBe(false);
    expect(empty.results.filter((r) => !r.ok).map((r) => [r.file, r.message])).toEqual([
      ["test/empty.test.js", "the file defines no tests: call test(name, fn) at its top level"],
      [
        "test/throws.test.js",
        expect.stringMatching(
          /^THREW: the tool threw Error: require\("fs"\) in test\/throws\.test\.js: an extension may require only its own files, by a relative path/,
        ),
      ],
    ]);
  });
});
